//! Discovery, cache and the supervisor against the fixture server: real processes,
//! real exchanges, misbehaving servers included.

use std::path::Path;
use std::time::Duration;

use mcpdisco::cache::{Cache, CacheMode};
use mcpdisco::catalog::Catalog;
use mcpdisco::config::ServerConfig;
use mcpdisco::discovery::{DiscoveryOptions, ServerStatus, discover};
use mcpdisco_client::session::RequestOptions;
use mcpdisco_gateway::supervisor::{Status, Supervisor, SupervisorError, SupervisorOptions};
use mcpdisco_protocol::version::Era;
use serde_json::json;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

fn fixture(name: &str, mode: &str, dir: &Path) -> ServerConfig {
    ServerConfig::stdio(name, FIXTURE, [mode], dir)
}

fn with_env(mut server: ServerConfig, key: &str, value: &str) -> ServerConfig {
    server.launch.set_env(key, value);
    server
}

fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |text| text.lines().count())
}

#[tokio::test]
async fn broken_servers_fail_with_their_cause_and_do_not_hold_back_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let deadline = Duration::from_millis(1500);
    let mut hang = fixture("hang", "silent", dir.path());
    hang.timeout = Some(deadline);
    let mut off = fixture("off", "well-behaved", dir.path());
    off.enabled = false;
    let servers = vec![
        fixture("good", "well-behaved", dir.path()),
        fixture("crash", "exit-at-start", dir.path()),
        hang,
        ServerConfig::stdio(
            "missing",
            "/nonexistent/mcp-server",
            Vec::<String>::new(),
            dir.path(),
        ),
        fixture("noisy", "noise", dir.path()),
        fixture("closes", "close-stdout", dir.path()),
        off,
    ];
    let options = DiscoveryOptions::default().deadline(Duration::from_secs(20));
    let report = discover(&servers, &options).await;
    let names: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["good", "crash", "hang", "missing", "noisy", "closes", "off"]
    );

    let good = report.server("good").unwrap();
    assert_eq!(good.status, ServerStatus::Ready);
    assert_eq!(good.era, Some(Era::Legacy));
    assert_eq!(good.tools.len(), 3);
    assert_eq!(good.tools.get(0).unwrap().unwrap().name, "echo");
    assert!(
        good.duration_ms < deadline.as_millis() as u64,
        "a hanging neighbour delayed a good server: {} ms",
        good.duration_ms
    );

    let crash = report.server("crash").unwrap();
    assert_eq!(crash.status, ServerStatus::Failed);
    let error = crash.error.as_ref().unwrap();
    assert_eq!(error.kind, "exited");
    assert!(error.message.contains("status 3"), "{}", error.message);
    assert!(
        error.message.contains("fatal: missing API_TOKEN"),
        "{}",
        error.message
    );

    let hang = report.server("hang").unwrap();
    assert_eq!(hang.error.as_ref().unwrap().kind, "timeout");
    assert!(
        hang.error
            .as_ref()
            .unwrap()
            .message
            .contains("server 'hang'")
    );
    assert!(hang.duration_ms >= deadline.as_millis() as u64);

    let missing = report.server("missing").unwrap();
    assert_eq!(missing.error.as_ref().unwrap().kind, "spawn_failed");
    assert!(
        missing
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("/nonexistent/mcp-server")
    );

    assert_eq!(report.server("noisy").unwrap().status, ServerStatus::Ready);
    assert_eq!(report.server("noisy").unwrap().tools.len(), 3);
    assert_eq!(
        report.server("closes").unwrap().status,
        ServerStatus::Failed
    );
    assert_eq!(report.server("off").unwrap().status, ServerStatus::Disabled);

    let summary = report.summary();
    assert_eq!(
        (
            summary.configured,
            summary.enabled,
            summary.ready,
            summary.failed,
            summary.disabled
        ),
        (7, 6, 2, 4, 1)
    );
}

