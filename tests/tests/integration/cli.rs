//! The `mcp-cli` binary end to end: exit statuses, one JSON document, the
//! cache across processes, and no secret in any output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const SECRET: &str = "sk-cli-secret-0815";

struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Setup {
    fn new(servers: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".mcp.json");
        std::fs::write(&config, json!({"mcpServers": servers}).to_string()).unwrap();
        Self { dir, config }
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("starts.log")
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(workspace_bin("mcp-cli"))
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env("CLI_TEST_SECRET", SECRET)
            .env_remove("RUST_LOG")
            .args(["--config", self.config.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count())
}

fn good(log: &Path) -> Value {
    json!({"command": FIXTURE, "args": ["well-behaved"],
           "env": {"FIXTURE_START_LOG": log, "API_TOKEN": "${CLI_TEST_SECRET}"}})
}

#[test]
fn discover_json_is_one_document_and_a_second_run_starts_nothing() {
    let setup = Setup::new(json!({}));
    let servers = json!({
        "good": good(&setup.log()),
        "crash": {"command": FIXTURE, "args": ["exit-at-start"]},
        "off": {"command": FIXTURE, "disabled": true},
        "remote": {"url": format!("https://user:{SECRET}@127.0.0.1:9/mcp"), "headers": {"Authorization": format!("Bearer {SECRET}")}, "timeout": 2},
    });
    std::fs::write(&setup.config, json!({"mcpServers": servers}).to_string()).unwrap();

    let first = setup.run(&["--json", "discover"]);
    assert_eq!(first.status.code(), Some(2), "{}", text(&first));
    assert!(!text(&first).contains(SECRET), "{}", text(&first));
    let document: Value = serde_json::from_slice(&first.stdout).unwrap();
    let servers = document["servers"].as_array().unwrap();
    let by_name = |name: &str| servers.iter().find(|s| s["name"] == name).unwrap().clone();
    let good = by_name("good");
    assert_eq!(good["status"], "ready");
    assert_eq!(good["era"], "legacy");
    assert_eq!(good["protocolVersion"], "2025-11-25");
    assert_eq!(good["serverInfo"]["name"], "fixture-server");
    assert_eq!(good["tools"].as_array().unwrap().len(), 3);
    assert_eq!(good["fromCache"], false);
    assert!(good["durationMs"].is_u64());
    let crash = by_name("crash");
    assert_eq!(crash["status"], "failed");
    assert_eq!(crash["error"]["kind"], "exited");
    assert!(
        crash["error"]["message"]
            .as_str()
            .unwrap()
            .contains("fatal: missing API_TOKEN")
    );
    assert_eq!(by_name("off")["status"], "disabled");
    assert_eq!(by_name("remote")["status"], "failed");
    assert_eq!(starts(&setup.log()), 1);

    let second = setup.run(&["--json", "-s", "good", "discover"]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second));
    let document: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(document["servers"].as_array().unwrap().len(), 1);
    assert_eq!(document["servers"][0]["fromCache"], true);
    assert_eq!(document["servers"][0]["tools"], good["tools"]);
    assert_eq!(starts(&setup.log()), 1, "the cached run started the server");

    let refreshed = setup.run(&["--json", "-s", "good", "--refresh", "discover"]);
    assert_eq!(refreshed.status.code(), Some(0));
    assert_eq!(starts(&setup.log()), 2);

    let listed = setup.run(&["servers", "--json"]);
    assert!(!text(&listed).contains(SECRET), "{}", text(&listed));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let good_entry = listed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "good")
        .unwrap();
    assert_eq!(good_entry["env"]["API_TOKEN"], "***");
    assert_eq!(good_entry["lastStatus"]["status"], "ready");
    let remote = listed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "remote")
        .unwrap();
    assert_eq!(remote["url"], "https://***@127.0.0.1:9/mcp");
}

