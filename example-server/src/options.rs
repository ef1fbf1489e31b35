//! How the example server behaves, and who it says it is.

use mcpdisco_protocol::types::Implementation;

/// Which eras the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraSupport {
    /// `initialize` and `server/discover`, like current Python servers.
    #[default]
    Both,
    /// `initialize` only; `server/discover` is -32601, like the Node reference servers.
    Legacy,
    /// `server/discover` only; `initialize` is -32601.
    Modern,
}

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The eras it speaks.
    pub eras: EraSupport,
    /// Items per list page; every list is one page when `None`.
    pub page_size: Option<usize>,
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// Serve the conformance suite's test catalog instead of the example's own.
    pub conformance: bool,
    /// Offer the extension `io.modelcontextprotocol/tasks` and the tool
    /// `slow_report`, which runs as a task (outside `conformance`).
    pub tasks: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            eras: EraSupport::Both,
            page_size: None,
            name: "mcp-example-server".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            conformance: false,
            tasks: false,
        }
    }
}

impl ServerOptions {
    /// The server's `serverInfo`.
    pub(crate) fn server_info(&self) -> Implementation {
        Implementation {
            title: Some("MCP example server".to_owned()),
            ..Implementation::new(&self.name, &self.version)
        }
    }
}
