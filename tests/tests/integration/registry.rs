//! The MCP Registry against a local registry serving fixture data shaped
//! as the OpenAPI says: the library client, and `mcp-cli registry …` and
//! `discover --from-registry` end to end. Nothing here needs the internet.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use mcp_tests::registry_server::{self, RegistryServer};
use mcp_tests::tools::{free_port, workspace_bin};
use mcpdisco::config::Added;
use mcpdisco::registry::{
    AddError, AddOptions, LeftOutReason, RegistryClient, RegistryOptions, RegistryWarning,
    RequiredEnv, ResolveOptions, SearchQuery,
};
use serde_json::Value;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

async fn registry() -> RegistryServer {
    registry_server::start(registry_server::bundle(FIXTURE, &["well-behaved"])).await
}

fn client(server: &RegistryServer, cache: &Path, refresh: bool) -> RegistryClient {
    let options = RegistryOptions::default()
        .base_url(server.base_url.clone())
        .cache_dir(cache.to_owned())
        .refresh(refresh);
    RegistryClient::new(options).unwrap()
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
        matches!(&all.warnings[0], RegistryWarning::Skipped { entry, .. } if entry == "io.github.acme/broken"),
        "{:?}",
        all.warnings
    );
    assert!(
        all.warnings[0]
            .to_string()
            .contains("io.github.acme/broken"),
        "{}",
        all.warnings[0]
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
        .search(&SearchQuery::default().include_inactive(true))
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
        .search(&SearchQuery::matching("files").latest_only(true))
        .await
        .unwrap();
    assert_eq!(names(&latest), ["io.github.acme/files@1.2.0"]);

    let limited = client
        .search(&SearchQuery::default().limit(2))
        .await
        .unwrap();
    assert_eq!(limited.entries.len(), 2);

    let since = client
        .search(&SearchQuery::default().updated_since("2026-10-01T00:00:00Z"))
        .await
        .unwrap();
    assert_eq!(
        names(&since),
        ["io.github.acme/time@2026.10.19", "com.acme/notes@3.0.0"]
    );

    let looping = client.search(&SearchQuery::matching("loop")).await.unwrap();
    assert_eq!(
        looping.entries.len(),
        2,
        "two pages, then the repeat is noticed"
    );
    assert!(
        matches!(&looping.warnings[0], RegistryWarning::RepeatedCursor { .. }),
        "{:?}",
        looping.warnings
    );
    assert!(
        looping.warnings[0].to_string().contains("repeated cursor"),
        "{}",
        looping.warnings[0]
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

#[tokio::test]
async fn the_library_adds_a_server_and_reads_matches_as_configs_with_typed_outcomes() {
    let server = registry().await;
    let cache = tempfile::tempdir().unwrap();
    let bundles = tempfile::tempdir().unwrap();
    let options = RegistryOptions::default()
        .base_url(server.base_url.clone())
        .cache_dir(cache.path().to_owned())
        .bundle_dir(bundles.path().to_owned());
    let client = RegistryClient::new(options).unwrap();
    let vars: HashMap<String, String> = HashMap::new();

    // One server into a new file: created, the secret only referenced.
    let lookup = client
        .look_up("io.github.acme/files", None, &ResolveOptions::default())
        .await
        .unwrap();
    assert!(lookup.warnings.is_empty(), "{:?}", lookup.warnings);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let added = client
        .add(&lookup, &AddOptions::default().to(path.clone()), &vars)
        .await
        .unwrap();
    assert_eq!(added.added, Added::Created);
    assert_eq!(added.name, "files");
    assert_eq!(added.choice.to_string(), "npm @acme/files-mcp 1.2.0");
    assert_eq!(
        added.missing_env,
        [RequiredEnv {
            name: "ACME_TOKEN".into(),
            secret: true
        }]
    );
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.contains("\"ACME_TOKEN\": \"${env:ACME_TOKEN}\""),
        "{written}"
    );
    let again = client
        .add(&lookup, &AddOptions::default().to(path.clone()), &vars)
        .await
        .unwrap_err();
    assert!(matches!(again, AddError::Config(_)), "{again:?}");
    let renamed = client
        .add(
            &lookup,
            &AddOptions::default().to(path.clone()).local_name("files-2"),
            &vars,
        )
        .await
        .unwrap();
    assert_eq!(renamed.added, Added::Added);
    let cargo = client
        .look_up("io.github.acme/rusty", None, &ResolveOptions::default())
        .await
        .unwrap();
    let refused = client
        .add(&cargo, &AddOptions::default().to(path.clone()), &vars)
        .await
        .unwrap_err();
    assert!(matches!(refused, AddError::Resolve(_)), "{refused:?}");

    // Every match as a config: the bundle fetched and read, the rest left out with why.
    let found = client
        .server_configs(&SearchQuery::matching("acme").latest_only(true), &vars)
        .await
        .unwrap();
    let names: Vec<&str> = found.servers.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"bundle"), "{names:?}");
    assert!(names.contains(&"time"), "{names:?}");
    let bundle = found.servers.iter().find(|s| s.name == "bundle").unwrap();
    assert_eq!(
        bundle.source,
        std::path::PathBuf::from("registry: io.github.acme/bundle")
    );
    let left_out = |name: &str| {
        found.warnings.iter().find_map(|warning| match warning {
            RegistryWarning::LeftOut { server, reason } if server == name => Some(reason),
            _ => None,
        })
    };
    assert!(matches!(
        left_out("io.github.acme/files"),
        Some(LeftOutReason::MissingEnv(_))
    ));
    assert!(matches!(
        left_out("io.github.acme/rusty"),
        Some(LeftOutReason::Unresolvable(_))
    ));
    assert!(matches!(
        left_out("io.github.acme/tampered"),
        Some(LeftOutReason::Bundle(_))
    ));
    assert!(matches!(
        left_out("io.github.acme/unsigned"),
        Some(LeftOutReason::Unresolvable(_))
    ));
    let none = client
        .server_configs(&SearchQuery::matching("no-such-server"), &vars)
        .await
        .unwrap();
    assert!(none.servers.is_empty());
    assert!(
        matches!(&none.warnings[..], [RegistryWarning::NoMatch { query, .. }] if query == "no-such-server"),
        "{:?}",
        none.warnings
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
