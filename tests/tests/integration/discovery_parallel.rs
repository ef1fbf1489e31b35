//! Parallel discovery: every server is started at once (each waits until
//! all of them are alive, so a discovery that started them one by one would
//! never finish), and the concurrency limit makes waves.

use std::time::{Duration, Instant};

use mcpdisco::config::ServerConfig;
use mcpdisco::discovery::{DiscoveryOptions, discover};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// Each server sleeps this long before it reads stdin (almost no CPU).
const START_DELAY_MS: &str = "300";
const SERVERS: usize = 20;

fn slow_server(index: usize, dir: &std::path::Path) -> ServerConfig {
    let mut server = ServerConfig::stdio(format!("slow-{index:02}"), FIXTURE, ["slow-start"], dir);
    server.launch.set_env("SLOW_START_MS", START_DELAY_MS);
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_servers_are_all_started_at_once_and_a_limit_makes_waves() {
    let dir = tempfile::tempdir().unwrap();
    // Room for all twenty at once (the default limit is 16).
    let options = DiscoveryOptions::default()
        .concurrency(SERVERS)
        .deadline(Duration::from_secs(90));

    // Each waits for all twenty before it answers anything: all ready means
    // all twenty were alive together.
    let starts = dir.path().join("starts.log");
    let together: Vec<ServerConfig> = (0..SERVERS)
        .map(|index| {
            let mut server = ServerConfig::stdio(
                format!("together-{index:02}"),
                FIXTURE,
                ["barrier"],
                dir.path(),
            );
            server
                .launch
                .set_env("FIXTURE_START_LOG", starts.to_str().unwrap());
            server
                .launch
                .set_env("FIXTURE_BARRIER", SERVERS.to_string());
            server
        })
        .collect();
    let report = discover(&together, &options).await;
    assert_eq!(
        report.summary().ready,
        SERVERS,
        "{:?}",
        report.servers.iter().find(|s| s.error.is_some())
    );
    assert!(report.servers.iter().all(|s| s.tools.len() == 3));

    let servers: Vec<ServerConfig> = (0..SERVERS).map(|i| slow_server(i, dir.path())).collect();
    // The limit holds: ten at a time means two waves, and each server
    // sleeps before it answers, so the two waves take at least two sleeps
    // (a lower bound that a slow machine only makes larger).
    let limited = DiscoveryOptions::default().concurrency(SERVERS / 2);
    let started = Instant::now();
    let report = discover(&servers, &limited).await;
    let elapsed = started.elapsed();
    assert_eq!(report.summary().ready, SERVERS);
    let two_sleeps = Duration::from_millis(2 * START_DELAY_MS.parse::<u64>().unwrap());
    assert!(
        elapsed >= two_sleeps,
        "a limit of {} still ran everything at once ({elapsed:?} < {two_sleeps:?})",
        SERVERS / 2
    );
}
