//! Stale on error, end to end with `mcp-cli`: a failed refresh keeps the
//! last good catalog (served marked stale, with the failure beside it),
//! `--no-stale` and `--verify-pins` never pass on it, and ten refreshes at
//! once leave a good entry for every server that succeeded in any of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

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

    fn log(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.log"))
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .args(["--config", self.config.to_str().unwrap()])
            .args(args);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn json(&self, args: &[&str]) -> (Option<i32>, Value) {
        let output = self.run(args);
        let value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", text(&output)));
        (output.status.code(), value)
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

fn server<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

/// A server whose first start behaves well and every later start fails;
/// every start, refused or not, is a line of `<log>.attempts`.
fn once(log: &Path) -> Value {
    json!({"command": FIXTURE, "args": ["start-once"],
           "env": {"FIXTURE_START_LOG": log, "FIXTURE_ATTEMPT_LOG": attempts(log)}})
}

fn attempts(log: &Path) -> PathBuf {
    log.with_extension("attempts")
}

#[test]
fn a_failed_refresh_keeps_the_last_good_catalog_and_serves_it_stale() {
    let setup = Setup::new(json!({}));
    let log = setup.log("flaky");
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"flaky": once(&log)}}).to_string(),
    )
    .unwrap();

    let (code, first) = setup.json(&["--refresh", "--json", "discover"]);
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(
        server(&first, "flaky")["tools"].as_array().unwrap().len(),
        3
    );

    // The refresh fails: the good catalog stays, marked stale with the cause.
    let (code, refreshed) = setup.json(&["--refresh", "--json", "discover"]);
    assert_eq!(code, Some(0), "the catalog is served: {refreshed}");
    let flaky = server(&refreshed, "flaky");
    assert_eq!(flaky["status"], "ready", "{flaky}");
    assert_eq!(flaky["stale"], true, "{flaky}");
    assert_eq!(flaky["fromCache"], true);
    assert_eq!(flaky["tools"].as_array().unwrap().len(), 3);
    let cause = flaky["error"]["message"].as_str().unwrap();
    assert!(cause.contains("refusing to start again"), "{cause}");
    assert_eq!(starts(&attempts(&log)), 2);

    // A plain run reads it from the cache, starting nothing; the table says stale.
    let plain = setup.run(&["discover"]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain));
    let shown = text(&plain);
    assert!(
        shown.lines().any(
            |line| line.starts_with("flaky") && line.split_whitespace().nth(1) == Some("stale")
        ),
        "{shown}"
    );
    assert!(shown.contains("1 ready (1 stale)"), "{shown}");
    assert!(shown.contains("refusing to start again"), "{shown}");
    assert_eq!(starts(&attempts(&log)), 2, "the cached entry answered");

    // A strict run fails, and still leaves the good entry in the cache.
    let (code, strict) = setup.json(&["--refresh", "--no-stale", "--json", "discover"]);
    assert_eq!(code, Some(2), "{strict}");
    assert_eq!(server(&strict, "flaky")["status"], "failed");
    let (_, after) = setup.json(&["--json", "discover"]);
    assert_eq!(
        server(&after, "flaky")["tools"].as_array().unwrap().len(),
        3
    );

    // Pins are never verified against stale data: it re-discovers, and fails.
    let verified = setup.run(&["discover", "--verify-pins"]);
    assert_eq!(verified.status.code(), Some(2), "{}", text(&verified));
}

#[test]
fn a_stale_max_age_of_zero_never_serves_stale() {
    let setup = Setup::new(json!({}));
    let log = setup.log("flaky");
    let mut flaky = once(&log);
    flaky["staleMaxAgeMs"] = json!(0);
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {"flaky": flaky}}).to_string(),
    )
    .unwrap();
    assert_eq!(setup.json(&["--refresh", "--json", "discover"]).0, Some(0));
    let (code, refreshed) = setup.json(&["--refresh", "--json", "discover"]);
    assert_eq!(code, Some(2), "{refreshed}");
    assert_eq!(server(&refreshed, "flaky")["status"], "failed");
}

#[test]
fn ten_refreshes_at_once_leave_a_good_entry_for_every_server_that_succeeded_in_any() {
    let setup = Setup::new(json!({}));
    let flaky_log = setup.log("flaky");
    let good_log = setup.log("good");
    std::fs::write(
        &setup.config,
        json!({"mcpServers": {
            "good": {"command": FIXTURE, "args": ["well-behaved"], "env": {"FIXTURE_START_LOG": good_log}},
            "flaky": once(&flaky_log),
            "broken": {"command": FIXTURE, "args": ["exit-at-start"]},
        }})
        .to_string(),
    )
    .unwrap();
    let runs: Vec<std::process::Child> = (0..10)
        .map(|_| {
            setup
                .command(&["--refresh", "--json", "discover"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut flaky_ready = 0;
    for run in runs {
        let output = run.wait_with_output().unwrap();
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", text(&output)));
        assert_eq!(server(&report, "good")["status"], "ready", "{report}");
        if server(&report, "flaky")["stale"] != true
            && server(&report, "flaky")["status"] == "ready"
        {
            flaky_ready += 1;
        }
    }
    assert!(flaky_ready >= 1, "the first start of flaky succeeds");
    assert_eq!(starts(&good_log), 10);

    // Afterwards the cache answers for both servers that succeeded somewhere.
    let (_, after) = setup.json(&["--json", "discover"]);
    for name in ["good", "flaky"] {
        let entry = server(&after, name);
        assert_eq!(entry["status"], "ready", "{name}: {entry}");
        assert_eq!(entry["fromCache"], true, "{name}: {entry}");
        assert_eq!(entry["tools"].as_array().unwrap().len(), 3, "{name}");
    }
    assert_eq!(server(&after, "broken")["status"], "failed");
    assert_eq!(starts(&good_log), 10, "nothing good was started again");
}
