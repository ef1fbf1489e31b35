//! `mcp-cli serve`'s hot reload and profiles, driven by the official Python
//! SDK client (`mcp` on PyPI, pinned by `cargo xtask test`;
//! `tests/fixtures/clients/reload_client.py`):
//!
//! - a reload keeps the unchanged server in its process, restarts the
//!   changed one, reaps the removed one and starts the added one; the
//!   client stays connected and hears `tools/list_changed`; a half-written
//!   config changes nothing and is warned about, naming the file; the file
//!   is replaced by a rename;
//! - SIGHUP reads the config again through a swapped symlinked folder (a
//!   Kubernetes ConfigMap);
//! - profiles: filtered lists, a tool outside the profile is unknown, an
//!   unknown profile is HTTP 404, and `--profile` over stdio (an unknown
//!   name exits 2, naming the profiles there are).
//!
//! Every wait is a bounded poll; no assertion is about time. After every
//! test, no server process is left.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_tests::processes::wait_with_timeout;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::{Tools, require_tools, workspace_bin, workspace_root};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// The longest one client run may take.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

/// A temporary folder with the fixture servers' start logs; every server
/// carries a marker in its environment, so leftovers can be found.
struct Setup {
    dir: tempfile::TempDir,
    marker: String,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("starts")).unwrap();
        let marker = format!(
            "reload-{}-{}",
            std::process::id(),
            dir.path().file_name().unwrap().to_string_lossy()
        );
        Self { dir, marker }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A well-behaved fixture server whose starts go to `starts/<log>.log`,
    /// with `variant` in its environment (a changed variant is a changed launch).
    fn fixture(&self, log: &str, variant: &str) -> Value {
        json!({
            "command": FIXTURE,
            "args": ["well-behaved"],
            "env": {
                "FIXTURE_START_LOG": self.path("starts").join(format!("{log}.log")),
                "FIXTURE_VARIANT": variant,
                "GATEWAY_TEST_MARKER": self.marker,
            }
        })
    }

    /// The config of `servers` (and `profiles`) as JSON text.
    fn config(&self, servers: &[(&str, Value)], profiles: Option<Value>) -> String {
        let mut entries = serde_json::Map::new();
        for (name, entry) in servers {
            entries.insert((*name).to_owned(), entry.clone());
        }
        let mut config = json!({"mcpServers": entries});
        if let Some(profiles) = profiles {
            config["profiles"] = profiles;
        }
        serde_json::to_string_pretty(&config).unwrap()
    }

    /// The starts logged in `starts/<log>.log`: pids in order.
    fn starts(&self, log: &str) -> Vec<u32> {
        std::fs::read_to_string(self.path("starts").join(format!("{log}.log")))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_whitespace().nth(1)?.parse().ok())
            .collect()
    }

    /// The Python client, run to its end, with `target` and `env`.
    fn client(
        &self,
        tools: &Tools,
        scenario: &str,
        mode: &str,
        target: &[String],
        env: &[(&str, String)],
    ) -> Value {
        let child = self.spawn_client(tools, scenario, mode, target, env);
        Self::client_output(child)
    }

    /// The Python client, started with `target` and `env`.
    fn spawn_client(
        &self,
        tools: &Tools,
        scenario: &str,
        mode: &str,
        target: &[String],
        env: &[(&str, String)],
    ) -> std::process::Child {
        let script = workspace_root()
            .join("tests")
            .join("fixtures")
            .join("clients")
            .join("reload_client.py");
        Command::new(tools.python())
            .arg(script)
            .args([scenario, mode])
            .args(target)
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.path("cache"))
            .envs(env.iter().map(|(key, value)| (*key, value.as_str())))
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// What a started client printed last, once it ended (bounded).
    fn client_output(child: std::process::Child) -> Value {
        let output = wait_with_timeout(child, CLIENT_TIMEOUT);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the Python client failed ({}):\n{stdout}\n{stderr}",
            output.status
        );
        serde_json::from_str(stdout.lines().last().unwrap_or_default())
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"))
    }

    /// Waits (bounded) until no server process of this setup runs.
    fn assert_no_leftovers(&self) {
        mcp_tests::processes::assert_none_marked(&self.marker);
    }
}

