//! B3: discovering many stdio servers. Ours is `mcp-cli discover`, run by the
//! harness as a whole process; this module holds the other two contenders and
//! writes the config all three read.
//!
//! * rmcp: every server at once with `join_all` (as B6 runs it): spawn,
//!   `initialize`, `list_all_tools`; then every client cancelled.
//! * raw (the limit): one server alone, the least a client can do: spawn,
//!   `initialize`, `notifications/initialized`, `tools/list`, close stdin, reap.

use std::path::{Path, PathBuf};
#[cfg(feature = "peers")]
use std::time::Instant;

#[cfg(feature = "peers")]
use futures::future::join_all;
#[cfg(feature = "peers")]
use rmcp::ServiceExt;
#[cfg(feature = "peers")]
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

#[cfg(feature = "peers")]
use crate::raw_client::{INITIALIZED, RawClient, initialize_request, tools_list_request};
use crate::{BenchError, Contender};

/// The servers of one B3 set.
#[derive(Debug, Clone)]
pub struct ServerSet {
    /// The `bench-server` program.
    pub program: PathBuf,
    /// How many servers.
    pub servers: usize,
    /// Tools per server.
    pub tools: usize,
    /// How long each server takes to start.
    pub start_delay_ms: u64,
    /// Where each server notes that it started, if anywhere.
    pub start_log: Option<PathBuf>,
}

impl ServerSet {
    /// The name of server `index`: `s00`, `s01`, …
    pub fn name(index: usize) -> String {
        format!("s{index:02}")
    }

    /// The arguments that start server `index`.
    pub fn args(&self, index: usize) -> Vec<String> {
        let mut args = vec![
            "stdio".to_owned(),
            "--name".to_owned(),
            Self::name(index),
            "--tools".to_owned(),
            self.tools.to_string(),
            "--start-delay-ms".to_owned(),
            self.start_delay_ms.to_string(),
        ];
        if let Some(log) = &self.start_log {
            args.push("--start-log".to_owned());
            args.push(log.display().to_string());
        }
        args
    }

    /// The set as an `mcpServers` config, as `mcp-cli --config` reads it.
    pub fn config(&self) -> Value {
        let servers: Map<String, Value> = (0..self.servers)
            .map(|index| {
                (
                    Self::name(index),
                    json!({"command": self.program.display().to_string(), "args": self.args(index)}),
                )
            })
            .collect();
        json!({ "mcpServers": servers })
    }

    /// Writes [`config`](Self::config) to `path`.
    pub fn write_config(&self, path: &Path) -> Result<(), BenchError> {
        let text = serde_json::to_string_pretty(&self.config())
            .map_err(|e| BenchError::json("the config", e))?;
        std::fs::write(path, text)
            .map_err(|e| BenchError::io(format!("cannot write {}", path.display()), e))
    }
}

/// What one B3 process did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DiscoveryResult {
    /// Whose client.
    pub contender: Contender,
    /// How many servers it discovered.
    pub servers: usize,
    /// How many tools it found in all.
    pub tools: usize,
    /// The time from the first spawn to the last server reaped, in seconds
    /// (the harness also times the whole process).
    pub seconds: f64,
}

/// rmcp: every server of `set` at once with `join_all`, then every client
/// cancelled.
#[cfg(feature = "peers")]
pub async fn rmcp_all(set: &ServerSet) -> Result<DiscoveryResult, BenchError> {
    let started = Instant::now();
    let discovered = join_all((0..set.servers).map(|index| async move {
        let mut command = tokio::process::Command::new(&set.program);
        command.args(set.args(index));
        let transport = TokioChildProcess::new(command).map_err(rmcp_error)?;
        let client = ().serve(transport).await.map_err(rmcp_error)?;
        let tools = client.list_all_tools().await.map_err(rmcp_error)?.len();
        Ok::<_, BenchError>((client, tools))
    }))
    .await;
    let mut tools = 0;
    let mut clients = Vec::new();
    for result in discovered {
        let (client, found) = result?;
        tools += found;
        clients.push(client);
    }
    for result in join_all(clients.into_iter().map(|client| client.cancel())).await {
        result.map_err(rmcp_error)?;
    }
    Ok(DiscoveryResult {
        contender: Contender::Rmcp,
        servers: set.servers,
        tools,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// raw: server `index` of `set` alone.
#[cfg(feature = "peers")]
pub fn raw_single(set: &ServerSet, index: usize) -> Result<DiscoveryResult, BenchError> {
    let started = Instant::now();
    let mut client = RawClient::spawn(&set.program, &set.args(index))?;
    client.exchange(&initialize_request(0))?;
    client.writer.send(INITIALIZED)?;
    let line = client.exchange(&tools_list_request(1))?;
    let value: Value =
        serde_json::from_slice(line).map_err(|e| BenchError::json("raw: tools/list", e))?;
    let tools = value
        .pointer("/result/tools")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    client.close()?;
    Ok(DiscoveryResult {
        contender: Contender::Raw,
        servers: 1,
        tools,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(feature = "peers")]
fn rmcp_error(error: impl std::fmt::Display) -> BenchError {
    BenchError::Rmcp(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> ServerSet {
        ServerSet {
            program: PathBuf::from("/bin/bench-server"),
            servers: 3,
            tools: 50,
            start_delay_ms: 300,
            start_log: Some(PathBuf::from("/tmp/starts.log")),
        }
    }

    #[test]
    fn each_server_has_its_own_name_and_arguments() {
        let set = set();
        assert_eq!(
            set.args(2),
            [
                "stdio",
                "--name",
                "s02",
                "--tools",
                "50",
                "--start-delay-ms",
                "300",
                "--start-log",
                "/tmp/starts.log"
            ]
        );
    }

    #[test]
    fn config_names_every_server() {
        let config = set().config();
        let servers = config["mcpServers"].as_object().unwrap();
        assert_eq!(servers.len(), 3);
        assert_eq!(servers["s01"]["command"], "/bin/bench-server");
        assert_eq!(servers["s01"]["args"][2], "s01");
    }
}
