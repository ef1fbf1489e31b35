//! [`AuthStatus`]: what `mcp-cli auth status` shows of one stored entry
//! (never a token).

use super::store::StoredCredentials;

/// What `mcp-cli auth status` shows of one stored entry (never a token).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthStatus {
    /// The server's name when the tokens were stored.
    pub server: String,
    /// The authorization server.
    pub issuer: String,
    /// The MCP server's URL.
    pub resource: String,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// When the access token expires (seconds since the Unix epoch).
    pub expires_at: Option<u64>,
    /// Whether it can be refreshed without the user.
    pub refreshable: bool,
    /// The client id used.
    pub client_id: Option<String>,
}

impl AuthStatus {
    /// The status of one stored entry.
    pub fn of(entry: &StoredCredentials) -> Self {
        Self {
            server: entry.server.clone(),
            issuer: entry.issuer.clone(),
            resource: entry.resource.clone(),
            scopes: entry
                .tokens
                .as_ref()
                .map(|t| t.scopes.clone())
                .unwrap_or_default(),
            expires_at: entry.tokens.as_ref().and_then(|t| t.expires_at),
            refreshable: entry
                .tokens
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some()),
            client_id: entry.client.as_ref().map(|c| c.client_id.clone()),
        }
    }
}
