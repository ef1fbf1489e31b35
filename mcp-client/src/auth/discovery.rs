//! Discovery for one refused request (or one refresh): which resource the
//! server is and which authorization server grants its tokens, in the order
//! the MCP specification gives (the challenge's `resource_metadata`, else
//! the well-known protected-resource URLs; before RFC 9728, the server's own
//! origin as issuer), then the authorization server's metadata, whose
//! answers [`metadata`] reads; what to do without any is
//! [`fallback`]'s.
//!
//! [`Discovery`] is a pure state machine: it answers the next URL to GET or
//! the outcome, and reads no network; [`discover`] runs it over the flow's
//! [`AuthHttp`].

use super::challenge::Challenge;
use super::fallback::{self, AuthorizationServer, authorization_base};
use super::http::{AuthHttp, AuthRequest, Fetched};
use super::metadata::{self, Answer, Lookup, ResourceMetadata, ServerMetadata};
use crate::error::AuthError;

/// What discovery found about the protected resource.
#[derive(Debug)]
pub(super) struct ProtectedResource {
    /// The resource as the server names it, verbatim (no URL
    /// normalization), else the endpoint's [canonical](canonical_resource) URL.
    pub(super) resource: String,
    /// The authorization server's issuer.
    pub(super) issuer: String,
    /// The protected-resource metadata, or the URLs that had none (a
    /// server from before RFC 9728).
    pub(super) metadata: Lookup<ResourceMetadata>,
}

/// The resource identifier of an MCP endpoint (RFC 8707, the MCP canonical
/// server URI): scheme, host, port and path; never its credentials, query
/// or fragment, which may hold secrets and must not reach an authorization
/// server.
pub fn canonical_resource(url: &url::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

/// What discovery found.
#[derive(Debug)]
pub(super) struct Discovered {
    /// The protected resource; `None` only when a refresh found its
    /// issuer's metadata at once (the resource was not asked).
    pub(super) protected: Option<ProtectedResource>,
    /// The authorization server's endpoints.
    pub(super) authorization_server: AuthorizationServer,
}

/// What happened: discovery starts, or the last GET was answered.
#[derive(Debug)]
pub(super) enum Event {
    /// The first step.
    Start,
    /// The answer to the last [`Action::Get`].
    Answered(Fetched),
}

/// What the runner is to do next.
#[derive(Debug)]
pub(super) enum Action {
    /// `GET` this URL and feed back its answer.
    Get(url::Url),
    /// Discovery is over.
    Done(Result<Box<Discovered>, AuthError>),
}

/// Where discovery is.
#[derive(Debug)]
enum Stage {
    /// Not started: the first step reads the resource's metadata (a new
    /// authorization) or the issuer's (a refresh).
    Ready {
        /// The issuer of the token to refresh, for a refresh.
        refreshing: Option<String>,
        /// The challenge's `resource_metadata`, for a new authorization.
        resource_metadata: Option<String>,
    },
    /// Reading the protected-resource metadata (RFC 9728).
    Resource {
        /// The URLs to try, in order.
        urls: Vec<url::Url>,
        /// The one asked.
        next: usize,
        /// Those that had none, with their statuses.
        tried: Vec<String>,
        /// For a refresh: the issuer and its metadata lookup, which found
        /// none (the resource decides on the default endpoints).
        refreshing: Option<(String, Lookup<ServerMetadata>)>,
    },
    /// Reading the authorization server's metadata (RFC 8414, OpenID Connect).
    Server {
        /// The issuer.
        issuer: String,
        /// The URLs to try, in order.
        urls: Vec<url::Url>,
        /// The one asked.
        next: usize,
        /// Those asked, with their statuses.
        tried: Vec<String>,
        /// What the resource said (`None` for a refresh, which reads the
        /// issuer's metadata first).
        protected: Option<ProtectedResource>,
    },
    /// Over.
    Finished,
}

/// Discovery as a pure state machine: [`Discovery::step`] takes what
/// happened and answers the next GET or the outcome; [`discover`] runs it
/// over an [`AuthHttp`].
///
/// For a new authorization: the protected-resource metadata (the
/// challenge's `resource_metadata`, else the path-based then the root
/// well-known URL, each 4xx going on to the next), the resource it names
/// checked against the endpoint, the issuer it names (else the
/// authorization base URL) checked against the credentials' issuer; then
/// the issuer's metadata (RFC 8414 then OpenID Connect URLs, each 4xx
/// going on to the next) and [`fallback::choose`]. For a refresh: the
/// issuer's metadata first, and only when it has none the resource's.
pub(super) struct Discovery {
    server: String,
    endpoint: url::Url,
    /// The issuer configured credentials belong to (`auth.issuer`), when
    /// credentials are configured: another one is refused before any
    /// request to it.
    credentials_issuer: Option<String>,
    stage: Stage,
}

impl std::fmt::Debug for Discovery {
    /// The server and the stage; not the endpoint, whose query or user
    /// part may hold a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Discovery")
            .field("server", &self.server)
            .field("stage", &self.stage)
            .finish_non_exhaustive()
    }
}

