//! `cargo xtask demo [ARGS…]`: the quick start. Builds the slim `mcp-cli`
//! (no default features: a JSON config's stdio and HTTP servers are all the
//! demo has) and the example server, and nothing else; starts the example
//! server over HTTP on a free port, runs `mcp-cli --config
//! examples/mcp_config.json ARGS…` (default `discover`) against it and the
//! stdio example servers, then stops the HTTP server. ARGS that need a
//! left-out feature (`login`, `registry`, …) fail, naming it. Its binaries
//! go to `target/demo`: the `mcp-cli` of `target/debug`, which the tests
//! run, stays the whole CLI of the workspace build; they are built in
//! `target`'s build folder (cargo's `build-dir`), beside xtask's own build.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::workspace::Workspace;

const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// What the demo builds: the slim CLI (no OAuth, OpenTelemetry export,
/// Redis, registry, TOML or YAML: a far smaller tree than the whole CLI's)
/// and the example server; no dev-dependency, no other member.
const DEMO_BUILD: [&str; 6] = [
    "build",
    "--no-default-features",
    "-p",
    "mcpdisco-cli",
    "-p",
    "mcp-example-server",
];
const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Kills and reaps the HTTP server however the demo ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the demo; the exit status is mcp-cli's.
pub fn run(ws: &Workspace, args: &[String]) -> Result<ExitCode> {
    let target = ws.target_dir().join("demo");
    let mut build = ws.cargo();
    // The binaries go to `target/demo`; what they are built from stays in
    // `target`'s build folder, where xtask's own build left the proc macros
    // and crates they share (syn, serde, clap): nothing is compiled twice.
    build
        .args(DEMO_BUILD)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_BUILD_BUILD_DIR", ws.target_dir());
    println!("demo: {}", process::describe(&build));
    process::run_checked(&mut build, BUILD_TIMEOUT)?;

    let bin = target.join("debug");
    let server_bin = bin.join("mcp-example-server");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .context("finding a free port")?
        .port();
    let mut child = Command::new(&server_bin)
        .args(["http", "--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", server_bin.display()))?;
    let stderr = child.stderr.take();
    let server = Running(child);
    let (ready_tx, ready_rx) = mpsc::channel();
    if let Some(stderr) = stderr {
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.starts_with("listening on") {
                    let _ = ready_tx.send(line);
                } else {
                    eprintln!("example server: {line}");
                }
            }
        });
    }
    match ready_rx.recv_timeout(READY_TIMEOUT) {
        Ok(line) => println!("demo: example server {line}"),
        Err(_) => bail!("the example HTTP server did not start within {READY_TIMEOUT:?}"),
    }

    let mut cli = Command::new(bin.join("mcp-cli"));
    cli.current_dir(ws.root())
        .args(["--config", "examples/mcp_config.json"])
        .env("MCP_EXAMPLE_SERVER", &server_bin)
        .env("MCP_EXAMPLE_HTTP_PORT", port.to_string());
    if args.is_empty() {
        cli.arg("discover");
    } else {
        cli.args(args);
    }
    println!("demo: {}\n", process::describe(&cli));
    let status = cli.status().context("running mcp-cli")?;
    drop(server);
    Ok(match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
