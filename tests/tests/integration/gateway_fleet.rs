//! `mcp-cli serve --http` as a fleet (issue #42): three replicas with the
//! same config and `--session-keys` file, one Redis as their
//! `--session-store`, and a real HAProxy balancing round-robin with no
//! stickiness (a config derived from `deploy/haproxy.cfg`).
//!
//! - 32 official Python SDK clients, 16 of each era, make 100 `tools/call`s
//!   each through HAProxy while one replica is SIGKILLed: every call
//!   succeeds (a call in flight on the killed replica may fail once with a
//!   connection error and is retried once), no legacy session is refused,
//!   each keeps its one session id with no new `initialize`, and the
//!   requests of a session land on more than one replica.
//! - Through HAProxy, a session id replayed on another profile's route, by
//!   another subject, after tampering or past its age is answered 404.
//! - Rotation: a key file of [new, old], with SIGHUP to every replica,
//!   opens the old sessions and seals new ones with the new key.
//! - `--client-rate-limit` counts one subject across the three replicas.
//! - Across replicas, hit directly (`--session-store` alone): a
//!   `resources/subscribe` sent through one replica makes the
//!   `resources/updated` arrive on the GET stream another replica holds,
//!   a `resources/unsubscribe` through a third reaches the server of the
//!   replica that holds the subscription, a `logging/setLevel` through one
//!   reaches the servers of the replicas
//!   that hold or later resume the session, and a DELETE through a third
//!   ends the session on all of them (each answers 404 for it, the GET
//!   stream ends, and a replica started afterwards refuses it too).

use std::collections::BTreeSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::haproxy::{HaProxy, REPLICA_HEADER};
use mcp_tests::processes::{reaped, wait_with_timeout};
use mcp_tests::raw_http::{self, RawAnswer};
use mcp_tests::redis::RedisServer;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::session_keys::write_session_keys;
use mcp_tests::tools::{require_tools, workspace_bin, workspace_root};
use nix::sys::signal::Signal;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const OLD_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const NEW_KEY: &str = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=";
const TOKEN: &str = "fleet-token";
/// Python clients, half of each era, and the calls each makes.
const CLIENTS: usize = 32;
const CALLS: usize = 100;
/// The bound on the Python clients' whole run.
const LOAD_TIMEOUT: Duration = Duration::from_secs(50);
/// The replica the clients kill (HAProxy names it `replica2`).
const VICTIM: usize = 1;
/// How long after the killed replica is gone HAProxy may still forward a
/// request on an idle connection to it it has not yet seen closed: it then
/// closes the client's connection unanswered, and the client retries.
const HAPROXY_NOTICES: f64 = 1.0;

/// A config, its folder and a key file, shared by the replicas.
struct Fleet {
    dir: tempfile::TempDir,
    config: PathBuf,
    keys: PathBuf,
}

impl Fleet {
    fn new(keys: &[&str]) -> Self {
        Self::serving(
            keys,
            json!({"fixture": {"command": FIXTURE, "args": ["well-behaved"]}}),
        )
    }

    /// A fleet of `servers` (the config's `mcpServers`).
    fn serving(keys: &[&str], servers: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("gateway.json");
        let whole = json!({
            "mcpServers": servers,
            "profiles": {"dev": {}},
        });
        std::fs::write(&config, whole.to_string()).unwrap();
        let fleet = Self {
            keys: dir.path().join("session-keys"),
            config,
            dir,
        };
        fleet.write_keys(keys);
        fleet
    }

    /// Replaces the key file at once (a rename), readable by its owner only.
    fn write_keys(&self, keys: &[&str]) {
        write_session_keys(&self.keys, keys);
    }

    /// `serve --http 127.0.0.1:0` with the key file, `token` and `flags`.
    fn replica(&self, token: &str, flags: &[&str]) -> ServeHttp {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .args(["-v", "--timeout", "60", "serve", "--config"])
            .arg(&self.config)
            .args(["--http", "127.0.0.1:0", "--http-token", token])
            .arg("--session-keys")
            .arg(&self.keys)
            .args(flags);
        ServeHttp::start(command)
    }
}

/// Three replicas behind HAProxy.
struct Balanced {
    replicas: Vec<ServeHttp>,
    haproxy: HaProxy,
}

