//! [`OAuthClient`]: one HTTP server's authorization, from a refused request
//! to a stored token. The client holds the token its transport sends
//! (`credentials` says how it is presented) and decides what a refusal
//! calls for: the same token with a new DPoP nonce, a refresh, more scope,
//! or a new authorization. Refreshing is `refresh`'s, obtaining a token
//! `grant`'s.

use std::sync::Arc;

use mcpdisco_transport::secret::Masker;

use super::challenge::{self, Challenge};
use super::context::AuthContext;
use super::discovery::canonical_resource;
#[cfg(feature = "oauth-extensions")]
use super::dpop::DpopBinding;
use super::http::AuthHttp;
use super::metadata::ServerMetadata;
use super::reqwest_http::ReqwestHttp;
use super::settings::AuthSettings;
use super::store::{StoredCredentials, TokenSet};
use super::tokens::{Current, TokenState};
use crate::error::AuthError;

/// Re-authorizations for more scope (403 `insufficient_scope`) before giving up.
const MAX_STEP_UPS: u32 = 2;

/// What the flow has learnt about the servers (kept between rounds).
#[derive(Default)]
pub(super) struct FlowState {
    /// The authorization server in use and its metadata.
    pub(super) server_metadata: Option<ServerMetadata>,
    /// Scopes asked for so far (step-up asks for their union with more).
    pub(super) requested_scopes: Vec<String>,
}

/// One HTTP server's authorization: the token its transport sends, and the
/// flow that gets a new one when the server refuses it.
pub struct OAuthClient {
    pub(super) server: String,
    /// The MCP endpoint.
    pub(super) resource: url::Url,
    pub(super) settings: AuthSettings,
    pub(super) context: AuthContext,
    /// Sends the flow's requests (reqwest, or a test's script).
    pub(super) http: Arc<dyn AuthHttp>,
    /// The masker of the settings' secrets.
    settings_masker: Masker,
    pub(super) tokens: TokenState,
    /// Whether tokens are DPoP-bound, the key, the nonces.
    #[cfg(feature = "oauth-extensions")]
    pub(super) dpop: Arc<DpopBinding>,
    /// One flow at a time: concurrent refusals of one token run it once.
    pub(super) flow: tokio::sync::Mutex<FlowState>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server", &self.server)
            .field("resource", &canonical_resource(&self.resource))
            .field("has_token", &self.tokens.is_held())
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// The authorization of server `server` at `url`, starting from the
    /// newest token stored for it (if any). Settings this build cannot act
    /// on (see [`AuthSettings::check_features`]) are an error.
    pub fn new(
        server: &str,
        url: &url::Url,
        settings: AuthSettings,
        context: AuthContext,
    ) -> Result<Arc<Self>, AuthError> {
        let http = Arc::new(ReqwestHttp::new(server)?);
        Self::with_http(server, url, settings, context, http)
    }

    /// The same, with the flow's requests sent through `http`.
    pub(crate) fn with_http(
        server: &str,
        url: &url::Url,
        settings: AuthSettings,
        context: AuthContext,
        http: Arc<dyn AuthHttp>,
    ) -> Result<Arc<Self>, AuthError> {
        settings.check_features(server)?;
        let resource = canonical_resource(url);
        let stored = if context.reuse_stored {
            context.store.for_resource(&resource)?
        } else {
            Vec::new()
        };
        let current = stored.into_iter().find_map(Current::of);
        #[cfg(feature = "oauth-extensions")]
        let (current, dpop) = DpopBinding::for_stored(server, current);
        #[cfg(not(feature = "oauth-extensions"))]
        let current = current.filter(|current| {
            if current.is_dpop() {
                tracing::warn!(server = %server, "a stored DPoP-bound token needs the cargo feature `oauth-extensions`; authorizing again");
            }
            !current.is_dpop()
        });
        let settings_masker = settings.masker();
        Ok(Arc::new(Self {
            server: server.to_owned(),
            resource: url.clone(),
            http,
            settings,
            context,
            settings_masker,
            tokens: TokenState::new(current),
            #[cfg(feature = "oauth-extensions")]
            dpop: Arc::new(dpop),
            flow: tokio::sync::Mutex::new(FlowState::default()),
        }))
    }

    /// The server's name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The masker of every secret this client holds (settings and tokens).
    pub fn masker(&self) -> Masker {
        self.tokens.masker().union(&self.settings_masker)
    }

    /// Whether a token is held.
    pub fn has_token(&self) -> bool {
        self.tokens.is_held()
    }

    /// Forgets the token held in memory (the store keeps it): the next
    /// refusal runs the whole flow. What `mcp-cli login` starts from.
    pub fn forget_token(&self) {
        self.tokens.forget();
    }

    /// Changes whenever the token does.
    pub fn generation(&self) -> u64 {
        self.tokens.generation()
    }