#[test]
fn tables_tools_call_and_exit_statuses() {
    let setup = Setup::new(json!({}));
    std::fs::write(&setup.config, json!({"mcpServers": {"good": good(&setup.log()), "off": {"command": "x", "disabled": true}}}).to_string()).unwrap();

    let tools = setup.run(&["tools"]);
    assert_eq!(tools.status.code(), Some(0), "{}", text(&tools));
    let out = String::from_utf8_lossy(&tools.stdout);
    assert!(out.contains("good__echo"), "{out}");
    assert!(out.contains("echo(text: string)"), "{out}");
    assert!(out.contains("1 ready, 0 failed; 1 disabled"), "{out}");

    let call = setup.run(&["call", "good", "add", "--args", r#"{"a": 2, "b": 3}"#]);
    assert_eq!(call.status.code(), Some(0), "{}", text(&call));
    assert_eq!(String::from_utf8_lossy(&call.stdout).trim(), "5");
    let failing = setup.run(&["call", "good", "fail"]);
    assert_eq!(failing.status.code(), Some(5), "{}", text(&failing));
    let ping = setup.run(&["ping", "good"]);
    assert_eq!(ping.status.code(), Some(0), "{}", text(&ping));
    assert!(String::from_utf8_lossy(&ping.stdout).contains("server 'good' answered"));

    for args in [
        &["call", "nope", "echo"][..],
        &["call", "good", "echo", "--args", "[1]"],
        &["--server", "nope", "tools"],
        &["frobnicate"],
        &["call", "off", "echo"],
    ] {
        let output = setup.run(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", text(&output));
    }
    assert!(!text(&setup.run(&["servers"])).contains(SECRET));
}

#[test]
fn config_errors_exit_1_and_name_file_and_line() {
    let setup = Setup::new(json!({}));
    std::fs::write(
        &setup.config,
        "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n  \"b\": 1\n}}",
    )
    .unwrap();
    let output = setup.run(&["discover"]);
    assert_eq!(output.status.code(), Some(1));
    let message = text(&output);
    assert!(message.contains(".mcp.json:3:3: invalid JSON"), "{message}");

    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"a": {"command": "x", "env": {"K": "${SURELY_NOT_SET_VAR}"}}}})
            .to_string(),
    )
    .unwrap();
    let output = setup.run(&["discover"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains(
            "server 'a': field 'env.K': environment variable 'SURELY_NOT_SET_VAR' is not set"
        ),
        "{}",
        text(&output)
    );
}

#[test]
fn completions_scripts_dynamic_names_and_man_page() {
    let setup = Setup::new(json!({
        "github": {"command": "github-mcp", "description": "Issues and pull requests"},
        "grafana": {"url": "http://127.0.0.1:9/mcp"},
        "time": {"command": "uvx", "args": ["mcp-server-time"]}
    }));
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = setup.run(&["completions", shell]);
        assert_eq!(script.status.code(), Some(0), "{}", text(&script));
        assert!(
            String::from_utf8_lossy(&script.stdout).contains("mcp-cli"),
            "{shell}: {}",
            text(&script)
        );
    }
    // Dynamic completion: server names from the config found in the directory.
    let completed = Command::new(workspace_bin("mcp-cli"))
        .current_dir(setup.dir.path())
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "2")
        .env("_CLAP_COMPLETE_COMP_TYPE", "9")
        .env("_CLAP_COMPLETE_SPACE", "true")
        .env("MCP_DISCOVERY_CACHE_DIR", setup.dir.path().join("cache"))
        .args(["--", "mcp-cli", "ping", "g"])
        .output()
        .unwrap();
    let names: Vec<String> = String::from_utf8_lossy(&completed.stdout)
        .split(['\n', '\u{b}'])
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(names, vec!["github", "grafana"], "{}", text(&completed));
    let man = setup.run(&["manpage"]);
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(page.contains(".TH mcp-cli 1"), "{page}");
    assert!(page.contains("login"), "the man page lists the commands");
}
