//! B4: `tools/list` over Streamable HTTP, and the connections it opens.

use anyhow::Result;

use super::report::{Row, Unit};
use super::{Bench, CONTENDERS, Gathered, ROUNDS, TOOLS, medians, number, peaks};

/// Runs B4 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    for format in ["json", "sse"] {
        let mut gathered: [Gathered; 3] = Default::default();
        for round in 0..ROUNDS {
            for (index, contender) in CONTENDERS.iter().enumerate() {
                println!("bench: B4 {format} {contender} (round {})", round + 1);
                let (measured, result) = bench.case(
                    "http",
                    &[
                        "--contender",
                        contender,
                        "--format",
                        format,
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
        let connections = [0, 1, 2].map(|i| gathered[i].extra.iter().copied().fold(0.0, f64::max));
        rows.push(
            Row::new(
                format!(
                    "B4 HTTP tools/list ({TOOLS} tools), {} responses, 1000 sequential: median latency",
                    format.to_uppercase()
                ),
                Unit::Microseconds,
                medians(&gathered),
            )
            .with_rss(peaks(&gathered))
            .rmcp_target()
            .target("connections reused", connections[0] <= 2.0)
            .with_notes(format!(
                "TCP connections opened per run (1050 requests + handshake + close): ours {:.0}, rmcp {:.0}, limit {:.0}",
                connections[0], connections[1], connections[2]
            )),
        );
    }
    Ok(())
}