    /// Handles the server's refusal of the token of generation `seen`:
    /// refreshes it, or runs the flow (for more scope on a 403
    /// `insufficient_scope`). Once for concurrent refusals of one token.
    ///
    /// `step_ups` is how many times the operation that was refused already
    /// asked for more scope: past `MAX_STEP_UPS` it fails.
    pub async fn handle_refusal(
        &self,
        seen: u64,
        status: u16,
        www_authenticate: Option<&str>,
        dpop_nonce: Option<&str>,
        step_ups: u32,
    ) -> Result<(), AuthError> {
        let mut flow = self.flow.lock().await;
        if self.generation() != seen {
            return Ok(());
        }
        let challenge = www_authenticate
            .and_then(challenge::parse)
            .unwrap_or_default();
        if challenge.error.as_deref() == Some("use_dpop_nonce")
            && let Some(nonce) = dpop_nonce
            && self.has_token()
            && self.take_dpop_nonce(nonce)
        {
            // Not a new token: the same one, with a proof carrying the nonce.
            return Ok(());
        }
        if challenge.scheme == "dpop" {
            self.require_dpop()?;
        }
        let result = if status == 403 || challenge.is_insufficient_scope() {
            self.step_up(&mut flow, &challenge, step_ups).await
        } else {
            let refreshed = if self.tokens.is_refreshable() {
                match self.refresh(&mut flow).await {
                    Ok(()) => true,
                    Err(error) => {
                        tracing::debug!(server = %self.server, %error, "refresh failed; authorizing again");
                        false
                    }
                }
            } else {
                false
            };
            if refreshed {
                Ok(())
            } else {
                self.authorize(&mut flow, &challenge, None).await
            }
        };
        result.map_err(|error| error.masked(&self.masker()))
    }

    /// A 403: authorizes again with the union of the scopes asked for, those
    /// granted and those the challenge names; unless the token has them
    /// already, or the operation asked too many times.
    async fn step_up(
        &self,
        flow: &mut FlowState,
        challenge: &Challenge,
        step_ups: u32,
    ) -> Result<(), AuthError> {
        let refused = |reason: String| AuthError::Refused {
            server: self.server.clone(),
            reason,
        };
        if !challenge.is_insufficient_scope() {
            return Err(refused(format!(
                "HTTP 403{}",
                challenge
                    .error
                    .as_deref()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            )));
        }
        let wanted = challenge.scopes();
        let mut scopes = flow.requested_scopes.clone();
        let granted = self.tokens.granted_scopes();
        if !wanted.is_empty() && wanted.iter().all(|scope| granted.contains(scope)) {
            return Err(refused(format!(
                "the server asks for scope {} although the token has it; authorizing again would not help",
                wanted.join(" ")
            )));
        }
        if step_ups >= MAX_STEP_UPS {
            return Err(refused(format!(
                "the server still asks for more scope ({}) after {MAX_STEP_UPS} re-authorizations",
                challenge.scope.as_deref().unwrap_or("unnamed")
            )));
        }
        for scope in granted.into_iter().chain(wanted) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        self.authorize(flow, challenge, Some(scopes)).await
    }

    /// Stores `tokens` for `entry` and makes them current.
    pub(super) fn install(
        &self,
        mut entry: StoredCredentials,
        tokens: TokenSet,
    ) -> Result<(), AuthError> {
        entry.dpop_key = self.dpop_key_for(&tokens);
        entry.tokens = Some(tokens.clone());
        self.context.store.save(&entry)?;
        self.tokens.replace(Current { entry, tokens });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::store::MemoryTokenStore;

    fn client(settings: AuthSettings) -> Result<Arc<OAuthClient>, AuthError> {
        let url = url::Url::parse("http://127.0.0.1:9/mcp").unwrap();
        let store = Arc::new(MemoryTokenStore::new());
        OAuthClient::new("docs", &url, settings, AuthContext::stored(store))
    }

    #[tokio::test]
    async fn a_dpop_challenge_binds_tokens_or_names_the_missing_feature() {
        let client = client(AuthSettings::default()).unwrap();
        let refused = client
            .handle_refusal(
                client.generation(),
                401,
                Some(r#"DPoP error="invalid_token", algs="ES256""#),
                None,
                0,
            )
            .await
            .unwrap_err();
        if cfg!(feature = "oauth-extensions") {
            // Bound from now on; with nobody to approve, authorization is required.
            assert!(matches!(refused, AuthError::Required { .. }), "{refused}");
            #[cfg(feature = "oauth-extensions")]
            assert!(client.dpop.is_enabled());
        } else {
            let text = refused.to_string();
            assert!(text.contains("server 'docs'"), "{text}");
            assert!(text.contains("`oauth-extensions`"), "{text}");
        }
    }

    #[test]
    fn settings_the_build_cannot_use_fail_at_once() {
        let settings = AuthSettings {
            grant: crate::auth::Grant::JwtBearer,
            ..Default::default()
        };
        let result = client(settings).map(|_| ());
        if cfg!(feature = "oauth-extensions") {
            assert!(result.is_ok());
        } else {
            let error = result.unwrap_err().to_string();
            assert!(error.contains("`oauth-extensions`"), "{error}");
        }
    }
}
