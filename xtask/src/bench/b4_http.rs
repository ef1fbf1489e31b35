//! B4: `tools/list` over Streamable HTTP, and the connections it opens.

use anyhow::Result;

use super::report::{Row, Unit};
use super::{Bench, CONTENDERS, Gathered, ROUNDS, TOOLS, medians, number, peaks};

/// Runs B4 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    // Pinned as B2 is: unpinned, the raw loop and the server settle on one
    // CPU (a 36 µs round trip) while a client with more threads lands on
    // either, so a run's mode, not its client, decided the ratio.
    for format in ["json", "sse"] {
        for placement in ["same", "split"] {
            let mut gathered: [Gathered; 3] = Default::default();
            for round in 0..ROUNDS {
                for (index, contender) in CONTENDERS.iter().enumerate() {
                    println!(
                        "bench: B4 {format} {placement} {contender} (round {})",
                        round + 1
                    );
                    let (measured, result) = bench.case(
                        "http",
                        &[
                            "--contender",
                            contender,
                            "--format",
                            format,
                            "--placement",
                            placement,
                            "--requests",
                            "1000",
                            "--warmup",
                            "50",
                            "--tools",
                            &TOOLS.to_string(),
                        ],
                    )?;
                    let entry = &mut gathered[index];
                    entry.samples.push(number(&result, "/latency/median_us")?);
                    entry.extra.push(number(&result, "/connections")?);
                    entry.note_rss(measured.max_rss_kib);
                }
            }
            let connections =
                [0, 1, 2].map(|i| gathered[i].extra.iter().copied().fold(0.0, f64::max));
            let where_ = if placement == "same" {
                "client and server on one CPU"
            } else {
                "client and server on two CPUs"
            };
            let row = Row::new(
                format!(
                    "B4 HTTP tools/list ({TOOLS} tools), {} responses, 1000 sequential, {where_}: median latency",
                    format.to_uppercase()
                ),
                Unit::Microseconds,
                medians(&gathered),
            )
            .with_rss(peaks(&gathered))
            .rmcp_target();
            let counts = format!(
                "TCP connections opened per run (1050 requests + handshake + close, the most of any round): ours {:.0}, rmcp {:.0}, limit {:.0}",
                connections[0], connections[1], connections[2]
            );
            // hyper hands a connection back to its pool from a task on the
            // runtime's worker: on one CPU the next request may come first
            // and open another, the raw loop's as well. Reuse is judged on
            // two CPUs, where the hand-back runs beside the caller.
            rows.push(if placement == "split" {
                row.target("connections reused", connections[0] <= 2.0)
                    .with_notes(counts)
            } else {
                row.with_notes(format!(
                    "{counts} (on one CPU, hyper's pool hand-back races the next request)"
                ))
            });
        }
    }
    Ok(())
}
