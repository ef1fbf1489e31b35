//! Every host's config (`--all-hosts`) and folders of definitions (`--dir`),
//! through `mcp-cli`, against the fixture server.

use std::path::Path;
use std::process::{Command, Output};

use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(workspace_bin("mcp-cli"))
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env("MCP_DISCOVERY_CACHE_DIR", home.join("cache"))
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .args(args)
        .output()
        .unwrap()
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

#[test]
fn all_hosts_merges_cursor_codex_and_goose_and_starts_a_shared_server_once() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let cwd = root.path().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let log = root.path().join("starts.log");
    let log_text = log.to_str().unwrap();
    write(
        &home.join(".cursor/mcp.json"),
        &json!({"mcpServers": {"fixture": {"command": FIXTURE, "args": ["well-behaved"],
                                           "env": {"FIXTURE_START_LOG": log_text}}}})
        .to_string(),
    );
    let fixture_toml = toml_string(FIXTURE);
    let log_toml = toml_string(log_text);
    write(
        &home.join(".codex/config.toml"),
        &format!(
            "model = \"o3\"\n\n[mcp_servers.same-under-another-name]\ncommand = {fixture_toml}\nargs = [\"well-behaved\"]\nenv = {{ FIXTURE_START_LOG = {log_toml} }}\n"
        ),
    );
    write(
        &home.join(".config/goose/config.yaml"),
        &format!(
            "extensions:\n  fixture:\n    type: stdio\n    cmd: {FIXTURE:?}\n    args: [well-behaved, --tools, \"2\"]\n    envs: {{FIXTURE_START_LOG: {log_text:?}}}\n  developer:\n    type: builtin\n"
        ),
    );
    write(
        &home.join(".config/zed/settings.json"),
        r#"{"theme": "One Dark"}"#,
    );

    let listed = run(&home, &cwd, &["--json", "servers", "--all-hosts"]);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed));
    let document: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = document["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fixture", "goose-fixture"]);
    let used: Vec<&str> = document["searched"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["used"] == true)
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(used, ["user Cursor", "Codex CLI", "Goose"]);
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(stderr.contains("counted once"), "{stderr}");
    assert!(
        stderr.contains("'developer'") && stderr.contains("builtin"),
        "{stderr}"
    );

    let discovered = run(
        &home,
        &cwd,
        &["--json", "--no-cache", "discover", "--all-hosts"],
    );
    assert_eq!(discovered.status.code(), Some(0), "{}", text(&discovered));
    let document: Value = serde_json::from_slice(&discovered.stdout).unwrap();
    let servers = document["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 2);
    assert!(servers.iter().all(|s| s["status"] == "ready"), "{document}");
    assert_eq!(starts(&log), 2, "the server two hosts share starts once");

    // Without --all-hosts the first found is used: Cursor's, not Goose's.
    let first = run(&home, &cwd, &["--json", "servers"]);
    let document: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(document["servers"].as_array().unwrap().len(), 1);
    assert!(
        document["files"][0]
            .as_str()
            .unwrap()
            .ends_with(".cursor/mcp.json")
    );
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

#[test]
fn a_folder_of_definitions_is_discovered_and_a_bad_file_is_named_and_skipped() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let defs = root.path().join("defs");
    write(
        &defs.join("team/fixture.json"),
        &json!({"command": FIXTURE, "args": ["well-behaved"]}).to_string(),
    );
    write(
        &defs.join("whole.json"),
        &json!({"mcpServers": {"two": {"command": FIXTURE, "args": ["well-behaved", "--tools", "2"]}}})
            .to_string(),
    );
    write(
        &defs.join("broken.json"),
        r#"{"command": ["not", "a", "string"]}"#,
    );
    let output = run(
        &home,
        root.path(),
        &[
            "--json",
            "--no-cache",
            "--dir",
            defs.to_str().unwrap(),
            "discover",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = document["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fixture", "two"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("broken.json") && stderr.contains("skipped"),
        "{stderr}"
    );
}