impl Balanced {
    /// Starts three replicas of `fleet` with `token` and `flags`, and
    /// HAProxy before them; `None` when HAProxy is not installed (and not
    /// required).
    fn start(fleet: &Fleet, token: &str, flags: &[&str]) -> Option<Self> {
        let replicas: Vec<ServeHttp> = (0..3).map(|_| fleet.replica(token, flags)).collect();
        let addrs: Vec<&str> = replicas
            .iter()
            .map(|replica| replica.base().trim_start_matches("http://"))
            .collect();
        let haproxy = HaProxy::start(&addrs, token)?;
        Some(Self { replicas, haproxy })
    }

    /// The replica HAProxy calls `name` (`replica1`, …).
    fn named(&self, name: &str) -> &ServeHttp {
        let number: usize = name.trim_start_matches("replica").parse().unwrap();
        &self.replicas[number - 1]
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.haproxy.base())
    }
}

/// A `POST` of `body` to `url` with the token and the session id.
fn send(url: &str, token: &str, session: Option<&str>, body: &Value) -> RawAnswer {
    raw_http::send("POST", url, token, session, Some(body))
}

/// A legacy (2025-11-25) `initialize` and `notifications/initialized` on
/// `url`: the session id issued.
fn initialize(url: &str, token: &str) -> String {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "fleet-test", "version": "1.0"},
    }});
    let answer = send(url, token, None, &request);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let id = answer.session().expect("initialize issues a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(url, token, Some(&id), &initialized).status, 202);
    id
}

/// `tools/call` of the fixture's echo in session `id` on `url`.
fn echo(url: &str, token: &str, id: &str) -> RawAnswer {
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "fixture__echo", "arguments": {"text": "fleet"},
    }});
    send(url, token, Some(id), &request)
}

/// Asserts the call in session `id` succeeds through `url`; the replica
/// that answered.
fn assert_served(url: &str, token: &str, id: &str) -> String {
    let answer = echo(url, token, id);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains(r#""text":"fleet""#), "{}", answer.body);
    answer
        .header(REPLICA_HEADER)
        .expect("HAProxy names the replica")
}

/// Asserts the call in session `id` through `url` is answered 404 and the
/// replica that answered logged `reason`.
fn assert_refused(fleet: &Balanced, url: &str, token: &str, id: &str, reason: &str) {
    let answer = echo(url, token, id);
    assert_eq!(answer.status, 404, "{}", answer.body);
    let answered = answer
        .header(REPLICA_HEADER)
        .expect("HAProxy names the replica");
    let replica = fleet.named(&answered);
    let line = replica.wait_for_line(reason);
    assert!(line.contains("refused a session id"), "{line}");
}

/// Waits (bounded) until HAProxy forwards to the fleet.
fn wait_until_balanced(fleet: &Balanced) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while initialize_status(&fleet.url("/mcp")) != 200 {
        assert!(Instant::now() < deadline, "HAProxy never forwarded");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn initialize_status(url: &str) -> u16 {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "fleet-test", "version": "1.0"},
    }});
    send(url, TOKEN, None, &request).status
}

/// What one Python client saw.
struct ClientRun<'a> {
    mode: &'a str,
    exchanges: &'a [Value],
    calls: &'a [Value],
    retries: &'a [Value],
}

impl<'a> ClientRun<'a> {
    fn of(record: &'a Value) -> Self {
        Self {
            mode: record["mode"].as_str().unwrap(),
            exchanges: record["exchanges"].as_array().unwrap(),
            calls: record["calls"].as_array().unwrap(),
            retries: record["retries"].as_array().unwrap(),
        }
    }

    fn initializes(&self) -> usize {
        self.exchanges
            .iter()
            .filter(|e| e["method"] == "initialize")
            .count()
    }

    /// The session ids sent on the client's POSTs.
    fn sessions(&self) -> BTreeSet<&'a str> {
        self.exchanges
            .iter()
            .filter(|e| e["method"] != "GET" && e["method"] != "initialize")
            .map(|e| e["session"].as_str().unwrap_or("(none)"))
            .collect()
    }

    /// The replicas that answered the client's `tools/call`s.
    fn replicas(&self) -> BTreeSet<&'a str> {
        self.exchanges
            .iter()
            .filter(|e| e["method"] == "tools/call" && e["status"] == 200)
            .filter_map(|e| e["replica"].as_str())
            .collect()
    }
}

/// Runs the Python clients through `url`, killing `victim` mid-run; what
/// they wrote.
fn run_clients(python: &std::path::Path, url: &str, victim: u32, dir: &std::path::Path) -> Value {
    let script = workspace_root().join("tests/fixtures/clients/fleet_client.py");
    let out = dir.join("fleet.json");
    let child = Command::new(python)
        .arg(script)
        .arg(url)
        .args([
            TOKEN.to_owned(),
            CLIENTS.to_string(),
            CALLS.to_string(),
            victim.to_string(),
        ])
        .arg(&out)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = wait_with_timeout(child, LOAD_TIMEOUT);
    assert!(reaped(pid));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python clients failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let written = std::fs::read_to_string(&out).unwrap();
    serde_json::from_str(&written).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stderr}"))
}

