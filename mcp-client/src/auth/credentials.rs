//! What the client's requests carry: `Authorization: Bearer`, or, under the
//! `oauth-extensions` feature, DPoP-bound tokens (a `DPoP` proof with
//! `Authorization: DPoP`): when tokens are bound, the resource's nonces, and
//! the key stored with them. Without the feature tokens are never bound, and
//! a resource that demands it is an error naming the feature.

use mcpdisco_transport::http::RequestCredentials;
use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use super::client::OAuthClient;
use super::metadata::ServerMetadata;
use super::store::{PrivateKey, TokenSet};
use crate::error::AuthError;

impl RequestCredentials for OAuthClient {
    fn headers(&self, method: &str, url: &url::Url) -> Vec<(HeaderName, HeaderValue)> {
        // Never to another origin than the resource's.
        if url.origin() != self.resource.origin() {
            return Vec::new();
        }
        self.tokens
            .with_current(|current| {
                if current.is_dpop() {
                    self.dpop_headers(method, url, &current.tokens.access_token)
                } else {
                    bearer(&current.tokens.access_token).into_iter().collect()
                }
            })
            .unwrap_or_default()
    }
}

/// `Authorization: Bearer <token>`.
fn bearer(token: &str) -> Option<(HeaderName, HeaderValue)> {
    let value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    Some((AUTHORIZATION, value))
}

/// DPoP in a build with `oauth-extensions`.
#[cfg(feature = "oauth-extensions")]
impl OAuthClient {
    /// The `DPoP` proof and `Authorization: DPoP` of one request.
    fn dpop_headers(
        &self,
        method: &str,
        url: &url::Url,
        token: &str,
    ) -> Vec<(HeaderName, HeaderValue)> {
        let Some(proof) = self.dpop.resource_proof(method, url, token) else {
            return Vec::new();
        };
        let mut headers = Vec::new();
        match proof {
            Ok(proof) => {
                if let Ok(value) = HeaderValue::from_str(&proof) {
                    headers.push((HeaderName::from_static("dpop"), value));
                }
            }
            Err(error) => tracing::warn!(server = %self.server, %error, "no DPoP proof"),
        }
        if let Ok(value) = HeaderValue::from_str(&format!("DPoP {token}")) {
            headers.push((AUTHORIZATION, value));
        }
        headers
    }

    /// Keeps the resource's new nonce: whether sending again may help.
    pub(super) fn take_dpop_nonce(&self, nonce: &str) -> bool {
        self.dpop.take_resource_nonce(nonce)
    }

    /// Binds the tokens obtained from now on (the resource challenged with `DPoP`).
    pub(super) fn require_dpop(&self) -> Result<(), AuthError> {
        self.dpop.enable();
        Ok(())
    }

    /// Binds the tokens obtained from now on when the authorization server
    /// offers DPoP with ES256.
    pub(super) fn offer_dpop(&self, server_metadata: &ServerMetadata) {
        if server_metadata
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|a| a == "ES256"))
        {
            self.dpop.enable();
        }
    }

    /// The key to store with `tokens`, when they are DPoP-bound.
    pub(super) fn dpop_key_for(&self, tokens: &TokenSet) -> Option<PrivateKey> {
        if tokens.token_type.eq_ignore_ascii_case("dpop") {
            self.dpop.exported_key().map(PrivateKey)
        } else {
            None
        }
    }
}

/// DPoP in a build without `oauth-extensions`: tokens are never bound, and a
/// resource that demands it is an error naming the feature.
#[cfg(not(feature = "oauth-extensions"))]
impl OAuthClient {
    fn dpop_headers(&self, _: &str, _: &url::Url, _: &str) -> Vec<(HeaderName, HeaderValue)> {
        Vec::new()
    }

    pub(super) fn take_dpop_nonce(&self, _: &str) -> bool {
        false
    }

    pub(super) fn require_dpop(&self) -> Result<(), AuthError> {
        Err(super::feature::AuthFeature::OAuthExtensions.missing(
            &self.server,
            "the DPoP binding the server demands (RFC 9449)",
        ))
    }

    pub(super) fn offer_dpop(&self, _: &ServerMetadata) {}

    pub(super) fn dpop_key_for(&self, _: &TokenSet) -> Option<PrivateKey> {
        None
    }
}
