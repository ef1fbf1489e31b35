//! B5 under load (issue #31, section 6): `tools/call` round trips through a
//! front at 1 and 32 concurrent clients, p50, p99 and throughput, and the
//! front's memory per backend (`bench/src/fronts.rs` runs each case).
//!
//! - Over stdio, `mcp-cli serve` against the floor: a byte relay that copies
//!   between the client's pipe and the server's and parses nothing.
//! - Over Streamable HTTP, `mcp-cli serve --http` against the peer:
//!   [`PEER_CRATE`] [`PEER_VERSION`] from crates.io (tower-based, aggregating
//!   stdio backends behind one HTTP endpoint; it serves no stdio), installed
//!   by `cargo install --locked` into `target/bench-peers` on first use.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::report::{Row, Unit, median};
use super::{BUILD_TIMEOUT, Bench, ROUNDS, TOOLS, number};
use crate::process;
use crate::workspace::Workspace;

/// The peer gateway, pinned.
const PEER_CRATE: &str = "mcp-proxy";
const PEER_VERSION: &str = "0.6.0";
/// Timed calls per case at 1 client (over all its clients), and untimed ones first.
const REQUESTS: &str = "3000";
const WARMUP: &str = "300";
/// Timed calls per case at 32 clients. A stall of a few milliseconds holds
/// every call in flight at once: over 3,000 calls (a p99 of the 30 slowest)
/// one such stall set a run's p99, which went from 4.3 to 8.2 ms for the
/// same build five runs in a row, and the peer's from 5.6 to 12.5 ms; over
/// 20,000 the same builds gave 5.1 to 6.4 ms and 5.5 to 7.0 ms.
const LOADED_REQUESTS: &str = "20000";
/// Concurrent clients of the two load levels.
const CLIENTS: [usize; 2] = [1, 32];
/// Backends behind a front in the memory case.
const MEMORY_SERVERS: usize = 20;
/// The most ours may take over the relay, at p50.
const RELAY_FACTOR: f64 = 1.3;

/// The timed calls of a case at `clients`.
fn requests(clients: usize) -> &'static str {
    if clients > 1 {
        LOADED_REQUESTS
    } else {
        REQUESTS
    }
}

/// The peer's program, installed on first use; `None` (with a warning) when
/// it cannot be.
fn peer(ws: &Workspace) -> Option<PathBuf> {
    let root = ws.target_dir().join("bench-peers");
    let program = root.join("bin").join(PEER_CRATE);
    if program.is_file() {
        return Some(program);
    }
    let mut cmd = ws.cargo();
    cmd.args(["install", PEER_CRATE, "--version"])
        .arg(format!("={PEER_VERSION}"))
        .args(["--locked", "--no-default-features", "--root"])
        .arg(&root)
        .env("CARGO_TARGET_DIR", root.join("build"));
    println!("bench: {}", process::describe(&cmd));
    match process::run_checked(&mut cmd, BUILD_TIMEOUT) {
        Ok(_) if program.is_file() => Some(program),
        Ok(_) => {
            eprintln!("bench: {PEER_CRATE} installed no {}", program.display());
            None
        }
        Err(error) => {
            eprintln!(
                "bench: cannot install {PEER_CRATE} {PEER_VERSION}; its rows stay empty: {error:#}"
            );
            None
        }
    }
}

/// p50, p99 and throughput of one front over the rounds.
#[derive(Default)]
struct Series {
    p50: Vec<f64>,
    p99: Vec<f64>,
    throughput: Vec<f64>,
    rss_kib: Option<u64>,
}

