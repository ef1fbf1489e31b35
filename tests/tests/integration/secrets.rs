//! No secret leaves: one test per leak class, each planting a distinct
//! secret and searching every output of the real `mcp-cli` binary for it
//! (stdout, stderr, the `--json` document, the log at `-vv`, and every file
//! under the cache directory). And the environment a server sees.

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

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(workspace_bin("mcp-cli"));
        command
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.cache())
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .args(["--config", self.config.to_str().unwrap()])
            .args(args);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs every command that shows what the servers did (plain, `--json`,
    /// `-vv`) and returns all they printed, plus every cache file.
    fn everything(&self, extra: &[&[&str]]) -> String {
        let mut all = String::new();
        let mut runs: Vec<&[&str]> = vec![
            &["discover"],
            &["--json", "--refresh", "discover"],
            &["-vv", "--refresh", "discover"],
            &["-vv", "--json", "--refresh", "tools"],
            &["servers"],
            &["--json", "servers"],
        ];
        runs.extend_from_slice(extra);
        for args in runs {
            all.push_str(&text(&self.run(args)));
        }
        all.push_str(&cache_files(&self.cache()));
        all
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The contents of every file under `dir`, concatenated.
fn cache_files(dir: &Path) -> String {
    let mut all = String::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                all.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
            }
        }
    }
    all
}

fn assert_absent(haystack: &str, secret: &str) {
    assert!(
        !haystack.contains(secret),
        "the secret {secret} leaked:\n{haystack}"
    );
}

#[test]
fn a_server_that_echoes_its_secret_on_stderr_shows_the_mask() {
    const SECRET: &str = "sk-live-echo-1f2e3d4c";
    let setup = Setup::new(json!({
        "echo": {"command": FIXTURE, "args": ["echo-secret"], "env": {"API_KEY": SECRET}},
    }));
    let all = setup.everything(&[]);
    assert_absent(&all, SECRET);
    // The stderr tail is still shown, masked: the user sees what went wrong.
    assert!(all.contains("fatal: bad key ***"), "{all}");
    assert!(all.contains("starting with key=***"), "{all}");
    assert!(
        !cache_files(&setup.cache()).is_empty(),
        "nothing was cached"
    );
}

#[test]
fn an_http_error_never_carries_the_raw_url() {
    const SECRET: &str = "qtok-5a6b7c8d9e";
    let port = {
        // A port that refuses connections: bound, then released.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let setup = Setup::new(json!({
        "remote": {"url": format!("http://127.0.0.1:{port}/mcp?api_key={SECRET}&page=2"), "timeout": 5},
    }));
    let all = setup.everything(&[&["ping", "remote"]]);
    assert_absent(&all, SECRET);
    assert!(
        all.contains(&format!(
            "cannot connect to http://127.0.0.1:{port}/mcp?api_key=***&page=2"
        )),
        "{all}"
    );
}

#[test]
fn an_http_server_that_echoes_the_token_in_its_error_body_shows_the_mask() {
    const SECRET: &str = "bearer-tok-0a9b8c7d6e";
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let echoing = axum::Router::new().fallback(|headers: axum::http::HeaderMap| async move {
        let token = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        (
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            format!("upstream rejected credentials: {token}"),
        )
    });
    runtime.spawn(async move { axum::serve(listener, echoing).await });
    let setup = Setup::new(json!({
        "remote": {"url": format!("http://127.0.0.1:{port}/mcp"), "type": "http",
                   "headers": {"Authorization": format!("Bearer {SECRET}")}, "timeout": 5},
    }));
    let all = setup.everything(&[&["ping", "remote"]]);
    assert_absent(&all, SECRET);
    assert!(all.contains("upstream rejected credentials: ***"), "{all}");
}

