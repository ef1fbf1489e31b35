//! The suite's server scenarios (`conformance server --requirements REV`)
//! against our servers over HTTP, every requirement set at once (each run
//! has its own server process on its own port), judged strictly like the
//! client runs. A target's results are judged under the label
//! `server:<target>:<revision>`.

use std::fs;
use std::io::Write;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::{REVISIONS, ScenarioResult, SummaryParser};
use crate::process;
use crate::tools::Tools;

/// How long one requirement set's server run may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// How long a server gets to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A server the suite is run against.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Its short name, in labels and tables.
    pub name: &'static str,
    /// The debug binary that serves it.
    pub binary: &'static str,
}

/// The server targets: the example server with the suite's test catalog.
pub const TARGETS: &[Target] = &[Target {
    name: "example",
    binary: "mcp-example-server",
}];

/// The prefix of every server run's label.
pub const SERVER_LABEL_PREFIX: &str = "server:";

/// The label a target's run of `revision` is judged under.
pub fn label(target: &Target, revision: &str) -> String {
    format!("{SERVER_LABEL_PREFIX}{}:{revision}", target.name)
}

/// Whether `label` names a server run of a known target and revision.
pub fn is_server_label(label: &str) -> bool {
    TARGETS.iter().any(|target| {
        REVISIONS
            .iter()
            .any(|revision| self::label(target, revision) == label)
    })
}

/// One finished run: its label and results, or why it gave none.
pub type Run = (String, Result<Vec<ScenarioResult>>);

/// Runs every target against every requirement set, all at once; each
/// run's output goes to `<out_dir>/<target>-<revision>.log`.
pub fn run_all(tools: &Tools, binaries: &dyn Fn(&str) -> PathBuf, out_dir: &Path) -> Vec<Run> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = TARGETS
            .iter()
            .flat_map(|target| REVISIONS.iter().map(move |revision| (target, *revision)))
            .map(|(target, revision)| {
                let binary = binaries(target.binary);
                let handle =
                    scope.spawn(move || run_one(tools, target, &binary, revision, out_dir));
                (label(target, revision), handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(label, handle)| {
                let result = handle
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("the run panicked")));
                (label, result)
            })
            .collect()
    })
}

/// A free port on 127.0.0.1 (free when asked; the server binds it right after).
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("no free port")?;
    Ok(listener.local_addr()?.port())
}

/// A running server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `binary http --conformance` on a free port; its URL and the process.
fn start(binary: &Path, log: &Path) -> Result<(String, Server)> {
    if !binary.is_file() {
        bail!("server binary not found at {}", binary.display());
    }
    let port = free_port()?;
    let stderr =
        fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    let child = Command::new(binary)
        .args(["http", "--conformance", "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot start {}", binary.display()))?;
    let server = Server(child);
    let started = Instant::now();
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        if started.elapsed() > START_TIMEOUT {
            bail!("{} did not listen on port {port}", binary.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((format!("http://127.0.0.1:{port}/mcp"), server))
}

fn run_one(
    tools: &Tools,
    target: &Target,
    binary: &Path,
    revision: &str,
    out_dir: &Path,
) -> Result<Vec<ScenarioResult>> {
    let stem = format!("{}-{revision}", target.name);
    let (url, _server) = start(binary, &out_dir.join(format!("{stem}-server.log")))?;
    let results_dir = out_dir.join(&stem);
    let mut cmd = Command::new(tools.conformance_bin());
    cmd.args(["server", "--url", &url, "--requirements", revision, "-o"])
        .arg(&results_dir)
        .env("PATH", tools.node_path()?);
    println!("conformance: {}", process::describe(&cmd));
    let log_path = out_dir.join(format!("{stem}.log"));
    let mut log = fs::File::create(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;
    let mut parser = SummaryParser::default();
    let finished = process::run_quiet(&mut cmd, RUN_TIMEOUT, |_, line| {
        let _ = writeln!(log, "{line}");
        parser.feed(line);
    })?;
    if finished.status.is_none() {
        bail!("suite killed after {}s", RUN_TIMEOUT.as_secs());
    }
    println!(
        "conformance {} {revision}: suite exit {}, output in {}",
        target.name,
        process::status_text(&finished),
        log_path.display()
    );
    let results = parser.finish();
    if results.is_empty() {
        bail!(
            "the suite printed no scenario results (see {})",
            log_path.display()
        );
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_target_and_revision() {
        let target = &TARGETS[0];
        assert_eq!(label(target, "2026-07-28"), "server:example:2026-07-28");
        assert!(is_server_label("server:example:2025-11-25"));
        assert!(!is_server_label("server:example:2030-01-01"));
        assert!(!is_server_label("server:nope:2025-11-25"));
    }

    #[test]
    fn free_ports_are_bindable() {
        let port = free_port().unwrap();
        assert!(TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok());
    }
}
