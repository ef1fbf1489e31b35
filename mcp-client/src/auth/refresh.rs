//! Refreshing the current token: before it expires (once per expiry, with a
//! pause after a failure), and when the server refuses it. Tokens another
//! process refreshed meanwhile are taken from the store instead.

use super::client::{FlowState, OAuthClient};
use super::discovery::{self, Discovery};
use super::metadata::{self, ServerMetadata};
use super::token_request::{ClientAuthentication, TokenRequest};
use super::tokens::{Current, REFRESH_MARGIN_SECS};
use crate::error::AuthError;

impl OAuthClient {
    /// Refreshes the token first when it is about to expire and can be
    /// refreshed. A failed refresh is left to the server's refusal.
    pub async fn refresh_if_expiring(&self) {
        if !self.tokens.needs_early_refresh() {
            return;
        }
        let seen = self.generation();
        let mut flow = self.flow.lock().await;
        if self.generation() != seen {
            return;
        }
        if let Err(error) = self.refresh(&mut flow).await {
            self.tokens.early_refresh_failed();
            tracing::debug!(server = %self.server, %error, "refreshing an expiring token failed");
        }
    }

    /// Refreshes the current token.
    pub(super) async fn refresh(&self, flow: &mut FlowState) -> Result<(), AuthError> {
        let required = || AuthError::Required {
            server: self.server.clone(),
        };
        let current = self.tokens.current().ok_or_else(required)?;
        let refresh_token = current.tokens.refresh_token.clone().ok_or_else(required)?;
        if let Some(refreshed) = self.refreshed_elsewhere(&current) {
            self.tokens.replace(refreshed);
            return Ok(());
        }
        let server_metadata = self.server_metadata(flow, &current.entry.issuer).await?;
        let client = current
            .entry
            .client
            .clone()
            .or_else(|| self.configured_client())
            .ok_or_else(required)?;
        let token_endpoint = metadata::secure_endpoint(
            &self.server,
            server_metadata.token_endpoint.as_deref(),
            "token_endpoint",
        )?;
        let answer = self
            .request_token(TokenRequest {
                what: "refresh",
                endpoint: token_endpoint,
                params: vec![
                    ("grant_type", "refresh_token".to_owned()),
                    ("refresh_token", refresh_token.clone()),
                    ("resource", current.entry.resource.clone()),
                ],
                client: ClientAuthentication::Registered {
                    client: &client,
                    server_metadata: &server_metadata,
                },
            })
            .await?;
        let tokens = answer.into_token_set(&current.tokens.scopes, Some(refresh_token));
        self.install(current.entry, tokens)
    }

    /// The tokens another process stored for the same entry after
    /// refreshing (the refresh token may have rotated: spending the old one
    /// would fail), when they are fresh and not bound to that process's
    /// DPoP key.
    fn refreshed_elsewhere(&self, current: &Current) -> Option<Current> {
        let stored = self
            .context
            .store
            .load(&current.entry.issuer, &current.entry.resource)
            .ok()??;
        let refreshed = Current::of(stored)?;
        (refreshed.tokens.access_token != current.tokens.access_token
            && !refreshed.tokens.expires_within(REFRESH_MARGIN_SECS)
            && !refreshed.is_dpop())
        .then_some(refreshed)
    }

    /// The metadata of `issuer`: the flow's, else discovered (and kept).
    /// When it has none, a token from the 2025-03-26 default endpoints is
    /// refreshed at the default token endpoint, if the server still has no
    /// protected-resource metadata either ([`Discovery::refresh`]).
    async fn server_metadata(
        &self,
        flow: &mut FlowState,
        issuer: &str,
    ) -> Result<ServerMetadata, AuthError> {
        if let Some(found) = &flow.server_metadata
            && found.issuer == issuer
        {
            return Ok(found.clone());
        }
        let discovery = Discovery::refresh(&self.server, &self.resource, issuer);
        let found = discovery::discover(self.http.as_ref(), discovery)
            .await?
            .authorization_server
            .metadata;
        flow.server_metadata = Some(found.clone());
        Ok(found)
    }
}
