//! The grants the `oauth2` crate has no request for (the `oauth-extensions`
//! feature): the JWT bearer grant of workload identity federation (RFC
//! 7523), and enterprise-managed authorization (an ID token exchanged at the
//! identity provider for an identity assertion grant, RFC 8693, then that
//! assertion at the authorization server). Both are form POSTs whose answers
//! are read with the serde types below.

use base64::Engine;
use mcpdisco_transport::secret::ExposeSecret;
use serde::Deserialize;

use super::client::OAuthClient;
use super::http::Fetched;
use super::metadata::{self, ServerMetadata};
use super::store::{ClientRegistration, TokenSet, now_secs};
use crate::error::AuthError;

/// The JWT bearer grant type (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The token exchange grant type (RFC 8693).
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// An OpenID Connect ID token, as a subject token.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// An identity assertion JWT authorization grant (ID-JAG).
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The largest assertion file read.
const MAX_ASSERTION_FILE: u64 = 64 * 1024;

/// A token endpoint's answer (RFC 6749 §5.1, RFC 8693 §2.2).
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    issued_token_type: Option<String>,
}

/// A token endpoint's error (RFC 6749 §5.2).
#[derive(Deserialize)]
struct TokenRefusal {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

impl OAuthClient {
    /// POSTs `params` as a form to `url`, with HTTP Basic client
    /// authentication when `basic` is given (id and secret form-encoded
    /// first, RFC 6749 §2.3.1), and reads the token answer.
    async fn token_form(
        &self,
        what: &str,
        url: &url::Url,
        params: &[(&str, String)],
        basic: Option<(&str, &str)>,
    ) -> Result<TokenAnswer, AuthError> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let mut request = oauth2::HttpRequest::new(body.into_bytes());
        *request.method_mut() = oauth2::http::Method::POST;
        *request.uri_mut() = url
            .as_str()
            .parse()
            .map_err(|e| self.refused(format!("{what}: invalid endpoint: {e}")))?;
        let headers = request.headers_mut();
        headers.insert(
            oauth2::http::header::CONTENT_TYPE,
            oauth2::http::HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        headers.insert(
            oauth2::http::header::ACCEPT,
            oauth2::http::HeaderValue::from_static("application/json"),
        );
        if let Some((id, secret)) = basic {
            let encode = |text: &str| {
                url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>()
            };
            let credentials = base64::engine::general_purpose::STANDARD.encode(format!(
                "{}:{}",
                encode(id),
                encode(secret)
            ));
            if let Ok(mut value) =
                oauth2::http::HeaderValue::from_str(&format!("Basic {credentials}"))
            {
                value.set_sensitive(true);
                headers.insert(oauth2::http::header::AUTHORIZATION, value);
            }
        }
        let response = self.token_sender()?.send(request).await?;
        let fetched = Fetched {
            status: response.status().as_u16(),
            headers: Default::default(),
            body: response.into_body(),
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
            return Err(self.refused(reason));
        }
        fetched
            .json::<TokenAnswer>()
            .map_err(|reason| self.refused(format!("{what}: {reason}")))
    }

    fn refused(&self, reason: String) -> AuthError {
        AuthError::Refused {
            server: self.server.clone(),
            reason: self.masker().mask_string(reason),
        }
    }

    fn missing(&self, what: &str) -> AuthError {
        AuthError::Unsupported {
            server: self.server.clone(),
            reason: format!("this grant needs auth.{what} in the config"),
        }
    }

