//! `mcp-cli serve --http`'s fleet limits, against the real binary:
//! `--client-rate-limit` (429 and `Retry-After`, counted across two
//! replicas through one real Redis, and per replica while it is down),
//! `--max-streams` (503 and `Retry-After`), `--allowed-host` and the
//! loopback default (421), and the open-file limit raised at start.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_tests::redis::RedisServer;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::workspace_bin;
use serde_json::json;

const TOKEN: &str = "limits-test-token";

/// `mcp-cli serve --http 127.0.0.1:0` with no servers and `flags`.
struct Gateway {
    serve: ServeHttp,
    _dir: tempfile::TempDir,
}

impl Gateway {
    fn start(flags: &[&str]) -> Self {
        Self::start_command(flags, |_| {})
    }

    fn start_command(flags: &[&str], adjust: impl FnOnce(&mut Command)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("gateway.json");
        std::fs::write(&config, json!({"mcpServers": {}}).to_string()).unwrap();
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .args(["--timeout", "60", "serve", "--no-reload", "--config"])
            .arg(&config)
            .args(["--http", "127.0.0.1:0"])
            .args(flags);
        adjust(&mut command);
        Self {
            serve: ServeHttp::start(command),
            _dir: dir,
        }
    }

    /// `127.0.0.1:PORT`.
    fn addr(&self) -> String {
        self.serve.base().trim_start_matches("http://").to_owned()
    }
}

/// An answer's status and headers (lower-case names), and the open
/// stream (its body may still come).
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    _stream: TcpStream,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one HTTP/1.1 request to `addr` naming `host`, and reads its head
/// (bounded); the connection stays open with the answer.
fn request(
    addr: &str,
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut read = Vec::new();
    let mut byte = [0u8; 1];
    while !read.ends_with(b"\r\n\r\n") {
        assert!(read.len() < 64 * 1024, "an endless head");
        let n = stream.read(&mut byte).unwrap();
        assert_eq!(n, 1, "the connection closed before the head ended");
        read.push(byte[0]);
    }
    let text = String::from_utf8(read).unwrap();
    let mut lines = text.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        _stream: stream,
    }
}

const JSON_HEADERS: &[(&str, &str)] = &[
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

fn initialize_body() -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "limits-test", "version": "1"}}
    })
    .to_string()
}

/// A POST of `ping` with the token, on `gateway`; its status and `Retry-After`.
fn ping(gateway: &Gateway) -> (u16, Option<String>) {
    let addr = gateway.addr();
    let auth = format!("Bearer {TOKEN}");
    let mut headers = JSON_HEADERS.to_vec();
    headers.push(("Authorization", &auth));
    let answer = request(&addr, &addr, "POST", "/mcp", &headers, &initialize_body());
    (
        answer.status,
        answer.header("retry-after").map(str::to_owned),
    )
}

#[test]
fn a_client_over_its_rate_gets_429_with_retry_after() {
    let gateway = Gateway::start(&["--http-token", TOKEN, "--client-rate-limit", "0.2/2"]);
    assert_eq!(ping(&gateway).0, 200);
    assert_eq!(ping(&gateway).0, 200);
    let (status, retry_after) = ping(&gateway);
    assert_eq!(status, 429);
    let seconds: u64 = retry_after.expect("Retry-After").parse().unwrap();
    assert!((1..=5).contains(&seconds), "Retry-After: {seconds}");
    // The limit is the MCP routes': health checks are never refused.
    let addr = gateway.addr();
    assert_eq!(
        request(&addr, &addr, "GET", "/healthz", &[], "").status,
        200
    );
}

