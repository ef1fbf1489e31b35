//! Tasks relayed by `mcp-cli serve --http` from `mcp-example-server
//! --tasks` (its `slow_report` runs as a task), driven by `mcp-cli`
//! processes that know the gateway as a configured server: a follower
//! killed mid-task and a new process that fetches the result by id, a
//! task cancelled at the backend, and a backend killed and restarted by the
//! supervisor, whose old task then fails with an error naming it, as does
//! a task of a backend that a config reload replaced.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::processes::{self, wait_with_timeout};
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

/// The longest one `mcp-cli` run may take (a `--wait` on a 30-second task).
const CLI_TIMEOUT: Duration = Duration::from_secs(90);
/// How long the follower may take to say its task's id.
const ANNOUNCE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the follower runs before it is killed.
const FOLLOWED_FOR: Duration = Duration::from_secs(5);
/// The backend behind the gateway, and its tool as the gateway serves it.
const BACKEND: &str = "reports";
const TOOL: &str = "reports__slow_report";
/// The gateway, as the CLI's config names it.
const GATEWAY: &str = "gateway";
/// The gateway's profile without servers, and its endpoint in the CLI's config.
const ELSEWHERE: &str = "elsewhere";

/// A gateway config (the example server, marked) and a client config (the
/// gateway), in a temporary directory.
struct Setup {
    dir: tempfile::TempDir,
    marker: String,
    client_config: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!(
            "{}-{}",
            std::process::id(),
            dir.path().file_name().unwrap().to_string_lossy()
        );
        let client_config = dir.path().join("client.json");
        let setup = Self {
            dir,
            marker,
            client_config,
        };
        setup.write_gateway_config("1");
        setup
    }

    /// Writes the gateway config; a new `variant` changes the backend's
    /// environment, so a reload replaces it (a new process).
    fn write_gateway_config(&self, variant: &str) {
        let backend = json!({
            "command": workspace_bin("mcp-example-server"),
            "args": ["stdio", "--tasks"],
            "env": {processes::MARKER_VARIABLE: self.marker, "VARIANT": variant},
        });
        // A profile that shows no server: its clients reach no task.
        let profiles = json!({ELSEWHERE: {"servers": []}});
        std::fs::write(
            self.gateway_config(),
            json!({"mcpServers": {BACKEND: backend}, "profiles": profiles}).to_string(),
        )
        .unwrap();
    }

    fn gateway_config(&self) -> PathBuf {
        self.dir.path().join("gateway.json")
    }

    /// `mcp-cli serve --http` on the gateway config; the client config
    /// then names it.
    fn serve(&self) -> ServeHttp {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .arg("serve")
            .arg("--config")
            .arg(self.gateway_config())
            .args(["--http", "127.0.0.1:0"]);
        let serve = ServeHttp::start(command);
        let servers = json!({
            GATEWAY: {"url": serve.url},
            ELSEWHERE: {"url": serve.profile_url(ELSEWHERE)},
        });
        std::fs::write(
            &self.client_config,
            json!({ "mcpServers": servers }).to_string(),
        )
        .unwrap();
        serve
    }

    /// `mcp-cli --config CLIENT args…`, not yet started.
    fn cli(&self, args: &[&str]) -> Command {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .arg("--config")
            .arg(&self.client_config)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// `mcp-cli args…` run to its end (bounded).
    fn run(&self, args: &[&str]) -> Output {
        wait_with_timeout(self.cli(args).spawn().unwrap(), CLI_TIMEOUT)
    }

    /// The id of a new `slow_report` task of `seconds`, started detached.
    fn detached_task(&self, seconds: u32) -> String {
        let arguments = json!({"seconds": seconds}).to_string();
        let started = self.run(&[
            "call", GATEWAY, TOOL, "--task", "--detach", "--args", &arguments,
        ]);
        assert_eq!(started.status.code(), Some(0), "{}", text(&started));
        let id = stdout(&started);
        assert!(
            !id.is_empty() && !id.contains(char::is_whitespace),
            "one id: {id:?}"
        );
        id
    }

    /// The backend's process (the one marked process), waited for (bounded).
    fn backend_pid(&self) -> u32 {
        let deadline = Instant::now() + ANNOUNCE_TIMEOUT;
        loop {
            if let [pid] = processes::marked_processes(&self.marker)[..] {
                return pid;
            }
            assert!(Instant::now() < deadline, "no one backend process");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A following `mcp-cli call … --task`: its task's id, read from the line
/// it says on stderr (bounded), and the process, still running.
fn follower(setup: &Setup, seconds: u32) -> (String, Child) {
    let arguments = json!({"seconds": seconds}).to_string();
    let mut child = setup
        .cli(&["call", GATEWAY, TOOL, "--task", "--args", &arguments])
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let id = line
                .strip_prefix("task ")
                .and_then(|rest| rest.split_once(": resume with"))
                .map(|(id, _)| id.to_owned());
            if let Some(id) = id {
                let _ = sender.send(id);
            }
        }
    });
    match receiver.recv_timeout(ANNOUNCE_TIMEOUT) {
        Ok(id) => (id, child),
        Err(_) => {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("the follower never said its task:\n{}", text(&output));
        }
    }
}

