//! `mcp-cli serve --http --session-store redis://…` alone (no rate limit),
//! two replicas sharing a key file and one real Redis, which is killed
//! mid-run: calls of every session go on on both replicas (sealed ids
//! still open, a new session too), a DELETE still ends a session on the
//! replica that takes it, and `/readyz` (still 200) and `/metrics` say the
//! sessions' store is degraded.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_tests::raw_http::{self, RawAnswer};
use mcp_tests::redis::RedisServer;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const TOKEN: &str = "store-test-token";

/// A replica of the config in `dir`, with the key file and the store.
fn replica(dir: &std::path::Path, store: &str) -> ServeHttp {
    let mut command = Command::new(workspace_bin("mcp-cli"));
    command
        .args(["-v", "--timeout", "60", "serve", "--no-reload", "--config"])
        .arg(dir.join("gateway.json"))
        .args(["--http", "127.0.0.1:0", "--http-token", TOKEN])
        .arg("--session-keys")
        .arg(dir.join("session-keys"))
        .args(["--session-store", store]);
    ServeHttp::start(command)
}

fn post(url: &str, session: Option<&str>, body: &Value) -> RawAnswer {
    raw_http::send("POST", url, TOKEN, session, Some(body))
}

fn initialize(url: &str) -> String {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "store-test", "version": "1.0"},
    }});
    let answer = post(url, None, &request);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let id = answer.session().expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(url, Some(&id), &initialized).status, 202);
    id
}

/// Asserts a `tools/call` of the fixture's echo in session `id` at `url` succeeds.
fn assert_served(url: &str, id: &str) {
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "fixture__echo", "arguments": {"text": "kept"},
    }});
    let answer = post(url, Some(id), &request);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains(r#""text":"kept""#), "{}", answer.body);
}

fn get(replica: &ServeHttp, path: &str) -> RawAnswer {
    raw_http::send(
        "GET",
        &format!("{}{path}", replica.base()),
        TOKEN,
        None,
        None,
    )
}

#[test]
fn a_session_store_that_stops_never_stops_calls_and_is_said_to_be_degraded() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let store = redis.url(4);
    let dir = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"fixture": {"command": FIXTURE, "args": ["well-behaved"]}}});
    std::fs::write(dir.path().join("gateway.json"), config.to_string()).unwrap();
    let keys = dir.path().join("session-keys");
    std::fs::write(&keys, format!("{KEY}\n")).unwrap();
    std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (first, second) = (replica(dir.path(), &store), replica(dir.path(), &store));
    for replica in [&first, &second] {
        replica.wait_for_line("the session store answers");
    }
    let id = initialize(&first.url);
    assert_served(&second.url, &id);
    let ready = get(&first, "/readyz");
    assert_eq!(ready.status, 200, "{}", ready.body);
    assert!(
        ready.body.contains(r#""sessionStore":"up""#),
        "{}",
        ready.body
    );

    redis.kill();
    first.wait_for_line("the session store failed");
    // Sealed ids still open, on both replicas, and a new session is served too.
    assert_served(&first.url, &id);
    assert_served(&second.url, &id);
    let opened_while_down = initialize(&second.url);
    assert_served(&first.url, &opened_while_down);

    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ready = get(&first, "/readyz");
        assert_eq!(
            ready.status, 200,
            "a degraded store leaves the replica ready"
        );
        if ready.body.contains(r#""degradedFeatures":["sessions"]"#) {
            assert!(
                ready.body.contains(r#""sessionStore":"degraded""#),
                "{}",
                ready.body
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never said degraded: {}",
            ready.body
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let metrics = get(&first, "/metrics");
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .body
            .contains(r#"mcp_gateway_session_store_feature_up{feature="sessions"} 0"#),
        "{}",
        metrics.body
    );
    assert!(
        metrics
            .body
            .contains(r#"mcp_gateway_session_store_up{store="redis"} 0"#)
    );

    // A DELETE still ends the session on the replica that takes it.
    let deleted = raw_http::send("DELETE", &first.url, TOKEN, Some(&id), None);
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let request = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(post(&first.url, Some(&id), &request).status, 404);
}
