//! `mcp-cli call --task [--detach]` and `mcp-cli task get|cancel` against
//! the example server's task tools (`--conformance`) over Streamable HTTP,
//! so that each CLI process reaches the same server and its tasks.

use std::process::Output;

use mcp_example_server::{Server, ServerOptions, serve_http};
use mcp_tests::tools::workspace_bin;
use serde_json::json;

/// Runs `mcp-cli` with `config` and `args`, off the runtime.
async fn cli(dir: &tempfile::TempDir, config: &std::path::Path, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(workspace_bin("mcp-cli"));
    command
        .current_dir(dir.path())
        .env("MCP_DISCOVERY_CACHE_DIR", dir.path().join("cache"))
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .args(["--config", config.to_str().unwrap()])
        .args(args);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_as_a_task_detach_then_get_and_cancel_by_id() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(
        listener,
        Server::new(ServerOptions {
            conformance: true,
            ..ServerOptions::default()
        }),
        async {
            let _ = stopped.await;
        },
    ));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"work": {"url": url}}}).to_string(),
    )
    .unwrap();
    let run = |args: &'static [&'static str]| cli(&dir, &config, args);

    // Followed to its end.
    let followed = run(&[
        "call",
        "work",
        "slow_compute",
        "--task",
        "--args",
        r#"{"seconds": 1, "label": "now"}"#,
    ])
    .await;
    assert_eq!(followed.status.code(), Some(0), "{}", text(&followed));
    assert_eq!(stdout(&followed), "now: computed in 1s.");

    // Detached: the id, then the result by id from another process.
    let detached = run(&[
        "call",
        "work",
        "slow_compute",
        "--task",
        "--detach",
        "--args",
        r#"{"seconds": 1, "label": "later"}"#,
    ])
    .await;
    assert_eq!(detached.status.code(), Some(0), "{}", text(&detached));
    let id = stdout(&detached);
    assert!(!id.is_empty() && !id.contains(' '), "one id: {id:?}");
    let waited = cli(&dir, &config, &["task", "get", "work", &id, "--wait"]).await;
    assert_eq!(waited.status.code(), Some(0), "{}", text(&waited));
    assert_eq!(stdout(&waited), "later: computed in 1s.");
    let done = cli(&dir, &config, &["task", "get", "work", &id]).await;
    assert_eq!(done.status.code(), Some(0), "{}", text(&done));
    assert!(
        stdout(&done).starts_with(&format!("task {id}: completed")),
        "{}",
        text(&done)
    );
    assert!(
        stdout(&done).ends_with("later: computed in 1s."),
        "{}",
        text(&done)
    );

    // Cancelled by id: the server shows it cancelled.
    let long = run(&[
        "call",
        "work",
        "slow_compute",
        "--task",
        "--detach",
        "--args",
        r#"{"seconds": 30}"#,
    ])
    .await;
    let id = stdout(&long);
    let working = cli(&dir, &config, &["task", "get", "work", &id]).await;
    assert_eq!(
        stdout(&working),
        format!("task {id}: working"),
        "{}",
        text(&working)
    );
    let cancel = cli(&dir, &config, &["task", "cancel", "work", &id]).await;
    assert_eq!(cancel.status.code(), Some(0), "{}", text(&cancel));
    let cancelled = cli(&dir, &config, &["--json", "task", "get", "work", &id]).await;
    let shown: serde_json::Value = serde_json::from_slice(&cancelled.stdout).unwrap();
    assert_eq!(shown["status"], "cancelled", "{}", text(&cancelled));

    // --detach needs --task.
    let usage = run(&["call", "work", "slow_compute", "--detach"]).await;
    assert_ne!(usage.status.code(), Some(0), "{}", text(&usage));
    let _ = stop.send(());
    let _ = server.await;
}
