//! The MCP Registry against a local registry serving fixture data shaped
//! as the OpenAPI says: the library client, and `mcp-cli registry …` and
//! `discover --from-registry` end to end. Nothing here needs the internet.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use mcp_tests::registry_server::{self, RegistryServer};
use mcp_tests::tools::{free_port, workspace_bin};
use mcpdisco::registry::{RegistryClient, RegistryOptions, SearchQuery};
use serde_json::Value;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

async fn registry() -> RegistryServer {
    registry_server::start(registry_server::bundle(FIXTURE, &["well-behaved"])).await
}

fn client(server: &RegistryServer, cache: &Path, refresh: bool) -> RegistryClient {
    RegistryClient::new(RegistryOptions {
        base_url: server.base_url.clone(),
        cache_dir: Some(cache.to_owned()),
        refresh,
        max_pages: 50,
    })
    .unwrap()
}

fn names(found: &mcpdisco::registry::SearchResults) -> Vec<String> {
    found
        .entries
        .iter()
        .map(|e| format!("{}@{}", e.server.name, e.server.version))
        .collect()
}

#[tokio::test]
async fn search_follows_both_cursor_spellings_drops_inactive_and_skips_the_malformed() {
    let server = registry().await;
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, cache.path(), false);
    let all = client.search(&SearchQuery::default()).await.unwrap();
    // 13 entries, the deleted one hidden by the registry: 12 over 3 pages
    // (nextCursor, then next_cursor); the deprecated one and the malformed one dropped.
    assert_eq!(server.requests(), 3);
    assert_eq!(all.entries.len(), 10, "{:?}", names(&all));
    assert!(
        !names(&all)
            .iter()
            .any(|n| n.contains("files-old") || n.contains("gone"))
    );
    assert_eq!(all.warnings.len(), 1, "{:?}", all.warnings);
    assert!(
        all.warnings[0].contains("io.github.acme/broken"),
        "{:?}",
        all.warnings
    );
    assert!(!all.from_cache);

    let again = client.search(&SearchQuery::default()).await.unwrap();
    assert_eq!(
        server.requests(),
        3,
        "the second search is served from the cache"
    );
    assert!(again.from_cache);
    assert_eq!(names(&again), names(&all));
    let refreshing = self::client(&server, cache.path(), true);
    refreshing.search(&SearchQuery::default()).await.unwrap();
    assert_eq!(server.requests(), 6, "--refresh asks again");

    let everything = client
        .search(&SearchQuery {
            include_inactive: true,
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    let shown = names(&everything);
    assert!(
        shown.contains(&"io.github.acme/gone@0.1.0".to_owned()),
        "{shown:?}"
    );
    assert!(
        shown.contains(&"io.github.acme/files-old@0.9.0".to_owned()),
        "{shown:?}"
    );

    let latest = client
        .search(&SearchQuery {
            search: Some("files".into()),
            latest_only: true,
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(names(&latest), ["io.github.acme/files@1.2.0"]);

    let limited = client
        .search(&SearchQuery {
            limit: Some(2),
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(limited.entries.len(), 2);

    let since = client
        .search(&SearchQuery {
            updated_since: Some("2026-10-01T00:00:00Z".into()),
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        names(&since),
        ["io.github.acme/time@2026.10.19", "com.acme/notes@3.0.0"]
    );

    let looping = client
        .search(&SearchQuery {
            search: Some("loop".into()),
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        looping.entries.len(),
        2,
        "two pages, then the repeat is noticed"
    );
    assert!(
        looping.warnings[0].contains("repeated cursor"),
        "{:?}",
        looping.warnings
    );
}

#[tokio::test]
async fn get_encodes_the_name_and_a_bad_bundle_is_refused() {
    let server = registry().await;
    let cache = tempfile::tempdir().unwrap();
    let client = client(&server, cache.path(), false);
    let (latest, _) = client.get("io.github.acme/files", None).await.unwrap();
    assert_eq!(latest.server.version, "1.2.0");
    let (older, _) = client
        .get("io.github.acme/files", Some("1.1.0"))
        .await
        .unwrap();
    assert_eq!(older.server.version, "1.1.0");
    let missing = client.get("io.github.acme/nope", None).await.unwrap_err();
    assert!(missing.to_string().contains("404"), "{missing}");

    let bundles = tempfile::tempdir().unwrap();
    let url = format!("{}/bundles/echo.mcpb", server.base_url);
    let refused = client
        .fetch_bundle(&url, &"0".repeat(64), bundles.path())
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("refused"), "{refused}");
    assert_eq!(
        std::fs::read_dir(bundles.path()).unwrap().count(),
        0,
        "nothing kept"
    );
}

fn cli(home: &Path, cwd: &Path, registry: &str, args: &[&str]) -> Output {
    Command::new(workspace_bin("mcp-cli"))
        .current_dir(cwd)
        .env("HOME", home)
        .env("MCP_DISCOVERY_CACHE_DIR", home.join("cache"))
        .env("MCP_REGISTRY_URL", registry)
        .env("NO_COLOR", "1")
        .env("API_KEY", "key-planted-4242")
        .env_remove("RUST_LOG")
        .args(args)
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_cli_searches_shows_adds_and_discovers_from_the_registry() {
    let server = registry().await;
    let root = tempfile::tempdir().unwrap();
    let (home, cwd) = (root.path().join("home"), root.path().join("work"));
    std::fs::create_dir_all(&cwd).unwrap();
    let base = server.base_url.clone();
    let run = move |args: &[&str]| {
        let (home, cwd, base) = (home.clone(), cwd.clone(), base.clone());
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        async move {
            tokio::task::spawn_blocking(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                cli(&home, &cwd, &base, &args)
            })
            .await
            .unwrap()
        }
    };

    let search = run(&["registry", "search", "acme"]).await;
    assert_eq!(search.status.code(), Some(0), "{}", text(&search));
    let table = String::from_utf8_lossy(&search.stdout);
    assert!(
        table.contains("io.github.acme/time") && table.contains("pypi mcp-server-time@2026.10.19"),
        "{table}"
    );
    assert!(!table.contains("files-old"), "{table}");

    let show = run(&["--json", "registry", "show", "io.github.acme/files"]).await;
    let shown: Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(
        shown["resolved"]["entry"]["args"][1],
        "@acme/files-mcp@1.2.0"
    );
    assert_eq!(shown["resolved"]["requiredEnv"][0], "ACME_TOKEN");
    let cargo = run(&["--json", "registry", "show", "io.github.acme/rusty"]).await;
    let shown: Value = serde_json::from_slice(&cargo.stdout).unwrap();
    assert!(
        shown["resolveError"]
            .as_str()
            .unwrap()
            .contains("unknown registry type(s) cargo")
    );

    // Added into a Codex TOML file, the rest kept; the missing variable named.
    let codex = root.path().join("config.toml");
    std::fs::write(&codex, "# mine\nmodel = \"o3\"\n").unwrap();
    let added = run(&[
        "registry",
        "add",
        "io.github.acme/files",
        "--to",
        codex.to_str().unwrap(),
    ])
    .await;
    assert_eq!(added.status.code(), Some(0), "{}", text(&added));
    assert!(
        text(&added).contains("set ACME_TOKEN (secret)"),
        "{}",
        text(&added)
    );
    let toml = std::fs::read_to_string(&codex).unwrap();
    assert!(toml.starts_with("# mine\nmodel = \"o3\"\n"), "{toml}");
    assert!(
        toml.contains("[mcp_servers.files]") && toml.contains("env_vars = [\"ACME_TOKEN\"]"),
        "{toml}"
    );

    // A remote with URL variables and a secret header, discovered for real.
    let port = free_port().unwrap();
    let mut example = Command::new(workspace_bin("mcp-example-server"))
        .args(["http", "--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    mcp_tests::tools::wait_for_port(port, std::time::Duration::from_secs(20))
        .await
        .unwrap();
    let config = root.path().join("work/.mcp.json");
    let port_var = format!("port={port}");
    let no_port = run(&["registry", "add", "com.acme/notes"]).await;
    assert_eq!(no_port.status.code(), Some(1), "{}", text(&no_port));
    assert!(text(&no_port).contains("'port'"), "{}", text(&no_port));
    let added = run(&["registry", "add", "com.acme/notes", "--var", &port_var]).await;
    assert_eq!(added.status.code(), Some(0), "{}", text(&added));
    assert!(
        text(&added).contains(&config.display().to_string()),
        "{}",
        text(&added)
    );
    let discovered = run(&["--json", "discover"]).await;
    let _ = example.kill();
    let _ = example.wait();
    assert_eq!(discovered.status.code(), Some(0), "{}", text(&discovered));
    let document: Value = serde_json::from_slice(&discovered.stdout).unwrap();
    assert_eq!(document["servers"][0]["name"], "notes");
    assert_eq!(document["servers"][0]["status"], "ready");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.contains("${env:API_KEY}") && !written.contains("key-planted"),
        "{written}"
    );

    // A bundle: downloaded, verified, unpacked and run, with no config written.
    let bundled = run(&[
        "--json",
        "--no-cache",
        "discover",
        "--from-registry",
        "bundle",
    ])
    .await;
    assert_eq!(bundled.status.code(), Some(0), "{}", text(&bundled));
    let document: Value = serde_json::from_slice(&bundled.stdout).unwrap();
    let servers = document["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{document}");
    assert_eq!(servers[0]["name"], "bundle");
    assert_eq!(servers[0]["status"], "ready");
    assert_eq!(servers[0]["tools"].as_array().unwrap().len(), 3);

    let tampered = run(&[
        "--json",
        "--no-cache",
        "discover",
        "--from-registry",
        "tampered",
    ])
    .await;
    assert!(text(&tampered).contains("refused"), "{}", text(&tampered));
    let unsigned = run(&[
        "--json",
        "--no-cache",
        "discover",
        "--from-registry",
        "unsigned",
    ])
    .await;
    assert!(
        text(&unsigned).contains("no fileSha256"),
        "{}",
        text(&unsigned)
    );
    for output in [&search, &show, &added, &discovered, &bundled] {
        assert!(!text(output).contains("key-planted"), "{}", text(output));
    }
}
