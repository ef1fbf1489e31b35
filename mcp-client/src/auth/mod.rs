//! OAuth 2.1 for HTTP servers, as a layer on the session's request service.
//!
//! ```text
//! RequestService ─► AuthLayer ─► … ─► SessionCore ─► HttpTransport
//!                      │                                 │ asks OAuthClient for the
//!                      │ 401 / 403 insufficient_scope    │ Authorization header of
//!                      ▼                                 │ every POST, GET and DELETE
//!                  OAuthClient: refresh, or discover and authorize, then send once more
//! ```
//!
//! The transport knows nothing of OAuth: it asks
//! [`RequestCredentials`](mcpdisco_transport::http::RequestCredentials) for
//! headers and reports a refusal as
//! [`TransportError::Unauthorized`](mcpdisco_transport::TransportError::Unauthorized).
//! [`OAuthClient`] does the rest, per the MCP authorization specification
//! (2025-11-25 and 2026-07-28):
//!
//! 1. the challenge's `resource_metadata`, else the well-known
//!    protected-resource URLs (RFC 9728), in the specification's order
//!    ([`metadata`]);
//! 2. the authorization server's metadata (RFC 8414, then OpenID Connect,
//!    with path insertion), whose `issuer` must match exactly;
//! 3. the client's identity: a pre-registered id, a Client ID Metadata
//!    Document URL, or dynamic registration (RFC 7591), in that order;
//! 4. the authorization code grant with PKCE S256 (refused without S256),
//!    `resource` (RFC 8707) on the authorization and token requests, scopes
//!    from the challenge, else `scopes_supported`, else none; `state` and
//!    `iss` (RFC 9207) checked on the redirect; or the client credentials
//!    grant for non-interactive use;
//! 5. a 403 `insufficient_scope` re-authorizes with the union of scopes, a
//!    few times at most; tokens are refreshed before they expire and on 401.
//!
//! Tokens live in a [`TokenStore`] keyed by issuer and resource
//! ([`FileTokenStore`]: 0600, atomic). The interactive step is an
//! [`AuthProvider`]: a host opens its own browser tab; `mcp-cli login` uses
//! [`LoopbackBrowser`]; without one, a server that needs authorization fails
//! at once with [`AuthError::Required`]. Tokens never go to another origin
//! (no redirect is followed) and never appear in `Debug`, errors or logs.

mod challenge;
mod client_auth;
mod dpop;
mod extension;
mod flow;
mod http;
mod layer;
pub mod metadata;
mod provider;
mod store;

use std::sync::Arc;

pub use crate::error::AuthError;

pub use challenge::{Challenge, parse as parse_challenge, split_scopes};
pub use flow::{AuthStatus, OAuthClient, canonical_resource};
pub use layer::{AuthLayer, Authorized};
pub use provider::{AuthProvider, HeadlessRedirect, LoopbackBrowser, PendingAuthorization};
pub use store::now_secs;
pub use store::{
    ClientRegistration, FileTokenStore, MemoryTokenStore, StoredCredentials, TokenSet, TokenStore,
};

use mcpdisco_transport::secret::{ExposeSecret, Masker, SecretString};

/// Which grant obtains the tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grant {
    /// Authorization code with PKCE: a user approves in a browser.
    #[default]
    AuthorizationCode,
    /// Client credentials: the client is the resource owner (no user).
    ClientCredentials,
    /// A JWT the workload already holds, exchanged for a token (RFC 7523
    /// §2.1; workload identity federation): `assertion` or `assertionFile`.
    JwtBearer,
    /// Enterprise-managed authorization: the user's identity provider
    /// exchanges its ID token for an identity assertion grant (ID-JAG), which
    /// the authorization server exchanges for a token.
    Enterprise,
}

/// A server's `"auth"` configuration.
#[derive(Clone, Default)]
pub struct AuthSettings {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret (confidential clients).
    pub client_secret: Option<SecretString>,
    /// A private key (PEM) for `private_key_jwt` client authentication.
    pub private_key: Option<SecretString>,
    /// The JWS algorithm of `private_key` (`RS256`, `ES256`, …); guessed from
    /// the key when absent.
    pub signing_algorithm: Option<String>,
    /// Scopes to ask for when the server's challenge names none.
    pub scopes: Option<Vec<String>>,
    /// A Client ID Metadata Document URL, used as client id where the
    /// authorization server supports them.
    pub client_metadata_url: Option<String>,
    /// The grant.
    pub grant: Grant,
    /// The JWT of the `JwtBearer` grant.
    pub assertion: Option<SecretString>,
    /// A file holding that JWT, read at each use (a projected workload token).
    pub assertion_file: Option<std::path::PathBuf>,
    /// The identity provider's token endpoint (`Enterprise`).
    pub idp_token_endpoint: Option<String>,
    /// The user's ID token from the identity provider (`Enterprise`).
    pub idp_id_token: Option<SecretString>,
    /// Our client id at the identity provider (`Enterprise`).
    pub idp_client_id: Option<String>,
    /// The authorization server the configured credentials belong to. When
    /// set, a server naming another one gets none of them (a secret, a key's
    /// assertion, a workload JWT, an ID token): an MCP server chooses its
    /// authorization server, so it could otherwise collect them.
    pub issuer: Option<String>,
}

impl AuthSettings {
    /// Whether the settings hold credentials of their own (beyond a public client id).
    pub fn has_credentials(&self) -> bool {
        self.client_secret.is_some()
            || self.private_key.is_some()
            || self.assertion.is_some()
            || self.assertion_file.is_some()
            || self.idp_id_token.is_some()
    }
}

impl AuthSettings {
    /// A masker of the settings' secrets.
    pub fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        for secret in [
            &self.client_secret,
            &self.private_key,
            &self.assertion,
            &self.idp_id_token,
        ]
        .into_iter()
        .flatten()
        {
            builder.secret(secret.expose_secret());
        }
        builder.build()
    }
}

impl std::fmt::Debug for AuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("private_key", &self.private_key.as_ref().map(|_| "***"))
            .field("assertion", &self.assertion.as_ref().map(|_| "***"))
            .field("idp_id_token", &self.idp_id_token.as_ref().map(|_| "***"))
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

/// What a host gives the connector for authorization: where tokens live, and
/// how a user approves (none: fail with [`AuthError::Required`]).
#[derive(Clone, Debug)]
pub struct AuthContext {
    /// The token store.
    pub store: Arc<dyn TokenStore>,
    /// The interactive step, if this process may run one.
    pub provider: Option<Arc<dyn AuthProvider>>,
    /// The name clients register with.
    pub client_name: String,
    /// Whether a stored token is used before asking for a new one (`false`
    /// for `mcp-cli login`, which always runs the flow).
    pub reuse_stored: bool,
}

impl AuthContext {
    /// Stored tokens only: a server without a usable token fails with
    /// [`AuthError::Required`].
    pub fn stored(store: Arc<dyn TokenStore>) -> Self {
        Self {
            store,
            provider: None,
            client_name: "mcp-discovery".into(),
            reuse_stored: true,
        }
    }

    /// The same, with `provider` running the user's step.
    pub fn with_provider(mut self, provider: Arc<dyn AuthProvider>) -> Self {
        self.provider = Some(provider);
        self
    }
}
