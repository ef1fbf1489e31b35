//! Third-party MCP servers installed by `cargo xtask setup` under `.tools/`, for integration tests.
//!
//! [`require_tools`] returns `None` (and prints a note) when the tools are missing, so a plain `cargo test` skips
//! those tests; with `MCP_REQUIRE_TOOLS=1` (set by `cargo xtask test`) it panics instead, so CI cannot skip them.

use std::ffi::{OsStr, OsString};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Environment variable naming the tools directory (set by xtask).
pub const TOOLS_DIR_ENV: &str = "MCP_TOOLS_DIR";

/// Environment variable that turns missing tools into a panic.
pub const REQUIRE_TOOLS_ENV: &str = "MCP_REQUIRE_TOOLS";

/// Directory of the fixture server scripts copied into the repository.
pub fn fixture_servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("servers")
}

/// A program with arguments and extra environment, convertible to a std or tokio command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment variables added to the inherited environment.
    pub env: Vec<(OsString, OsString)>,
}

impl ToolCommand {
    fn new(program: PathBuf) -> Self {
        Self {
            program,
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Appends an argument.
    #[must_use]
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Adds (or overrides) an environment variable.
    #[must_use]
    pub fn with_env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        let key = key.as_ref().to_owned();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.as_ref().to_owned()));
        self
    }

    /// The same command as a stdio transport configuration for server `name`.
    pub fn stdio_config(&self, name: &str) -> mcpdisco_transport::stdio::StdioConfig {
        let mut config =
            mcpdisco_transport::stdio::StdioConfig::new(name, self.program.to_string_lossy())
                .args(self.args.iter().map(|a| a.to_string_lossy().into_owned()));
        for (key, value) in &self.env {
            config = config.env(key.to_string_lossy(), value.to_string_lossy());
        }
        config
    }

    /// The same command as a config entry (`{"command", "args", "env"}`) for `mcpServers`.
    pub fn config_entry(&self) -> serde_json::Value {
        serde_json::json!({
            "command": self.program,
            "args": self.args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
            "env": self.env.iter().map(|(k, v)| (k.to_string_lossy().into_owned(), serde_json::Value::String(v.to_string_lossy().into_owned()))).collect::<serde_json::Map<_, _>>(),
        })
    }

    /// The same command as a discovery [`ServerConfig`](mcpdisco::config::ServerConfig) run in `cwd`.
    pub fn server_config(&self, name: &str, cwd: &Path) -> mcpdisco::config::ServerConfig {
        let mut server = mcpdisco::config::ServerConfig::stdio(
            name,
            self.program.to_string_lossy(),
            self.args.iter().map(|a| a.to_string_lossy().into_owned()),
            cwd,
        );
        for (key, value) in &self.env {
            server
                .launch
                .set_env(key.to_string_lossy(), value.to_string_lossy());
        }
        server
    }

    /// The same command as a [`std::process::Command`].
    pub fn to_std(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// The same command as a [`tokio::process::Command`] (killed when dropped).
    pub fn to_tokio(&self) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .kill_on_drop(true);
        cmd
    }
}

/// How the FastMCP fixture server is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastMcpTransport {
    /// Newline-delimited JSON-RPC over stdin/stdout.
    Stdio,
    /// Streamable HTTP at `http://127.0.0.1:<port>/mcp`.
    Http {
        /// Listening port.
        port: u16,
        /// `JSON_RESPONSE=1`: answer POSTs with `application/json` instead of SSE.
        json_response: bool,
        /// `STATELESS=1`: no sessions.
        stateless: bool,
    },
    /// Legacy HTTP+SSE (GET `/sse`, POST `/messages/`).
    Sse {
        /// Listening port.
        port: u16,
    },
}

/// The installed tools.
#[derive(Debug, Clone)]
pub struct Tools {
    dir: PathBuf,
}

impl Tools {
    /// Tools in `dir` (no check that they exist; see [`Tools::locate`]).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The tools directory: `MCP_TOOLS_DIR`, else `<workspace>/.tools`.
    pub fn locate() -> Self {
        match std::env::var_os(TOOLS_DIR_ENV) {
            Some(dir) if !dir.is_empty() => Self::at(dir),
            _ => Self::at(workspace_root().join(".tools")),
        }
    }

    /// The tools directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Files whose absence means the tools are not installed (all must exist).
    pub fn required_files(&self) -> Vec<PathBuf> {
        vec![
            self.node(),
            self.npm_bin("mcp-server-everything"),
            self.npm_bin("mcp-server-filesystem"),
            self.python(),
            self.venv_bin("mcp-server-time"),
        ]
    }

