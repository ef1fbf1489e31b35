//! B1: codec throughput and peak memory.

use anyhow::Result;
use serde_json::Value;

use super::report::{Row, Unit, fixed};
use super::{Bench, CONTENDERS, Gathered, ROUNDS, extra_medians, medians, number, peaks};

/// Runs B1 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    for (workload, label, passes) in [
        ("big", "B1 one 40 MB tools/list line, 8 KiB chunks", "3"),
        ("small", "B1 100 000 small messages, 64 KiB chunks", "5"),
    ] {
        let mut gathered: [Gathered; 3] = Default::default();
        let mut largest = 0.0;
        for round in 0..ROUNDS {
            for (index, contender) in CONTENDERS.iter().enumerate() {
                println!("bench: B1 {workload} {contender} (round {})", round + 1);
                let (measured, result) = bench.case(
                    "codec",
                    &[
                        "--contender",
                        contender,
                        "--workload",
                        workload,
                        "--passes",
                        passes,
                    ],
                )?;
                let bytes = number(&result, "/bytes")?;
                largest = number(&result, "/largest_message")?;
                let entry = &mut gathered[index];
                for seconds in result
                    .get("seconds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_f64)
                {
                    if seconds > 0.0 {
                        entry.samples.push(bytes / seconds / 1e6);
                    }
                }
                let growth_kib =
                    number(&result, "/first_pass_rss_kib")? - number(&result, "/baseline_rss_kib")?;
                entry.extra.push(growth_kib * 1024.0 / 1e6);
                entry.note_rss(measured.max_rss_kib);
            }
        }
        rows.push(
            Row::new(label, Unit::MegabytesPerSecond, medians(&gathered))
                .with_rss(peaks(&gathered))
                .limit_target(0.8)
                .rmcp_target(),
        );
        if workload == "big" {
            let growth = extra_medians(&gathered);
            let times = growth.map(|g| g.map(|g| g * 1e6 / largest));
            let ours_times = times[0].unwrap_or(f64::INFINITY);
            rows.push(
                Row::new(
                    "B1 40 MB line: peak RSS growth while decoding it once",
                    Unit::Megabytes,
                    growth,
                )
                .with_rss(peaks(&gathered))
                .target("≤ 3× the message", ours_times <= 3.0)
                .with_notes(format!(
                    "× the {:.1} MB message: ours {}, rmcp {}, limit {}",
                    largest / 1e6,
                    fixed(times[0], 1),
                    fixed(times[1], 1),
                    fixed(times[2], 1)
                )),
            );
        }
    }
    Ok(())
}
