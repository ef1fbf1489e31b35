//! Sealed session ids across `mcp-cli serve --http` processes given the
//! same `--session-keys` file: a legacy session opened on one is served by
//! another, and an id replayed on another route, by another subject, after
//! tampering, past its age, after its DELETE or under an unknown key is
//! answered 404 with a log line saying why. Keys rotate with a file of
//! [new, old], read again on reload.

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use mcp_tests::raw_http::{RawAnswer, send};
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::session_keys::write_session_keys;
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const OLD_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const NEW_KEY: &str = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=";

/// A config, its folder and a key file, shared by the replicas of a test.
struct Fleet {
    /// The folder of the config and the key file, removed when the test ends.
    _dir: tempfile::TempDir,
    config: PathBuf,
    keys: PathBuf,
}

impl Fleet {
    fn new(keys: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("gateway.json");
        let whole = json!({
            "mcpServers": {"fixture": {"command": FIXTURE, "args": ["well-behaved"]}},
            "profiles": {"dev": {}},
        });
        std::fs::write(&config, whole.to_string()).unwrap();
        let fleet = Self {
            keys: dir.path().join("session-keys"),
            config,
            _dir: dir,
        };
        fleet.write_keys(keys);
        fleet
    }

    /// Replaces the key file at once (a rename), readable by its owner only.
    fn write_keys(&self, keys: &[&str]) {
        write_session_keys(&self.keys, keys);
    }

    /// `serve --http 127.0.0.1:0` with the key file, the token and `flags`,
    /// logging at info (the refusals are warnings).
    fn replica(&self, token: &str, flags: &[&str]) -> ServeHttp {
        ServeHttp::start(self.command(token, flags))
    }

    fn command(&self, token: &str, flags: &[&str]) -> Command {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .args(["-v", "--timeout", "60", "serve", "--config"])
            .arg(&self.config)
            .args(["--http", "127.0.0.1:0", "--http-token", token])
            .arg("--session-keys")
            .arg(&self.keys)
            .args(flags);
        command
    }
}

/// `initialize` (2025-11-25) on `url`: the session id it issued.
fn initialize(url: &str, token: &str) -> String {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {"listChanged": true}},
        "clientInfo": {"name": "sealed-sessions-test", "version": "1.0"},
    }});
    let answer = send("POST", url, token, None, Some(&request));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let id = answer.session().expect("initialize issues a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        send("POST", url, token, Some(&id), Some(&initialized)).status,
        202
    );
    id
}

/// `tools/call` of the fixture's echo in session `id` on `url`.
fn echo(url: &str, token: &str, id: &str) -> RawAnswer {
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "fixture__echo", "arguments": {"text": "sealed"},
    }});
    send("POST", url, token, Some(id), Some(&request))
}

/// Asserts the call in session `id` succeeds on `url`.
fn assert_served(url: &str, token: &str, id: &str) {
    let answer = echo(url, token, id);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let body: Value = serde_json::from_str(answer.body.lines().next_back().unwrap_or_default())
        .or_else(|_| {
            let data = answer
                .body
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("data: "));
            serde_json::from_str(data.unwrap_or_default())
        })
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", answer.body));
    assert_eq!(body["result"]["content"][0]["text"], "sealed", "{body}");
}

/// Asserts the call in session `id` on `replica`'s `url` is answered 404
/// and logged with `reason`.
fn assert_refused(replica: &ServeHttp, url: &str, token: &str, id: &str, reason: &str) {
    let answer = echo(url, token, id);
    assert_eq!(answer.status, 404, "{}", answer.body);
    assert!(
        answer.body.contains("unknown or expired session"),
        "{}",
        answer.body
    );
    let line = replica.wait_for_line(reason);
    assert!(line.contains("refused a session id"), "{line}");
    assert!(!line.contains(id), "the log line holds the id: {line}");
}

#[test]
fn a_session_opened_on_one_replica_is_served_by_another_and_refused_elsewhere() {
    let fleet = Fleet::new(&[OLD_KEY]);
    let first = fleet.replica("token-1", &[]);
    let second = fleet.replica("token-1", &[]);
    let id = initialize(&first.url, "token-1");
    assert_served(&second.url, "token-1", &id);
    assert_served(&first.url, "token-1", &id);

    let profile = second.profile_url("dev");
    assert_refused(
        &second,
        &profile,
        "token-1",
        &id,
        "opened on /mcp, presented on /profiles/dev/mcp",
    );
    // The same keys, another token: another subject.
    let other = fleet.replica("token-2", &[]);
    assert_refused(
        &other,
        &other.url,
        "token-2",
        &id,
        "presented by another subject",
    );
    let mut tampered = id.clone().into_bytes();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    assert_refused(&second, &second.url, "token-1", &tampered, "tampered with");
    assert_refused(
        &second,
        &second.url,
        "token-1",
        "0123456789abcdef",
        "not a sealed session id",
    );

    let ended = send("DELETE", &second.url, "token-1", Some(&id), None);
    assert_eq!(ended.status, 200, "{}", ended.body);
    assert_refused(&second, &second.url, "token-1", &id, "ended by its DELETE");
}

#[test]
fn a_session_id_older_than_the_max_age_is_refused() {
    let fleet = Fleet::new(&[OLD_KEY]);
    let replica = fleet.replica("token-1", &["--session-max-age", "1s"]);
    let id = initialize(&replica.url, "token-1");
    assert_served(&replica.url, "token-1", &id);
    // Ages count whole seconds: past 2 s, the id is at least 2 s old.
    std::thread::sleep(Duration::from_millis(2200));
    assert_refused(
        &replica,
        &replica.url,
        "token-1",
        &id,
        "older than the maximum age",
    );
}

#[test]
fn keys_rotate_with_a_file_of_new_then_old_read_again_on_reload() {
    let fleet = Fleet::new(&[OLD_KEY]);
    let old = fleet.replica("token-1", &[]);
    let old_id = initialize(&old.url, "token-1");
    fleet.write_keys(&[NEW_KEY, OLD_KEY]);
    let rotated = fleet.replica("token-1", &[]);
    // Opens the ids of the old key; seals new ones with the new key, which
    // the replica still on the old key alone cannot open.
    assert_served(&rotated.url, "token-1", &old_id);
    let new_id = initialize(&rotated.url, "token-1");
    assert_refused(
        &old,
        &old.url,
        "token-1",
        &new_id,
        "sealed with an unknown key",
    );
    // Told to reload, the old replica reads the file again and opens it.
    old.signal(nix::sys::signal::Signal::SIGHUP);
    old.wait_for_line("config reloaded");
    assert_served(&old.url, "token-1", &new_id);
    assert_served(&old.url, "token-1", &old_id);
}

#[test]
fn a_key_file_others_can_read_is_refused_naming_it() {
    let fleet = Fleet::new(&[OLD_KEY]);
    std::fs::set_permissions(&fleet.keys, std::fs::Permissions::from_mode(0o644)).unwrap();
    let output = fleet
        .command("token-1", &[])
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&fleet.keys.display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("can be read by others"), "{stderr}");
    assert!(!stderr.contains(OLD_KEY), "{stderr}");
}
