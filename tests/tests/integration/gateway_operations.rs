//! `mcp-cli serve --http`'s operations endpoints and its JWT auth, driven by
//! clients we did not write: the Prometheus client's text parser reads
//! `/metrics`, and the official Python SDK client (`mcp`) calls through a
//! gateway that takes JWTs signed by keys the test serves as a JWKS on
//! 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::{Tools, require_tools, workspace_bin, workspace_root};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const ISSUER: &str = "https://issuer.operations.test";
const AUDIENCE: &str = "mcp-gateway-operations-test";
const SCOPE: &str = "mcp:tools";

/// `mcp-cli serve --http 127.0.0.1:0` over a config of its own.
struct Gateway {
    serve: ServeHttp,
    _dir: tempfile::TempDir,
}

impl Gateway {
    fn start(servers: Value, flags: &[&str]) -> Self {
        Self::start_with(json!({ "mcpServers": servers }), flags)
    }

    /// [`start`](Self::start) with a whole config (profiles too).
    fn start_with(whole: Value, flags: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("gateway.json");
        std::fs::write(&config, whole.to_string()).unwrap();
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .args(["--timeout", "60", "serve", "--config"])
            .arg(&config)
            .args(["--http", "127.0.0.1:0"])
            .args(flags);
        Self {
            serve: ServeHttp::start(command),
            _dir: dir,
        }
    }

    /// `http://ADDR`.
    fn base(&self) -> &str {
        self.serve.base()
    }

    /// Status, body and `WWW-Authenticate` of `GET path`.
    fn get(&self, path: &str, token: Option<&str>) -> (u16, String, Option<String>) {
        plain_get(&format!("{}{path}", self.base()), token)
    }
}

/// `GET url` over a plain TCP stream (HTTP/1.1, `Connection: close`):
/// status, body and `WWW-Authenticate`.
fn plain_get(url: &str, token: Option<&str>) -> (u16, String, Option<String>) {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let challenge = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("www-authenticate")
            .then(|| value.trim().to_owned())
    });
    (status, body.to_owned(), challenge)
}

/// The Python helper, run to its end; its last line as JSON.
fn python(tools: &Tools, args: &[&str]) -> Value {
    let script = workspace_root()
        .join("tests")
        .join("fixtures")
        .join("clients")
        .join("operations_client.py");
    let output = Command::new(tools.python())
        .arg(script)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python helper failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"))
}

fn fixture(mode: &str, env: Value) -> Value {
    json!({"command": FIXTURE, "args": [mode], "env": env})
}

/// Polls `GET path` until `done` holds for its answer (bounded).
fn wait_for(
    gateway: &Gateway,
    path: &str,
    token: Option<&str>,
    done: impl Fn(u16, &str) -> bool,
) -> (u16, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body, _) = gateway.get(path, token);
        if done(status, &body) {
            return (status, body);
        }
        assert!(
            Instant::now() < deadline,
            "GET {path} never came to the expected answer; last {status}: {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn healthz_is_open_readyz_waits_for_every_server_and_both_want_the_token() {
    let Some(_tools) = require_tools() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let barrier = dir.path().join("barrier.log");
    let servers = json!({
        "fixture": fixture("well-behaved", json!({})),
        // Holds its handshake until the test writes a second line to its log.
        "held": fixture("barrier", json!({"FIXTURE_START_LOG": barrier, "FIXTURE_BARRIER": "2"})),
        "off": {"command": FIXTURE, "args": ["well-behaved"], "disabled": true},
    });
    let gateway = Gateway::start(servers, &["--http-token", "ops-token-1"]);

    let (status, body, _) = gateway.get("/healthz", None);
    assert_eq!((status, body.trim()), (200, "ok"));
    let (status, _, challenge) = gateway.get("/readyz", None);
    assert_eq!(status, 401);
    assert_eq!(challenge.as_deref(), Some("Bearer"));
    assert_eq!(gateway.get("/metrics", None).0, 401);
    assert_eq!(gateway.get("/readyz", Some("wrong")).0, 401);

    // `held` is still starting: 503, naming each enabled server's state.
    wait_for(&gateway, "/readyz", Some("ops-token-1"), |_, body| {
        serde_json::from_str::<Value>(body).is_ok_and(|v| v["servers"]["fixture"] == "ready")
    });
    let (status, body, _) = gateway.get("/readyz", Some("ops-token-1"));
    let seen: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        seen,
        json!({"servers": {"fixture": "ready", "held": "starting"}}),
        "{body}"
    );

    // Released (its own start line may come before or after this one):
    // every enabled server is ready, the disabled one is not asked about.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&barrier)
        .unwrap()
        .write_all(b"released by the test\n")
        .unwrap();
    let (status, body) = wait_for(&gateway, "/readyz", Some("ops-token-1"), |status, _| {
        status == 200
    });
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"servers": {"fixture": "ready", "held": "ready"}})
    );
}

