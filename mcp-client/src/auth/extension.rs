//! The grants beyond the authorization code and client credentials (the
//! `oauth-extensions` feature): the JWT bearer grant of workload identity
//! federation (RFC 7523), and enterprise-managed authorization (an ID token
//! exchanged at the identity provider for an identity assertion grant, RFC
//! 8693, then that assertion at the authorization server). Each token
//! request is [`request_token`](OAuthClient::request_token)'s, like every
//! grant's.

use mcpdisco_transport::secret::ExposeSecret;

use super::client::OAuthClient;
use super::metadata::{self, ServerMetadata};
use super::store::{ClientRegistration, TokenSet};
use super::token_request::{ClientAuthentication, TokenRequest};
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

impl OAuthClient {
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
            .request_token(TokenRequest {
                what: "jwt bearer grant",
                endpoint,
                params,
                client: ClientAuthentication::Omitted,
            })
            .await?;
        Ok(answer.into_token_set(scopes, None))
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
            .request_token(TokenRequest {
                what: "identity provider token exchange",
                endpoint: idp_endpoint,
                params: exchange,
                client: ClientAuthentication::Omitted,
            })
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
        let answer = self
            .request_token(TokenRequest {
                what: "identity assertion grant",
                endpoint,
                params,
                client: ClientAuthentication::Registered {
                    client: &client,
                    server_metadata,
                },
            })
            .await?;
        Ok((client, answer.into_token_set(scopes, None)))
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
