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
//! `OAuthClient` does the rest, per the MCP authorization specification
//! (2025-11-25 and 2026-07-28):
//!
//! 1. the challenge's `resource_metadata`, else the well-known
//!    protected-resource URLs (RFC 9728), in the specification's order
//!    (`discovery`, `metadata`);
//! 2. the authorization server's metadata (RFC 8414, then OpenID Connect,
//!    with path insertion), whose `issuer` must match exactly (`metadata`);
//!    for a server with no metadata at all (neither step finds a
//!    document), the 2025-03-26 default endpoints `/authorize`, `/token`
//!    and `/register` at the server's origin (`fallback`);
//! 3. the client's identity: a pre-registered id, a Client ID Metadata
//!    Document URL, or dynamic registration (RFC 7591), in that order
//!    (`registration`);
//! 4. the authorization code grant with PKCE S256 (refused without S256),
//!    `resource` (RFC 8707) on the authorization and token requests, scopes
//!    from the challenge, else `scopes_supported`, else none; `state` and
//!    `iss` (RFC 9207) checked on the redirect (`code_grant`); or the
//!    client credentials grant for non-interactive use (`grant`);
//! 5. a 403 `insufficient_scope` re-authorizes with the union of scopes, a
//!    few times at most (`client`); tokens are refreshed before they expire
//!    and on 401 (`tokens`, `refresh`).
//!
//! Every request of the flow goes through one seam, `AuthHttp` (`http`):
//! reqwest in production (`reqwest_http`), a script in the tests of the
//! whole flow (`flow_tests`). Discovery (steps 1 and 2) and the
//! authorization code grant (steps 3 and 4) are pure state machines that
//! answer the next request or the outcome (`discovery`, `code_grant`);
//! every grant's token request is one function (`token_request`).
//!
//! Tokens live in a `TokenStore` keyed by issuer and resource
//! (`FileTokenStore`: 0600, atomic). The interactive step is an
//! `AuthProvider`: a host opens its own browser tab; `mcp-cli login` uses
//! `LoopbackBrowser`; without one, a server that needs authorization fails
//! at once with [`AuthError::Required`]. Tokens never go to another origin
//! (no redirect is followed) and never appear in `Debug`, errors or logs.
//!
//! # Features
//!
//! * Always, whatever the features: the settings a config carries
//!   ([`AuthSettings`], [`Grant`]), `WWW-Authenticate` challenges
//!   ([`parse_challenge`], [`split_scopes`]), [`AuthError`], and what a
//!   build says of what it lacks ([`AuthFeature`], [`missing_oauth_layer`]).
//!   Settings or a server asking for something the build lacks fail with
//!   an [`AuthError`] naming the server and the missing feature
//!   ([`AuthSettings::check_features`]); nothing is silently ignored.
//! * `oauth` (off by default; implies `http`): the flow above: `OAuthClient`, `AuthLayer`,
//!   `AuthContext`; the authorization code grant with PKCE, client
//!   credentials, refresh, metadata discovery, dynamic registration and
//!   client ID metadata documents; client authentication with a secret; the
//!   token stores (`FileTokenStore`, `MemoryTokenStore`) and the providers
//!   (`LoopbackBrowser`, `HeadlessRedirect`). Brings `oauth2`, `reqwest` and
//!   what the file store needs.
//! * `oauth-extensions` (implies `oauth`): DPoP-bound tokens (RFC 9449,
//!   `dpop`), `private_key_jwt` client authentication (RFC 7523,
//!   `private_key_jwt`), the JWT bearer grant and enterprise-managed
//!   authorization (`extension`). Brings `jsonwebtoken` and `p256`. Without
//!   it, tokens are plain bearer tokens even where the authorization server
//!   offers DPoP, and a resource that demands DPoP is an error.

mod challenge;
mod feature;
mod settings;

#[cfg(feature = "oauth")]
mod client;
#[cfg(feature = "oauth")]
mod client_auth;
#[cfg(feature = "oauth")]
mod code_grant;
#[cfg(feature = "oauth")]
mod context;
#[cfg(feature = "oauth")]
mod credentials;
#[cfg(feature = "oauth")]
mod discovery;
#[cfg(feature = "oauth")]
mod fallback;
#[cfg(feature = "oauth")]
mod grant;
#[cfg(feature = "oauth")]
mod http;
#[cfg(feature = "oauth")]
mod layer;
#[cfg(feature = "oauth")]
pub mod metadata;
#[cfg(feature = "oauth")]
mod provider;
#[cfg(feature = "oauth")]
mod refresh;
#[cfg(feature = "oauth")]
mod registration;
#[cfg(feature = "oauth")]
mod reqwest_http;
#[cfg(feature = "oauth")]
mod status;
#[cfg(feature = "oauth")]
mod store;
#[cfg(feature = "oauth")]
mod token_request;
#[cfg(feature = "oauth")]
mod tokens;

#[cfg(all(test, feature = "oauth"))]
mod flow_tests;
#[cfg(all(test, feature = "oauth"))]
mod scripted_http;

#[cfg(feature = "oauth-extensions")]
mod dpop;
#[cfg(feature = "oauth-extensions")]
mod extension;
#[cfg(feature = "oauth-extensions")]
mod private_key_jwt;

pub use crate::error::AuthError;

pub use challenge::{Challenge, parse as parse_challenge, split_scopes};
pub use feature::{AuthFeature, MissingOAuthLayer, missing_oauth_layer};
pub use settings::{AuthSettings, Grant};

#[cfg(feature = "oauth")]
pub use client::OAuthClient;
#[cfg(feature = "oauth")]
pub use context::AuthContext;
#[cfg(feature = "oauth")]
pub use discovery::canonical_resource;
#[cfg(feature = "oauth")]
pub use layer::{AuthLayer, Authorized};
#[cfg(feature = "oauth")]
pub use provider::{AuthProvider, HeadlessRedirect, LoopbackBrowser, PendingAuthorization};
#[cfg(feature = "oauth")]
pub use status::AuthStatus;
#[cfg(feature = "oauth")]
pub use store::{
    ClientRegistration, FileTokenStore, MemoryTokenStore, StoredCredentials, TokenSet, TokenStore,
    now_secs,
};