#[test]
fn texts_a_server_sends_are_masked_in_items_errors_results_and_logs() {
    const SECRET: &str = "sk-live-leak-2b3c4d5e";
    let setup = Setup::new(json!({
        "leak": {"command": FIXTURE, "args": ["leak"], "env": {"API_KEY": SECRET}},
    }));
    let all = setup.everything(&[
        &["call", "leak", "echo", "--args", r#"{"text": "x"}"#],
        &[
            "--json",
            "call",
            "leak",
            "echo",
            "--args",
            r#"{"text": "x"}"#,
        ],
        &["-vv", "call", "leak", "fail"],
    ]);
    assert_absent(&all, SECRET);
    assert!(all.contains("Echoes its text (key ***)."), "{all}");
    assert!(all.contains("called with key ***"), "{all}");
    assert!(all.contains("upstream refused key ***"), "{all}");
}

#[test]
fn secrets_in_arguments_are_masked_by_flag_and_by_shape() {
    const FLAGGED: &str = "flag-secret-3c4d5e6f";
    const SHAPED: &str = "ghp_0123456789abcdefABCDEF0123456789abcd";
    // The fixture ignores extra arguments; it echoes nothing, so the arguments
    // show only through our own views (servers, errors naming the command).
    let setup = Setup::new(json!({
        "args": {"command": FIXTURE, "args": ["exit-at-start", "--api-key", FLAGGED, SHAPED]},
        "missing": {"command": "/nonexistent/server", "args": ["--token", FLAGGED, SHAPED]},
    }));
    let all = setup.everything(&[]);
    assert_absent(&all, FLAGGED);
    assert_absent(&all, SHAPED);
    assert!(all.contains("--api-key ***"), "{all}");
}

#[test]
fn a_world_writable_cache_directory_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    const SECRET: &str = "sk-live-cache-4d5e6f7a";
    let setup = Setup::new(json!({
        "good": {"command": FIXTURE, "args": ["well-behaved"], "env": {"API_KEY": SECRET}},
    }));
    std::fs::create_dir_all(setup.cache()).unwrap();
    std::fs::set_permissions(setup.cache(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = setup.run(&["discover"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        text(&output).contains("writable by group or others"),
        "{}",
        text(&output)
    );
    assert_eq!(cache_files(&setup.cache()), "", "an entry was written");
}

/// The names of our variables the `env` fixture sees through `mcp-cli call`.
fn visible_names(setup: &Setup, server: &str, extra: &[&str]) -> Vec<String> {
    let mut args = extra.to_vec();
    args.extend(["--json", "call", server, "env"]);
    let output = setup
        .command(&args)
        .env("PLANTED_HOST_SECRET", "host-secret-5e6f7a8b")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    result["structuredContent"]["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_server_sees_only_the_allowlist_unless_it_opts_in() {
    let setup = Setup::new(json!({
        "plain": {"command": FIXTURE, "args": ["env"], "env": {"FIXTURE_SECRET": "configured-value"}},
        "inherits": {"command": FIXTURE, "args": ["env"], "inheritEnv": true},
        "passes": {"command": FIXTURE, "args": ["env"], "envPassthrough": ["PLANTED_HOST_SECRET"]},
    }));
    let plain = visible_names(&setup, "plain", &[]);
    assert!(
        !plain.contains(&"PLANTED_HOST_SECRET".to_owned()),
        "{plain:?}"
    );
    assert!(plain.contains(&"FIXTURE_SECRET".to_owned()), "{plain:?}");
    assert!(plain.contains(&"PATH".to_owned()), "{plain:?}");
    assert!(visible_names(&setup, "inherits", &[]).contains(&"PLANTED_HOST_SECRET".to_owned()));
    assert!(visible_names(&setup, "passes", &[]).contains(&"PLANTED_HOST_SECRET".to_owned()));
    assert!(
        visible_names(&setup, "plain", &["--inherit-env"])
            .contains(&"PLANTED_HOST_SECRET".to_owned())
    );

    let listed = setup.run(&["servers"]);
    let listed = text(&listed);
    assert!(listed.contains("inherit all"), "{listed}");
    assert!(
        listed.contains("allowlist + PLANTED_HOST_SECRET"),
        "{listed}"
    );
}
