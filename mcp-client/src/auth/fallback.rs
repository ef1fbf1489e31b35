//! Where the authorization server's endpoints come from: its metadata, or,
//! for a server from before metadata discovery, the default paths of the
//! 2025-03-26 authorization specification ("Fallbacks for Servers without
//! Metadata Discovery"): `/authorize`, `/token` and `/register` at the
//! authorization base URL (the MCP server URL without its path).
//!
//! The default paths are used only when no metadata exists at all: no
//! protected-resource metadata (RFC 9728) and no authorization-server
//! metadata (RFC 8414, OpenID Connect) for the base URL. Metadata found
//! anywhere is followed, and a server that names an authorization server
//! without metadata is an error, as before.

use super::metadata::{Lookup, ResourceMetadata, ServerMetadata};
use crate::error::AuthError;

/// The 2025-03-26 authorization base URL of an MCP endpoint: its origin,
/// the path discarded (`https://api.example.com/v1/mcp` →
/// `https://api.example.com`). The issuer of a server without
/// protected-resource metadata.
pub(super) fn authorization_base(endpoint: &url::Url) -> String {
    endpoint.origin().ascii_serialization()
}

/// The default endpoint paths, relative to the authorization base URL.
const AUTHORIZE_PATH: &str = "/authorize";
const TOKEN_PATH: &str = "/token";
const REGISTER_PATH: &str = "/register";

/// The authorization server's endpoints, and whether they are the default
/// paths.
#[derive(Debug, Clone)]
pub(super) struct AuthorizationServer {
    /// Its metadata: fetched, or made of the default paths.
    pub(super) metadata: ServerMetadata,
    /// For the default paths, what was looked up in vain (for messages);
    /// `None` when the metadata was fetched.
    pub(super) fallback: Option<String>,
}

impl AuthorizationServer {
    /// `error` of a flow that used these endpoints, saying, for the default
    /// paths, that no metadata was found and which endpoints were guessed.
    pub(super) fn explain(&self, error: AuthError) -> AuthError {
        match &self.fallback {
            Some(note) => error.with_note(note),
            None => error,
        }
    }
}

/// The discovery decision for the MCP server at `endpoint`, whose
/// authorization server is `issuer`: the metadata `server_metadata` found;
/// else, when `resource_metadata` found none either and `issuer` is the
/// authorization base URL, the default endpoints; else the reason there
/// are no endpoints.
pub(super) fn choose(
    endpoint: &url::Url,
    issuer: &str,
    resource_metadata: &Lookup<ResourceMetadata>,
    server_metadata: Lookup<ServerMetadata>,
) -> Result<AuthorizationServer, NoEndpoints> {
    let server_tried = match server_metadata {
        Lookup::Found(metadata) => {
            return Ok(AuthorizationServer {
                metadata,
                fallback: None,
            });
        }
        Lookup::Absent { tried } => tried,
    };
    let base = authorization_base(endpoint);
    match resource_metadata {
        Lookup::Absent {
            tried: resource_tried,
        } if issuer == base => {
            let metadata = default_endpoints(&base);
            let note = format!(
                "no protected resource metadata (tried {}) and no authorization server metadata (tried {}), so the 2025-03-26 default endpoints were used: {}, {}, {}",
                list(resource_tried),
                list(&server_tried),
                metadata
                    .authorization_endpoint
                    .as_deref()
                    .unwrap_or_default(),
                metadata.token_endpoint.as_deref().unwrap_or_default(),
                metadata
                    .registration_endpoint
                    .as_deref()
                    .unwrap_or_default(),
            );
            Ok(AuthorizationServer {
                metadata,
                fallback: Some(note),
            })
        }
        _ => Err(NoEndpoints {
            tried: server_tried,
        }),
    }
}

/// Why [`choose`] found no endpoints: the issuer has no metadata, and the
/// default paths do not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NoEndpoints {
    /// The authorization-server metadata URLs tried, with their statuses.
    pub(super) tried: Vec<String>,
}

/// The metadata of the default endpoints at authorization base URL `base`
/// (an origin, without a trailing slash). PKCE with S256 is taken as
/// offered: the 2025-03-26 specification requires PKCE of every client
/// (OAuth 2.1), and there is no document to say so.
pub(super) fn default_endpoints(base: &str) -> ServerMetadata {
    ServerMetadata {
        issuer: base.to_owned(),
        authorization_endpoint: Some(format!("{base}{AUTHORIZE_PATH}")),
        token_endpoint: Some(format!("{base}{TOKEN_PATH}")),
        registration_endpoint: Some(format!("{base}{REGISTER_PATH}")),
        code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
        ..ServerMetadata::default()
    }
}

