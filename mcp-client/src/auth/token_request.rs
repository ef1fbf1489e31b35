//! The token request, one for every grant (authorization code, client
//! credentials, refresh, JWT bearer, enterprise): [`OAuthClient::request_token`]
//! builds the form with the client's authentication (HTTP Basic, the secret
//! in the form, or a `private_key_jwt` assertion), sends it (with a DPoP
//! proof when tokens are bound, under `oauth-extensions`), reads the
//! authorization server's refusal (masked) or its [`TokenAnswer`], which
//! becomes the [`TokenSet`].

use serde::Deserialize;

use super::challenge::split_scopes;
use super::client::OAuthClient;
use super::client_auth::{self, ClientAuth};
use super::http::{AuthRequest, Fetched};
use super::metadata::ServerMetadata;
use super::settings::AuthSettings;
use super::store::{ClientRegistration, TokenSet, now_secs};
use crate::error::AuthError;
use mcpdisco_transport::secret::Masker;

/// How a token request authenticates the client.
#[derive(Debug, Clone, Copy)]
pub(super) enum ClientAuthentication<'a> {
    /// Not at all: the grant's parameters say who the client is, if anyone
    /// (the JWT bearer grant, the identity provider's token exchange).
    #[cfg(feature = "oauth-extensions")]
    Omitted,
    /// As `client` at the authorization server of `server_metadata`, by the
    /// method [`ClientAuth::choose`] picks.
    Registered {
        /// The client.
        client: &'a ClientRegistration,
        /// The authorization server's metadata (its methods, its issuer as
        /// an assertion's audience).
        server_metadata: &'a ServerMetadata,
    },
}

/// One token request.
#[derive(Debug)]
pub(super) struct TokenRequest<'a> {
    /// What it is, for messages: "token request", "refresh", ….
    pub(super) what: &'static str,
    /// The token endpoint.
    pub(super) endpoint: url::Url,
    /// The grant's parameters (`grant_type` first).
    pub(super) params: Vec<(&'static str, String)>,
    /// How the client authenticates.
    pub(super) client: ClientAuthentication<'a>,
}

/// A token endpoint's answer (RFC 6749 §5.1, RFC 8693 §2.2).
#[derive(Deserialize)]
pub(super) struct TokenAnswer {
    /// The token (for a token exchange, the token issued).
    pub(super) access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    /// What a token exchange issued (RFC 8693).
    #[cfg(feature = "oauth-extensions")]
    #[serde(default)]
    pub(super) issued_token_type: Option<String>,
}

impl TokenAnswer {
    /// The tokens of the answer; scopes default to those `requested`, a
    /// refresh token to the `previous_refresh` one that was used.
    pub(super) fn into_token_set(
        self,
        requested: &[String],
        previous_refresh: Option<String>,
    ) -> TokenSet {
        TokenSet {
            token_type: match self.token_type.as_deref() {
                Some(kind) if kind.eq_ignore_ascii_case("dpop") => "DPoP".into(),
                _ => "Bearer".into(),
            },
            access_token: self.access_token,
            refresh_token: self.refresh_token.or(previous_refresh),
            expires_at: self
                .expires_in
                .map(|seconds| now_secs().saturating_add(seconds)),
            scopes: self
                .scope
                .map(|scope| split_scopes(&scope))
                .unwrap_or_else(|| requested.to_vec()),
        }
    }
}

