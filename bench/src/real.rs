//! B6: real servers (Node and Python, installed by `cargo xtask test`)
//! discovered all at once. Ours is `mcp-cli`, run by the harness; this
//! module holds the other two contenders, which read the same config:
//!
//! * rmcp: every server at once with `join_all`: spawn, `initialize`, each
//!   advertised list (all pages), then every client cancelled.
//! * raw (the floor): every server spawned at once, one thread each writing
//!   the handshake and the advertised list requests and reading lines until
//!   each answer, no client logic; every server killed at the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use futures::future::join_all;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde::Deserialize;
use serde_json::Value;

use crate::discovery::DiscoveryResult;
use crate::raw_client::{INITIALIZED, RawClient, initialize_request};
use crate::{BenchError, Contender};

/// One server of the config.
#[derive(Debug, Clone, Deserialize)]
pub struct RealServer {
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment, added to ours.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// The servers of an `mcpServers` config file, by name.
pub fn read_config(path: &Path) -> Result<Vec<(String, RealServer)>, BenchError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BenchError::io(format!("cannot read {}", path.display()), e))?;
    #[derive(Deserialize)]
    struct Config {
        #[serde(rename = "mcpServers")]
        servers: BTreeMap<String, RealServer>,
    }
    let config: Config =
        serde_json::from_str(&text).map_err(|e| BenchError::json("the real-server config", e))?;
    Ok(config.servers.into_iter().collect())
}

/// The list methods a server's capabilities advertise, with the member holding the items.
fn advertised(capabilities: &Value) -> Vec<(&'static str, &'static str)> {
    let mut lists = Vec::new();
    if capabilities.get("tools").is_some() {
        lists.push(("tools/list", "tools"));
    }
    if capabilities.get("resources").is_some() {
        lists.push(("resources/list", "resources"));
        lists.push(("resources/templates/list", "resourceTemplates"));
    }
    if capabilities.get("prompts").is_some() {
        lists.push(("prompts/list", "prompts"));
    }
    lists
}

/// Sends `request` with `id` and reads lines until its answer (servers send
/// notifications unasked).
fn ask(client: &mut RawClient, id: u64, line: &str) -> Result<Value, BenchError> {
    client.writer.send(line)?;
    client.writer.flush()?;
    loop {
        let answer = client.reader.receive()?;
        let value: Value =
            serde_json::from_slice(answer).map_err(|e| BenchError::json("raw: an answer", e))?;
        if value.get("id").and_then(Value::as_u64) == Some(id) {
            return Ok(value);
        }
    }
}

/// raw: every server at once, killed at the end.
pub fn raw_all(servers: &[(String, RealServer)]) -> Result<DiscoveryResult, BenchError> {
    let started = Instant::now();
    let mut clients = Vec::with_capacity(servers.len());
    for (_, server) in servers {
        let env: Vec<(String, String)> = server.env.clone().into_iter().collect();
        clients.push(RawClient::spawn_with(
            &server.command,
            &server.args,
            &env,
            Stdio::null(),
        )?);
    }
    let handles: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            std::thread::spawn(move || -> Result<(RawClient, usize), BenchError> {
                let init = ask(&mut client, 0, &initialize_request(0))?;
                client.writer.send(INITIALIZED)?;
                let capabilities = init
                    .pointer("/result/capabilities")
                    .cloned()
                    .unwrap_or_default();
                let mut tools = 0;
                for (id, (method, member)) in advertised(&capabilities).into_iter().enumerate() {
                    let id = id as u64 + 1;
                    let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
                    let answer = ask(&mut client, id, &request)?;
                    if member == "tools" {
                        tools += answer
                            .pointer("/result/tools")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len);
                    }
                }
                Ok((client, tools))
            })
        })
        .collect();
    let mut tools = 0;
    let mut done = Vec::new();
    for handle in handles {
        let (client, found) = handle
            .join()
            .map_err(|_| BenchError::Raw("a raw client thread panicked".into()))??;
        tools += found;
        done.push(client);
    }
    for client in done {
        client.kill();
    }
    Ok(DiscoveryResult {
        contender: Contender::Raw,
        servers: servers.len(),
        tools,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// rmcp: every server at once with `join_all`, then every client cancelled.
pub async fn rmcp_all(servers: &[(String, RealServer)]) -> Result<DiscoveryResult, BenchError> {
    let started = Instant::now();
    let discovered = join_all(servers.iter().map(|(_, server)| async move {
        let mut command = tokio::process::Command::new(&server.command);
        command
            .args(&server.args)
            .envs(&server.env)
            .stderr(Stdio::null());
        let transport = TokioChildProcess::new(command).map_err(rmcp_error)?;
        let client = ().serve(transport).await.map_err(rmcp_error)?;
        let capabilities = client
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let mut tools = 0;
        if capabilities.tools.is_some() {
            tools = client.list_all_tools().await.map_err(rmcp_error)?.len();
        }
        if capabilities.resources.is_some() {
            client.list_all_resources().await.map_err(rmcp_error)?;
            client
                .list_all_resource_templates()
                .await
                .map_err(rmcp_error)?;
        }
        if capabilities.prompts.is_some() {
            client.list_all_prompts().await.map_err(rmcp_error)?;
        }
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
        servers: servers.len(),
        tools,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn rmcp_error(error: impl std::fmt::Display) -> BenchError {
    BenchError::Rmcp(error.to_string())
}