/// `tried` for a message: comma separated, or `nothing`.
fn list(tried: &[String]) -> String {
    if tried.is_empty() {
        "nothing".to_owned()
    } else {
        tried.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> url::Url {
        url::Url::parse("http://127.0.0.1:3000/v1/mcp").unwrap()
    }

    fn absent<T>(urls: &[&str]) -> Lookup<T> {
        Lookup::Absent {
            tried: urls.iter().map(|u| format!("{u} (HTTP 404)")).collect(),
        }
    }

    fn server_metadata(issuer: &str) -> ServerMetadata {
        ServerMetadata {
            issuer: issuer.to_owned(),
            token_endpoint: Some(format!("{issuer}/oauth/token")),
            ..ServerMetadata::default()
        }
    }

    const BASE: &str = "http://127.0.0.1:3000";

    #[test]
    fn without_any_metadata_the_default_endpoints_at_the_origin_are_used() {
        let chosen = choose(
            &endpoint(),
            BASE,
            &absent(&["http://127.0.0.1:3000/.well-known/oauth-protected-resource/v1/mcp"]),
            absent(&["http://127.0.0.1:3000/.well-known/oauth-authorization-server"]),
        )
        .unwrap();
        let metadata = &chosen.metadata;
        assert_eq!(metadata.issuer, BASE);
        assert_eq!(
            metadata.authorization_endpoint.as_deref(),
            Some("http://127.0.0.1:3000/authorize")
        );
        assert_eq!(
            metadata.token_endpoint.as_deref(),
            Some("http://127.0.0.1:3000/token")
        );
        assert_eq!(
            metadata.registration_endpoint.as_deref(),
            Some("http://127.0.0.1:3000/register")
        );
        assert!(metadata.supports_s256());
        let note = chosen.fallback.unwrap();
        for named in [
            "/.well-known/oauth-protected-resource/v1/mcp (HTTP 404)",
            "/.well-known/oauth-authorization-server (HTTP 404)",
            "http://127.0.0.1:3000/register",
            "2025-03-26",
        ] {
            assert!(note.contains(named), "{note}");
        }
    }

    #[test]
    fn authorization_server_metadata_is_used_wherever_it_is_found() {
        for resource in [
            absent(&["http://127.0.0.1:3000/.well-known/oauth-protected-resource"]),
            Lookup::Found(ResourceMetadata::default()),
        ] {
            let chosen = choose(
                &endpoint(),
                BASE,
                &resource,
                Lookup::Found(server_metadata(BASE)),
            )
            .unwrap();
            assert!(chosen.fallback.is_none());
            assert_eq!(
                chosen.metadata.token_endpoint.as_deref(),
                Some("http://127.0.0.1:3000/oauth/token")
            );
        }
    }

    #[test]
    fn protected_resource_metadata_without_server_metadata_is_an_error() {
        let resource = Lookup::Found(ResourceMetadata {
            authorization_servers: vec!["https://as.example.com".into()],
            ..ResourceMetadata::default()
        });
        let tried = ["https://as.example.com/.well-known/oauth-authorization-server"];
        let refused = choose(
            &endpoint(),
            "https://as.example.com",
            &resource,
            absent(&tried),
        )
        .unwrap_err();
        assert_eq!(refused.tried, vec![format!("{} (HTTP 404)", tried[0])]);
        // Metadata naming no authorization server (the origin as issuer) is
        // still metadata: no default endpoints.
        let bare = Lookup::Found(ResourceMetadata::default());
        assert!(choose(&endpoint(), BASE, &bare, absent(&tried)).is_err());
    }

    #[test]
    fn the_default_endpoints_are_only_for_the_authorization_base() {
        // A token issued by another issuer is never refreshed at this origin.
        let resource = absent(&["http://127.0.0.1:3000/.well-known/oauth-protected-resource"]);
        let other = "https://as.example.com";
        assert!(choose(&endpoint(), other, &resource, absent(&[other])).is_err());
    }

    #[test]
    fn a_flow_error_on_default_endpoints_says_so() {
        let chosen = choose(&endpoint(), BASE, &absent(&[]), absent(&[])).unwrap();
        let error = chosen.explain(AuthError::Refused {
            server: "legacy".into(),
            reason: "client registration: HTTP 404: Not Found".into(),
        });
        let text = error.to_string();
        assert!(text.starts_with("server 'legacy': "), "{text}");
        assert!(text.contains("client registration: HTTP 404"), "{text}");
        assert!(text.contains("tried nothing"), "{text}");
        assert!(text.contains("http://127.0.0.1:3000/authorize"), "{text}");
        let fetched = AuthorizationServer {
            metadata: server_metadata(BASE),
            fallback: None,
        };
        let plain = fetched.explain(AuthError::Required {
            server: "legacy".into(),
        });
        assert!(matches!(plain, AuthError::Required { .. }));
    }
}
