//! [`AuthContext`]: what a host gives the connector for authorization.

use std::sync::Arc;

use super::provider::AuthProvider;
use super::store::TokenStore;

/// What a host gives the connector for authorization: where tokens live, and
/// how a user approves (none: fail with
/// [`AuthError::Required`](crate::error::AuthError::Required)).
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
    /// [`AuthError::Required`](crate::error::AuthError::Required).
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
