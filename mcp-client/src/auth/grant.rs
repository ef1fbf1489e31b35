//! Getting a new token: discovery, the scopes to ask for, and the grant the
//! settings name: the authorization code grant with PKCE S256 (the pure
//! [`CodeGrant`] machine, run here: a user approves through the
//! [`AuthProvider`](super::provider::AuthProvider)), or client credentials; the JWT bearer and enterprise grants are
//! [`extension`](super::extension)'s, under the `oauth-extensions` feature.

use super::challenge::Challenge;
use super::client::{FlowState, OAuthClient};
use super::code_grant::{self, CodeGrant};
use super::discovery::{self, Discovery, canonical_resource};
use super::metadata::{self, ResourceMetadata, ServerMetadata};
use super::settings::Grant;
use super::store::{ClientRegistration, StoredCredentials, TokenSet};
use super::token_request::{ClientAuthentication, TokenRequest};
use crate::error::AuthError;

/// The scope that asks for a refresh token where the authorization server
/// offers one (SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

impl OAuthClient {
    /// Discovers the authorization server and gets a new token, for
    /// `scopes` (a step-up's) or those [`scopes_to_request`] chooses.
    pub(super) async fn authorize(
        &self,
        flow: &mut FlowState,
        challenge: &Challenge,
        scopes: Option<Vec<String>>,
    ) -> Result<(), AuthError> {
        if self.settings.grant == Grant::AuthorizationCode && self.context.provider.is_none() {
            // Nobody to approve: fail before any request to the authorization server.
            return Err(AuthError::Required {
                server: self.server.clone(),
            });
        }
        let discovery = Discovery::authorization(
            &self.server,
            &self.resource,
            challenge,
            self.credentials_issuer(),
        );
        let discovered = discovery::discover(self.http.as_ref(), discovery).await?;
        let authorization_server = discovered.authorization_server;
        let protected = discovered.protected.ok_or_else(|| AuthError::Discovery {
            server: self.server.clone(),
            reason: "discovery found no protected resource".into(),
        })?;
        self.check_credentials_issuer(&protected.issuer)?;
        if authorization_server.fallback.is_some() {
            tracing::info!(
                server = %self.server,
                issuer = %protected.issuer,
                "no authorization metadata: using the 2025-03-26 default endpoints /authorize, /token, /register"
            );
        }
        let server_metadata = authorization_server.metadata.clone();
        self.offer_dpop(&server_metadata);
        let scopes = scopes.unwrap_or_else(|| {
            scopes_to_request(
                challenge,
                self.settings.scopes.as_deref(),
                protected.metadata.found(),
            )
        });
        let scopes = with_offline_access(scopes, &server_metadata);
        flow.requested_scopes = scopes.clone();
        flow.server_metadata = Some(server_metadata.clone());
        let (issuer, resource) = (protected.issuer, protected.resource);
        let mut entry = self
            .context
            .store
            .load(&issuer, &resource)?
            .unwrap_or_else(|| StoredCredentials {
                server: self.server.clone(),
                issuer: issuer.clone(),
                resource: resource.clone(),
                ..Default::default()
            });
        entry.server = self.server.clone();
        entry.url = canonical_resource(&self.resource);
        let tokens = self
            .grant(&server_metadata, &mut entry, &resource, &scopes)
            .await
            .map_err(|error| authorization_server.explain(error))?;
        self.install(entry, tokens)
    }

    /// The grant the settings name; the client it used goes into `entry`.
    async fn grant(
        &self,
        server_metadata: &ServerMetadata,
        entry: &mut StoredCredentials,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        match self.settings.grant {
            Grant::ClientCredentials => {
                let client = self.configured_client().ok_or_else(|| AuthError::Unsupported {
                    server: self.server.clone(),
                    reason: "the client credentials grant needs auth.clientId (and a secret or a private key)".into(),
                })?;
                let tokens = self
                    .client_credentials(server_metadata, &client, resource, scopes)
                    .await?;
                entry.client = Some(client);
                Ok(tokens)
            }
            Grant::AuthorizationCode => {
                self.authorization_code(server_metadata, entry, resource, scopes)
                    .await
            }
            Grant::JwtBearer | Grant::Enterprise => {
                self.extension_grant(server_metadata, entry, resource, scopes)
                    .await
            }
        }
    }

    /// The JWT bearer or enterprise grant.
    #[cfg(feature = "oauth-extensions")]
    async fn extension_grant(
        &self,
        server_metadata: &ServerMetadata,
        entry: &mut StoredCredentials,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        if self.settings.grant == Grant::JwtBearer {
            return self.jwt_bearer(server_metadata, resource, scopes).await;
        }
        let (client, tokens) = self.enterprise(server_metadata, resource, scopes).await?;
        entry.client = Some(client);
        Ok(tokens)
    }

    /// Without `oauth-extensions`, the JWT bearer and enterprise grants are
    /// an error naming the feature.
    #[cfg(not(feature = "oauth-extensions"))]
    async fn extension_grant(
        &self,
        _: &ServerMetadata,
        _: &mut StoredCredentials,
        _: &str,
        _: &[String],
    ) -> Result<TokenSet, AuthError> {
        self.settings.check_features(&self.server)?;
        Err(super::feature::AuthFeature::OAuthExtensions
            .missing(&self.server, "the configured grant"))
    }

