//! The authorization code grant with PKCE S256 as a pure state machine:
//! the client's identity (registering when none is known), the
//! authorization URL the user approves, the redirect checked (`error`,
//! `state`, RFC 9207 `iss`), and the token request's parameters.
//! [`CodeGrant::step`] takes what happened and answers what to do; it
//! sends nothing and waits for no one. The runner
//! (`OAuthClient::authorization_code`) sends the registration, shows the URL
//! through the [`AuthProvider`](super::provider::AuthProvider) and sends the
//! token request.

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, ClientId, CsrfToken, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
};

use super::http::{AuthRequest, Fetched};
use super::metadata::{self, ServerMetadata};
use super::registration::{self, Identity, KnownClients};
use super::store::ClientRegistration;
use crate::error::AuthError;

/// What happened. No `Debug`: a redirect carries a code, a registration
/// a client secret.
pub(super) enum Event {
    /// The user's step is ready to receive the redirect at `redirect_uri`.
    Begun {
        /// Where the authorization server sends the browser back.
        redirect_uri: String,
    },
    /// The registration was answered.
    Registered(Fetched),
    /// The browser came back to this URL.
    Redirected(url::Url),
}

/// What the runner is to do next. No `Debug`: the token request's
/// parameters carry the code and the PKCE verifier.
pub(super) enum Action {
    /// Send this registration and feed back its answer.
    Register(AuthRequest),
    /// Show this authorization URL to the user and feed back the redirect.
    Approve(url::Url),
    /// The grant is over here: request tokens with `params` for `client`.
    RequestToken {
        /// The client the code was issued to.
        client: ClientRegistration,
        /// The token request's parameters.
        params: Vec<(&'static str, String)>,
    },
    /// The grant failed.
    Failed(AuthError),
}

impl Event {
    /// What happened, for a message (never the redirect or the answer).
    fn name(&self) -> &'static str {
        match self {
            Event::Begun { .. } => "the user's step to begin",
            Event::Registered(_) => "a registration's answer",
            Event::Redirected(_) => "a redirect",
        }
    }
}

/// Where the grant is.
enum Stage {
    /// Waiting for the user's step to begin.
    Ready(KnownClients),
    /// Waiting for the registration's answer.
    Registering,
    /// Waiting for the redirect.
    Approving {
        client: ClientRegistration,
        state: CsrfToken,
        verifier: PkceCodeVerifier,
    },
    /// Over.
    Finished,
}

/// One authorization code grant of server `server`.
pub(super) struct CodeGrant {
    server: String,
    server_metadata: ServerMetadata,
    authorization_endpoint: url::Url,
    resource: String,
    scopes: Vec<String>,
    redirect_uri: String,
    stage: Stage,
}