/// The family `name`'s samples, as the Prometheus parser gave them.
fn samples<'a>(seen: &'a Value, name: &str) -> &'a Vec<Value> {
    seen["families"][name]["samples"]
        .as_array()
        .unwrap_or_else(|| panic!("no family {name}: {seen}"))
}

#[test]
fn metrics_parse_as_prometheus_text_with_latency_requests_states_and_clients() {
    let Some(tools) = require_tools() else { return };
    let servers = json!({
        "fixture": fixture("well-behaved", json!({})),
        "broken": fixture("exit-at-start", json!({})),
    });
    let gateway = Gateway::start(servers, &[]);
    wait_for(&gateway, "/readyz", None, |_, body| {
        serde_json::from_str::<Value>(body).is_ok_and(|v| {
            v["servers"]["fixture"] == "ready" && v["servers"]["broken"] != "starting"
        })
    });
    // Traffic through the gateway, from the SDK client: a list and calls.
    let sdk = python(&tools, &["call", gateway.base()]);
    assert_eq!(sdk["add"], "42", "{sdk}");
    assert_eq!(sdk["fail_is_error"], true, "{sdk}");

    let url = format!("{}/metrics", gateway.base());
    let seen = python(&tools, &["metrics", &url]);
    assert_eq!(seen["status"], 200);
    assert_eq!(
        seen["content_type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );

    // The latency histogram, by server and method.
    assert_eq!(
        seen["families"]["mcp_server_operation_duration_seconds"]["type"],
        "histogram"
    );
    let durations = samples(&seen, "mcp_server_operation_duration_seconds");
    let call_count = durations
        .iter()
        .find(|s| {
            s["name"] == "mcp_server_operation_duration_seconds_count"
                && s["labels"]["server"] == "fixture"
                && s["labels"]["mcp_method_name"] == "tools/call"
        })
        .unwrap_or_else(|| panic!("no tools/call to fixture: {durations:?}"));
    assert_eq!(call_count["value"], 2.0);
    assert!(durations.iter().any(|s| {
        s["labels"]["mcp_method_name"] == "tools/list" && s["labels"]["server"] == ""
    }));

    // The request counter, by server, method and outcome.
    assert_eq!(seen["families"]["mcp_gateway_requests"]["type"], "counter");
    let requests = samples(&seen, "mcp_gateway_requests");
    let count = |outcome: &str| {
        requests
            .iter()
            .filter(|s| {
                s["name"] == "mcp_gateway_requests_total"
                    && s["labels"]["server"] == "fixture"
                    && s["labels"]["mcp_method_name"] == "tools/call"
                    && s["labels"]["outcome"] == outcome
            })
            .map(|s| s["value"].as_f64().unwrap())
            .sum::<f64>()
    };
    assert_eq!(count("ok"), 1.0, "{requests:?}");
    assert_eq!(count("tool_error"), 1.0, "{requests:?}");
    assert_eq!(count("error"), 0.0, "{requests:?}");

    // The state gauge: one-hot per server.
    assert_eq!(
        seen["families"]["mcp_gateway_server_state"]["type"],
        "gauge"
    );
    let states = samples(&seen, "mcp_gateway_server_state");
    for server in ["fixture", "broken"] {
        let of: Vec<&Value> = states
            .iter()
            .filter(|s| s["labels"]["server"] == server)
            .collect();
        assert_eq!(of.len(), 6, "{server}: {of:?}");
        let on: Vec<&Value> = of.iter().copied().filter(|s| s["value"] == 1.0).collect();
        assert_eq!(on.len(), 1, "{server}: {of:?}");
        assert!(of.iter().all(|s| s["value"] == 0.0 || s["value"] == 1.0));
        if server == "fixture" {
            assert_eq!(on[0]["labels"]["state"], "ready");
        } else {
            assert_ne!(on[0]["labels"]["state"], "ready");
        }
    }

    // Connected clients: none now that the SDK client has gone.
    let clients = samples(&seen, "mcp_gateway_connected_clients");
    assert_eq!(clients.len(), 1);
    assert_eq!(clients[0]["value"], 0.0, "{clients:?}");
}

/// Serves the file `path` (read anew at each request) at any URL on
/// 127.0.0.1, counting the requests.
struct KeySetServer {
    url: String,
    fetches: Arc<AtomicUsize>,
}

impl KeySetServer {
    fn start(path: PathBuf) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        let fetches = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&fetches);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let body = std::fs::read(&path).unwrap_or_default();
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Self { url, fetches }
    }
}

