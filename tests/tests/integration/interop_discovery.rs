//! `mcp-cli discover` over the real third-party servers, all in one run:
//! counts and eras from the recorded transcripts (tests/fixtures/README),
//! then a second run from the cache, then each server alone. (How long
//! the parallel run takes against the single-server runs is the bench's
//! business, not a test's: nothing here is timed.)

use std::process::Command;

use mcp_tests::tools::{
    BackgroundServer, FastMcpTransport, free_ports, require_tools, workspace_bin,
};
use serde_json::{Map, Value, json};

/// (name, era, [tools, resources, templates, prompts]) as recorded.
const EXPECTED: &[(&str, &str, [usize; 4])] = &[
    ("everything", "legacy", [13, 7, 2, 4]),
    ("everything-http", "legacy", [13, 7, 2, 4]),
    ("filesystem", "legacy", [14, 0, 0, 0]),
    ("time", "modern", [2, 0, 0, 0]),
    ("fastmcp", "modern", [1, 1, 0, 1]),
    ("fastmcp-paged", "modern", [5, 5, 0, 5]),
    ("fastmcp-http-sse", "modern", [1, 1, 0, 1]),
    ("fastmcp-http-json", "modern", [1, 1, 0, 1]),
    ("fastmcp-stateless", "modern", [1, 1, 0, 1]),
];

/// `mcp-cli --json` on `config`: its document and exit code.
fn cli(config: &std::path::Path, cache: &std::path::Path, args: &[&str]) -> (Value, i32) {
    let output = Command::new(workspace_bin("mcp-cli"))
        .env("MCP_DISCOVERY_CACHE_DIR", cache)
        .args([
            "--config",
            config.to_str().unwrap(),
            "--json",
            "--timeout",
            "60",
        ])
        .args(args)
        .output()
        .unwrap();
    let document = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (document, output.status.code().unwrap_or(-1))
}

fn counts(server: &Value) -> [usize; 4] {
    ["tools", "resources", "resourceTemplates", "prompts"]
        .map(|key| server[key].as_array().map_or(usize::MAX, Vec::len))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_real_server_in_one_run_then_from_the_cache() {
    let Some(tools) = require_tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let fsroot = dir.path().join("fsroot");
    std::fs::create_dir(&fsroot).unwrap();

    let ports = free_ports::<4>().unwrap();
    let _everything_http =
        BackgroundServer::start(tools.everything_http_command(ports[0], true), ports[0]).await;
    let http = |port, json_response, stateless| {
        tools.fastmcp_command(FastMcpTransport::Http {
            port,
            json_response,
            stateless,
        })
    };
    let _fastmcp_sse = BackgroundServer::start(http(ports[1], false, false), ports[1]).await;
    let _fastmcp_json = BackgroundServer::start(http(ports[2], true, false), ports[2]).await;
    let _fastmcp_stateless = BackgroundServer::start(http(ports[3], true, true), ports[3]).await;

    let mut servers = Map::new();
    servers.insert(
        "everything".into(),
        tools.everything_command().config_entry(),
    );
    servers.insert(
        "everything-http".into(),
        json!({"url": format!("http://127.0.0.1:{}/mcp", ports[0])}),
    );
    servers.insert(
        "filesystem".into(),
        tools.filesystem_command(&fsroot).config_entry(),
    );
    servers.insert("time".into(), tools.time_command().config_entry());
    servers.insert(
        "fastmcp".into(),
        tools
            .fastmcp_command(FastMcpTransport::Stdio)
            .config_entry(),
    );
    servers.insert(
        "fastmcp-paged".into(),
        tools
            .fastmcp_command(FastMcpTransport::Stdio)
            .with_env("PAGE_SIZE", "2")
            .with_env("EXTRA", "4")
            .config_entry(),
    );
    servers.insert(
        "fastmcp-http-sse".into(),
        json!({"type": "http", "url": format!("http://127.0.0.1:{}/mcp", ports[1])}),
    );
    servers.insert(
        "fastmcp-http-json".into(),
        json!({"type": "http", "url": format!("http://127.0.0.1:{}/mcp", ports[2])}),
    );
    servers.insert(
        "fastmcp-stateless".into(),
        json!({"type": "http", "url": format!("http://127.0.0.1:{}/mcp", ports[3])}),
    );
    let config = dir.path().join("real-servers.json");
    std::fs::write(&config, json!({"mcpServers": servers}).to_string()).unwrap();
    let cache = dir.path().join("cache");

    let (first, status) = cli(&config, &cache, &["discover"]);
    let reports = first["servers"].as_array().unwrap();
    assert_eq!(reports.len(), EXPECTED.len());
    for (name, era, expected) in EXPECTED {
        let report = reports.iter().find(|r| r["name"] == *name).unwrap();
        assert_eq!(report["status"], "ready", "{name}: {}", report["error"]);
        assert_eq!(report["era"], *era, "{name}");
        assert_eq!(counts(report), *expected, "{name}");
        assert_eq!(report["fromCache"], false);
    }
    assert_eq!(status, 0);
    let everything = reports.iter().find(|r| r["name"] == "everything").unwrap();
    assert_eq!(everything["serverInfo"]["name"], "mcp-servers/everything");
    assert_eq!(
        reports.iter().find(|r| r["name"] == "time").unwrap()["protocolVersion"],
        "2026-07-28"
    );

    let (second, status) = cli(&config, &cache, &["discover"]);
    assert_eq!(status, 0);
    for (before, after) in reports.iter().zip(second["servers"].as_array().unwrap()) {
        assert_eq!(after["fromCache"], true, "{}", after["name"]);
        assert_eq!(after["tools"], before["tools"], "{}", after["name"]);
    }

    // Each server alone, as `--server NAME` picks it.
    for (name, _, expected) in EXPECTED {
        let (alone, status) = cli(
            &config,
            &cache,
            &["--no-cache", "--server", name, "discover"],
        );
        assert_eq!(status, 0, "{name}");
        let reports = alone["servers"].as_array().unwrap();
        assert_eq!(reports.len(), 1, "{name}");
        assert_eq!(reports[0]["name"], *name);
        assert_eq!(counts(&reports[0]), *expected, "{name}");
    }
}

/// Hosts launch npm servers through `npx`; under the default environment
/// allowlist (PATH, HOME, locale, temp and proxy variables, the server's own
/// `env`) it must still start them. `npx --offline --no-install` runs the
/// locally installed server-everything, so no network is needed.
#[test]
fn an_npx_launched_server_starts_under_the_env_allowlist() {
    let Some(tools) = require_tools() else { return };
    let Some(npx) = find_on_path("npx") else {
        panic!("npx is not on PATH; it ships with npm, which the test command requires");
    };
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    let entry = json!({
        "command": npx,
        "args": ["--offline", "--no-install", "mcp-server-everything", "stdio"],
        "cwd": tools.dir().join("node"),
        // node 22 first; npx runs with whatever `node` PATH finds.
        "env": {"PATH": tools.node_path().to_string_lossy()},
    });
    std::fs::write(
        &config,
        json!({"mcpServers": {"everything-npx": entry}}).to_string(),
    )
    .unwrap();
    let (document, status) = cli(
        &config,
        &dir.path().join("cache"),
        &["--no-cache", "discover"],
    );
    let server = &document["servers"][0];
    assert_eq!(status, 0, "{server}");
    assert_eq!(server["status"], "ready", "{server}");
    assert_eq!(counts(server), [13, 7, 2, 4]);
}

fn find_on_path(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}