#[test]
fn more_sse_streams_than_max_streams_get_503_with_retry_after() {
    let gateway = Gateway::start(&["--max-streams", "1"]);
    let addr = gateway.addr();
    let initialized = request(
        &addr,
        &addr,
        "POST",
        "/mcp",
        JSON_HEADERS,
        &initialize_body(),
    );
    assert_eq!(initialized.status, 200);
    let session = initialized
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let get = |session: &str| {
        request(
            &addr,
            &addr,
            "GET",
            "/mcp",
            &[("Accept", "text/event-stream"), ("Mcp-Session-Id", session)],
            "",
        )
    };
    let first = get(&session);
    assert_eq!(first.status, 200);
    let second = get(&session);
    assert_eq!(second.status, 503);
    assert_eq!(second.header("retry-after"), Some("1"));
    // The place comes back when the first stream closes.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let again = get(&session);
        if again.status == 200 {
            break;
        }
        assert_eq!(again.status, 503);
        assert!(
            Instant::now() < deadline,
            "the closed stream's place never came back"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_loopback_bind_answers_421_to_a_foreign_host_unless_it_is_allowed() {
    let gateway = Gateway::start(&[]);
    let addr = gateway.addr();
    let port = addr.rsplit(':').next().unwrap().to_owned();
    assert_eq!(
        request(&addr, &addr, "GET", "/healthz", &[], "").status,
        200
    );
    let localhost = format!("localhost:{port}");
    assert_eq!(
        request(&addr, &localhost, "GET", "/healthz", &[], "").status,
        200
    );
    let rebound = format!("attacker.example:{port}");
    assert_eq!(
        request(&addr, &rebound, "GET", "/healthz", &[], "").status,
        421
    );
    let posted = request(
        &addr,
        &rebound,
        "POST",
        "/mcp",
        JSON_HEADERS,
        &initialize_body(),
    );
    assert_eq!(posted.status, 421);

    let listed = Gateway::start(&["--allowed-host", "gateway.test"]);
    let addr = listed.addr();
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let named = format!("gateway.test:{port}");
    assert_eq!(
        request(&addr, &named, "GET", "/healthz", &[], "").status,
        200
    );
    assert_eq!(
        request(&addr, &addr, "GET", "/healthz", &[], "").status,
        421,
        "the list replaces the loopback default"
    );
}

#[test]
fn two_replicas_sharing_one_redis_count_one_subject_together() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let url = redis.url(3);
    let flags = [
        "--http-token",
        TOKEN,
        "--client-rate-limit",
        "0.1/4",
        "--session-store",
        url.as_str(),
    ];
    let first = Gateway::start(&flags);
    let second = Gateway::start(&flags);
    // Each replica alone would let four through; together they let four.
    for gateway in [&first, &second, &first, &second] {
        assert_eq!(ping(gateway).0, 200);
    }
    let (status, retry_after) = ping(&first);
    assert_eq!(status, 429, "the first replica saw two, the store four");
    assert!(retry_after.is_some());
    assert_eq!(ping(&second).0, 429);

    // Redis gone: calls go on, limited per replica, and /readyz says so.
    redis.kill();
    assert_eq!(
        ping(&first).0,
        200,
        "a store that is down never stops calls"
    );
    let addr = first.addr();
    let auth = format!("Bearer {TOKEN}");
    let mut ready = request(
        &addr,
        &addr,
        "GET",
        "/readyz",
        &[("Authorization", &auth), ("Connection", "close")],
        "",
    );
    assert_eq!(
        ready.status, 200,
        "a degraded store leaves the replica ready"
    );
    let mut body = String::new();
    ready._stream.read_to_string(&mut body).unwrap();
    assert!(body.contains(r#""sessionStore":"degraded""#), "{body}");
}

#[test]
fn serve_raises_its_open_file_soft_limit_to_the_hard_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    if hard <= 256 {
        eprintln!("note: skipping: the hard open-file limit is {hard}");
        return;
    }
    let gateway = Gateway::start_command(&[], |command| {
        // SAFETY: only an async-signal-safe system call between fork and exec.
        unsafe {
            command.pre_exec(move || {
                setrlimit(Resource::RLIMIT_NOFILE, 256, hard).map_err(std::io::Error::from)
            });
        }
    });
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", gateway.serve.pid())).unwrap();
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .expect("Max open files in /proc/PID/limits");
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers, [hard.to_string(), hard.to_string()], "{line}");
}