fn assert_refused(seen: &Value, case: &str, status: u16, error: Option<&str>) {
    let answer = &seen[case];
    assert_eq!(answer["status"], status, "{case}: {answer}");
    let challenge = answer["challenge"].as_str().unwrap_or_default();
    assert!(
        challenge.starts_with("Bearer resource_metadata=\"http://127.0.0.1:"),
        "{case}: {challenge}"
    );
    assert!(
        challenge.contains("/.well-known/oauth-protected-resource\""),
        "{case}: {challenge}"
    );
    match error {
        Some(error) => assert!(
            challenge.contains(&format!("error=\"{error}\"")),
            "{case}: {challenge}"
        ),
        None => assert!(!challenge.contains("error="), "{case}: {challenge}"),
    }
}

#[test]
fn jwts_signed_by_the_served_keys_are_taken_and_every_bad_one_refused() {
    let Some(tools) = require_tools() else { return };
    let keys = tempfile::tempdir().unwrap();
    let folder = keys.path().display().to_string();
    python(&tools, &["keys", &folder]);
    let jwks = KeySetServer::start(keys.path().join("jwks.json"));
    let config = json!({
        "mcpServers": {"fixture": fixture("well-behaved", json!({}))},
        "profiles": {"ops": {"requiredScopes": ["mcp:ops"]}},
    });
    let gateway = Gateway::start_with(
        config,
        &[
            "--auth-jwks",
            &jwks.url,
            "--auth-issuer",
            ISSUER,
            "--auth-audience",
            AUDIENCE,
            "--auth-scope",
            SCOPE,
        ],
    );
    assert_eq!(jwks.fetches.load(Ordering::SeqCst), 1, "loaded at start");
    let seen = python(
        &tools,
        &["jwt", gateway.base(), ISSUER, AUDIENCE, SCOPE, &folder],
    );

    // Tokens that are valid: the SDK client lists and calls through serve.
    for case in ["valid_rs256", "valid_es256", "rotated"] {
        assert_eq!(seen[case]["ok"], true, "{case}: {}", seen[case]);
        assert_eq!(seen[case]["add"], "42", "{case}: {}", seen[case]);
    }
    assert_eq!(seen["expired_within_leeway"]["status"], 200, "{seen}");

    assert_refused(&seen, "no_token", 401, None);
    for case in [
        "expired",
        "not_yet_valid",
        "no_exp",
        "wrong_audience",
        "wrong_issuer",
        "forged",
        "garbage",
        "unknown_key",
    ] {
        assert_refused(&seen, case, 401, Some("invalid_token"));
    }
    assert_refused(&seen, "missing_scope", 403, Some("insufficient_scope"));
    let scope = seen["missing_scope"]["challenge"].as_str().unwrap();
    assert!(scope.ends_with(&format!("scope=\"{SCOPE}\"")), "{scope}");

    // A profile's requiredScopes come on top of the gateway's.
    assert_refused(
        &seen,
        "profile_missing_scope",
        403,
        Some("insufficient_scope"),
    );
    let wanted = seen["profile_missing_scope"]["challenge"].as_str().unwrap();
    assert!(wanted.contains("mcp:ops"), "{wanted}");
    assert_eq!(seen["profile_with_scope"]["status"], 200, "{seen}");
    // Which profiles exist is told only to a signed-in client.
    assert_refused(&seen, "unknown_profile_without_token", 401, None);
    assert_eq!(seen["unknown_profile_with_token"]["status"], 404, "{seen}");

    // The RFC 9728 document names the issuer.
    let metadata = &seen["metadata"];
    assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
    assert_eq!(metadata["resource"], format!("{}/mcp", gateway.base()));
    assert_eq!(metadata["scopes_supported"], json!([SCOPE]));

    // The operations endpoints: /healthz open, the others want a JWT.
    assert_eq!(seen["healthz"]["status"], 200);
    assert_refused(&seen, "readyz_without_token", 401, None);
    assert_refused(&seen, "metrics_without_token", 401, None);
    assert_eq!(seen["readyz_with_token"]["status"], 200, "{seen}");
    assert_eq!(seen["metrics_with_token"]["status"], 200, "{seen}");

    // The load at start, one refresh for the rotated key; the unknown key
    // that came within the minute fetched nothing.
    assert_eq!(jwks.fetches.load(Ordering::SeqCst), 2);
}

#[test]
fn a_jwks_that_cannot_be_fetched_stops_serve_at_start_naming_its_url() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/missing-jwks.json",
        listener.local_addr().unwrap()
    );
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gateway.json");
    std::fs::write(&config, json!({"mcpServers": {}}).to_string()).unwrap();
    let output = Command::new(workspace_bin("mcp-cli"))
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--http", "127.0.0.1:0", "--auth-jwks", &url])
        .args(["--auth-issuer", ISSUER, "--auth-audience", AUDIENCE])
        .env_remove("MCP_GATEWAY_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("the JWKS at {url} cannot be used")),
        "{stderr}"
    );
}
