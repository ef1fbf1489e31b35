//! The built-in connectors: `stdio` (a child process) and `http`
//! (Streamable HTTP, legacy HTTP+SSE, or detect).

use std::sync::Arc;

use async_trait::async_trait;
use mcp_transport::codec::ndjson::SkipLog;
use mcp_transport::http::{HttpClient, HttpConfig, HttpTransport};
use mcp_transport::stdio::{StdioConfig, StdioTransport};

use super::{ConnectContext, Connection, ConnectionDetails, Connector};
use crate::config::{Launch, ServerConfig};
use crate::session::{ErrorKind, SessionError};

/// Starts [`Launch::Stdio`] servers as child processes.
#[derive(Debug, Clone, Copy, Default)]
pub struct StdioConnector;

impl ConnectionDetails for StdioTransport {
    fn stderr_tail(&self) -> String {
        StdioTransport::stderr_tail(self)
    }

    fn skipped_lines(&self) -> Option<SkipLog> {
        Some(self.skipped())
    }
}

fn wrong_launch(server: &ServerConfig, connector: &str) -> SessionError {
    SessionError::new(
        &server.name,
        "start",
        ErrorKind::Unsupported {
            reason: format!(
                "the {connector} connector cannot start a \"{}\" server",
                server.launch.transport_type()
            ),
        },
    )
}

#[async_trait]
impl Connector for StdioConnector {
    async fn open(
        &self,
        server: &ServerConfig,
        context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let Launch::Stdio {
            command,
            args,
            env,
            cwd,
            env_policy,
        } = &server.launch
        else {
            return Err(wrong_launch(server, "stdio"));
        };
        let mut config =
            StdioConfig::new(server.name.clone(), command.clone()).args(args.iter().cloned());
        config.env = env.clone();
        config.env_policy = env_policy.clone();
        config.masker = context.masker.union(&server.masker());
        config.cwd = Some(cwd.clone());
        config.shutdown_grace = context.graces.after_eof;
        config.term_grace = context.graces.after_term;
        let transport = Arc::new(
            StdioTransport::spawn(config)
                .map_err(|error| SessionError::from_transport(&server.name, "start", error))?,
        );
        Ok(Connection::with_details(transport.clone(), transport))
    }
}

/// Connects [`Launch::Http`] servers over the shared (or given) HTTP client.
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpConnector;

#[async_trait]
impl Connector for HttpConnector {
    async fn open(
        &self,
        server: &ServerConfig,
        context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let Launch::Http { url, headers, kind } = &server.launch else {
            return Err(wrong_launch(server, "http"));
        };
        let mut config = HttpConfig::new(server.name.clone(), url.clone());
        config.headers = headers
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        config.masker = context.masker.union(&server.masker());
        config.tracer = context
            .tracer
            .as_ref()
            .map(|tracer| tracer.with_masker(&config.masker));
        let client = match &context.http {
            Some(client) => client.clone(),
            None => HttpClient::shared()
                .map_err(|error| SessionError::from_transport(&server.name, "connect", error))?,
        };
        let transport = HttpTransport::connect(config, &client, *kind)
            .await
            .map_err(|error| SessionError::from_send(&server.name, "connect", error))?;
        Ok(Connection::new(Arc::new(transport)))
    }
}
