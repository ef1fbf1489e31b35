//! B2: stdio request latency and throughput.

use anyhow::Result;

use super::report::{Row, Unit};
use super::{Bench, CONTENDERS, Gathered, ROUNDS, TOOLS, extra_medians, medians, number, peaks};

/// Runs B2 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    // A pipe round trip on a VM is bimodal (one shared CPU, or a wake-up of
    // another): latency is measured in both placements, each pinned, so no
    // contender is lucky. Throughput gives each side a CPU.
    // Clients run on the multi-threaded runtime most hosts use; on one CPU, a
    // current-thread runtime shows what the hand-offs between threads cost.
    let cases = [
        ("ping", "sequential", "same", "multi-thread", "5000", "500"),
        (
            "ping",
            "sequential",
            "same",
            "current-thread",
            "5000",
            "500",
        ),
        ("ping", "sequential", "split", "multi-thread", "5000", "500"),
        ("tools", "sequential", "same", "multi-thread", "2000", "200"),
        (
            "tools",
            "sequential",
            "same",
            "current-thread",
            "2000",
            "200",
        ),
        (
            "tools",
            "sequential",
            "split",
            "multi-thread",
            "2000",
            "200",
        ),
        ("ping", "inflight", "split", "multi-thread", "20000", "500"),
        ("tools", "inflight", "split", "multi-thread", "5000", "200"),
    ];
    for (method, mode, placement, runtime, requests, warmup) in cases {
        let mut gathered: [Gathered; 3] = Default::default();
        for round in 0..ROUNDS {
            for (index, contender) in CONTENDERS.iter().enumerate() {
                println!(
                    "bench: B2 {method} {mode} {placement} {runtime} {contender} (round {})",
                    round + 1
                );
                let (measured, result) = bench.case(
                    "stdio",
                    &[
                        "--contender",
                        contender,
                        "--method",
                        method,
                        "--mode",
                        mode,
                        "--placement",
                        placement,
                        "--runtime",
                        runtime,
                        "--requests",
                        requests,
                        "--warmup",
                        warmup,
                        "--tools",
                        &TOOLS.to_string(),
                    ],
                )?;
                let entry = &mut gathered[index];
                if mode == "sequential" {
                    entry.samples.push(number(&result, "/latency/median_us")?);
                    entry.extra.push(number(&result, "/latency/p99_us")?);
                } else {
                    entry.samples.push(number(&result, "/requests_per_second")?);
                }
                entry.note_rss(measured.max_rss_kib);
            }
        }
        let request = if method == "ping" {
            "ping".to_owned()
        } else {
            format!("tools/list ({TOOLS} tools)")
        };
        let where_ = match (placement, runtime) {
            ("same", "current-thread") => "one CPU, current-thread runtime",
            ("same", _) => "client and server on one CPU",
            _ => "client and server on two CPUs",
        };
        if mode == "sequential" {
            let p99 = extra_medians(&gathered);
            let shown = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}"));
            rows.push(
                Row::new(
                    format!("B2 stdio {request}, sequential, {where_}: median latency"),
                    Unit::Microseconds,
                    medians(&gathered),
                )
                .with_rss(peaks(&gathered))
                .limit_target(1.2)
                .with_notes(format!(
                    "p99 µs: ours {}, rmcp {}, limit {}",
                    shown(p99[0]),
                    shown(p99[1]),
                    shown(p99[2])
                )),
            );
        } else {
            rows.push(
                Row::new(
                    format!("B2 stdio {request}, 64 in flight, {where_}: throughput"),
                    Unit::RequestsPerSecond,
                    medians(&gathered),
                )
                .with_rss(peaks(&gathered))
                .rmcp_target(),
            );
        }
    }
    Ok(())
}