#[test]
fn a_fleet_behind_haproxy_keeps_every_session_through_a_replica_kill_and_a_key_rotation() {
    let Some(tools) = require_tools() else { return };
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = redis.url(0);
    let fleet = Fleet::new(&[OLD_KEY]);
    // A rate no client reaches: every call still asks the store.
    let flags = [
        "--session-store",
        &store,
        "--client-rate-limit",
        "100000/100000",
    ];
    let Some(balanced) = Balanced::start(&fleet, TOKEN, &flags) else {
        return;
    };
    wait_until_balanced(&balanced);
    let mcp = balanced.url("/mcp");

    let seen = run_clients(
        &tools.python(),
        &mcp,
        balanced.replicas[VICTIM].pid(),
        fleet.dir.path(),
    );
    let killed_at = seen["killed_at"].as_f64().unwrap();
    let mut legacy_ids = Vec::new();
    let mut served_by = BTreeSet::new();
    for record in seen["clients"].as_array().unwrap() {
        let run = ClientRun::of(record);
        assert_eq!(run.calls.len(), CALLS, "{record}");
        assert!(
            run.exchanges.iter().all(|e| e["status"] != 404),
            "a session was refused: {record}"
        );
        let mut retried = 0;
        for call in run.calls {
            if call["first"] == "ok" {
                continue;
            }
            // Only a call in flight on the killed replica may fail, once.
            retried += 1;
            assert!(
                call["started"].as_f64().unwrap() < killed_at + HAPROXY_NOTICES,
                "a call after the kill (at {killed_at}) failed: {call}"
            );
            assert_eq!(call["retry"], "ok", "{call}");
        }
        for retry in run.retries {
            retried += 1;
            assert!(
                retry["started"].as_f64().unwrap() < killed_at + HAPROXY_NOTICES,
                "a request after the kill (at {killed_at}) was sent again: {retry}"
            );
        }
        assert!(
            retried <= 1,
            "{retried} calls of one client failed: {record}"
        );
        let replicas = run.replicas();
        served_by.extend(replicas.iter().copied());
        match run.mode {
            "legacy" => {
                assert_eq!(run.initializes(), 1, "a new initialize: {record}");
                let sessions = run.sessions();
                assert_eq!(sessions.len(), 1, "the session id changed: {sessions:?}");
                assert!(
                    replicas.len() > 1,
                    "a session's calls all landed on {replicas:?}: is HAProxy sticky?"
                );
                legacy_ids.extend(sessions.into_iter().map(str::to_owned));
            }
            _ => assert_eq!(run.initializes(), 0, "an initialize in the 2026 era"),
        }
    }
    assert_eq!(legacy_ids.len(), CLIENTS / 2);
    assert_eq!(
        served_by.len(),
        3,
        "the replicas that served calls: {served_by:?}"
    );

    // A session opened before the kill is served by the live replicas.
    let old_id = &legacy_ids[0];
    let live: BTreeSet<String> = (0..4).map(|_| assert_served(&mcp, TOKEN, old_id)).collect();
    assert!(
        !live.contains(&format!("replica{}", VICTIM + 1)),
        "{live:?}"
    );
    assert_refused(
        &balanced,
        &balanced.url("/profiles/dev/mcp"),
        TOKEN,
        old_id,
        "opened on /mcp, presented on /profiles/dev/mcp",
    );
    let mut tampered = old_id.clone().into_bytes();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    assert_refused(&balanced, &mcp, TOKEN, &tampered, "tampered with");

    // Rotation: [new, old], every live replica told to reload.
    fleet.write_keys(&[NEW_KEY, OLD_KEY]);
    for (number, replica) in balanced.replicas.iter().enumerate() {
        if number != VICTIM {
            replica.signal(Signal::SIGHUP);
            replica.wait_for_line("config reloaded");
        }
    }
    let new_id = initialize(&mcp, TOKEN);
    let live: BTreeSet<String> = (0..4)
        .flat_map(|_| {
            [
                assert_served(&mcp, TOKEN, &new_id),
                assert_served(&mcp, TOKEN, old_id),
            ]
        })
        .collect();
    assert_eq!(live.len(), 2, "{live:?}");
    // The new id is sealed with the new key: a replica on the old one alone
    // cannot open it.
    let old_only = Fleet::new(&[OLD_KEY]);
    let outsider = old_only.replica(TOKEN, &[]);
    let answer = echo(&outsider.url, TOKEN, &new_id);
    assert_eq!(answer.status, 404, "{}", answer.body);
    outsider.wait_for_line("sealed with an unknown key");

    let pids: Vec<u32> = balanced
        .replicas
        .iter()
        .map(ServeHttp::pid)
        .chain(balanced.haproxy.pid())
        .collect();
    drop(balanced);
    assert!(
        pids.into_iter().all(reaped),
        "a fleet process was not reaped"
    );
}