    /// True when every required file exists.
    pub fn installed(&self) -> bool {
        self.required_files().iter().all(|p| p.exists())
    }

    /// Directory of the node 22 executable.
    pub fn node_bin_dir(&self) -> PathBuf {
        self.dir
            .join("node")
            .join("node_modules")
            .join("node")
            .join("bin")
    }

    /// The node 22 executable.
    pub fn node(&self) -> PathBuf {
        self.node_bin_dir().join("node")
    }

    fn npm_bin(&self, name: &str) -> PathBuf {
        self.dir
            .join("node")
            .join("node_modules")
            .join(".bin")
            .join(name)
    }

    /// The venv's Python interpreter.
    pub fn python(&self) -> PathBuf {
        self.venv_bin("python")
    }

    fn venv_bin(&self, name: &str) -> PathBuf {
        self.dir.join("venv").join("bin").join(name)
    }

    /// `PATH` with node 22 first, then the current `PATH`.
    pub fn node_path(&self) -> OsString {
        let mut dirs = vec![self.node_bin_dir()];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        // Joining fails only if a directory contains ':'; fall back to node's directory alone.
        std::env::join_paths(dirs).unwrap_or_else(|_| self.node_bin_dir().into_os_string())
    }

    /// `NODE_OPTIONS` preloading `bind-localhost.cjs`, which forces host-less `listen(port)` onto 127.0.0.1.
    pub fn node_options(&self) -> OsString {
        let mut options = OsString::from("--require ");
        options.push(fixture_servers_dir().join("bind-localhost.cjs"));
        options
    }

    /// The node environment every node-based server gets: `PATH` (node 22 first) and `NODE_OPTIONS`.
    pub fn node_env(&self) -> Vec<(OsString, OsString)> {
        vec![
            ("PATH".into(), self.node_path()),
            ("NODE_OPTIONS".into(), self.node_options()),
        ]
    }

    fn node_command(&self, package_bin: &str) -> ToolCommand {
        let mut cmd = ToolCommand::new(self.node()).arg(self.npm_bin(package_bin));
        for (key, value) in self.node_env() {
            cmd = cmd.with_env(key, value);
        }
        cmd
    }

    /// `@modelcontextprotocol/server-everything` over stdio.
    pub fn everything_command(&self) -> ToolCommand {
        self.node_command("mcp-server-everything").arg("stdio")
    }

    /// server-everything over HTTP on 127.0.0.1:`port`: `streamable` = Streamable HTTP at `/mcp`, else legacy
    /// SSE (GET `/sse`, POST `/message?sessionId=`).
    pub fn everything_http_command(&self, port: u16, streamable: bool) -> ToolCommand {
        let mode = if streamable { "streamableHttp" } else { "sse" };
        self.node_command("mcp-server-everything")
            .arg(mode)
            .with_env("PORT", port.to_string())
    }

    /// `@modelcontextprotocol/server-filesystem` (stdio) allowed to access `root`.
    pub fn filesystem_command(&self, root: &Path) -> ToolCommand {
        self.node_command("mcp-server-filesystem").arg(root)
    }

    /// `mcp-server-time` (stdio) with the UTC timezone.
    pub fn time_command(&self) -> ToolCommand {
        ToolCommand::new(self.venv_bin("mcp-server-time"))
            .arg("--local-timezone")
            .arg("UTC")
    }

    /// The FastMCP fixture server (`tests/fixtures/servers/fastmcp_server.py`). Add `PAGE_SIZE` / `EXTRA` with
    /// [`ToolCommand::with_env`] for pagination tests.
    pub fn fastmcp_command(&self, transport: FastMcpTransport) -> ToolCommand {
        let script = fixture_servers_dir().join("fastmcp_server.py");
        let cmd = ToolCommand::new(self.python()).arg(script);
        match transport {
            FastMcpTransport::Stdio => cmd.arg("stdio"),
            FastMcpTransport::Http {
                port,
                json_response,
                stateless,
            } => {
                let mut cmd = cmd.arg("http").with_env("PORT", port.to_string());
                if json_response {
                    cmd = cmd.with_env("JSON_RESPONSE", "1");
                }
                if stateless {
                    cmd = cmd.with_env("STATELESS", "1");
                }
                cmd
            }
            FastMcpTransport::Sse { port } => cmd.arg("sse").with_env("PORT", port.to_string()),
        }
    }
}