/// Asserts that a `task get` failed with the error that names the backend
/// as restarted since it created the task.
fn assert_fails_as_restarted(output: &Output) {
    assert_ne!(output.status.code(), Some(0), "{}", text(output));
    let said = text(output);
    assert!(
        said.contains(&format!("server '{BACKEND}' was restarted")),
        "{said}"
    );
}

/// Kills `child` (SIGKILL: it cancels nothing on its way out) and reaps it.
fn kill(mut child: Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Waits (bounded) until the process `pid` is gone and reaped.
fn wait_reaped(pid: u32) {
    let deadline = Instant::now() + ANNOUNCE_TIMEOUT;
    while !processes::reaped(pid) {
        assert!(Instant::now() < deadline, "process {pid} was never reaped");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_task_through_serve_outlives_its_client_is_cancelled_at_its_server_and_fails_on_a_restart() {
    let setup = Setup::new();
    let serve = setup.serve();

    // A 30-second task, its follower killed after 5 s.
    let started = Instant::now();
    let (followed, child) = follower(&setup, 30);
    std::thread::sleep(FOLLOWED_FOR.saturating_sub(started.elapsed()));
    kill(child);

    // A second task, cancelled from another process: the backend ends it.
    let cancelled = setup.detached_task(30);
    assert_ne!(cancelled, followed);
    let working = setup.run(&["--json", "task", "get", GATEWAY, &cancelled]);
    let shown: Value = serde_json::from_slice(&working.stdout).unwrap_or_default();
    assert_eq!(shown["status"], "working", "{}", text(&working));
    let cancel = setup.run(&["task", "cancel", GATEWAY, &cancelled]);
    assert_eq!(cancel.status.code(), Some(0), "{}", text(&cancel));
    let after = setup.run(&["--json", "task", "get", GATEWAY, &cancelled]);
    let shown: Value = serde_json::from_slice(&after.stdout).unwrap_or_default();
    assert_eq!(shown["status"], "cancelled", "{}", text(&after));
    assert_eq!(shown["taskId"], cancelled.as_str(), "{}", text(&after));
    // A client of a profile without that server cannot reach the task.
    let outside = setup.run(&["task", "get", ELSEWHERE, &cancelled]);
    assert_ne!(outside.status.code(), Some(0), "{}", text(&outside));
    assert!(
        text(&outside).contains("unknown task"),
        "{}",
        text(&outside)
    );

    // A new process fetches the first task's result once it is done.
    let fetched = setup.run(&["task", "get", GATEWAY, &followed, "--wait"]);
    assert_eq!(fetched.status.code(), Some(0), "{}", text(&fetched));
    assert_eq!(
        stdout(&fetched),
        "report ready after 30s",
        "{}",
        text(&fetched)
    );

    // The backend killed: the supervisor restarts it, and its old task
    // fails with an error that names the server and says why.
    let lost = setup.detached_task(60);
    let backend = setup.backend_pid();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(backend).unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_reaped(backend);
    let failed = setup.run(&["task", "get", GATEWAY, &lost]);
    assert_fails_as_restarted(&failed);
    let waited = setup.run(&["task", "get", GATEWAY, &lost, "--wait"]);
    assert_ne!(waited.status.code(), Some(0), "{}", text(&waited));
    assert!(text(&waited).contains("was restarted"), "{}", text(&waited));
    // The restarted backend runs new tasks.
    setup.detached_task(1);
    assert_ne!(setup.backend_pid(), backend);

    let status = serve.stop();
    assert!(status.success(), "serve exited with {status}");
    processes::assert_none_marked(&setup.marker);
}

#[test]
fn a_task_of_a_backend_replaced_by_a_reload_fails_naming_the_server() {
    let setup = Setup::new();
    let serve = setup.serve();
    let before = setup.detached_task(60);
    let backend = setup.backend_pid();

    // The backend's config changes: the reload replaces its process.
    setup.write_gateway_config("2");
    serve.signal(nix::sys::signal::Signal::SIGHUP);
    serve.wait_for_line("config reloaded");
    wait_reaped(backend);

    // The new backend runs new tasks (so its session is up)…
    setup.detached_task(1);
    assert_ne!(setup.backend_pid(), backend);
    // …but does not know the old one: the gateway says why, rather than
    // asking it.
    let failed = setup.run(&["task", "get", GATEWAY, &before]);
    assert_fails_as_restarted(&failed);

    let status = serve.stop();
    assert!(status.success(), "serve exited with {status}");
    processes::assert_none_marked(&setup.marker);
}
