//! What authorization a build has, and what it says about what it lacks:
//! [`AuthFeature`] names the cargo features of this crate that authorization
//! needs, and [`missing_oauth_layer`] is the policy of a build without
//! `oauth`, under which a server's refusal says that the feature is missing
//! rather than only "HTTP 401".

use mcpdisco_transport::{Delivery, TransportError};
use tower::util::MapErrLayer;

use crate::error::{AuthError, ErrorKind, SessionError};

/// A cargo feature of this crate that authorization needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthFeature {
    /// `oauth`: OAuth 2.1 itself (the authorization code and client
    /// credentials grants, refresh, discovery, registration, the token store).
    OAuth,
    /// `oauth-extensions`: DPoP, `private_key_jwt` client authentication, the
    /// JWT bearer grant and enterprise-managed authorization.
    OAuthExtensions,
}

impl AuthFeature {
    /// The feature's name in `Cargo.toml`.
    pub fn cargo_name(self) -> &'static str {
        match self {
            AuthFeature::OAuth => "oauth",
            AuthFeature::OAuthExtensions => "oauth-extensions",
        }
    }

    /// Whether this build has it.
    pub fn is_enabled(self) -> bool {
        match self {
            AuthFeature::OAuth => cfg!(feature = "oauth"),
            AuthFeature::OAuthExtensions => cfg!(feature = "oauth-extensions"),
        }
    }

    /// `Ok` when this build has the feature; otherwise the error of server
    /// `server` needing it for `what` (a noun phrase: "the JWT bearer grant").
    pub fn require(self, server: &str, what: &str) -> Result<(), AuthError> {
        if self.is_enabled() {
            Ok(())
        } else {
            Err(self.missing(server, what))
        }
    }

    /// The error of server `server` needing this feature for `what`.
    pub fn missing(self, server: &str, what: &str) -> AuthError {
        AuthError::Unsupported {
            server: server.to_owned(),
            reason: format!(
                "{what} needs the cargo feature `{}` of mcpdisco-client, which this build was compiled without",
                self.cargo_name()
            ),
        }
    }
}

/// The layer [`missing_oauth_layer`] makes: a `tower::Layer` over a
/// session's request service.
pub type MissingOAuthLayer = MapErrLayer<fn(SessionError) -> SessionError>;

/// The authorization policy of a build without `oauth`: a request the server
/// refuses for want of credentials (HTTP 401, or 403 with a `Bearer`
/// challenge) fails with an [`AuthError`] naming the server and the missing
/// feature. Other errors pass unchanged.
pub fn missing_oauth_layer() -> MissingOAuthLayer {
    MapErrLayer::new(name_missing_oauth as fn(SessionError) -> SessionError)
}

/// A refusal as the error of a build without `oauth`.
fn name_missing_oauth(error: SessionError) -> SessionError {
    let ErrorKind::Transport(TransportError::Unauthorized { status, .. }) = error.kind() else {
        return error;
    };
    let what = format!("answering the server's demand for authorization (HTTP {status})");
    let missing = AuthFeature::OAuth.missing(error.server(), &what);
    SessionError::new(error.server(), error.operation(), ErrorKind::Auth(missing))
        .with_delivery(Delivery::Answered)
}

#[cfg(test)]
mod tests {
    use mcpdisco_protocol::method::RequestMethod;
    use mcpdisco_protocol::methods::ListTools;
    use tower::{Layer, ServiceExt};

    use super::*;
    use crate::request::{McpRequest, RequestOptions, RequestService, ResponseFuture};

    fn failing_with(error: fn() -> SessionError) -> RequestService {
        RequestService::from_fn(move |_| Box::pin(async move { Err(error()) }) as ResponseFuture)
    }

    async fn call(service: RequestService) -> SessionError {
        let wrapped = RequestService::new(missing_oauth_layer().layer(service));
        let request =
            McpRequest::typed::<ListTools>(&Default::default(), RequestOptions::default()).unwrap();
        match wrapped.oneshot(request).await {
            Ok(_) => panic!("the request should fail"),
            Err(error) => error,
        }
    }

    #[tokio::test]
    async fn a_refusal_names_the_server_and_the_missing_feature() {
        let error = call(failing_with(|| {
            SessionError::from_transport(
                "docs",
                ListTools::METHOD,
                TransportError::Unauthorized {
                    server: "docs".into(),
                    status: 401,
                    challenge: Some("Bearer".into()),
                    dpop_nonce: None,
                },
            )
        }))
        .await;
        let ErrorKind::Auth(auth) = error.kind() else {
            panic!("not an authorization error: {error}");
        };
        let text = auth.to_string();
        assert!(text.contains("server 'docs'"), "{text}");
        assert!(text.contains("`oauth`"), "{text}");
        assert!(text.contains("HTTP 401"), "{text}");
        assert_eq!(error.operation(), ListTools::METHOD);
    }

    #[tokio::test]
    async fn other_errors_pass_unchanged() {
        let error = call(failing_with(|| {
            SessionError::new("docs", ListTools::METHOD, ErrorKind::Closed)
        }))
        .await;
        assert!(matches!(error.kind(), ErrorKind::Closed), "{error}");
    }

    #[test]
    fn each_feature_knows_whether_it_is_built() {
        assert_eq!(AuthFeature::OAuth.is_enabled(), cfg!(feature = "oauth"));
        assert_eq!(
            AuthFeature::OAuthExtensions.require("s", "x").is_ok(),
            cfg!(feature = "oauth-extensions")
        );
        let missing = AuthFeature::OAuthExtensions
            .missing("s", "DPoP")
            .to_string();
        assert!(missing.contains("`oauth-extensions`"), "{missing}");
    }
}