    /// The authorization code grant with PKCE S256: [`CodeGrant`] run with
    /// the flow's HTTP seam and the user's step.
    async fn authorization_code(
        &self,
        server_metadata: &ServerMetadata,
        entry: &mut StoredCredentials,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let Some(provider) = self.context.provider.clone() else {
            return Err(AuthError::Required {
                server: self.server.clone(),
            });
        };
        let mut grant = CodeGrant::new(
            &self.server,
            server_metadata,
            resource,
            scopes,
            self.known_clients(entry),
        )?;
        let token_endpoint = metadata::secure_endpoint(
            &self.server,
            server_metadata.token_endpoint.as_deref(),
            "token_endpoint",
        )?;
        let pending = provider.begin(&self.server).await?;
        let mut event = code_grant::Event::Begun {
            redirect_uri: pending.redirect_uri(),
        };
        let mut pending = Some(pending);
        loop {
            event = match grant.step(event) {
                code_grant::Action::Register(request) => {
                    code_grant::Event::Registered(self.http.send(request).await?)
                }
                code_grant::Action::Approve(url) => {
                    let pending = pending.take().ok_or_else(|| AuthError::Rejected {
                        server: self.server.clone(),
                        reason: "the user's step was asked twice".into(),
                    })?;
                    code_grant::Event::Redirected(pending.finish(url).await?)
                }
                code_grant::Action::RequestToken { client, params } => {
                    let answer = self
                        .request_token(TokenRequest {
                            what: "token request",
                            endpoint: token_endpoint,
                            params,
                            client: ClientAuthentication::Registered {
                                client: &client,
                                server_metadata,
                            },
                        })
                        .await;
                    entry.client = Some(client);
                    return Ok(answer?.into_token_set(scopes, None));
                }
                code_grant::Action::Failed(error) => return Err(error),
            };
        }
    }

    /// The client credentials grant.
    async fn client_credentials(
        &self,
        server_metadata: &ServerMetadata,
        client: &ClientRegistration,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let token_endpoint = metadata::secure_endpoint(
            &self.server,
            server_metadata.token_endpoint.as_deref(),
            "token_endpoint",
        )?;
        let mut params = vec![("grant_type", "client_credentials".to_owned())];
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        params.push(("resource", resource.to_owned()));
        let answer = self
            .request_token(TokenRequest {
                what: "client credentials",
                endpoint: token_endpoint,
                params,
                client: ClientAuthentication::Registered {
                    client,
                    server_metadata,
                },
            })
            .await?;
        Ok(answer.into_token_set(scopes, None))
    }
}

/// The scopes of a first authorization: the challenge's, else the
/// configured ones, else those the protected resource lists (when it has
/// metadata), else none.
fn scopes_to_request(
    challenge: &Challenge,
    configured: Option<&[String]>,
    resource_metadata: Option<&ResourceMetadata>,
) -> Vec<String> {
    let from_challenge = challenge.scopes();
    if !from_challenge.is_empty() {
        from_challenge
    } else if let Some(configured) = configured {
        configured.to_vec()
    } else {
        resource_metadata
            .and_then(|metadata| metadata.scopes_supported.clone())
            .unwrap_or_default()
    }
}

/// `scopes` with `offline_access` added where the authorization server
/// offers it, for a refresh token.
fn with_offline_access(mut scopes: Vec<String>, server_metadata: &ServerMetadata) -> Vec<String> {
    if server_metadata
        .scopes_supported
        .as_ref()
        .is_some_and(|supported| supported.iter().any(|s| s == OFFLINE_ACCESS))
        && !scopes.iter().any(|s| s == OFFLINE_ACCESS)
    {
        scopes.push(OFFLINE_ACCESS.to_owned());
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn scopes_come_from_the_challenge_then_the_config_then_the_resource() {
        let resource = ResourceMetadata {
            scopes_supported: Some(strings(&["listed"])),
            ..Default::default()
        };
        let challenge = Challenge {
            scope: Some("asked more".into()),
            ..Default::default()
        };
        let configured = strings(&["configured"]);
        assert_eq!(
            scopes_to_request(&challenge, Some(&configured), Some(&resource)),
            strings(&["asked", "more"])
        );
        let silent = Challenge::default();
        assert_eq!(
            scopes_to_request(&silent, Some(&configured), Some(&resource)),
            configured
        );
        assert_eq!(
            scopes_to_request(&silent, None, Some(&resource)),
            strings(&["listed"])
        );
        assert!(scopes_to_request(&silent, None, Some(&ResourceMetadata::default())).is_empty());
        assert!(scopes_to_request(&silent, None, None).is_empty());
    }

    #[test]
    fn offline_access_is_added_once_where_offered() {
        let offering = ServerMetadata {
            scopes_supported: Some(strings(&["read", OFFLINE_ACCESS])),
            ..Default::default()
        };
        assert_eq!(
            with_offline_access(strings(&["read"]), &offering),
            strings(&["read", OFFLINE_ACCESS])
        );
        assert_eq!(
            with_offline_access(strings(&[OFFLINE_ACCESS]), &offering),
            strings(&[OFFLINE_ACCESS])
        );
        assert_eq!(
            with_offline_access(strings(&["read"]), &ServerMetadata::default()),
            strings(&["read"])
        );
    }
}
