//! `mcp-cli serve --http` under load while a backend dies (issue #31,
//! section 6): 32 clients of the official Python SDK (half in each era)
//! make 100 `tools/call` round trips each, through the gateway, to two
//! healthy backends and a third one that is killed with SIGKILL twice
//! meanwhile. Loopback only; bounded in count and time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_tests::processes::wait_with_timeout;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::{require_tools, workspace_bin, workspace_root};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// Concurrent clients, and the round trips each makes.
const CLIENTS: usize = 32;
const CALLS: usize = 100;
/// SIGKILLs of the victim while the calls run.
const KILLS: usize = 2;
/// The longest one call may take.
const SLOWEST_CALL: f64 = 10.0;
/// The most memory `serve` may hold at its peak (VmHWM).
const PEAK_RSS_KIB: u64 = 150 * 1024;
/// The longest the whole load may take before the test gives up on it.
const LOAD_TIMEOUT: Duration = Duration::from_secs(240);
/// The victim's name in the config.
const VICTIM: &str = "victim";

/// A config in a temporary directory; every server it starts carries a
/// marker in its environment, so leftovers can be found.
struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
    marker: String,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!(
            "load-{}-{}",
            std::process::id(),
            dir.path().file_name().unwrap().to_string_lossy()
        );
        let config = dir.path().join("gateway.json");
        let servers: serde_json::Map<String, Value> = ["healthy-a", "healthy-b", VICTIM]
            .into_iter()
            .map(|name| {
                let log = dir.path().join(format!("{name}.log"));
                let entry = json!({
                    "command": FIXTURE,
                    "args": ["well-behaved"],
                    "env": {"FIXTURE_START_LOG": log, "GATEWAY_TEST_MARKER": marker},
                });
                (name.to_owned(), entry)
            })
            .collect();
        std::fs::write(&config, json!({"mcpServers": servers}).to_string()).unwrap();
        Self {
            dir,
            config,
            marker,
        }
    }

    fn log(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.log"))
    }
}

/// `mcp-cli serve --http 127.0.0.1:0`, its URL read from its stderr;
/// `mcp-cli serve --http 127.0.0.1:0` on the setup's config, its cache in the setup's folder.
fn start_http(setup: &Setup) -> ServeHttp {
    let mut command = Command::new(workspace_bin("mcp-cli"));
    command
        .args(["serve", "--config"])
        .arg(&setup.config)
        .args(["--http", "127.0.0.1:0"])
        .env("MCP_DISCOVERY_CACHE_DIR", setup.dir.path().join("cache"));
    ServeHttp::start(command)
}

/// The pids in a fixture's start log, in start order.
fn starts(log: &Path) -> Vec<u32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_whitespace().nth(1)?.parse().ok())
        .collect()
}

#[test]
fn thirty_two_clients_keep_working_while_a_backend_is_killed_twice() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let gateway = start_http(&setup);
    let script = workspace_root()
        .join("tests")
        .join("fixtures")
        .join("clients")
        .join("load_client.py");
    let child = Command::new(tools.python())
        .arg(script)
        .arg(&gateway.url)
        .args([CLIENTS.to_string(), CALLS.to_string(), VICTIM.to_owned()])
        .arg(setup.log(VICTIM))
        .arg(KILLS.to_string())
        .arg(setup.dir.path().join("load.json"))
        .current_dir(setup.dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_with_timeout(child, LOAD_TIMEOUT);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python clients failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let written = std::fs::read_to_string(setup.dir.path().join("load.json")).unwrap();
    let seen: Value = serde_json::from_str(&written)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"));

    let calls = seen["calls"].as_array().unwrap();
    assert_eq!(calls.len(), CLIENTS * CALLS, "every round trip was made");
    let mut victim_failures = 0;
    for call in calls {
        let backend = call["backend"].as_str().unwrap();
        let outcome = call["outcome"].as_str().unwrap();
        let seconds = call["seconds"].as_f64().unwrap();
        assert!(seconds < SLOWEST_CALL, "a call took {seconds:.1} s: {call}");
        if backend == VICTIM {
            if outcome != "ok" {
                victim_failures += 1;
                // An error naming the server, never "unknown tool" from a
                // catalog that flapped while the backend restarted.
                assert!(
                    outcome.contains(&format!("'{VICTIM}'")),
                    "a failed call to the killed backend names it: {outcome}"
                );
                assert!(
                    !outcome.to_lowercase().contains("unknown tool"),
                    "the catalog flapped: {outcome}"
                );
            }
        } else {
            assert_eq!(outcome, "ok", "a call to a healthy backend failed: {call}");
        }
    }
    eprintln!(
        "{} calls, {victim_failures} of them to the killed backend failed (naming it), in {:.1} s",
        calls.len(),
        seen["elapsed"].as_f64().unwrap_or_default()
    );

    // Killed twice, started three times; the call after the load reached it.
    let killed: Vec<u32> = serde_json::from_value(seen["killed"].clone()).unwrap();
    let started = starts(&setup.log(VICTIM));
    assert_eq!(killed.len(), KILLS, "{seen}");
    assert_eq!(
        started.len(),
        KILLS + 1,
        "a restart after each kill: {started:?}"
    );
    assert_eq!(
        killed,
        started[..KILLS],
        "the kills hit the victim's starts"
    );
    assert_eq!(seen["after"], "after");
    // The healthy backends never restarted.
    assert_eq!(starts(&setup.log("healthy-a")).len(), 1);
    assert_eq!(starts(&setup.log("healthy-b")).len(), 1);

    let peak = gateway.peak_rss_kib();
    assert!(
        peak < PEAK_RSS_KIB,
        "serve's peak RSS was {} MiB",
        peak / 1024
    );
    let status = gateway.stop();
    assert!(status.success(), "serve exited with {status}");
    mcp_tests::processes::assert_none_marked(&setup.marker);
}