#[test]
fn one_subject_is_counted_across_the_fleet_and_foreign_or_old_ids_are_refused() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = redis.url(1);
    let fleet = Fleet::new(&[OLD_KEY]);
    // Three replicas with burst 6: each alone would let 18 requests through.
    let Some(balanced) = Balanced::start(
        &fleet,
        TOKEN,
        &[
            "--session-store",
            &store,
            "--client-rate-limit",
            "3/6",
            "--session-max-age",
            "1s",
        ],
    ) else {
        return;
    };
    wait_until_balanced(&balanced);
    let mcp = balanced.url("/mcp");

    // Opened under the same keys by another subject (another token).
    let other = fleet.replica("another-token", &[]);
    let foreign = initialize(&other.url, "another-token");
    assert_refused(
        &balanced,
        &mcp,
        TOKEN,
        &foreign,
        "presented by another subject",
    );

    let id = initialize(&mcp, TOKEN);
    assert_served(&mcp, TOKEN, &id);
    // Ages count whole seconds: past 2 s, the id is at least 2 s old.
    std::thread::sleep(Duration::from_millis(2200));
    assert_refused(&balanced, &mcp, TOKEN, &id, "older than the maximum age");

    // A full bucket again (3/s, burst 6), then 15 requests at once.
    std::thread::sleep(Duration::from_millis(2500));
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "fleet-test", "version": "1.0"},
    }});
    let started = Instant::now();
    let mut allowed = 0;
    let mut landed = BTreeSet::new();
    for _ in 0..15 {
        let answer = send(&mcp, TOKEN, None, &request);
        assert!(
            answer.status == 200 || answer.status == 429,
            "{}",
            answer.body
        );
        allowed += usize::from(answer.status == 200);
        landed.extend(answer.header(REPLICA_HEADER));
    }
    assert_eq!(landed.len(), 3, "round-robin over the three: {landed:?}");
    // 6 at once, and 3/s after (one more for the edge); counted per
    // replica, all 15 would pass.
    let refilled = 3.0 * started.elapsed().as_secs_f64();
    assert!(
        allowed >= 6 && (allowed as f64) <= 7.0 + refilled && allowed < 15,
        "{allowed} of 15 allowed in {:?}: the limit is not shared",
        started.elapsed()
    );
}

/// A session's GET stream, opened on one replica, read line by line.
struct GetStream {
    lines: BufReader<std::net::TcpStream>,
}

impl GetStream {
    /// Opens the GET stream of session `id` at `url`; asserts it is an event stream.
    fn open(url: &str, token: &str, id: &str) -> Self {
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_at(rest.find('/').unwrap());
        let mut stream = std::net::TcpStream::connect(host).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(1)))
            .unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\
             Mcp-Session-Id: {id}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut lines = BufReader::new(stream);
        let mut status = String::new();
        lines.read_line(&mut status).unwrap();
        assert!(status.contains(" 200 "), "{status}");
        Self { lines }
    }

    /// Reads until a line containing `needle` (true), the stream's end
    /// (false), or `within` (false).
    fn wait_for(&mut self, needle: &str, within: Duration) -> bool {
        self.read_until(within, |line| {
            line.and_then(|line| line.contains(needle).then_some(true))
        })
        .unwrap_or(false)
    }

    /// Whether the stream ends within `within` (its last chunk, or the
    /// connection's end).
    fn ends_within(&mut self, within: Duration) -> bool {
        self.read_until(within, |line| match line {
            None => Some(true),
            Some(line) => (line == "0\r\n").then_some(true),
        })
        .unwrap_or(false)
    }

    /// Reads lines until `verdict` gives one: it is called with each line,
    /// and with `None` at the stream's end (or a read error); `None` once
    /// `within` passes.
    fn read_until(
        &mut self,
        within: Duration,
        verdict: impl Fn(Option<&str>) -> Option<bool>,
    ) -> Option<bool> {
        let deadline = Instant::now() + within;
        let mut line = String::new();
        while Instant::now() < deadline {
            line.clear();
            let read = match self.lines.read_line(&mut line) {
                Ok(0) => None,
                Ok(_) => Some(line.as_str()),
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(_) => None,
            };
            let ended = read.is_none();
            if let Some(verdict) = verdict(read) {
                return Some(verdict);
            }
            if ended {
                return None;
            }
        }
        None
    }
}

