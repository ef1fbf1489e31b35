//! How the gateway serves its clients.

use std::time::Duration;

use mcpdisco::config::Profiles;
use mcpdisco_protocol::types::Implementation;

/// How the gateway serves its clients: the defaults, changed with the
/// builder methods (one per field).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GatewayOptions {
    /// The gateway's `serverInfo`.
    pub server_info: Implementation,
    /// Its `instructions`.
    pub instructions: Option<String>,
    /// Items per page of every list.
    pub page_size: usize,
    /// How long a client gets to answer a server's question (sampling, elicitation, roots).
    pub client_request_timeout: Duration,
    /// How long a modern request waiting for its client's input is kept.
    pub input_wait: Duration,
    /// Tool search (`serve --tool-search`): `tools/list` answers only
    /// `search_tools` and `call_tool`, which find every server's tools
    /// (BM25 over names, descriptions and parameters) and call them
    /// (see the `search` module). Tools stay callable directly by their
    /// namespaced names. A profile's `"toolSearch": true` sets it for
    /// that profile's clients.
    pub tool_search: bool,
    /// The config's profiles: the views served at `/profiles/<name>/mcp`
    /// and by [`Gateway::serve_profile`](super::Gateway::serve_profile)
    /// (replaced by [`Gateway::reload`](super::Gateway::reload)).
    pub profiles: Profiles,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        Self {
            server_info: Implementation::new("mcp-discovery-gateway", env!("CARGO_PKG_VERSION")),
            instructions: Some(
                "Tools and prompts of several MCP servers, named <server>__<name>.".to_owned(),
            ),
            page_size: 100,
            client_request_timeout: Duration::from_secs(300),
            input_wait: Duration::from_secs(300),
            tool_search: false,
            profiles: Profiles::new(),
        }
    }
}

impl GatewayOptions {
    /// The gateway's `serverInfo`.
    pub fn server_info(mut self, info: Implementation) -> Self {
        self.server_info = info;
        self
    }

    /// Its `instructions` (`None`: none).
    pub fn instructions(mut self, instructions: impl Into<Option<String>>) -> Self {
        self.instructions = instructions.into();
        self
    }

    /// Items per page of every list.
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size;
        self
    }

    /// How long a client gets to answer a server's question.
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// How long a modern request waiting for its client's input is kept.
    pub fn input_wait(mut self, wait: Duration) -> Self {
        self.input_wait = wait;
        self
    }

    /// Tool search: `tools/list` answers only `search_tools` and `call_tool`.
    pub fn tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
    }

    /// The config's profiles.
    pub fn profiles(mut self, profiles: Profiles) -> Self {
        self.profiles = profiles;
        self
    }
}