/// A token endpoint's error (RFC 6749 §5.2).
#[derive(Deserialize)]
struct TokenRefusal {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// The HTTP request of `request` for server `server`: the grant's
/// parameters, then the client's authentication; a `private_key_jwt`
/// assertion is signed with `settings`' key.
pub(super) fn token_form(
    server: &str,
    settings: &AuthSettings,
    request: &TokenRequest<'_>,
) -> Result<AuthRequest, AuthError> {
    let mut params = request.params.clone();
    let authorization = match request.client {
        #[cfg(feature = "oauth-extensions")]
        ClientAuthentication::Omitted => None,
        ClientAuthentication::Registered {
            client,
            server_metadata,
        } => {
            let method =
                ClientAuth::choose(client, settings.private_key.is_some(), server_metadata);
            let credentials = client_auth::credentials(client, method);
            params.extend(credentials.params);
            params.extend(client_auth::assertion_params(
                server,
                settings,
                method,
                client,
                server_metadata,
            )?);
            credentials.authorization
        }
    };
    let mut form = AuthRequest::post_form(request.endpoint.clone(), &params);
    if let Some(value) = authorization {
        form.set_header("authorization", value);
    }
    Ok(form)
}

/// The answer `fetched` to token request `what` of server `server`: the
/// tokens, or the refusal as an error, its text passed through `masker`.
pub(super) fn read_answer(
    server: &str,
    masker: &Masker,
    what: &str,
    fetched: &Fetched,
) -> Result<TokenAnswer, AuthError> {
    let refused = |reason: String| AuthError::Refused {
        server: server.to_owned(),
        reason: masker.mask_string(reason),
    };
    if !fetched.is_success() {
        let reason = match fetched.json::<TokenRefusal>() {
            Ok(refusal) => format!(
                "{what}: {}{}",
                refusal.error,
                refusal
                    .error_description
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
            Err(_) => format!("{what}: HTTP {}: {}", fetched.status, fetched.preview()),
        };
        return Err(refused(reason));
    }
    serde_json::from_slice::<TokenAnswer>(&fetched.body)
        .map_err(|e| refused(format!("{what}: the token response cannot be read: {e}")))
}

impl OAuthClient {
    /// Sends `request` and reads its answer: the one way every grant asks
    /// for tokens.
    pub(super) async fn request_token(
        &self,
        request: TokenRequest<'_>,
    ) -> Result<TokenAnswer, AuthError> {
        let form = token_form(&self.server, &self.settings, &request)?;
        let fetched = self.send_token_request(form).await?;
        read_answer(&self.server, &self.masker(), request.what, &fetched)
    }

    /// Sends one token request: with a DPoP proof when tokens are bound.
    async fn send_token_request(&self, request: AuthRequest) -> Result<Fetched, AuthError> {
        #[cfg(feature = "oauth-extensions")]
        if self.dpop.is_enabled() {
            return self
                .dpop
                .send_token_request(self.http.as_ref(), &self.server, request)
                .await;
        }
        self.http.send(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(status: u16, body: &str) -> Fetched {
        Fetched {
            status,
            body: body.as_bytes().to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn an_answer_becomes_tokens_with_defaults_from_the_request() {
        let masker = Masker::builder().build();
        let answer = read_answer(
            "docs",
            &masker,
            "refresh",
            &fetched(200, r#"{"access_token":"a","token_type":"DPoP"}"#),
        )
        .unwrap();
        let tokens = answer.into_token_set(&["read".to_owned()], Some("old".into()));
        assert_eq!(tokens.token_type, "DPoP");
        assert_eq!(tokens.scopes, vec!["read".to_owned()]);
        assert_eq!(tokens.refresh_token.as_deref(), Some("old"));
        assert!(tokens.expires_at.is_none());
        let answer = read_answer(
            "docs",
            &masker,
            "refresh",
            &fetched(
                200,
                r#"{"access_token":"a","token_type":"bearer","expires_in":60,"refresh_token":"new","scope":"a b a"}"#,
            ),
        )
        .unwrap();
        let tokens = answer.into_token_set(&[], Some("old".into()));
        assert_eq!(tokens.token_type, "Bearer");
        assert_eq!(tokens.scopes, vec!["a".to_owned(), "b".to_owned()]);
        assert_eq!(tokens.refresh_token.as_deref(), Some("new"));
        assert!(tokens.expires_at.is_some());
    }

    #[test]
    fn a_refusal_names_the_request_and_is_masked() {
        let mut builder = Masker::builder();
        builder.secret("leaked-secret");
        let masker = builder.build();
        let refusal = read_answer(
            "docs",
            &masker,
            "refresh",
            &fetched(
                400,
                r#"{"error":"invalid_grant","error_description":"leaked-secret expired"}"#,
            ),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(refusal.contains("server 'docs'"), "{refusal}");
        assert!(refusal.contains("refresh: invalid_grant: "), "{refusal}");
        assert!(!refusal.contains("leaked-secret"), "{refusal}");
        let plain = read_answer("docs", &masker, "refresh", &fetched(502, "Bad Gateway"))
            .err()
            .unwrap()
            .to_string();
        assert!(plain.contains("refresh: HTTP 502: Bad Gateway"), "{plain}");
        let broken = read_answer("docs", &masker, "refresh", &fetched(200, "{}"))
            .err()
            .unwrap()
            .to_string();
        assert!(broken.contains("cannot be read"), "{broken}");
    }
}