    /// The JWT bearer grant: the configured assertion for a token, once (a
    /// refused assertion is reported, not retried).
    pub(super) async fn jwt_bearer(
        &self,
        server_metadata: &ServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let assertion = match (&self.settings.assertion, &self.settings.assertion_file) {
            (Some(assertion), _) => assertion.expose_secret().trim().to_owned(),
            (None, Some(path)) => {
                read_assertion(path).map_err(|reason| AuthError::Unsupported {
                    server: self.server.clone(),
                    reason,
                })?
            }
            (None, None) => return Err(self.missing("assertion (or auth.assertionFile)")),
        };
        let endpoint = metadata::secure_endpoint(
            &self.server,
            server_metadata.token_endpoint.as_deref(),
            "token_endpoint",
        )?;
        let mut params = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion),
            ("resource", resource.to_owned()),
        ];
        if let Some(client_id) = &self.settings.client_id {
            params.push(("client_id", client_id.clone()));
        }
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        let answer = self
            .token_form("jwt bearer grant", &endpoint, &params, None)
            .await?;
        Ok(token_set(answer, scopes))
    }

    /// Enterprise-managed authorization: the ID token for an ID-JAG at the
    /// identity provider, the ID-JAG for a token at the authorization server.
    pub(super) async fn enterprise(
        &self,
        server_metadata: &ServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<(ClientRegistration, TokenSet), AuthError> {
        let settings = &self.settings;
        let idp_endpoint = settings
            .idp_token_endpoint
            .as_deref()
            .ok_or_else(|| self.missing("idpTokenEndpoint"))?;
        let idp_endpoint =
            metadata::secure_endpoint(&self.server, Some(idp_endpoint), "idpTokenEndpoint")?;
        let id_token = settings
            .idp_id_token
            .as_ref()
            .ok_or_else(|| self.missing("idpIdToken"))?;
        let client = self
            .configured_client()
            .ok_or_else(|| self.missing("clientId"))?;
        let mut exchange = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("subject_token", id_token.expose_secret().to_owned()),
            ("subject_token_type", ID_TOKEN_TYPE.to_owned()),
            ("requested_token_type", ID_JAG_TYPE.to_owned()),
            ("audience", server_metadata.issuer.clone()),
            ("resource", resource.to_owned()),
        ];
        if let Some(idp_client) = &settings.idp_client_id {
            exchange.push(("client_id", idp_client.clone()));
        }
        if !scopes.is_empty() {
            exchange.push(("scope", scopes.join(" ")));
        }
        let grant = self
            .token_form(
                "identity provider token exchange",
                &idp_endpoint,
                &exchange,
                None,
            )
            .await?;
        if grant
            .issued_token_type
            .as_deref()
            .is_some_and(|kind| kind != ID_JAG_TYPE)
        {
            return Err(self.refused(format!(
                "the identity provider issued {:?}, not an identity assertion grant",
                grant.issued_token_type.unwrap_or_default()
            )));
        }
        let endpoint = metadata::secure_endpoint(
            &self.server,
            server_metadata.token_endpoint.as_deref(),
            "token_endpoint",
        )?;
        let mut params = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", grant.access_token),
        ];
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        let basic = client
            .client_secret
            .as_deref()
            .map(|secret| (client.client_id.as_str(), secret));
        let answer = self
            .token_form("identity assertion grant", &endpoint, &params, basic)
            .await?;
        Ok((client.clone(), token_set(answer, scopes)))
    }
}

/// The JWT in `path`, trimmed; bounded in size.
fn read_assertion(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read auth.assertionFile {}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(MAX_ASSERTION_FILE)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read auth.assertionFile {}: {e}", path.display()))?;
    Ok(text.trim().to_owned())
}

fn token_set(answer: TokenAnswer, requested: &[String]) -> TokenSet {
    TokenSet {
        token_type: match answer.token_type.as_deref() {
            Some(kind) if kind.eq_ignore_ascii_case("dpop") => "DPoP".into(),
            _ => "Bearer".into(),
        },
        access_token: answer.access_token,
        refresh_token: answer.refresh_token,
        expires_at: answer
            .expires_in
            .map(|seconds| now_secs().saturating_add(seconds)),
        scopes: answer
            .scope
            .map(|scope| super::challenge::split_scopes(&scope))
            .unwrap_or_else(|| requested.to_vec()),
    }
}
