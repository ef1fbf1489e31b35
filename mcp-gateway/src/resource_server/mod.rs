//! `serve` as an OAuth 2.1 resource server: every `/mcp` request carries
//! `Authorization: Bearer <JWT>`, issued by the team's identity provider.
//!
//! - The token's signature is verified with the provider's key set (JWKS,
//!   [`jwks`]): RS256 and ES256, the key chosen by the token's `kid`. Keys
//!   are cached; a `kid` not in the cache fetches the set again, at most
//!   once a minute ([`refresh`]).
//! - `iss`, `aud`, `exp` and `nbf` are checked with 60 s of leeway; a token
//!   without `exp` (or `iss`, `aud`) is refused.
//! - Required scopes ([`scopes`]): the gateway's own, and any a caller
//!   passes (such as a profile's `requiredScopes`).
//! - A refusal is a [`Challenge`]: 401 or 403 with a `WWW-Authenticate`
//!   that points at the resource's metadata ([`metadata`], RFC 9728).

pub mod challenge;
mod error;
pub mod jwks;
pub mod metadata;
pub mod refresh;
pub mod scopes;

use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode, decode_header};
use mcpdisco_transport::sync::Mutex;
use serde::Deserialize;

pub use challenge::Challenge;
pub use error::ResourceServerError;
use jwks::KeySet;
pub use metadata::{METADATA_PATH, ProtectedResourceMetadata};
use refresh::RefreshPolicy;
use scopes::{GrantedScopes, missing_scopes};

/// The leeway of `exp` and `nbf`.
pub const LEEWAY: Duration = Duration::from_secs(60);

/// Whose tokens the gateway takes: [`new`](Self::new), then
/// [`required_scopes`](Self::required_scopes) if requests need any.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ResourceServerOptions {
    /// The identity provider's key set.
    pub jwks_url: String,
    /// The `iss` tokens must carry.
    pub issuer: String,
    /// The `aud` tokens must carry (one of theirs).
    pub audience: String,
    /// Scopes every request needs.
    pub required_scopes: Vec<String>,
}

