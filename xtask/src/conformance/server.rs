//! The suite's server scenarios (`conformance server --requirements REV`)
//! against our servers over HTTP, every requirement set at once (each run
//! has its own server process on its own port), judged strictly like the
//! client runs. A target's results are judged under the label
//! `server:<target>:<revision>`. The targets: the example server with the
//! suite's test catalog (`mcp-example-server http --conformance`), and the
//! gateway (`mcp-cli serve --http`) in front of that server over stdio,
//! configured with `"namespace": false` so its items keep their names.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::scenario_list::{ScenarioList, hold_to_list};
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
    /// How it is started.
    pub launch: Launch,
}

/// How a target is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// `mcp-example-server http --conformance` on the port.
    ExampleServer,
    /// `mcp-cli serve --http` on the port, in front of
    /// `mcp-example-server stdio --conformance` with `"namespace": false`.
    Gateway,
}

/// The example server's debug binary.
const EXAMPLE_BINARY: &str = "mcp-example-server";
/// The gateway's debug binary.
const CLI_BINARY: &str = "mcp-cli";

/// The server targets.
pub const TARGETS: &[Target] = &[
    Target {
        name: "example",
        launch: Launch::ExampleServer,
    },
    Target {
        name: "serve",
        launch: Launch::Gateway,
    },
];

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

/// Runs every target against every requirement set, all at once, each
/// held to the server scenarios of its set's list (`lists`); each run's
/// output goes to `<out_dir>/<target>-<revision>.log`.
pub fn run_all(
    tools: &Tools,
    binaries: &(dyn Fn(&str) -> PathBuf + Sync),
    lists: &BTreeMap<String, ScenarioList>,
    out_dir: &Path,
) -> Vec<Run> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = TARGETS
            .iter()
            .flat_map(|target| REVISIONS.iter().map(move |revision| (target, *revision)))
            .map(|(target, revision)| {
                let expected = lists.get(revision).map(|list| &list.server);
                let handle = scope.spawn(move || match expected {
                    Some(expected) => run_one(tools, target, binaries, revision, expected, out_dir),
                    None => bail!("no scenario list for {revision}"),
                });
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

/// The command that serves `target` on `port`; `work_dir` holds what it needs (a config).
fn command(
    target: &Target,
    binaries: &dyn Fn(&str) -> PathBuf,
    port: u16,
    work_dir: &Path,
) -> Result<Command> {
    let found = |name: &str| {
        let binary = binaries(name);
        if binary.is_file() {
            Ok(binary)
        } else {
            bail!("server binary not found at {}", binary.display())
        }
    };
    let example = found(EXAMPLE_BINARY)?;
    Ok(match target.launch {
        Launch::ExampleServer => {
            let mut cmd = Command::new(example);
            cmd.args(["http", "--conformance", "--host", "127.0.0.1", "--port"])
                .arg(port.to_string());
            cmd
        }
        Launch::Gateway => {
            let config = work_dir.join("serve-config.json");
            let text = serde_json::json!({"mcpServers": {"example": {
                "command": example,
                "args": ["stdio", "--conformance"],
                "namespace": false,
            }}});
            fs::create_dir_all(work_dir)?;
            fs::write(&config, serde_json::to_vec_pretty(&text)?)
                .with_context(|| format!("cannot write {}", config.display()))?;
            let mut cmd = Command::new(found(CLI_BINARY)?);
            cmd.arg("serve")
                .arg("--config")
                .arg(&config)
                .args(["--no-cache", "--no-reload", "--http"])
                .arg(format!("127.0.0.1:{port}"))
                .current_dir(work_dir);
            cmd
        }
    })
}

/// Starts `target` on a free port; its URL and the process.
fn start(
    target: &Target,
    binaries: &dyn Fn(&str) -> PathBuf,
    work_dir: &Path,
    log: &Path,
) -> Result<(String, Server)> {
    let port = free_port()?;
    let mut cmd = command(target, binaries, port, work_dir)?;
    let stderr =
        fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot start {}", process::describe(&cmd)))?;
    let server = Server(child);
    let started = Instant::now();
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        if started.elapsed() > START_TIMEOUT {
            bail!("{} did not listen on port {port}", process::describe(&cmd));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((format!("http://127.0.0.1:{port}/mcp"), server))
}

fn run_one(
    tools: &Tools,
    target: &Target,
    binaries: &dyn Fn(&str) -> PathBuf,
    revision: &str,
    expected: &std::collections::BTreeSet<String>,
    out_dir: &Path,
) -> Result<Vec<ScenarioResult>> {
    let stem = format!("{}-{revision}", target.name);
    let work_dir = out_dir.join(format!("{stem}-work"));
    let log = out_dir.join(format!("{stem}-server.log"));
    let (url, _server) = start(target, binaries, &work_dir, &log)?;
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
    let unreadable = parser.unreadable().to_vec();
    let results = parser.finish();
    if results.is_empty() {
        bail!(
            "the suite printed no scenario results (see {})",
            log_path.display()
        );
    }
    let exit = (!finished.success()).then(|| process::status_text(&finished));
    Ok(hold_to_list(results, expected, &unreadable, exit))
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
        assert!(is_server_label("server:serve:2026-07-28"));
    }

    #[test]
    fn the_gateway_target_serves_the_example_server_with_its_own_names() {
        let dir = std::env::temp_dir().join(format!("xtask-serve-target-{}", std::process::id()));
        let fake = dir.join("bin");
        fs::create_dir_all(&fake).unwrap();
        for name in [EXAMPLE_BINARY, CLI_BINARY] {
            fs::write(fake.join(name), "").unwrap();
        }
        let binaries = |name: &str| fake.join(name);
        let cmd = command(&TARGETS[1], &binaries, 4321, &dir).unwrap();
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(cmd.get_program(), fake.join(CLI_BINARY).as_os_str());
        assert!(
            args.ends_with(&["--http".to_owned(), "127.0.0.1:4321".to_owned()]),
            "{args:?}"
        );
        let config: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("serve-config.json")).unwrap()).unwrap();
        let example = &config["mcpServers"]["example"];
        assert_eq!(example["namespace"], false);
        assert_eq!(
            example["args"],
            serde_json::json!(["stdio", "--conformance"])
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn free_ports_are_bindable() {
        let port = free_port().unwrap();
        assert!(TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok());
    }
}
