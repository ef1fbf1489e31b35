//! Token requests: how they are sent ([`TokenSender`]: with a DPoP proof
//! when tokens are bound, under the `oauth-extensions` feature) and how
//! their answers are read (the tokens, or the authorization server's
//! refusal, masked).

#[cfg(feature = "oauth-extensions")]
use std::sync::Arc;

use mcpdisco_transport::secret::Masker;
use oauth2::basic::{BasicErrorResponse, BasicTokenResponse, BasicTokenType};
use oauth2::{RequestTokenError, TokenResponse};

#[cfg(feature = "oauth-extensions")]
use super::dpop::DpopBinding;
use super::http::AuthHttp;
use super::store::{TokenSet, now_secs};
use crate::error::AuthError;

/// Sends one server's token requests. Owned (cheap to clone), for the
/// `oauth2` crate's request futures.
#[derive(Clone)]
pub(super) struct TokenSender {
    http: AuthHttp,
    /// The DPoP binding and the server's name, when the tokens asked for
    /// are bound.
    #[cfg(feature = "oauth-extensions")]
    dpop: Option<(Arc<DpopBinding>, String)>,
}

impl TokenSender {
    /// Sends plain token requests.
    pub(super) fn new(http: AuthHttp) -> Self {
        Self {
            http,
            #[cfg(feature = "oauth-extensions")]
            dpop: None,
        }
    }

    /// Sends server `server`'s token requests with a proof of `dpop`'s key.
    #[cfg(feature = "oauth-extensions")]
    pub(super) fn bound_to(mut self, dpop: Arc<DpopBinding>, server: &str) -> Self {
        self.dpop = Some((dpop, server.to_owned()));
        self
    }

    /// Sends one token request.
    pub(super) async fn send(
        self,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, AuthError> {
        #[cfg(feature = "oauth-extensions")]
        if let Some((dpop, server)) = &self.dpop {
            return dpop.send_token_request(&self.http, server, request).await;
        }
        self.http.execute(request).await
    }
}

/// The tokens of a token response; scopes default to those requested, a
/// refresh token to the one that was used.
pub(super) fn token_set(
    response: &BasicTokenResponse,
    requested: &[String],
    previous_refresh: Option<String>,
) -> TokenSet {
    TokenSet {
        access_token: response.access_token().secret().clone(),
        token_type: match response.token_type() {
            BasicTokenType::Extension(kind) if kind.eq_ignore_ascii_case("dpop") => "DPoP".into(),
            _ => "Bearer".into(),
        },
        refresh_token: response
            .refresh_token()
            .map(|t| t.secret().clone())
            .or(previous_refresh),
        expires_at: response
            .expires_in()
            .map(|d| now_secs().saturating_add(d.as_secs())),
        scopes: response
            .scopes()
            .map(|scopes| scopes.iter().map(|s| s.to_string()).collect())
            .unwrap_or_else(|| requested.to_vec()),
    }
}

/// A failed token request (`what`: "refresh", "token request", …) of server
/// `server` as an error, its text passed through `masker`.
pub(super) fn token_error(
    server: &str,
    masker: &Masker,
    what: &str,
    error: RequestTokenError<AuthError, BasicErrorResponse>,
) -> AuthError {
    let reason = match error {
        RequestTokenError::ServerResponse(response) => {
            let description = response
                .error_description()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            format!("{what}: {}{description}", response.error().as_ref())
        }
        RequestTokenError::Request(inner) => return inner,
        RequestTokenError::Parse(error, _) => {
            format!("{what}: the token response cannot be read: {error}")
        }
        RequestTokenError::Other(reason) => format!("{what}: {reason}"),
    };
    AuthError::Refused {
        server: server.to_owned(),
        reason: masker.mask_string(reason),
    }
}
