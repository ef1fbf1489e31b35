//! The token store `login` fills and every other command reads.

use std::sync::Arc;

use mcpdisco_client::auth::{AuthContext, FileTokenStore};

use crate::error::UsageError;

/// The name clients register with at authorization servers.
pub const CLIENT_NAME: &str = "mcp-cli";

/// The stored tokens, for commands that must not ask a user.
pub fn stored_context() -> Option<AuthContext> {
    let store = FileTokenStore::open_default().ok()?;
    Some(AuthContext {
        client_name: CLIENT_NAME.into(),
        ..AuthContext::stored(Arc::new(store))
    })
}

/// The token store, or why it cannot be used.
pub fn open_store() -> Result<FileTokenStore, UsageError> {
    FileTokenStore::open_default().map_err(|e| UsageError::CredentialStore(e.to_string()))
}