impl std::fmt::Debug for CodeGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeGrant")
            .field("server", &self.server)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl CodeGrant {
    /// A grant of `scopes` for `resource` at the authorization server of
    /// `server_metadata`, by one of the `known` clients (else a new one).
    /// Refused when the server offers no PKCE with S256 or no secure
    /// authorization endpoint.
    pub(super) fn new(
        server: &str,
        server_metadata: &ServerMetadata,
        resource: &str,
        scopes: &[String],
        known: KnownClients,
    ) -> Result<Self, AuthError> {
        if !server_metadata.supports_s256() {
            return Err(AuthError::Unsupported {
                server: server.to_owned(),
                reason: "the authorization server does not offer PKCE with S256 (code_challenge_methods_supported); refusing to authorize without it".into(),
            });
        }
        let authorization_endpoint = metadata::secure_endpoint(
            server,
            server_metadata.authorization_endpoint.as_deref(),
            "authorization_endpoint",
        )?;
        Ok(Self {
            server: server.to_owned(),
            server_metadata: server_metadata.clone(),
            authorization_endpoint,
            resource: resource.to_owned(),
            scopes: scopes.to_vec(),
            redirect_uri: String::new(),
            stage: Stage::Ready(known),
        })
    }

    /// One step: what to do after `event`.
    pub(super) fn step(&mut self, event: Event) -> Action {
        match (std::mem::replace(&mut self.stage, Stage::Finished), event) {
            (Stage::Ready(known), Event::Begun { redirect_uri }) => {
                self.redirect_uri = redirect_uri;
                match registration::identity(
                    &self.server,
                    &known,
                    &self.server_metadata,
                    &self.redirect_uri,
                ) {
                    Ok(Identity::Known(client)) => self.approve(client),
                    Ok(Identity::Register(endpoint)) => {
                        match registration::registration_request(
                            &self.server,
                            endpoint,
                            &self.server_metadata,
                            &known.client_name,
                            &self.redirect_uri,
                        ) {
                            Ok(request) => {
                                self.stage = Stage::Registering;
                                Action::Register(request)
                            }
                            Err(error) => Action::Failed(error),
                        }
                    }
                    Err(error) => Action::Failed(error),
                }
            }
            (Stage::Registering, Event::Registered(fetched)) => {
                match registration::registered_client(&self.server, &fetched, &self.redirect_uri) {
                    Ok(client) => self.approve(client),
                    Err(error) => Action::Failed(error),
                }
            }
            (
                Stage::Approving {
                    client,
                    state,
                    verifier,
                },
                Event::Redirected(callback),
            ) => match check_callback(
                &self.server,
                &callback,
                state.secret(),
                &self.server_metadata,
            ) {
                Ok(code) => Action::RequestToken {
                    client,
                    params: vec![
                        ("grant_type", "authorization_code".to_owned()),
                        ("code", code),
                        ("redirect_uri", self.redirect_uri.clone()),
                        ("code_verifier", verifier.secret().clone()),
                        ("resource", self.resource.clone()),
                    ],
                },
                Err(error) => Action::Failed(error),
            },
            (_, event) => Action::Failed(AuthError::Rejected {
                server: self.server.clone(),
                reason: format!(
                    "the authorization code grant did not expect {}",
                    event.name()
                ),
            }),
        }
    }

    /// The authorization URL for `client`, with a new PKCE S256 challenge
    /// and state.
    fn approve(&mut self, client: ClientRegistration) -> Action {
        let redirect = match RedirectUrl::new(self.redirect_uri.clone()) {
            Ok(redirect) => redirect,
            Err(e) => {
                return Action::Failed(AuthError::Unsupported {
                    server: self.server.clone(),
                    reason: format!("invalid redirect URI: {e}"),
                });
            }
        };
        let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
            .set_auth_uri(AuthUrl::from_url(self.authorization_endpoint.clone()))
            .set_redirect_uri(redirect);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = oauth
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", self.resource.clone());
        if !self.scopes.is_empty() {
            request = request.add_scopes(self.scopes.iter().cloned().map(Scope::new));
        }
        let (url, state) = request.url();
        self.stage = Stage::Approving {
            client,
            state,
            verifier,
        };
        Action::Approve(url)
    }
}