impl Discovery {
    /// Discovery for a new authorization of server `server` at `endpoint`,
    /// which refused a request with `challenge`.
    pub(super) fn authorization(
        server: &str,
        endpoint: &url::Url,
        challenge: &Challenge,
        credentials_issuer: Option<String>,
    ) -> Self {
        Self {
            server: server.to_owned(),
            endpoint: endpoint.clone(),
            credentials_issuer,
            stage: Stage::Ready {
                refreshing: None,
                resource_metadata: challenge.resource_metadata.clone(),
            },
        }
    }

    /// Discovery of the endpoints that refresh a token `issuer` granted for
    /// server `server` at `endpoint`.
    pub(super) fn refresh(server: &str, endpoint: &url::Url, issuer: &str) -> Self {
        Self {
            server: server.to_owned(),
            endpoint: endpoint.clone(),
            credentials_issuer: None,
            stage: Stage::Ready {
                refreshing: Some(issuer.to_owned()),
                resource_metadata: None,
            },
        }
    }

    /// One step: what to do after `event`.
    pub(super) fn step(&mut self, event: Event) -> Action {
        match (std::mem::replace(&mut self.stage, Stage::Finished), event) {
            (
                Stage::Ready {
                    refreshing: Some(issuer),
                    ..
                },
                Event::Start,
            ) => self.read_server(issuer, None),
            (
                Stage::Ready {
                    refreshing: None,
                    resource_metadata,
                },
                Event::Start,
            ) => {
                let urls =
                    metadata::resource_metadata_urls(&self.endpoint, resource_metadata.as_deref());
                self.read_resource(urls, None)
            }
            (
                Stage::Resource {
                    urls,
                    next,
                    mut tried,
                    refreshing,
                },
                Event::Answered(fetched),
            ) => {
                let Some(url) = urls.get(next) else {
                    return self.finished_early();
                };
                match metadata::resource_answer(&self.server, url, &fetched) {
                    Err(error) => Action::Done(Err(error)),
                    Ok(Answer::Document(document)) => {
                        self.resource_read(Lookup::Found(document), refreshing)
                    }
                    Ok(Answer::Missing) => {
                        tried.push(metadata::tried_entry(url, fetched.status));
                        if next + 1 < urls.len() {
                            let url = urls[next + 1].clone();
                            self.stage = Stage::Resource {
                                urls,
                                next: next + 1,
                                tried,
                                refreshing,
                            };
                            Action::Get(url)
                        } else {
                            self.resource_read(Lookup::Absent { tried }, refreshing)
                        }
                    }
                }
            }
            (
                Stage::Server {
                    issuer,
                    urls,
                    next,
                    mut tried,
                    protected,
                },
                Event::Answered(fetched),
            ) => {
                let Some(url) = urls.get(next) else {
                    return self.finished_early();
                };
                tried.push(metadata::tried_entry(url, fetched.status));
                match metadata::server_answer(&self.server, &issuer, url, &fetched, &tried) {
                    Err(error) => Action::Done(Err(error)),
                    Ok(Answer::Document(document)) => {
                        self.server_read(issuer, Lookup::Found(document), protected)
                    }
                    Ok(Answer::Missing) if next + 1 < urls.len() => {
                        let url = urls[next + 1].clone();
                        self.stage = Stage::Server {
                            issuer,
                            urls,
                            next: next + 1,
                            tried,
                            protected,
                        };
                        Action::Get(url)
                    }
                    Ok(Answer::Missing) => {
                        self.server_read(issuer, Lookup::Absent { tried }, protected)
                    }
                }
            }
            (stage @ Stage::Ready { .. }, Event::Answered(_))
            | (stage @ (Stage::Resource { .. } | Stage::Server { .. }), Event::Start) => {
                // Out of order: nothing changes.
                self.stage = stage;
                Action::Done(Err(
                    self.discovery_error("discovery was driven out of order")
                ))
            }
            (Stage::Finished, _) => self.finished_early(),
        }
    }

