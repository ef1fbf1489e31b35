//! `mcp-cli serve` driven by a client we did not write: the official Python
//! SDK (`mcp` on PyPI, pinned by `cargo xtask test`), in both eras, over
//! stdio and Streamable HTTP, in front of real servers (server-everything,
//! mcp-server-time) and fixture servers that crash, ignore pings or cannot
//! start. After every client, no server process is left.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_tests::processes::wait_with_timeout;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::{Tools, require_tools, workspace_bin, workspace_root};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// The longest one client run may take (server-everything starts in about a second).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

/// A config in a temporary directory; every server it starts carries a
/// marker in its environment, so leftovers can be found.
struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
    marker: String,
}

impl Setup {
    /// A directory and a marker; [`write`](Self::write) adds the servers.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!(
            "{}-{}",
            std::process::id(),
            dir.path().file_name().unwrap().to_string_lossy()
        );
        let config = dir.path().join("gateway.json");
        Self {
            dir,
            config,
            marker,
        }
    }

    /// Writes the config of `servers`, each marked.
    fn write(self, servers: &[(&str, Value)]) -> Self {
        let mut entries = serde_json::Map::new();
        for (name, entry) in servers {
            let mut entry = entry.clone();
            entry["env"]["GATEWAY_TEST_MARKER"] = json!(self.marker);
            entries.insert((*name).to_owned(), entry);
        }
        std::fs::write(&self.config, json!({"mcpServers": entries}).to_string()).unwrap();
        self
    }

    fn log(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.log"))
    }

    fn serve_args(&self) -> Vec<String> {
        vec![
            "serve".into(),
            "--config".into(),
            self.config.display().to_string(),
            "--page-size".into(),
            "3".into(),
        ]
    }

    /// The Python client, run to its end, with `target` (`stdio …` or `http URL [TOKEN]`).
    fn client(&self, tools: &Tools, scenario: &str, mode: &str, target: &[String]) -> Value {
        let script = workspace_root()
            .join("tests")
            .join("fixtures")
            .join("clients")
            .join("gateway_client.py");
        let child = Command::new(tools.python())
            .arg(script)
            .args([scenario, mode])
            .args(target)
            .current_dir(self.dir.path())
            .env("START_LOG", self.log("muted"))
            .env("MCP_DISCOVERY_CACHE_DIR", self.dir.path().join("cache"))
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
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

    /// The client against `mcp-cli serve` on its stdin and stdout.
    fn stdio_client(&self, tools: &Tools, scenario: &str, mode: &str) -> Value {
        self.stdio_client_with(tools, scenario, mode, &[])
    }

    /// [`stdio_client`](Self::stdio_client), `serve` given `flags` too.
    fn stdio_client_with(
        &self,
        tools: &Tools,
        scenario: &str,
        mode: &str,
        flags: &[&str],
    ) -> Value {
        let mut target = vec![
            "stdio".to_owned(),
            workspace_bin("mcp-cli").display().to_string(),
        ];
        target.extend(self.serve_args());
        target.extend(flags.iter().map(|flag| (*flag).to_owned()));
        self.client(tools, scenario, mode, &target)
    }

    /// Waits (bounded) until no server process of this setup runs.
    fn assert_no_leftovers(&self) {
        mcp_tests::processes::assert_none_marked(&self.marker);
    }
}

fn fixture(mode: &str, log: &Path) -> Value {
    json!({"command": FIXTURE, "args": [mode], "env": {"FIXTURE_START_LOG": log}})
}

fn entry(command: &mcp_tests::tools::ToolCommand) -> Value {
    let mut entry = command.config_entry();
    if entry["env"]
        .as_object()
        .is_none_or(serde_json::Map::is_empty)
    {
        entry["env"] = json!({});
    }
    entry
}