/// `mcp-cli serve --http 127.0.0.1:0` on `config`.
fn start_http(config: &Path) -> ServeHttp {
    let mut command = Command::new(workspace_bin("mcp-cli"));
    command
        .arg("serve")
        .arg("--config")
        .arg(config)
        .args(["--http", "127.0.0.1:0"]);
    ServeHttp::start(command)
}

/// `[pid, alive]` pairs of one server in the client's report.
fn processes(seen: &Value, server: &str) -> Vec<(u64, bool)> {
    seen["processes"][server]
        .as_array()
        .unwrap_or_else(|| panic!("no starts of {server}: {seen}"))
        .iter()
        .map(|pair| (pair[0].as_u64().unwrap(), pair[1].as_bool().unwrap()))
        .collect()
}

#[test]
fn a_reload_keeps_unchanged_servers_and_refuses_a_half_written_config() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let config = setup.path("gateway.json");
    let first = setup.config(
        &[
            ("keep", setup.fixture("keep", "1")),
            ("changed", setup.fixture("changed", "1")),
            ("gone", setup.fixture("gone", "1")),
        ],
        None,
    );
    std::fs::write(&config, &first).unwrap();
    let next = setup.config(
        &[
            ("keep", setup.fixture("keep", "1")),
            ("changed", setup.fixture("changed", "2")),
            ("added", setup.fixture("added", "1")),
        ],
        None,
    );
    std::fs::write(setup.path("next.json"), &next).unwrap();
    // Cut in the middle of a server entry, as a writer caught half-way.
    std::fs::write(setup.path("broken.json"), &first[..first.len() / 2]).unwrap();
    let serve_log = setup.path("serve.log");
    // `serve` over stdio, its stderr into a file the client watches.
    let target = [
        "stdio".to_owned(),
        "/bin/sh".to_owned(),
        "-c".to_owned(),
        r#"exec "$0" "$@" 2>>"$RELOAD_SERVE_LOG""#.to_owned(),
        workspace_bin("mcp-cli").display().to_string(),
        "serve".to_owned(),
        "--config".to_owned(),
        config.display().to_string(),
    ];
    let seen = setup.client(
        &tools,
        "reload",
        "legacy",
        &target,
        &[
            ("RELOAD_CONFIG", config.display().to_string()),
            (
                "RELOAD_BROKEN",
                setup.path("broken.json").display().to_string(),
            ),
            ("RELOAD_NEXT", setup.path("next.json").display().to_string()),
            ("RELOAD_SERVE_LOG", serve_log.display().to_string()),
            (
                "RELOAD_START_LOGS",
                setup.path("starts").display().to_string(),
            ),
        ],
    );
    let log = std::fs::read_to_string(&serve_log).unwrap();
    let names = |key: &str| -> Vec<String> {
        seen[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|name| name.as_str().unwrap().to_owned())
            .filter(|name| name.ends_with("__add"))
            .collect()
    };
    assert_eq!(
        names("tools_before"),
        ["changed__add", "gone__add", "keep__add"]
    );

    // The half-written config changed nothing, and was warned about by name.
    assert_eq!(seen["warned"], true, "{log}");
    let warning = log
        .lines()
        .find(|line| line.contains("config not reloaded"))
        .unwrap();
    assert!(
        warning.contains(&config.display().to_string()) && warning.contains("invalid JSON"),
        "{warning}"
    );
    assert_eq!(names("tools_after_broken"), names("tools_before"));
    assert_eq!(seen["keep_after_broken"], "4");
    assert_eq!(seen["gone_after_broken"], "6");

    // The renamed-in config applied, and the client was told.
    assert_eq!(
        names("tools_after"),
        ["added__add", "changed__add", "keep__add"],
        "{log}"
    );
    assert!(
        seen["notifications"]
            .as_array()
            .unwrap()
            .contains(&json!("notifications/tools/list_changed")),
        "{seen}"
    );
    assert_eq!(seen["keep_after"], "8");
    assert_eq!(seen["changed_after"], "10");
    assert_eq!(seen["added_after"], "12");
    let gone = seen["gone_after"].as_str().unwrap();
    assert!(gone.contains("no tool named 'gone__add'"), "{gone}");
    assert!(
        log.contains("started: added; restarted: changed; stopped: gone; unchanged: keep"),
        "{log}"
    );

    // Process identity, seen while `serve` ran.
    let keep = processes(&seen, "keep");
    assert_eq!(
        keep.len(),
        1,
        "the unchanged server never restarted: {keep:?}"
    );
    assert!(keep[0].1, "and still runs");
    let changed = processes(&seen, "changed");
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert!(
        !changed[0].1 && changed[1].1,
        "the old process is gone: {changed:?}"
    );
    assert_ne!(changed[0].0, changed[1].0);
    let gone = processes(&seen, "gone");
    assert_eq!(gone.len(), 1);
    assert!(
        !gone[0].1,
        "the removed server's process is reaped: {gone:?}"
    );
    let added = processes(&seen, "added");
    assert_eq!(added.len(), 1);
    assert!(added[0].1);
    setup.assert_no_leftovers();
}