#[tokio::test]
async fn a_second_run_comes_from_the_cache_and_a_changed_config_misses_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts.log");
    let log_text = log.to_string_lossy().into_owned();
    let servers = vec![
        with_env(
            fixture("a", "well-behaved", dir.path()),
            "FIXTURE_START_LOG",
            &log_text,
        ),
        with_env(
            fixture("b", "well-behaved", dir.path()),
            "FIXTURE_START_LOG",
            &log_text,
        ),
        with_env(fixture("c", "well-behaved", dir.path()), "WHO", "c"),
    ];
    let cache_dir = dir.path().join("cache");
    let options = DiscoveryOptions::default().cache(Cache::at(&cache_dir));
    let first = discover(&servers, &options).await;
    assert!(
        first
            .servers
            .iter()
            .all(|s| s.status == ServerStatus::Ready && !s.from_cache)
    );
    assert_eq!(starts(&log), 2);

    // A new cache object on the same directory, as a second process would have.
    let again = DiscoveryOptions::default().cache(Cache::at(&cache_dir));
    let second = discover(&servers, &again).await;
    assert_eq!(starts(&log), 2, "a cached run started a server");
    for (before, after) in first.servers.iter().zip(&second.servers) {
        assert!(after.from_cache);
        assert_eq!(
            after.name, before.name,
            "a shared entry is served under each server's own name"
        );
        assert_eq!(after.tools, before.tools);
    }
    // "c" has an entry of its own: exactly what the first run saw.
    assert_eq!(
        second.servers[2].fetched_at_ms,
        first.servers[2].fetched_at_ms
    );

    // Same name, different launch configuration: a miss.
    let changed = vec![with_env(servers[0].clone(), "EXTRA_SETTING", "1")];
    let third = discover(&changed, &again).await;
    assert!(!third.servers[0].from_cache);
    assert_eq!(starts(&log), 3);

    // --refresh asks again; --no-cache neither reads nor writes.
    let refresh = again.clone().cache_mode(CacheMode::Refresh);
    assert!(!discover(&servers[..1], &refresh).await.servers[0].from_cache);
    assert_eq!(starts(&log), 4);
    let off = again.clone().cache_mode(CacheMode::Off);
    assert!(!discover(&servers[..1], &off).await.servers[0].from_cache);
    assert_eq!(starts(&log), 5);

    // A corrupt entry is a miss, never an error, and is rewritten.
    for entry in std::fs::read_dir(cache_dir.join("entries")).unwrap() {
        std::fs::write(entry.unwrap().path(), b"{not json").unwrap();
    }
    let fresh_cache = DiscoveryOptions::default().cache(Cache::at(&cache_dir));
    let after_corruption = discover(&servers, &fresh_cache).await;
    assert!(
        after_corruption
            .servers
            .iter()
            .all(|s| s.status == ServerStatus::Ready && !s.from_cache)
    );
    let healed = DiscoveryOptions::default().cache(Cache::at(&cache_dir));
    assert!(
        discover(&servers, &healed)
            .await
            .servers
            .iter()
            .all(|s| s.from_cache)
    );
}

#[tokio::test]
async fn the_supervisor_routes_calls_by_namespaced_name_and_keeps_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts.log");
    let log_text = log.to_string_lossy().into_owned();
    let mut off = fixture("off", "well-behaved", dir.path());
    off.enabled = false;
    let servers = vec![
        with_env(
            fixture("alpha", "well-behaved", dir.path()),
            "FIXTURE_START_LOG",
            &log_text,
        ),
        with_env(
            fixture("beta", "well-behaved", dir.path()),
            "FIXTURE_START_LOG",
            &log_text,
        ),
        off,
    ];
    let hub = Supervisor::new(servers, SupervisorOptions::default());
    hub.start_stopped().await;
    assert_eq!(hub.status("alpha"), Some(Status::Ready));
    assert_eq!(hub.status("off"), Some(Status::Stopped));
    let catalog: std::sync::Arc<Catalog> = hub.catalog();
    let names: Vec<&str> = catalog
        .tools
        .iter()
        .map(|t| t.qualified_name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "alpha__echo",
            "alpha__add",
            "alpha__fail",
            "beta__echo",
            "beta__add",
            "beta__fail"
        ]
    );
    assert_eq!(starts(&log), 2);

    let echoed = hub
        .call_tool(
            "beta__echo",
            json!({"text": "via the supervisor"}).as_object().cloned(),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(echoed.content[0].as_text().unwrap(), "via the supervisor");
    let sum = hub
        .call_tool_on(
            "alpha",
            "add",
            json!({"a": 2, "b": 3}).as_object().cloned(),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text().unwrap(), "5");
    assert_eq!(starts(&log), 2, "the sessions are kept and reused");

    assert!(matches!(
        hub.call_tool(
            "gamma__echo",
            json!({}).as_object().cloned(),
            RequestOptions::default()
        )
        .await,
        Err(SupervisorError::UnknownItem { .. })
    ));
    assert!(matches!(
        hub.call_tool_on(
            "nope",
            "echo",
            json!({}).as_object().cloned(),
            RequestOptions::default()
        )
        .await,
        Err(SupervisorError::UnknownServer(_))
    ));
    assert!(matches!(
        hub.call_tool_on(
            "off",
            "echo",
            json!({}).as_object().cloned(),
            RequestOptions::default()
        )
        .await,
        Err(SupervisorError::Disabled(_))
    ));
    hub.shutdown().await;
    // No process outlives the supervisor.
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        let pid: i32 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        assert!(!alive, "process {pid} outlived the supervisor");
    }
}