/// The real servers and a filtered fixture.
fn tour_setup(tools: &Tools) -> Setup {
    let setup = Setup::new();
    let mut filtered = fixture("well-behaved", &setup.log("fixture"));
    filtered["tools"] = json!({"deny": ["echo"]});
    setup.write(&[
        ("everything", entry(&tools.everything_command())),
        ("time", entry(&tools.time_command())),
        ("fixture", filtered),
    ])
}

/// What every tour must have seen, in either era and transport.
fn assert_tour(seen: &Value, protocol: &str) {
    assert_eq!(seen["protocol"], protocol, "{seen}");
    assert_eq!(seen["server"], "mcp-discovery-gateway");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for expected in [
        "everything__echo",
        "everything__trigger-sampling-request",
        "time__get_current_time",
        "time__convert_time",
        "fixture__add",
    ] {
        assert!(
            tools.contains(&expected),
            "{expected} missing from {tools:?}"
        );
    }
    assert!(
        !tools.contains(&"fixture__echo"),
        "a filtered tool is listed"
    );
    assert!(tools.iter().all(|name| {
        name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }));
    // Three per page: every list was paged.
    assert_eq!(
        seen["tool_pages"].as_u64().unwrap(),
        (tools.len() as u64).div_ceil(3)
    );
    assert!(seen["resource_pages"].as_u64().unwrap() >= 2, "{seen}");
    assert!(
        seen["templates"].as_array().unwrap().iter().any(|t| t
            .as_str()
            .is_some_and(|t| t.starts_with("demo://resource/dynamic/"))),
        "{seen}"
    );
    assert!(
        seen["prompts"]
            .as_array()
            .unwrap()
            .contains(&json!("everything__simple-prompt"))
    );
    assert_eq!(seen["echo"], "Echo: through the gateway");
    assert_eq!(seen["time_is_error"], false);
    let time: Value = serde_json::from_str(seen["time"].as_str().unwrap()).unwrap();
    assert_eq!(time["timezone"], "UTC");
    assert_eq!(seen["fixture_add"], "42");
    assert!(seen["read_text_length"].as_u64().unwrap() > 100, "{seen}");
    assert_eq!(seen["prompt_messages"], 1);
    // server-everything asked the client to sample and for its roots, through the gateway.
    assert!(
        seen["sampling"]
            .as_str()
            .unwrap()
            .contains("sampled reply to: Resource trigger-sampling-request context: hello"),
        "{seen}"
    );
    assert!(
        seen["roots"]
            .as_str()
            .unwrap()
            .contains("file:///gateway/test/root"),
        "{seen}"
    );
    let hidden = seen["hidden_call"].as_str().unwrap();
    assert!(
        hidden.starts_with("-32602")
            && hidden.contains("tool 'echo' is hidden by the server's filter"),
        "{hidden}"
    );
    assert!(
        seen["unknown_call"]
            .as_str()
            .unwrap()
            .contains("no tool named 'nobody__nothing'")
    );
    assert!(
        seen["unknown_read"]
            .as_str()
            .unwrap()
            .contains("no server of the gateway offers the resource nowhere://at/all")
    );
}

#[test]
fn python_client_tours_the_gateway_over_stdio_in_the_modern_era() {
    let Some(tools) = require_tools() else { return };
    let setup = tour_setup(&tools);
    let seen = setup.stdio_client(&tools, "tour", "auto");
    assert_tour(&seen, "2026-07-28");
    setup.assert_no_leftovers();

    // `mcp-cli tools` shows the names the gateway serves.
    let listed = Command::new(workspace_bin("mcp-cli"))
        .args(["tools", "--json", "--no-cache", "--config"])
        .arg(&setup.config)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let mut cli: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["qualifiedName"].as_str())
        .collect();
    let mut served: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    cli.sort_unstable();
    served.sort_unstable();
    // Same names; the gateway sees three more tools because it declares
    // sampling, elicitation and roots to its servers (for its clients), and
    // server-everything offers those tools only then.
    served.retain(|name| {
        !matches!(
            *name,
            "everything__get-roots-list"
                | "everything__trigger-elicitation-request"
                | "everything__trigger-sampling-request"
        )
    });
    assert_eq!(cli, served);
    setup.assert_no_leftovers();
}