/// The workspace root (parent of the `tests` crate).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map_or_else(|| manifest.to_path_buf(), Path::to_path_buf)
}

/// The installed tools, or `None` with a printed note when missing.
///
/// # Panics
/// When the tools are missing and `MCP_REQUIRE_TOOLS=1` (so CI cannot silently skip).
pub fn require_tools() -> Option<Tools> {
    let tools = Tools::locate();
    if tools.installed() {
        return Some(tools);
    }
    let missing: Vec<String> = tools
        .required_files()
        .into_iter()
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
    let required = std::env::var(REQUIRE_TOOLS_ENV).is_ok_and(|v| v == "1");
    assert!(
        !required,
        "{REQUIRE_TOOLS_ENV}=1 but tools are missing in {} ({}); run `cargo xtask setup`",
        tools.dir().display(),
        missing.join(", ")
    );
    eprintln!(
        "note: skipping: tools not installed in {} (run `cargo xtask setup`, or `cargo xtask test`)",
        tools.dir().display()
    );
    None
}

/// A currently free TCP port on 127.0.0.1 (bound then released; a race with other processes is possible).
pub fn free_port() -> std::io::Result<u16> {
    free_ports::<1>().map(|[port]| port)
}

/// `N` distinct free ports on 127.0.0.1. All are held until all are chosen:
/// closing each before asking for the next could hand out the same one twice.
pub fn free_ports<const N: usize>() -> std::io::Result<[u16; N]> {
    let mut listeners = Vec::with_capacity(N);
    let mut ports = [0; N];
    for port in &mut ports {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        *port = listener.local_addr()?.port();
        listeners.push(listener);
    }
    Ok(ports)
}

/// Polls until 127.0.0.1:`port` accepts a TCP connection, for at most `timeout`.
pub async fn wait_for_port(port: u16, timeout: Duration) -> std::io::Result<()> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let poll = async {
        loop {
            match tokio::net::TcpStream::connect(addr).await {
                Ok(_) => return,
                Err(_) => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    };
    tokio::time::timeout(timeout, poll).await.map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "127.0.0.1:{port} did not accept connections within {}ms",
                timeout.as_millis()
            ),
        )
    })
}

/// A server process started for a test (an HTTP server, say), killed when the test ends.
pub struct BackgroundServer(tokio::process::Child);

impl BackgroundServer {
    /// Starts `command` and waits until it listens on `port`.
    ///
    /// # Panics
    /// When it cannot start or does not listen within 30 s.
    pub async fn start(command: ToolCommand, port: u16) -> Self {
        let child = command
            .to_tokio()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the test server starts");
        wait_for_port(port, Duration::from_secs(30))
            .await
            .expect("the test server listens");
        Self(child)
    }
}

impl Drop for BackgroundServer {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

/// A binary of another workspace package (such as `mcp-cli`), next to the running test's own target directory.
///
/// # Panics
/// When it has not been built: `cargo xtask test` builds every binary first; by hand, run `cargo build --workspace --bins`.
pub fn workspace_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    // target/<profile>/deps/<test> -> target/<profile>/<name>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps");
    let path = profile_dir.join(name);
    assert!(
        path.is_file(),
        "{} is not built; run `cargo build --workspace --bins` (cargo xtask test does)",
        path.display()
    );
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_point_into_the_tools_dir() {
        let tools = Tools::at("/opt/t");
        let everything = tools.everything_command();
        assert_eq!(
            everything.program,
            PathBuf::from("/opt/t/node/node_modules/node/bin/node")
        );
        assert_eq!(
            everything.args,
            vec![
                OsString::from("/opt/t/node/node_modules/.bin/mcp-server-everything"),
                OsString::from("stdio")
            ]
        );
        let path = everything
            .env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap();
        assert_eq!(
            std::env::split_paths(&path).next().unwrap(),
            PathBuf::from("/opt/t/node/node_modules/node/bin")
        );
        let options = everything
            .env
            .iter()
            .find(|(k, _)| k == "NODE_OPTIONS")
            .map(|(_, v)| v.clone())
            .unwrap();
        assert!(
            options
                .to_string_lossy()
                .ends_with("fixtures/servers/bind-localhost.cjs")
        );
        assert_eq!(
            tools.time_command().program,
            PathBuf::from("/opt/t/venv/bin/mcp-server-time")
        );
        let fs = tools.filesystem_command(Path::new("/data"));
        assert_eq!(fs.args.last().unwrap(), &OsString::from("/data"));
    }