/// The pid a fixture server wrote to its start log.
fn started_pid(log: &Path) -> i32 {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|pid| pid.parse().ok())
        .unwrap()
}

fn alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

#[tokio::test]
async fn the_report_comes_at_the_last_answer_and_closing_reaps_after() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts.log");
    let stubborn = with_env(
        fixture("stubborn", "ignore-term", dir.path()),
        "FIXTURE_START_LOG",
        log.to_str().unwrap(),
    );
    let options = DiscoveryOptions::default();
    let (report, closing) =
        mcpdisco::discovery::discover_detached(std::slice::from_ref(&stubborn), &options).await;
    assert_eq!(report.servers[0].status, ServerStatus::Ready);
    assert_eq!(report.servers[0].tools.len(), 3);
    assert_eq!(closing.len(), 1);
    // It ignores stdin's end and SIGTERM: still running when the report is in.
    let pid = started_pid(&log);
    assert!(alive(pid), "the report did not wait for the close");
    let closed = closing.finish().await;
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0].0, "stubborn");
    assert!(!alive(pid), "finish reaps the process");

    // `discover` waits for the closing itself, and says how long it took.
    let report = discover(std::slice::from_ref(&stubborn), &options).await;
    let timings = report.servers[0].timings.as_ref().unwrap();
    // It ignores stdin's end (100 ms grace) and SIGTERM (1 s), so its close
    // lasts at least that: what closeMs reports, apart from durationMs.
    assert!(
        timings.close_ms.is_some_and(|ms| ms >= 1_100),
        "{timings:?}"
    );
}

#[tokio::test]
async fn a_hundred_pages_under_the_default_policy_never_wait_for_the_rate_limit() {
    let dir = tempfile::tempdir().unwrap();
    let server = fixture("paged", "paged", dir.path());
    let options = mcpdisco_client::session::SessionOptions::default();
    assert!(
        options.stack.rate_limit_policy().is_some(),
        "the default policy has a limit"
    );
    let session = mcpdisco::connect::connect(
        &server,
        &mcpdisco::connect::ConnectOptions::default().session(options.clone()),
    )
    .await
    .unwrap();
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1000);
    assert_eq!(tools.get(999).unwrap().unwrap().name, "tool_0999");
    assert_eq!(session.rate_limit_waits(), 0, "a page waited for a token");
    // Operations still take tokens: forty in a row outrun the bucket
    // (a burst of 20, refilled at 10 per second).
    for _ in 0..40 {
        session.ping().await.unwrap();
    }
    assert!(session.rate_limit_waits() >= 1, "operations are limited");
    session.close().await.unwrap();

    // The same server discovered whole, under the default options.
    let report = discover(&[server], &DiscoveryOptions::default()).await;
    let paged = report.server("paged").unwrap();
    assert_eq!(paged.status, ServerStatus::Ready, "{:?}", paged.error);
    assert_eq!(paged.tools.len(), 1000);
}