/// Runs the load and memory cases and adds their rows.
pub(super) fn run(bench: &Bench, ws: &Workspace, rows: &mut Vec<Row>) -> Result<()> {
    let peer = peer(ws);
    let scratch = bench.scratch.join("b5-fronts");
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let case = |front: &str,
                clients: usize,
                servers: usize,
                requests: &str,
                warmup: &str,
                placement: Option<&str>| {
        let mut args = vec![
            "--front".to_owned(),
            front.to_owned(),
            "--clients".to_owned(),
            clients.to_string(),
            "--servers".to_owned(),
            servers.to_string(),
            "--requests".to_owned(),
            requests.to_owned(),
            "--warmup".to_owned(),
            warmup.to_owned(),
            "--cli".to_owned(),
            bench.cli.display().to_string(),
            "--scratch".to_owned(),
            scratch.display().to_string(),
            "--tools".to_owned(),
            TOOLS.to_string(),
        ];
        if let Some(peer) = &peer {
            args.extend(["--peer".to_owned(), peer.display().to_string()]);
        }
        if let Some(placement) = placement {
            args.extend(["--placement".to_owned(), placement.to_owned()]);
        }
        bench.case("front", &args)
    };
    let fronts: Vec<&str> = if peer.is_some() {
        vec!["relay", "event-loop-relay", "stdio", "http", "peer"]
    } else {
        vec!["relay", "event-loop-relay", "stdio", "http"]
    };
    for clients in CLIENTS {
        let mut series: Vec<Series> = fronts.iter().map(|_| Series::default()).collect();
        for round in 0..ROUNDS {
            // Alternating, so drift on a shared machine hits every front alike.
            for (front, gathered) in fronts.iter().zip(series.iter_mut()) {
                println!(
                    "bench: B5 {front}, {clients} client(s) (round {})",
                    round + 1
                );
                let (measured, result) = case(front, clients, 1, requests(clients), WARMUP, None)?;
                gathered.p50.push(number(&result, "/latency/median_us")?);
                gathered.p99.push(number(&result, "/latency/p99_us")?);
                gathered
                    .throughput
                    .push(number(&result, "/throughput_per_s")?);
                let front_kib = result
                    .pointer("/front_rss_kib")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(measured.max_rss_kib);
                gathered.rss_kib = Some(gathered.rss_kib.map_or(front_kib, |k| k.max(front_kib)));
            }
        }
        let of = |name: &str| fronts.iter().position(|f| *f == name).map(|i| &series[i]);
        if clients == 1 {
            pinned(&mut *rows, |front, placement| {
                case(front, 1, 1, REQUESTS, WARMUP, Some(placement))
                    .and_then(|(_, result)| number(&result, "/latency/median_us"))
            })?;
        }
        push_rows(
            rows,
            clients,
            of("stdio"),
            [of("relay"), of("event-loop-relay")],
            of("http"),
            of("peer"),
        );
    }
    memory(rows, &fronts, |front, servers| {
        let (_, result) = case(front, 1, servers, "10", "0", None)?;
        let listed = number(&result, "/tools_listed")?;
        if listed < (servers * TOOLS) as f64 {
            anyhow::bail!("B5: {front} listed {listed} tools over {servers} server(s)");
        }
        number(&result, "/front_rss_kib")
    })
}

/// The placements of the pinned stdio cases (as `bench-runner front
/// --placement` names them), and how a row says each.
const PLACEMENTS: [(&str, &str); 2] = [
    (
        "split",
        "pinned: the client on CPU 0, the front and its server on CPU 1 (every message between client and front wakes the other CPU)",
    ),
    (
        "same",
        "pinned: the client, the front and its server all on CPU 0 (each hop hands the CPU over; the processes' CPU time adds up)",
    ),
];

