//! Parallel discovery takes about as long as the slowest server, not the sum.
//! Alone in its test binary so that no other test competes for the CPU.

use std::time::{Duration, Instant};

use mcpdisco::config::ServerConfig;
use mcpdisco::discovery::{DiscoveryOptions, ServerStatus, discover};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// Each server sleeps this long before it reads stdin (almost no CPU).
const START_DELAY_MS: &str = "300";
const SERVERS: usize = 20;
/// Parallel wall time may exceed the slowest single server by this factor.
const MAX_RATIO: f64 = 1.5;

fn slow_server(index: usize, dir: &std::path::Path) -> ServerConfig {
    let mut server = ServerConfig::stdio(format!("slow-{index:02}"), FIXTURE, ["slow-start"], dir);
    server.launch.set_env("SLOW_START_MS", START_DELAY_MS);
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_slow_servers_take_about_as_long_as_the_slowest_one() {
    let dir = tempfile::tempdir().unwrap();
    let servers: Vec<ServerConfig> = (0..SERVERS).map(|i| slow_server(i, dir.path())).collect();
    // Room for all twenty at once (the default limit is 16).
    let options = DiscoveryOptions {
        concurrency: SERVERS,
        ..DiscoveryOptions::default()
    };

    // The limit: each server's own time, discovered alone (a few of them, the slowest counts).
    let mut slowest_single = Duration::ZERO;
    for server in servers.iter().take(3) {
        let started = Instant::now();
        let report = discover(std::slice::from_ref(server), &options).await;
        assert_eq!(report.servers[0].status, ServerStatus::Ready);
        slowest_single = slowest_single.max(started.elapsed());
    }

    let started = Instant::now();
    let report = discover(&servers, &options).await;
    let parallel = started.elapsed();
    assert_eq!(
        report.summary().ready,
        SERVERS,
        "{:?}",
        report.servers.iter().find(|s| s.error.is_some())
    );
    assert!(report.servers.iter().all(|s| s.tools.len() == 3));

    let ratio = parallel.as_secs_f64() / slowest_single.as_secs_f64();
    println!(
        "{SERVERS} slow servers: parallel {parallel:?}, slowest single {slowest_single:?}, ratio {ratio:.2} (sum of singles would be about {:?})",
        slowest_single * SERVERS as u32
    );
    assert!(
        ratio <= MAX_RATIO,
        "parallel discovery took {ratio:.2}× the slowest single server"
    );

    // The limit holds: ten at a time means two waves.
    let limited = DiscoveryOptions {
        concurrency: SERVERS / 2,
        ..DiscoveryOptions::default()
    };
    let started = Instant::now();
    let report = discover(&servers, &limited).await;
    let waves = started.elapsed().as_secs_f64() / slowest_single.as_secs_f64();
    println!(
        "with a limit of {}: {:.2}× the slowest single server",
        SERVERS / 2,
        waves
    );
    assert_eq!(report.summary().ready, SERVERS);
    assert!(
        waves >= 1.8,
        "a limit of {} still ran everything at once ({waves:.2}×)",
        SERVERS / 2
    );
}