#[test]
fn sighup_reads_the_config_again_through_a_swapped_symlinked_folder_and_a_listening_client_hears_it()
 {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    // As a Kubernetes ConfigMap: `conf` is a symlink to a versioned folder.
    let (v1, v2) = (setup.path("v1"), setup.path("v2"));
    std::fs::create_dir(&v1).unwrap();
    std::fs::create_dir(&v2).unwrap();
    let one = [("first", setup.fixture("first", "1"))];
    std::fs::write(v1.join("gateway.json"), setup.config(&one, None)).unwrap();
    let two = [
        ("first", setup.fixture("first", "1")),
        ("second", setup.fixture("second", "1")),
    ];
    std::fs::write(v2.join("gateway.json"), setup.config(&two, None)).unwrap();
    let conf = setup.path("conf");
    std::os::unix::fs::symlink(&v1, &conf).unwrap();
    let gateway = start_http(&conf.join("gateway.json"));
    let target = ["http".to_owned(), gateway.url.clone()];
    let before = setup.client(
        &tools,
        "wait-tool",
        "auto",
        &target,
        &[("WAIT_TOOL", "first__add".to_owned())],
    );
    assert_eq!(before["called"], "42");

    // A modern client listens for tool list changes through the reload.
    let ready = setup.path("listening");
    let listener = setup.spawn_client(
        &tools,
        "listen",
        "auto",
        &target,
        &[
            ("LISTEN_READY", ready.display().to_string()),
            ("WAIT_TOOL", "second__add".to_owned()),
        ],
    );
    let deadline = std::time::Instant::now() + CLIENT_TIMEOUT;
    while !ready.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }

    // Swap the folder atomically; nothing under the watched folder changes.
    let swapping = setup.path("conf.tmp");
    std::os::unix::fs::symlink(&v2, &swapping).unwrap();
    std::fs::rename(&swapping, &conf).unwrap();
    gateway.signal(nix::sys::signal::Signal::SIGHUP);
    let line = gateway.wait_for_line("config reloaded (SIGHUP)");
    assert!(line.contains("started: second"), "{line}");
    let after = Setup::client_output(listener);
    assert_eq!(after["protocol"], "2026-07-28", "{after}");
    assert_eq!(
        after["event"], "ToolsListChanged",
        "the modern client heard the reload on its subscription: {after}"
    );
    assert_eq!(after["called"], "42", "{after}");
    assert_eq!(setup.starts("first").len(), 1, "first kept running");
    assert!(gateway.stop().success(), "SIGHUP did not stop serve");
    setup.assert_no_leftovers();
}

/// Two fixture servers and server-everything (which has prompts), with
/// two profiles.
fn profiles_config(setup: &Setup, tools: &Tools) -> PathBuf {
    let mut everything = tools.everything_command().config_entry();
    everything["env"]["GATEWAY_TEST_MARKER"] = json!(setup.marker);
    let config = setup.path("profiles.json");
    let text = setup.config(
        &[
            ("a", setup.fixture("a", "1")),
            ("b", setup.fixture("b", "1")),
            ("everything", everything),
        ],
        Some(json!({
            "ops": {
                "servers": ["a", "everything"],
                "tools": {"allow": ["a__*", "everything__ech?"], "deny": ["a__fail"]},
                "requiredScopes": ["mcp:ops"]
            },
            "fixtures": {"servers": ["a", "b"]}
        })),
    );
    std::fs::write(&config, text).unwrap();
    config
}