/// B5 over stdio at 1 client with every process pinned (see
/// `bench/src/placement.rs`): left to the scheduler, a byte relay lands
/// in either of a VM's two pipe modes at random (a relay's p50 of 20 µs in
/// one run, 90 µs in the next), so the unpinned row's ratio says more of
/// the scheduler than of the hop. Each placement measures the relay and
/// ours alike, alternating, and carries the target.
fn pinned(rows: &mut Vec<Row>, mut p50: impl FnMut(&str, &str) -> Result<f64>) -> Result<()> {
    let fronts = ["relay", "event-loop-relay", "stdio"];
    for (placement, described) in PLACEMENTS {
        let mut series = vec![Vec::new(); fronts.len()];
        for round in 0..ROUNDS {
            for (front, gathered) in fronts.iter().zip(series.iter_mut()) {
                println!(
                    "bench: B5 {front}, 1 client, {placement} placement (round {})",
                    round + 1
                );
                gathered.push(p50(front, placement)?);
            }
        }
        let [relay, event_loop, ours] = [0, 1, 2].map(|i| median(&series[i]));
        let mut notes = format!("{described}; limit = the byte relay in the same placement");
        if let (Some(reference), Some(ours)) = (event_loop, ours) {
            notes.push_str(&format!(
                "; the event-loop relay there: {reference:.1} µs, ours ÷ it {:.2}×",
                ours / reference
            ));
        }
        rows.push(
            Row::new(
                format!("B5 stdio tools/call through `mcp-cli serve` (ours) vs a byte relay (limit), 1 client, {placement} placement: p50 latency"),
                Unit::Microseconds,
                [ours, None, relay],
            )
            .limit_target(RELAY_FACTOR)
            .with_notes(notes),
        );
    }
    Ok(())
}

fn pick(series: Option<&Series>, field: fn(&Series) -> &Vec<f64>) -> Option<f64> {
    series.and_then(|s| median(field(s)))
}

fn push_rows(
    rows: &mut Vec<Row>,
    clients: usize,
    stdio: Option<&Series>,
    [relay, event_loop]: [Option<&Series>; 2],
    http: Option<&Series>,
    peer: Option<&Series>,
) {
    let who = if clients == 1 {
        "1 client".to_owned()
    } else {
        format!("{clients} concurrent clients")
    };
    let rss = |s: Option<&Series>| s.and_then(|s| s.rss_kib);
    let stdio_notes = |field: fn(&Series) -> &Vec<f64>, unit: &str| {
        let mut notes = "stdio: one connection, its clients are requests in flight on it; limit = a byte relay (one more process and pipe, no parsing; a thread per direction, blocking in `read`)".to_owned();
        if let (Some(reference), Some(ours)) = (pick(event_loop, field), pick(stdio, field)) {
            notes.push_str(&format!(
                "; for reference, the same relay from one thread's event loop (tokio current-thread, non-blocking pipes, as `serve` reads them): {reference:.1} {unit}, ours ÷ it {:.2}×",
                ours / reference
            ));
            if let Some(floor) = pick(relay, field) {
                notes.push_str(&format!(", it ÷ the limit {:.2}×", reference / floor));
            }
        }
        notes
    };
    let p50 = Row::new(
        format!("B5 stdio tools/call through `mcp-cli serve` (ours) vs a byte relay (limit), {who}: p50 latency"),
        Unit::Microseconds,
        [pick(stdio, |s| &s.p50), None, pick(relay, |s| &s.p50)],
    )
    .with_rss([rss(stdio), None, rss(relay)]);
    rows.push(if clients == 1 {
        // At 1 client the target is on the pinned rows: unpinned, the
        // relay's mode is the scheduler's coin toss.
        let mut notes = stdio_notes(|s| &s.p50, "µs");
        notes.push_str("; left to the scheduler (the target is on the pinned rows above)");
        p50.with_notes(notes)
    } else {
        p50.limit_target(RELAY_FACTOR)
            .with_notes(stdio_notes(|s| &s.p50, "µs"))
    });
    rows.push(
        Row::new(
            format!("B5 stdio tools/call through `mcp-cli serve` (ours) vs a byte relay (limit), {who}: p99 latency"),
            Unit::Microseconds,
            [pick(stdio, |s| &s.p99), None, pick(relay, |s| &s.p99)],
        )
        .with_notes(stdio_notes(|s| &s.p99, "µs")),
    );
    rows.push(
        Row::new(
            format!("B5 stdio tools/call through `mcp-cli serve` (ours) vs a byte relay (limit), {who}: throughput"),
            Unit::RequestsPerSecond,
            [pick(stdio, |s| &s.throughput), None, pick(relay, |s| &s.throughput)],
        )
        .with_notes(stdio_notes(|s| &s.throughput, "req/s")),
    );
    let http_notes = format!(
        "Streamable HTTP, each client its own session; the contender column is {PEER_CRATE} {PEER_VERSION} (crates.io), the same stdio backend behind it; {} calls a run, median of {ROUNDS} runs alternating",
        requests(clients)
    );
    for (what, unit, field) in [
        (
            "p50 latency",
            Unit::Microseconds,
            (|s: &Series| &s.p50) as fn(&Series) -> &Vec<f64>,
        ),
        ("p99 latency", Unit::Microseconds, |s: &Series| &s.p99),
        ("throughput", Unit::RequestsPerSecond, |s: &Series| {
            &s.throughput
        }),
    ] {
        let row = Row::new(
            format!("B5 HTTP tools/call through `mcp-cli serve --http` (ours) vs {PEER_CRATE} (peer), {who}: {what}"),
            unit,
            [pick(http, field), pick(peer, field), None],
        )
        .with_rss([rss(http), rss(peer), None])
        .peer_target(PEER_CRATE)
        .with_notes(http_notes.clone());
        rows.push(row);
    }
}

