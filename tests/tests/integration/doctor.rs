//! `mcp-cli doctor` against servers that fail in every way we know: each
//! failure is named with its cause, in words a host developer acts on.

use std::path::PathBuf;
use std::process::Output;

use mcp_tests::scripted_http::{Reply, ScriptedServer, SeenRequest};
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

struct Setup {
    _dir: tempfile::TempDir,
    config: PathBuf,
}

fn setup(servers: Value) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap(),
    )
    .unwrap();
    Setup { _dir: dir, config }
}

async fn doctor(setup: &Setup, args: &[&str]) -> Output {
    tokio::process::Command::new(workspace_bin("mcp-cli"))
        .args(["--no-cache", "--timeout", "5", "--config"])
        .arg(&setup.config)
        .arg("doctor")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .await
        .unwrap()
}

/// The checks of one server, by name, from `--json`.
async fn checks_of(setup: &Setup, server: &str) -> (Vec<Value>, i32) {
    let output = doctor(setup, &["--json", server]).await;
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stderr)));
    let checks = document["servers"][0]["checks"].as_array().unwrap().clone();
    (checks, output.status.code().unwrap())
}

fn check<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {checks:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_healthy_server_passes_every_check_and_exits_0() {
    let setup = setup(json!({"good": {"command": FIXTURE, "args": ["well-behaved"]}}));
    let (checks, code) = checks_of(&setup, "good").await;
    assert_eq!(code, 0, "{checks:?}");
    assert_eq!(
        check(&checks, "config")["detail"],
        format!("read from {}:3", setup.config.display())
    );
    assert_eq!(check(&checks, "stdout")["status"], "pass");
    let handshake = check(&checks, "handshake")["detail"].as_str().unwrap();
    assert!(
        handshake.starts_with("legacy 2025-11-25 (offered 2024-11-05"),
        "{handshake}"
    );
    assert_eq!(check(&checks, "tools")["detail"], "3 listed in 1 page(s)");
    assert_eq!(check(&checks, "prompts")["status"], "skip");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_names_the_exit_status_and_stderr() {
    let setup = setup(json!({"crash": {"command": FIXTURE, "args": ["exit-at-start"]}}));
    let (checks, code) = checks_of(&setup, "crash").await;
    assert_eq!(code, 2);
    let handshake = check(&checks, "handshake");
    assert_eq!(handshake["status"], "fail");
    let detail = handshake["detail"].as_str().unwrap();
    assert!(detail.contains("exited with status 3"), "{detail}");
    assert!(detail.contains("fatal: missing API_TOKEN"), "{detail}");
    assert!(
        handshake["hint"]
            .as_str()
            .unwrap()
            .contains("missing environment variable")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_is_named_with_what_to_install() {
    let setup = setup(json!({"npm": {"command": "/nonexistent/bin/npx", "args": ["-y", "x"]}}));
    let (checks, code) = checks_of(&setup, "npm").await;
    assert_eq!(code, 2);
    let command = check(&checks, "command");
    assert_eq!(command["status"], "fail");
    assert!(
        command["hint"]
            .as_str()
            .unwrap()
            .contains("install Node.js")
    );
    assert!(command["hint"].as_str().unwrap().contains("npx.cmd"));
    assert_eq!(check(&checks, "started")["status"], "skip");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn noise_on_stdout_is_a_warning_that_quotes_it() {
    let setup = setup(json!({"noisy": {"command": FIXTURE, "args": ["noise"]}}));
    let (checks, code) = checks_of(&setup, "noisy").await;
    assert_eq!(code, 0, "a warning is not a failure");
    let stdout = check(&checks, "stdout");
    assert_eq!(stdout["status"], "warn");
    assert!(
        stdout["detail"]
            .as_str()
            .unwrap()
            .contains("Starting up... (log noise)")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_server_is_a_handshake_without_answer() {
    let setup = setup(json!({"silent": {"command": FIXTURE, "args": ["silent"], "timeout": 3}}));
    let (checks, code) = checks_of(&setup, "silent").await;
    assert_eq!(code, 2);
    let handshake = check(&checks, "handshake");
    assert_eq!(handshake["status"], "fail");
    assert!(
        handshake["detail"]
            .as_str()
            .unwrap()
            .contains("no answer within 3s")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_in_the_initialize_result_explain_zero_tools() {
    let setup = setup(json!({"odd": {"command": FIXTURE, "args": ["tools-in-initialize"]}}));
    let (checks, _) = checks_of(&setup, "odd").await;
    let tools = check(&checks, "tools");
    assert_eq!(tools["status"], "warn");
    assert!(
        tools["detail"]
            .as_str()
            .unwrap()
            .contains("did not declare the \"tools\" capability")
    );
    assert!(
        tools["hint"]
            .as_str()
            .unwrap()
            .contains("in its initialize result, which is not standard")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_login_page_and_an_authorization_challenge_are_named() {
    let wall = ScriptedServer::start(|_: &SeenRequest, _| Reply::Respond {
        status: 200,
        headers: vec![("content-type".into(), b"text/html".to_vec())],
        body: b"<html>Sign in</html>".to_vec(),
    })
    .await;
    let guarded = ScriptedServer::start(|_: &SeenRequest, _| {
        Reply::status(401).with_header(
            "www-authenticate",
            "Bearer resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource\", scope=\"tools\"",
        )
    })
    .await;
    let setup = setup(json!({
        "wall": {"url": wall.url},
        "guarded": {"url": guarded.url},
    }));
    let (checks, code) = checks_of(&setup, "wall").await;
    assert_eq!(code, 2);
    let http = check(&checks, "http");
    assert_eq!(http["status"], "fail");
    assert!(
        http["detail"]
            .as_str()
            .unwrap()
            .contains("POST 200 text/html")
    );
    assert!(
        check(&checks, "handshake")["hint"]
            .as_str()
            .unwrap()
            .contains("login wall")
    );

    let (checks, code) = checks_of(&setup, "guarded").await;
    assert_eq!(code, 2);
    let http = check(&checks, "http");
    assert_eq!(http["status"], "fail");
    let detail = http["detail"].as_str().unwrap();
    assert!(detail.contains("answered 401/403"), "{detail}");
    assert!(
        detail.contains(
            "resource metadata is at http://127.0.0.1:1/.well-known/oauth-protected-resource"
        ),
        "{detail}"
    );
    assert!(
        http["hint"]
            .as_str()
            .unwrap()
            .contains("requires authorization")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checklist_reads_as_text_too() {
    let setup = setup(json!({
        "good": {"command": FIXTURE, "args": ["well-behaved"]},
        "crash": {"command": FIXTURE, "args": ["exit-at-start"], "env": {"API_TOKEN": "sk-doctor-secret-42"}},
    }));
    let output = doctor(&setup, &[]).await;
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("good (stdio: "), "{text}");
    assert!(text.contains("ok   tools      3 listed"), "{text}");
    assert!(text.contains("FAIL handshake"), "{text}");
    assert!(text.contains("time: start"), "{text}");
    assert!(!text.contains("sk-doctor-secret-42"));
}