    fn discovery_error(&self, reason: &str) -> AuthError {
        AuthError::Discovery {
            server: self.server.clone(),
            reason: reason.to_owned(),
        }
    }

    fn finished_early(&self) -> Action {
        Action::Done(Err(self.discovery_error("discovery is over")))
    }

    /// Starts reading the protected-resource metadata at `urls`.
    fn read_resource(
        &mut self,
        urls: Vec<url::Url>,
        refreshing: Option<(String, Lookup<ServerMetadata>)>,
    ) -> Action {
        let Some(first) = urls.first().cloned() else {
            return self.resource_read(Lookup::Absent { tried: Vec::new() }, refreshing);
        };
        self.stage = Stage::Resource {
            urls,
            next: 0,
            tried: Vec::new(),
            refreshing,
        };
        Action::Get(first)
    }

    /// Starts reading `issuer`'s metadata.
    fn read_server(&mut self, issuer: String, protected: Option<ProtectedResource>) -> Action {
        let issuer_url = match metadata::issuer_url(&self.server, &issuer) {
            Ok(url) => url,
            Err(error) => return Action::Done(Err(error)),
        };
        let urls = metadata::server_metadata_urls(&issuer_url);
        let Some(first) = urls.first().cloned() else {
            return self.server_read(issuer, Lookup::Absent { tried: Vec::new() }, protected);
        };
        self.stage = Stage::Server {
            issuer,
            urls,
            next: 0,
            tried: Vec::new(),
            protected,
        };
        Action::Get(first)
    }

    /// The resource's metadata is read: the resource and issuer it names,
    /// then the issuer's metadata (or, refreshing, the endpoints).
    fn resource_read(
        &mut self,
        lookup: Lookup<ResourceMetadata>,
        refreshing: Option<(String, Lookup<ServerMetadata>)>,
    ) -> Action {
        let protected = match protected_resource(&self.server, &self.endpoint, lookup) {
            Ok(protected) => protected,
            Err(error) => return Action::Done(Err(error)),
        };
        if let Some((issuer, server_lookup)) = refreshing {
            return self.choose(&issuer, protected, server_lookup);
        }
        if let Some(expected) = &self.credentials_issuer
            && *expected != protected.issuer
        {
            return Action::Done(Err(foreign_issuer(
                &self.server,
                &protected.issuer,
                expected,
            )));
        }
        let issuer = protected.issuer.clone();
        self.read_server(issuer, Some(protected))
    }

    /// The issuer's metadata is read (or found absent).
    fn server_read(
        &mut self,
        issuer: String,
        lookup: Lookup<ServerMetadata>,
        protected: Option<ProtectedResource>,
    ) -> Action {
        match (protected, lookup) {
            (None, Lookup::Found(metadata)) => Action::Done(Ok(Box::new(Discovered {
                protected: None,
                authorization_server: AuthorizationServer {
                    metadata,
                    fallback: None,
                },
            }))),
            (None, absent @ Lookup::Absent { .. }) => {
                let urls = metadata::resource_metadata_urls(&self.endpoint, None);
                self.read_resource(urls, Some((issuer, absent)))
            }
            (Some(protected), lookup) => self.choose(&issuer, protected, lookup),
        }
    }

    /// The endpoints: the metadata found, else the default ones where
    /// [`fallback::choose`] allows them.
    fn choose(
        &mut self,
        issuer: &str,
        protected: ProtectedResource,
        lookup: Lookup<ServerMetadata>,
    ) -> Action {
        let result = fallback::choose(&self.endpoint, issuer, &protected.metadata, lookup)
            .map(|authorization_server| {
                Box::new(Discovered {
                    protected: Some(protected),
                    authorization_server,
                })
            })
            .map_err(|none| metadata::no_server_metadata(&self.server, issuer, &none.tried));
        Action::Done(result)
    }
}

/// What the protected resource's metadata `lookup` says for server
/// `server` at `endpoint`: the resource it names (which must be the
/// endpoint or a parent of it), else the endpoint; the first authorization
/// server it names, else (before RFC 9728) the authorization base URL.
fn protected_resource(
    server: &str,
    endpoint: &url::Url,
    lookup: Lookup<ResourceMetadata>,
) -> Result<ProtectedResource, AuthError> {
    let found = lookup.found();
    let resource = match found.and_then(|m| m.resource.as_ref()) {
        Some(named) if metadata::resource_matches(named, endpoint) => named.clone(),
        Some(named) => {
            return Err(AuthError::Discovery {
                server: server.to_owned(),
                reason: format!(
                    "the protected resource metadata is for {named}, not this server; no token is requested for it"
                ),
            });
        }
        None => canonical_resource(endpoint),
    };
    let issuer = match found.and_then(|m| m.authorization_servers.first()) {
        Some(issuer) => issuer.clone(),
        // Before RFC 9728 (2025-03-26): the authorization base URL.
        None => authorization_base(endpoint),
    };
    Ok(ProtectedResource {
        resource,
        issuer,
        metadata: lookup,
    })
}