#[test]
fn python_client_tours_the_gateway_over_stdio_in_the_legacy_era() {
    let Some(tools) = require_tools() else { return };
    let setup = tour_setup(&tools);
    let seen = setup.stdio_client(&tools, "tour", "legacy");
    assert_tour(&seen, "2025-11-25");
    setup.assert_no_leftovers();
}

/// `mcp-cli serve --http 127.0.0.1:0` on the setup's config, with `extra`.
fn start_http(setup: &Setup, extra: &[&str]) -> ServeHttp {
    let mut command = Command::new(workspace_bin("mcp-cli"));
    command
        .args(setup.serve_args())
        .args(["--http", "127.0.0.1:0"])
        .args(extra);
    ServeHttp::start(command)
}

#[test]
fn python_client_tours_the_gateway_over_streamable_http_in_both_eras() {
    let Some(tools) = require_tools() else { return };
    let setup = tour_setup(&tools);
    let gateway = start_http(&setup, &["--http-token", "gw-token-4711"]);
    let target = [
        "http".to_owned(),
        gateway.url.clone(),
        "gw-token-4711".to_owned(),
    ];
    let modern = setup.client(&tools, "tour", "auto", &target);
    assert_tour(&modern, "2026-07-28");
    let legacy = setup.client(&tools, "tour", "legacy", &target);
    assert_tour(&legacy, "2025-11-25");
    assert!(gateway.stop().success());
    setup.assert_no_leftovers();
}

#[test]
fn http_gateway_wants_its_token_and_a_loopback_address_without_one() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new().write(&[("fixture", fixture("well-behaved", Path::new("/dev/null")))]);
    let gateway = start_http(&setup, &["--http-token", "gw-token-4711"]);
    // Without the token: 401, whatever the client.
    let status = Command::new(tools.python())
        .args([
            "-c",
            "import sys, httpx2 as h; r = h.post(sys.argv[1], json={'jsonrpc': '2.0', 'id': 1, 'method': 'ping'}); print(r.status_code)",
        ])
        .arg(&gateway.url)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout).trim(), "401");
    assert!(gateway.stop().success());

    let open = Command::new(workspace_bin("mcp-cli"))
        .args(setup.serve_args())
        .args(["--http", "0.0.0.0:0"])
        .env_remove("MCP_GATEWAY_TOKEN")
        .output()
        .unwrap();
    assert_eq!(open.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&open.stderr)
            .contains("--http 0.0.0.0:0 is reachable from other machines"),
        "{}",
        String::from_utf8_lossy(&open.stderr)
    );
    setup.assert_no_leftovers();
}

#[test]
fn a_backend_that_crashes_is_restarted_and_the_client_is_told() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let log = setup.log("flaky");
    let setup = setup.write(&[("flaky", fixture("crash-on-second-call", &log))]);
    let seen = setup.stdio_client(&tools, "crash", "legacy");
    assert_eq!(seen["first"], "one");
    let second = seen["second_error"].as_str().unwrap();
    assert!(
        second.contains("flaky") && second.contains("may have run") && second.contains("status 4"),
        "{second}"
    );
    assert_eq!(
        seen["third"], "three",
        "the call after the crash went to the restarted server"
    );
    assert!(
        seen["notifications"]
            .as_array()
            .unwrap()
            .contains(&json!("notifications/tools/list_changed"))
    );
    assert!(
        seen["tools_after"]
            .as_array()
            .unwrap()
            .contains(&json!("flaky__echo"))
    );
    assert_eq!(starts(&log), 2);
    setup.assert_no_leftovers();
}