    #[test]
    fn fastmcp_http_sets_knobs() {
        let tools = Tools::at("/opt/t");
        let cmd = tools
            .fastmcp_command(FastMcpTransport::Http {
                port: 4321,
                json_response: true,
                stateless: false,
            })
            .with_env("PAGE_SIZE", "2");
        assert_eq!(cmd.program, PathBuf::from("/opt/t/venv/bin/python"));
        assert_eq!(cmd.args.last().unwrap(), &OsString::from("http"));
        assert!(cmd.env.contains(&("PORT".into(), "4321".into())));
        assert!(cmd.env.contains(&("JSON_RESPONSE".into(), "1".into())));
        assert!(cmd.env.contains(&("PAGE_SIZE".into(), "2".into())));
        assert!(!cmd.env.iter().any(|(k, _)| k == "STATELESS"));
        assert!(fixture_servers_dir().join("fastmcp_server.py").is_file());
    }

    #[test]
    fn with_env_overrides() {
        let cmd = ToolCommand::new("x".into())
            .with_env("A", "1")
            .with_env("A", "2");
        assert_eq!(cmd.env, vec![(OsString::from("A"), OsString::from("2"))]);
    }

    #[test]
    fn missing_tools_are_not_installed() {
        assert!(!Tools::at("/nonexistent/tools").installed());
    }

    #[tokio::test]
    async fn free_port_then_wait_for_listener() {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).unwrap();
        let port = listener.local_addr().unwrap().port();
        wait_for_port(port, Duration::from_secs(5)).await.unwrap();
        assert_ne!(free_port().unwrap(), 0);
        let ports = free_ports::<8>().unwrap();
        let distinct: std::collections::HashSet<_> = ports.iter().collect();
        assert_eq!(distinct.len(), 8);
    }

    #[tokio::test]
    async fn wait_for_port_times_out_on_closed_port() {
        let port = free_port().unwrap();
        let err = wait_for_port(port, Duration::from_millis(100))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tools-smoke","version":"0"}}}"#;

    /// Starts a stdio server, sends `initialize` and returns the first stdout line.
    async fn initialize_over_stdio(cmd: &ToolCommand) -> String {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let mut child = cmd
            .to_tokio()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(format!("{INIT}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        drop(stdin);
        child.kill().await.unwrap();
        line
    }

    #[tokio::test]
    async fn installed_stdio_servers_answer_initialize() {
        let Some(tools) = require_tools() else { return };
        let everything = initialize_over_stdio(&tools.everything_command()).await;
        assert!(everything.contains("\"protocolVersion\""), "{everything}");
        assert!(
            everything.contains("mcp-servers/everything"),
            "{everything}"
        );
        let time = initialize_over_stdio(&tools.time_command()).await;
        assert!(time.contains("mcp-time"), "{time}");
        let fastmcp = initialize_over_stdio(&tools.fastmcp_command(FastMcpTransport::Stdio)).await;
        assert!(fastmcp.contains("yard-fastmcp"), "{fastmcp}");
        let root = std::env::temp_dir();
        let filesystem = initialize_over_stdio(&tools.filesystem_command(&root)).await;
        assert!(
            filesystem.contains("secure-filesystem-server"),
            "{filesystem}"
        );
    }

    #[tokio::test]
    async fn installed_http_servers_listen_on_loopback() {
        let Some(tools) = require_tools() else { return };
        for cmd in [
            tools.everything_http_command(free_port().unwrap(), true),
            tools.fastmcp_command(FastMcpTransport::Http {
                port: free_port().unwrap(),
                json_response: false,
                stateless: false,
            }),
        ] {
            let port: u16 = cmd
                .env
                .iter()
                .find(|(k, _)| k == "PORT")
                .and_then(|(_, v)| v.to_str())
                .and_then(|v| v.parse().ok())
                .unwrap();
            let mut child = cmd
                .to_tokio()
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            wait_for_port(port, Duration::from_secs(60)).await.unwrap();
            // Where it bound, not whether 127.0.0.1 answers: a server bound
            // to every interface answers there too.
            let bound = crate::listeners::listening_addresses(port);
            child.kill().await.unwrap();
            assert!(!bound.is_empty(), "no listener found on port {port}");
            assert!(
                bound.iter().all(std::net::IpAddr::is_loopback),
                "port {port} is listened on at {bound:?}"
            );
        }
    }
}