#[test]
fn across_replicas_an_update_reaches_the_stream_another_holds_and_a_delete_ends_the_session() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = redis.url(2);
    let seen_by_servers = tempfile::tempdir().unwrap();
    let request_log = seen_by_servers.path().join("watch-requests.log");
    let servers = json!({
        "fixture": {"command": FIXTURE, "args": ["well-behaved"]},
        "watch": {"command": FIXTURE, "args": ["watched"],
                  "env": {"FIXTURE_REQUEST_LOG": request_log}},
    });
    let fleet = Fleet::serving(&[OLD_KEY], servers);
    let replicas: Vec<ServeHttp> = (0..3)
        .map(|_| fleet.replica(TOKEN, &["--session-store", &store]))
        .collect();
    for replica in &replicas {
        replica.wait_for_line("the session store answers");
    }
    let [first, second, third] = [&replicas[0], &replicas[1], &replicas[2]].map(|r| r.url.clone());
    let id = initialize(&first, TOKEN);

    // The GET stream on the second; the subscription and the change on the first.
    let mut stream = GetStream::open(&second, TOKEN, &id);
    let uri = "mcp-gateway://watch/test://watched-resource";
    let subscribe = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe",
        "params": {"uri": uri}});
    let answer = send(&first, TOKEN, Some(&id), &subscribe);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(!answer.body.contains("error"), "{}", answer.body);
    let touch = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "watch__touch", "arguments": {}}});
    let answer = send(&first, TOKEN, Some(&id), &touch);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        stream.wait_for("notifications/resources/updated", Duration::from_secs(10)),
        "the update never reached the GET stream on the second replica"
    );

    // Unsubscribed through the third: the first, which holds the
    // subscription, unsubscribes at its server.
    let unsubscribe = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/unsubscribe",
        "params": {"uri": uri}});
    let answer = send(&third, TOKEN, Some(&id), &unsubscribe);
    assert_eq!(answer.status, 200, "{}", answer.body);
    wait_for_sent(&request_log, "resources/unsubscribe", 1);

    // The log level set through the first holds on the second (which
    // holds a connection of the session) and on the third (which resumes
    // it later): each sends it to its own server.
    let set_level = json!({"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel",
        "params": {"level": "critical"}});
    let answer = send(&first, TOKEN, Some(&id), &set_level);
    assert_eq!(answer.status, 200, "{}", answer.body);
    wait_for_sent(&request_log, "critical", 2);
    let ping = json!({"jsonrpc": "2.0", "id": 6, "method": "ping"});
    assert_eq!(send(&third, TOKEN, Some(&id), &ping).status, 200);
    wait_for_sent(&request_log, "critical", 3);

    // DELETE through the third: every replica answers 404 for the id.
    let deleted = raw_http::send("DELETE", &third, TOKEN, Some(&id), None);
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert!(
        stream.ends_within(Duration::from_secs(10)),
        "the GET stream on the second replica outlived the DELETE"
    );
    // The word travels by pub/sub: a replica may serve the id a moment more.
    let deadline = Instant::now() + Duration::from_secs(5);
    for (number, url) in [&first, &second, &third].into_iter().enumerate() {
        while echo(url, TOKEN, &id).status != 404 {
            assert!(
                Instant::now() < deadline,
                "replica {} still serves the id",
                number + 1
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        replicas[number].wait_for_line("ended by its DELETE");
    }
    // A replica that starts after the DELETE refuses the id too (the record in Redis).
    let late = fleet.replica(TOKEN, &["--session-store", &store]);
    late.wait_for_line("the session store answers");
    let answer = echo(&late.url, TOKEN, &id);
    assert_eq!(answer.status, 404, "{}", answer.body);
}

/// Waits (bounded) until the watched servers, all writing to `log`, were
/// sent `count` messages containing `needle`.
fn wait_for_sent(log: &std::path::Path, needle: &str, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sent = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains(needle))
            .count();
        if sent >= count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the servers were sent {needle} {sent} times, not {count}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
