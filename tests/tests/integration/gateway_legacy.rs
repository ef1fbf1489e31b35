//! `mcp-cli serve` passes on what a legacy client asks of its servers
//! besides calls: `logging/setLevel` (and the servers' log messages),
//! `completion/complete`, `resources/subscribe` and `resources/unsubscribe`
//! (and the servers' resource updates, under the served URI). A client
//! speaks JSON-RPC lines to `serve` on its stdin and stdout, in front of
//! the example server (`--conformance`, a modern server) and a fixture
//! server (`watched`, a legacy one whose resource is served qualified,
//! since the example server offers the same URI; the example server, which
//! has no `resources/subscribe` in its era, is listened to instead).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcp_tests::processes::wait_with_timeout;
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// The longest wait for one message from the gateway.
const MESSAGE_TIMEOUT: Duration = Duration::from_secs(20);
/// The watched resource, as its servers know it.
const WATCHED: &str = "test://watched-resource";

/// `mcp-cli serve` on stdio, and what it writes, line by line.
struct Gateway {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Gateway {
    fn start(config: &std::path::Path) -> Self {
        let mut child = Command::new(workspace_bin("mcp-cli"))
            .args(["--no-cache", "serve", "--config"])
            .arg(config)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Self {
            child: Some(child),
            stdin,
            lines,
            next_id: 1,
        }
    }

    fn write(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request; answers its id.
    fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message; panics after [`MESSAGE_TIMEOUT`].
    fn next(&self) -> Value {
        self.lines
            .recv_timeout(MESSAGE_TIMEOUT)
            .expect("the gateway said something in time")
    }

    /// Sends a request and reads until its answer; the notifications read
    /// meanwhile come back too.
    fn call(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.send(method, params);
        let mut notifications = Vec::new();
        loop {
            let message = self.next();
            if message["id"] == id {
                return (message, notifications);
            }
            if message.get("method").is_some() && message.get("id").is_none() {
                notifications.push(message);
            }
        }
    }

    /// The result of a request that must succeed.
    fn result(&mut self, method: &str, params: Value) -> Value {
        let (answer, _) = self.call(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// Ends stdin and waits for `serve` to exit.
    fn stop(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let child = self.child.take().unwrap();
        wait_with_timeout(child, Duration::from_secs(30)).status
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Log messages among `notifications`.
fn log_texts(notifications: &[Value]) -> Vec<String> {
    notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"]["data"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The requests of `method` the fixture server read, by their params.
fn fixture_saw(log: &std::path::Path, method: &str) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|request| request["method"] == method)
        .map(|request| request["params"].clone())
        .collect()
}

#[test]
fn a_legacy_client_sets_a_level_completes_and_subscribes_through_the_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let request_log = dir.path().join("watched-requests.log");
    let config = dir.path().join("gateway.json");
    let servers = json!({"mcpServers": {
        "example": {
            "command": workspace_bin("mcp-example-server"),
            "args": ["stdio", "--conformance"],
            "namespace": false,
        },
        "watch": {
            "command": FIXTURE,
            "args": ["watched"],
            "env": {"FIXTURE_REQUEST_LOG": request_log},
        },
    }});
    std::fs::write(&config, servers.to_string()).unwrap();
    let mut gateway = Gateway::start(&config);

    let initialized = gateway.result(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "legacy-test", "version": "1"}}),
    );
    let declared = &initialized["capabilities"];
    assert!(declared["logging"].is_object(), "{declared}");
    assert!(declared["completions"].is_object(), "{declared}");
    assert_eq!(declared["resources"]["subscribe"], true, "{declared}");
    gateway.write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Listing waits for the servers' first starts.
    let resources = gateway.result("resources/list", json!({}));
    let served: Vec<&str> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    let qualified = format!("mcp-gateway://watch/{WATCHED}");
    assert!(served.contains(&WATCHED), "{served:?}");
    assert!(served.contains(&qualified.as_str()), "{served:?}");

    // Logging: the level reaches the legacy server; the modern one's log
    // messages reach the client during its call.
    assert_eq!(
        gateway.result("logging/setLevel", json!({"level": "info"})),
        json!({})
    );
    assert_eq!(
        fixture_saw(&request_log, "logging/setLevel"),
        vec![json!({"level": "info"})]
    );
    let (answer, mut notifications) = gateway.call(
        "tools/call",
        json!({"name": "test_tool_with_logging", "arguments": {}}),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    // Log messages travel beside the answer: the last may come after it.
    while log_texts(&notifications).len() < 3 {
        notifications.push(gateway.next());
    }
    assert_eq!(
        log_texts(&notifications),
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
    );
    let first = notifications
        .iter()
        .find(|n| n["method"] == "notifications/message")
        .unwrap();
    assert_eq!(first["params"]["level"], "info");

    // Completion of a prompt's argument and of a template's variable.
    let completed = gateway.result(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
               "argument": {"name": "arg1", "value": "par"}}),
    );
    assert_eq!(
        completed["completion"]["values"],
        json!(["paris", "park", "party"])
    );
    let completed = gateway.result(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
               "argument": {"name": "id", "value": "pari"}}),
    );
    assert_eq!(completed["completion"]["values"], json!(["paris"]));
    let (refused, _) = gateway.call(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "no_such_prompt"},
               "argument": {"name": "a", "value": ""}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_prompt"),
        "{refused}"
    );

    // A subscription to the qualified URI: the server is asked with its own
    // URI, and its update comes back under the served one.
    assert_eq!(
        gateway.result("resources/subscribe", json!({"uri": qualified})),
        json!({})
    );
    assert_eq!(
        fixture_saw(&request_log, "resources/subscribe"),
        vec![json!({"uri": WATCHED})]
    );
    let (answer, mut notifications) = gateway.call(
        "tools/call",
        json!({"name": "watch__touch", "arguments": {}}),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    let updated = loop {
        if let Some(updated) = notifications
            .iter()
            .find(|n| n["method"] == "notifications/resources/updated")
        {
            break updated.clone();
        }
        notifications.push(gateway.next());
    };
    assert_eq!(updated["params"], json!({"uri": qualified}));

    assert_eq!(
        gateway.result("resources/unsubscribe", json!({"uri": qualified})),
        json!({})
    );
    assert_eq!(
        fixture_saw(&request_log, "resources/unsubscribe"),
        vec![json!({"uri": WATCHED})]
    );
    // The modern server has no resources/subscribe: it is listened to instead.
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        assert_eq!(gateway.result(method, json!({"uri": WATCHED})), json!({}));
    }
    assert!(gateway.stop().success());
}