/// Checks the redirect `callback` of server `server`'s authorization: no
/// `error`, the `state` sent, the issuer (RFC 9207: a present `iss` must be
/// the issuer, character for character; an absent one is refused when the
/// server advertises it). The code it carries.
fn check_callback(
    server: &str,
    callback: &url::Url,
    state: &str,
    server_metadata: &ServerMetadata,
) -> Result<String, AuthError> {
    let rejected = |reason: String| AuthError::Rejected {
        server: server.to_owned(),
        reason,
    };
    let param = |name: &str| {
        callback
            .query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if let Some(error) = param("error") {
        let description = param("error_description")
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Err(rejected(format!(
            "the authorization server answered {error}{description}"
        )));
    }
    if param("state").as_deref() != Some(state) {
        return Err(rejected("the state does not match the one sent".into()));
    }
    match param("iss") {
        Some(iss) if iss != server_metadata.issuer => {
            return Err(rejected(format!(
                "the response's issuer {iss:?} is not {:?}",
                server_metadata.issuer
            )));
        }
        None if server_metadata.authorization_response_iss_parameter_supported == Some(true) => {
            return Err(rejected(
                "the authorization server advertises the iss parameter but the response has none"
                    .into(),
            ));
        }
        _ => {}
    }
    param("code").ok_or_else(|| rejected("the redirect carries no code".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REDIRECT: &str = "http://127.0.0.1:1/callback";

    fn server_metadata() -> ServerMetadata {
        ServerMetadata {
            issuer: "https://as.example.com".into(),
            authorization_endpoint: Some("https://as.example.com/authorize".into()),
            token_endpoint: Some("https://as.example.com/token".into()),
            registration_endpoint: Some("https://as.example.com/register".into()),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            ..Default::default()
        }
    }

    fn grant(metadata: &ServerMetadata, known: KnownClients) -> CodeGrant {
        CodeGrant::new(
            "docs",
            metadata,
            "https://mcp.example.com/mcp",
            &["read".to_owned()],
            known,
        )
        .unwrap()
    }

    fn begun() -> Event {
        Event::Begun {
            redirect_uri: REDIRECT.into(),
        }
    }

    fn query(url: &url::Url, name: &str) -> Option<String> {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    }

    /// The redirect back from `url`, with `extra` parameters.
    fn redirect(url: &url::Url, extra: &[(&str, &str)]) -> Event {
        let mut callback = url::Url::parse(REDIRECT).unwrap();
        callback
            .query_pairs_mut()
            .append_pair("code", "the-code")
            .append_pair("state", &query(url, "state").unwrap());
        for (name, value) in extra {
            callback.query_pairs_mut().append_pair(name, value);
        }
        Event::Redirected(callback)
    }

    #[test]
    fn an_unknown_client_registers_then_approves_then_spends_the_code_once() {
        let metadata = server_metadata();
        let mut grant = grant(&metadata, KnownClients::default());
        let Action::Register(request) = grant.step(begun()) else {
            panic!("expected a registration");
        };
        assert_eq!(request.url.as_str(), "https://as.example.com/register");
        let answer = Fetched {
            status: 201,
            body: br#"{"client_id":"new-client"}"#.to_vec(),
            ..Default::default()
        };
        let Action::Approve(url) = grant.step(Event::Registered(answer)) else {
            panic!("expected the authorization URL");
        };
        assert_eq!(query(&url, "client_id").as_deref(), Some("new-client"));
        assert_eq!(
            query(&url, "code_challenge_method").as_deref(),
            Some("S256")
        );
        assert_eq!(query(&url, "scope").as_deref(), Some("read"));
        let Action::RequestToken { client, params } = grant.step(redirect(&url, &[])) else {
            panic!("expected the token request");
        };
        assert_eq!(client.redirect_uri.as_deref(), Some(REDIRECT));
        let verifier = params
            .iter()
            .find(|(name, _)| *name == "code_verifier")
            .map(|(_, value)| PkceCodeVerifier::new(value.clone()))
            .unwrap();
        assert_eq!(
            PkceCodeChallenge::from_code_verifier_sha256(&verifier).as_str(),
            query(&url, "code_challenge").unwrap()
        );
        // The code is spent once: the same redirect again is refused.
        assert!(matches!(
            grant.step(redirect(&url, &[])),
            Action::Failed(AuthError::Rejected { .. })
        ));
    }

    #[test]
    fn a_redirect_with_another_state_issuer_or_an_error_is_refused() {
        let mut metadata = server_metadata();
        metadata.authorization_response_iss_parameter_supported = Some(true);
        let known = KnownClients {
            configured: Some(ClientRegistration {
                client_id: "configured".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        for (extra, expected) in [
            (&[("iss", "https://evil.example.com")][..], "issuer"),
            (&[][..], "advertises the iss parameter"),
            (&[("error", "access_denied")][..], "access_denied"),
        ] {
            let mut grant = grant(&metadata, known.clone());
            let Action::Approve(url) = grant.step(begun()) else {
                panic!("a configured client approves at once");
            };
            let Action::Failed(refused) = grant.step(redirect(&url, extra)) else {
                panic!("expected a refusal for {extra:?}");
            };
            assert!(refused.to_string().contains(expected), "{refused}");
        }
        let mut grant = grant(&metadata, known);
        let Action::Approve(_) = grant.step(begun()) else {
            panic!("a configured client approves at once");
        };
        let forged = url::Url::parse(&format!(
            "{REDIRECT}?code=c&state=forged&iss=https://as.example.com"
        ))
        .unwrap();
        let Action::Failed(refused) = grant.step(Event::Redirected(forged)) else {
            panic!("expected a refusal of the forged state");
        };
        assert!(refused.to_string().contains("state"), "{refused}");
    }

    #[test]
    fn no_s256_no_grant() {
        let mut metadata = server_metadata();
        metadata.code_challenge_methods_supported = Some(vec!["plain".into()]);
        let refused = CodeGrant::new("docs", &metadata, "r", &[], KnownClients::default())
            .unwrap_err()
            .to_string();
        assert!(refused.contains("S256"), "{refused}");
    }
}