impl ResourceServerOptions {
    /// Tokens of `issuer` for `audience`, verified with the key set at
    /// `jwks_url`; no scope required.
    pub fn new(
        jwks_url: impl Into<String>,
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> Self {
        Self {
            jwks_url: jwks_url.into(),
            issuer: issuer.into(),
            audience: audience.into(),
            required_scopes: Vec::new(),
        }
    }

    /// Scopes every request needs.
    pub fn required_scopes(mut self, scopes: Vec<String>) -> Self {
        self.required_scopes = scopes;
        self
    }
}

/// What a verified token says about its bearer.
#[derive(Debug, Clone, Deserialize)]
pub struct TokenClaims {
    /// The subject, when the token names one.
    #[serde(default)]
    pub sub: Option<String>,
    /// Its scopes.
    #[serde(flatten)]
    pub scopes: GrantedScopes,
}

/// Verifies bearer tokens against an identity provider's keys. Share it
/// (`Arc`): the key cache is inside.
pub struct ResourceServer {
    options: ResourceServerOptions,
    client: reqwest::Client,
    keys: Mutex<Arc<KeySet>>,
    /// Held across a fetch: one fetch at a time, the others wait for it.
    refresh: tokio::sync::Mutex<RefreshPolicy>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A resource server fetching keys with `client`; no key yet (see
    /// [`load`](Self::load)).
    pub fn new(options: ResourceServerOptions, client: reqwest::Client) -> Self {
        Self {
            options,
            client,
            keys: Mutex::new(Arc::new(KeySet::default())),
            refresh: tokio::sync::Mutex::new(RefreshPolicy::default()),
        }
    }

    /// A resource server fetching keys with the process's shared HTTP
    /// client (its TLS roots and pool).
    pub fn with_shared_client(options: ResourceServerOptions) -> Result<Self, ResourceServerError> {
        let client = mcpdisco_transport::http::HttpClient::shared().map_err(|error| {
            ResourceServerError::Jwks {
                url: options.jwks_url.clone(),
                reason: error.to_string(),
            }
        })?;
        Ok(Self::new(options, client.reqwest().clone()))
    }

    /// Its options.
    pub fn options(&self) -> &ResourceServerOptions {
        &self.options
    }

    /// Fetches the key set now (the first load, at start), whatever the
    /// refresh rule, which only limits refreshes on an unknown `kid`;
    /// returns how many usable keys it holds.
    pub async fn load(&self) -> Result<usize, ResourceServerError> {
        let _one_fetch_at_a_time = self.refresh.lock().await;
        let keys = jwks::fetch(&self.client, &self.options.jwks_url).await?;
        let count = keys.len();
        *self.keys.lock() = Arc::new(keys);
        Ok(count)
    }

    /// The metadata document of the resource at `resource` (its `/mcp` URL).
    pub fn metadata(&self, resource: String) -> ProtectedResourceMetadata {
        ProtectedResourceMetadata::new(
            resource,
            &self.options.issuer,
            &self.options.required_scopes,
        )
    }

    /// Checks the `Authorization` header's bearer token (`None`: none
    /// sent): valid, and granting the gateway's scopes and `required`.
    pub async fn authorize(
        &self,
        bearer: Option<&str>,
        required: &[String],
    ) -> Result<TokenClaims, Challenge> {
        let token = bearer.ok_or(Challenge::NoToken)?;
        let claims = self.verify(token).await.map_err(|description| {
            tracing::debug!(%description, "refused a bearer token");
            Challenge::InvalidToken { description }
        })?;
        let needed: Vec<String> = self
            .options
            .required_scopes
            .iter()
            .chain(required)
            .cloned()
            .collect();
        if missing_scopes(&claims.scopes, &needed).is_empty() {
            Ok(claims)
        } else {
            Err(Challenge::InsufficientScope {
                scope: needed.join(" "),
            })
        }
    }

    /// The token's claims, or why it is not valid.
    async fn verify(&self, token: &str) -> Result<TokenClaims, String> {
        let header = decode_header(token).map_err(|_| "not a JWT".to_owned())?;
        let kid = header
            .kid
            .ok_or_else(|| "the token names no key (kid)".to_owned())?;
        let cached = self.keys.lock().get(&kid).cloned();
        let key = match cached {
            Some(key) => key,
            None => self
                .refreshed_key(&kid)
                .await
                .ok_or_else(|| format!("no key {kid} in the identity provider's key set"))?,
        };
        if header.alg != key.algorithm {
            return Err(format!(
                "key {kid} is for {:?}, the token says {:?}",
                key.algorithm, header.alg
            ));
        }
        let mut validation = Validation::new(key.algorithm);
        validation.set_issuer(&[&self.options.issuer]);
        validation.set_audience(&[&self.options.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = LEEWAY.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        decode::<TokenClaims>(token, &key.key, &validation)
            .map(|data| data.claims)
            .map_err(|error| describe(error.kind()))
    }

    /// The key `kid` after a refresh of the set, if one may run now.
    async fn refreshed_key(&self, kid: &str) -> Option<jwks::VerificationKey> {
        let mut policy = self.refresh.lock().await;
        // Another request may have refreshed the set while this one waited.
        let cached = self.keys.lock().get(kid).cloned();
        if cached.is_some() {
            return cached;
        }
        if !policy.try_fetch(Instant::now()) {
            return None;
        }
        match jwks::fetch(&self.client, &self.options.jwks_url).await {
            Ok(keys) => {
                let found = keys.get(kid).cloned();
                *self.keys.lock() = Arc::new(keys);
                found
            }
            Err(error) => {
                tracing::warn!(%error, "keeping the cached keys");
                None
            }
        }
    }
}

/// A token's fault in words, without the token.
fn describe(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".to_owned(),
        ErrorKind::InvalidAudience => "the token is for another audience".to_owned(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no {claim} claim"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm is not its key's".to_owned(),
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's {claim} claim is malformed"),
        _ => "the token cannot be read".to_owned(),
    }
}