/// The refusal to send the credentials configured for `expected` (their
/// `auth.issuer`) to `issuer`, another authorization server.
pub(super) fn foreign_issuer(server: &str, issuer: &str, expected: &str) -> AuthError {
    AuthError::Unsupported {
        server: server.to_owned(),
        reason: format!(
            "the server names the authorization server {issuer}, but the configured credentials belong to {expected} (auth.issuer); they are not sent"
        ),
    }
}

/// Runs `discovery` over `http`: each GET it asks for, until it is done.
pub(super) async fn discover(
    http: &dyn AuthHttp,
    mut discovery: Discovery,
) -> Result<Discovered, AuthError> {
    let mut event = Event::Start;
    loop {
        match discovery.step(event) {
            Action::Get(url) => event = Event::Answered(http.send(AuthRequest::get(url)).await?),
            Action::Done(result) => return result.map(|discovered| *discovered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENDPOINT: &str = "http://127.0.0.1:3000/v1/mcp";
    const ISSUER: &str = "http://127.0.0.1:4000/tenant";

    fn endpoint() -> url::Url {
        url::Url::parse(ENDPOINT).unwrap()
    }

    fn answer(status: u16, body: &str) -> Event {
        Event::Answered(Fetched {
            status,
            body: body.as_bytes().to_vec(),
            ..Default::default()
        })
    }

    fn resource_document(resource: &str, issuer: &str) -> String {
        format!(r#"{{"resource":"{resource}","authorization_servers":["{issuer}"]}}"#)
    }

    fn server_document(issuer: &str) -> String {
        format!(r#"{{"issuer":"{issuer}","token_endpoint":"{issuer}/token"}}"#)
    }

    /// The URL a step asks for (panics on an outcome).
    fn get(action: Action) -> String {
        match action {
            Action::Get(url) => url.to_string(),
            Action::Done(outcome) => panic!("expected a GET, got {outcome:?}"),
        }
    }

    fn done(action: Action) -> Result<Discovered, AuthError> {
        match action {
            Action::Done(outcome) => outcome.map(|discovered| *discovered),
            Action::Get(url) => panic!("expected the outcome, got a GET of {url}"),
        }
    }

    #[test]
    fn the_challenges_resource_metadata_url_is_read_alone() {
        let challenge = Challenge {
            resource_metadata: Some("http://127.0.0.1:3000/meta/prm".into()),
            ..Default::default()
        };
        let mut discovery = Discovery::authorization("docs", &endpoint(), &challenge, None);
        assert_eq!(
            get(discovery.step(Event::Start)),
            "http://127.0.0.1:3000/meta/prm"
        );
        // Nothing there: no well-known URL is tried; the origin is the issuer.
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:3000/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn well_known_urls_then_rfc_8414_then_openid_connect() {
        let mut discovery =
            Discovery::authorization("docs", &endpoint(), &Challenge::default(), None);
        assert_eq!(
            get(discovery.step(Event::Start)),
            "http://127.0.0.1:3000/.well-known/oauth-protected-resource/v1/mcp"
        );
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:3000/.well-known/oauth-protected-resource"
        );
        let document = resource_document(ENDPOINT, ISSUER);
        assert_eq!(
            get(discovery.step(answer(200, &document))),
            "http://127.0.0.1:4000/.well-known/oauth-authorization-server/tenant"
        );
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:4000/.well-known/openid-configuration/tenant"
        );
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:4000/tenant/.well-known/openid-configuration"
        );
        let found = done(discovery.step(answer(200, &server_document(ISSUER)))).unwrap();
        let protected = found.protected.unwrap();
        assert_eq!(protected.resource, ENDPOINT);
        assert_eq!(protected.issuer, ISSUER);
        assert!(found.authorization_server.fallback.is_none());
        assert_eq!(
            found
                .authorization_server
                .metadata
                .token_endpoint
                .as_deref(),
            Some("http://127.0.0.1:4000/tenant/token")
        );
        assert!(matches!(
            discovery.step(Event::Start),
            Action::Done(Err(AuthError::Discovery { .. }))
        ));
    }

    #[test]
    fn without_any_metadata_the_default_endpoints_are_chosen() {
        let mut discovery =
            Discovery::authorization("docs", &endpoint(), &Challenge::default(), None);
        get(discovery.step(Event::Start));
        get(discovery.step(answer(404, "")));
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:3000/.well-known/oauth-authorization-server"
        );
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:3000/.well-known/openid-configuration"
        );
        let found = done(discovery.step(answer(404, ""))).unwrap();
        let server = found.authorization_server;
        assert!(server.fallback.is_some());
        assert_eq!(
            server.metadata.registration_endpoint.as_deref(),
            Some("http://127.0.0.1:3000/register")
        );
    }

    #[test]
    fn metadata_for_another_resource_or_issuer_is_refused() {
        let mut discovery =
            Discovery::authorization("docs", &endpoint(), &Challenge::default(), None);
        get(discovery.step(Event::Start));
        let foreign = resource_document("http://127.0.0.1:3000/other", ISSUER);
        let refused = done(discovery.step(answer(200, &foreign))).unwrap_err();
        assert!(refused.to_string().contains("not this server"), "{refused}");

        let mut discovery =
            Discovery::authorization("docs", &endpoint(), &Challenge::default(), None);
        get(discovery.step(Event::Start));
        get(discovery.step(answer(200, &resource_document(ENDPOINT, ISSUER))));
        let impostor = server_document("http://127.0.0.1:4000/other");
        let refused = done(discovery.step(answer(200, &impostor))).unwrap_err();
        assert!(refused.to_string().contains("names issuer"), "{refused}");
    }

    #[test]
    fn a_server_error_ends_discovery() {
        let mut discovery =
            Discovery::authorization("docs", &endpoint(), &Challenge::default(), None);
        get(discovery.step(Event::Start));
        let refused = done(discovery.step(answer(503, ""))).unwrap_err();
        assert!(refused.to_string().contains("HTTP 503"), "{refused}");
    }

    #[test]
    fn credentials_never_meet_another_issuer() {
        let mut discovery = Discovery::authorization(
            "docs",
            &endpoint(),
            &Challenge::default(),
            Some("https://mine.example.com".into()),
        );
        get(discovery.step(Event::Start));
        let refused =
            done(discovery.step(answer(200, &resource_document(ENDPOINT, ISSUER)))).unwrap_err();
        assert!(refused.to_string().contains("auth.issuer"), "{refused}");
    }

    #[test]
    fn a_refresh_reads_the_issuer_first_and_the_resource_only_without_metadata() {
        let mut discovery = Discovery::refresh("docs", &endpoint(), ISSUER);
        assert_eq!(
            get(discovery.step(Event::Start)),
            "http://127.0.0.1:4000/.well-known/oauth-authorization-server/tenant"
        );
        let found = done(discovery.step(answer(200, &server_document(ISSUER)))).unwrap();
        assert!(found.protected.is_none());

        // A token of the 2025-03-26 default endpoints.
        let base = "http://127.0.0.1:3000";
        let mut discovery = Discovery::refresh("docs", &endpoint(), base);
        get(discovery.step(Event::Start));
        get(discovery.step(answer(404, "")));
        assert_eq!(
            get(discovery.step(answer(404, ""))),
            "http://127.0.0.1:3000/.well-known/oauth-protected-resource/v1/mcp"
        );
        get(discovery.step(answer(404, "")));
        let found = done(discovery.step(answer(404, ""))).unwrap();
        assert_eq!(
            found
                .authorization_server
                .metadata
                .token_endpoint
                .as_deref(),
            Some("http://127.0.0.1:3000/token")
        );
    }

    #[test]
    fn the_canonical_resource_keeps_no_credentials_query_or_fragment() {
        let url = url::Url::parse("https://user:secret@example.com:8443/mcp?key=1#top").unwrap();
        assert_eq!(canonical_resource(&url), "https://example.com:8443/mcp");
    }

    #[test]
    fn the_authorization_base_is_the_origin_without_the_path() {
        let url = url::Url::parse("https://user:secret@api.example.com/v1/mcp?key=1").unwrap();
        assert_eq!(authorization_base(&url), "https://api.example.com");
        let local = url::Url::parse("http://localhost:3000/mcp").unwrap();
        assert_eq!(authorization_base(&local), "http://localhost:3000");
    }
}