#[test]
fn a_profile_over_http_serves_only_its_view_and_an_unknown_one_is_404() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let config = profiles_config(&setup, &tools);
    let gateway = start_http(&config);
    let env = |outside: &str| {
        vec![
            ("PROFILE_INSIDE", "a__add".to_owned()),
            ("PROFILE_OUTSIDE", outside.to_owned()),
        ]
    };
    for mode in ["auto", "legacy"] {
        let ops = setup.client(
            &tools,
            "profile",
            mode,
            &["http".to_owned(), gateway.profile_url("ops")],
            &env("b__add"),
        );
        assert_eq!(
            ops["tools"],
            json!(["a__add", "a__echo", "everything__echo"]),
            "{mode}: {ops}"
        );
        assert!(
            ops["prompts"]
                .as_array()
                .unwrap()
                .iter()
                .all(|name| name.as_str().unwrap().starts_with("everything__")),
            "{ops}"
        );
        assert!(!ops["prompts"].as_array().unwrap().is_empty(), "{ops}");
        assert_eq!(ops["inside"], "42");
        // Outside the profile is unknown, exactly as a name no server has.
        let outside = ops["outside"].as_str().unwrap();
        let unknown = ops["unknown"].as_str().unwrap();
        assert_eq!(
            outside.replace("b__add", "nobody__nothing"),
            unknown,
            "{mode}: {ops}"
        );
    }
    let fixtures = setup.client(
        &tools,
        "profile",
        "auto",
        &["http".to_owned(), gateway.profile_url("fixtures")],
        &env("everything__echo"),
    );
    assert_eq!(
        fixtures["tools"],
        json!([
            "a__add", "a__echo", "a__fail", "b__add", "b__echo", "b__fail"
        ])
    );
    assert_eq!(fixtures["prompts"], json!([]));
    // The whole gateway still serves everything at /mcp.
    let all = setup.client(
        &tools,
        "profile",
        "auto",
        &["http".to_owned(), gateway.url.clone()],
        &env("nobody__else"),
    );
    assert!(all["tools"].as_array().unwrap().contains(&json!("b__add")));

    let status = Command::new(tools.python())
        .args([
            "-c",
            "import sys, httpx2 as h; r = h.post(sys.argv[1], json={'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}); print(r.status_code)",
        ])
        .arg(gateway.profile_url("nope"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout).trim(),
        "404",
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(gateway.stop().success());
    setup.assert_no_leftovers();
}

#[test]
fn a_profile_over_stdio_and_an_unknown_one_exits_2_naming_the_profiles() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let config = profiles_config(&setup, &tools);
    let serve = |profile: &str| {
        vec![
            "stdio".to_owned(),
            workspace_bin("mcp-cli").display().to_string(),
            "serve".to_owned(),
            "--config".to_owned(),
            config.display().to_string(),
            "--profile".to_owned(),
            profile.to_owned(),
        ]
    };
    let fixtures = setup.client(
        &tools,
        "profile",
        "legacy",
        &serve("fixtures"),
        &[
            ("PROFILE_INSIDE", "b__add".to_owned()),
            ("PROFILE_OUTSIDE", "everything__echo".to_owned()),
        ],
    );
    assert_eq!(
        fixtures["tools"],
        json!([
            "a__add", "a__echo", "a__fail", "b__add", "b__echo", "b__fail"
        ])
    );
    assert_eq!(fixtures["inside"], "42");
    assert!(
        fixtures["outside"]
            .as_str()
            .unwrap()
            .contains("no tool named 'everything__echo'")
    );

    let unknown = Command::new(workspace_bin("mcp-cli"))
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .args(["--profile", "nope"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert_eq!(unknown.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no profile named 'nope'; configured: fixtures, ops"),
        "{stderr}"
    );
    setup.assert_no_leftovers();
}