/// Memory per backend: each HTTP front over 1 and [`MEMORY_SERVERS`]
/// backends, all ready; (RSS over many − RSS over one) / (many − 1).
fn memory(
    rows: &mut Vec<Row>,
    fronts: &[&str],
    mut resident: impl FnMut(&str, usize) -> Result<f64>,
) -> Result<()> {
    let measured: Vec<&str> = fronts
        .iter()
        .copied()
        .filter(|f| *f == "http" || *f == "peer")
        .collect();
    let mut per_backend = vec![Vec::new(); measured.len()];
    let mut over_many = vec![Vec::new(); measured.len()];
    for round in 0..ROUNDS {
        for (index, front) in measured.iter().enumerate() {
            println!("bench: B5 {front} memory (round {})", round + 1);
            let one = resident(front, 1)?;
            let many = resident(front, MEMORY_SERVERS)?;
            per_backend[index].push((many - one) / (MEMORY_SERVERS - 1) as f64);
            over_many[index].push(many);
        }
    }
    let of = |name: &str, values: &[Vec<f64>]| {
        measured
            .iter()
            .position(|f| *f == name)
            .and_then(|i| median(&values[i]))
    };
    let megabytes = |kib: Option<f64>| kib.map(|k| k * 1024.0 / 1e6);
    rows.push(
        Row::new(
            format!("B5 memory per backend of `mcp-cli serve --http` (ours) vs {PEER_CRATE} (peer), {TOOLS} tools each"),
            Unit::Kibibytes,
            [of("http", &per_backend), of("peer", &per_backend), None],
        )
        .peer_target(PEER_CRATE)
        .with_notes(format!(
            "(resident over {MEMORY_SERVERS} ready backends − over 1) / {}; over {MEMORY_SERVERS}: ours {} MB, {PEER_CRATE} {} MB",
            MEMORY_SERVERS - 1,
            megabytes(of("http", &over_many)).map_or_else(|| "—".to_owned(), |m| format!("{m:.1}")),
            megabytes(of("peer", &over_many)).map_or_else(|| "—".to_owned(), |m| format!("{m:.1}")),
        )),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(p50: f64) -> Series {
        Series {
            p50: vec![p50],
            p99: vec![p50 * 2.0],
            throughput: vec![1e6 / p50],
            rss_kib: None,
        }
    }

    #[test]
    fn the_stdio_rows_name_the_event_loop_reference_and_its_ratios() {
        let (ours, relay, event_loop) = (series(120.0), series(80.0), series(100.0));
        let mut rows = Vec::new();
        push_rows(
            &mut rows,
            1,
            Some(&ours),
            [Some(&relay), Some(&event_loop)],
            None,
            None,
        );
        let p50 = &rows[0];
        assert_eq!(p50.values, [Some(120.0), None, Some(80.0)]);
        assert!(
            p50.notes
                .contains("100.0 µs, ours ÷ it 1.20×, it ÷ the limit 1.25×"),
            "{}",
            p50.notes
        );
        let mut without = Vec::new();
        push_rows(
            &mut without,
            1,
            Some(&ours),
            [Some(&relay), None],
            None,
            None,
        );
        assert!(!without[0].notes.contains("for reference"));
    }
}