#[test]
fn a_backend_that_ignores_pings_is_restarted() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let mut muted = fixture("mute-pings", &setup.log("muted"));
    muted["health"] = json!({"pingInterval": 0.3, "pingTimeout": 0.3});
    let setup = setup.write(&[("muted", muted)]);
    let seen = setup.stdio_client(&tools, "restart", "legacy");
    assert_eq!(seen["before"], "3");
    assert_eq!(seen["after"], "7");
    assert!(
        starts(&setup.log("muted")) >= 2,
        "restarted after three missed pings"
    );
    assert!(
        seen["notifications"]
            .as_array()
            .unwrap()
            .contains(&json!("notifications/tools/list_changed"))
    );
    setup.assert_no_leftovers();
}

#[test]
fn a_backend_that_cannot_start_again_goes_inactive_and_its_tools_go() {
    let Some(tools) = require_tools() else { return };
    let setup = Setup::new();
    let log = setup.log("once");
    let setup = setup.write(&[
        ("once", fixture("start-once", &log)),
        ("steady", fixture("well-behaved", Path::new("/dev/null"))),
    ]);
    let seen = setup.stdio_client(&tools, "inactive", "legacy");
    let before = seen["tools_before"].as_array().unwrap();
    assert!(before.contains(&json!("once__echo")) && before.contains(&json!("steady__echo")));
    assert!(
        seen["crash"].as_str().unwrap().contains("may have run"),
        "{seen}"
    );
    let last = seen["last_error"].as_str().unwrap();
    assert!(
        last.contains("server 'once' is not ready (inactive")
            && last.contains("refusing to start again"),
        "{last}"
    );
    let after = seen["tools_after"].as_array().unwrap();
    assert!(
        !after
            .iter()
            .any(|t| t.as_str().is_some_and(|t| t.starts_with("once__"))),
        "{after:?}"
    );
    assert!(after.contains(&json!("steady__echo")));
    assert_eq!(
        starts(&log),
        1,
        "only the first start got far enough to log"
    );
    setup.assert_no_leftovers();
}

/// `serve --tool-search` in front of two fixtures: one with `echo`, `add`
/// and `fail`, one with fifty numbered tools.
#[test]
fn tool_search_lists_two_tools_that_find_and_call_every_backend_tool() {
    let Some(tools) = require_tools() else { return };
    for mode in ["legacy", "auto"] {
        let setup = Setup::new();
        let mut many = fixture("paged", Path::new("/dev/null"));
        many["env"]["FIXTURE_TOOL_COUNT"] = json!("50");
        many["env"]["FIXTURE_PAGE_SIZE"] = json!("50");
        let setup = setup.write(&[
            ("plain", fixture("well-behaved", Path::new("/dev/null"))),
            ("many", many),
        ]);
        let seen = setup.stdio_client_with(&tools, "search", mode, &["--tool-search"]);
        assert_eq!(
            seen["tools"],
            json!(["search_tools", "call_tool"]),
            "{seen}"
        );
        let found = seen["found"]["tools"].as_array().unwrap();
        assert_eq!(found[0]["name"], "plain__echo", "{seen}");
        assert_eq!(found[0]["description"], "Echoes its text.");
        assert_eq!(found[0]["inputSchema"]["required"], json!(["text"]));
        assert!(found.len() <= 3, "{seen}");
        let text: Value = serde_json::from_str(seen["found_text"].as_str().unwrap()).unwrap();
        assert_eq!(text, seen["found"]);
        assert_eq!(seen["found_is_error"], false);
        assert_eq!(seen["called"], "42");
        let unknown = seen["unknown_through_call_tool"].as_str().unwrap();
        assert!(unknown.starts_with("-32602:"), "{unknown}");
        let direct = seen["unknown_direct"].as_str().unwrap();
        assert_eq!(unknown, direct, "the same error as a direct call");
        let empty = seen["empty_query"].as_str().unwrap();
        assert!(
            empty.starts_with("-32602:") && empty.contains("no word"),
            "{empty}"
        );
        setup.assert_no_leftovers();
    }
}

fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count())
}
