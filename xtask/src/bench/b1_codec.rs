//! B1: codec throughput and peak memory.
//!
//! Every row compares the same work: ours checked and kept as text against
//! the validating floor (the same chunks gathered into lines by the plainest
//! reader, each validated by serde_json into `IgnoredAny`, nothing else
//! allocated), and ours decoded to typed values against rmcp's typed
//! decoding. The floor's validation over lines already split (no framing)
//! and a `Value` tree (a full parse, not a floor) are measured for
//! reference and shown in the notes, with no target.

use anyhow::Result;
use serde_json::Value;

use super::report::{Row, Unit, fixed, median, megabytes};
use super::{Bench, Gathered, ROUNDS, number};

/// One process kind of B1: a contender decoding to a depth.
struct Run {
    contender: &'static str,
    decoding: &'static str,
}

/// The runs of a round, in order; the indexes below name them.
const RUNS: [Run; 6] = [
    Run {
        contender: "ours",
        decoding: "checked",
    },
    Run {
        contender: "raw",
        decoding: "checked",
    },
    Run {
        contender: "ours",
        decoding: "typed",
    },
    Run {
        contender: "rmcp",
        decoding: "typed",
    },
    Run {
        contender: "raw",
        decoding: "value",
    },
    Run {
        contender: "raw",
        decoding: "checked-unframed",
    },
];
const OURS_CHECKED: usize = 0;
const FLOOR: usize = 1;
const OURS_TYPED: usize = 2;
const RMCP_TYPED: usize = 3;
const VALUE_TREE: usize = 4;
const UNFRAMED: usize = 5;

/// Runs B1 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    for (workload, label, passes) in [
        ("big", "B1 one 40 MB tools/list line, 8 KiB chunks", "3"),
        ("small", "B1 100 000 small messages, 64 KiB chunks", "5"),
    ] {
        let mut gathered: [Gathered; RUNS.len()] = Default::default();
        let mut largest = 0.0;
        for round in 0..ROUNDS {
            for (run, entry) in RUNS.iter().zip(gathered.iter_mut()) {
                println!(
                    "bench: B1 {workload} {} {} (round {})",
                    run.contender,
                    run.decoding,
                    round + 1
                );
                let (measured, result) = bench.case(
                    "codec",
                    &[
                        "--contender",
                        run.contender,
                        "--decoding",
                        run.decoding,
                        "--workload",
                        workload,
                        "--passes",
                        passes,
                    ],
                )?;
                let bytes = number(&result, "/bytes")?;
                largest = number(&result, "/largest_message")?;
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
        let speed = gathered.each_ref().map(|g| median(&g.samples));
        let growth = gathered.each_ref().map(|g| median(&g.extra));
        let rss = gathered.each_ref().map(|g| g.rss_kib);
        let pick = |indexes: [Option<usize>; 3]| indexes.map(|i| i.and_then(|i| speed[i]));
        let pick_rss = |indexes: [Option<usize>; 3]| indexes.map(|i| i.and_then(|i| rss[i]));
        let checked = [Some(OURS_CHECKED), None, Some(FLOOR)];
        rows.push(
            Row::new(
                format!("{label}: checked, kept as text"),
                Unit::MegabytesPerSecond,
                pick(checked),
            )
            .with_rss(pick_rss(checked))
            .limit_target(0.8)
            .with_notes(format!(
                "ours: messages typed, results kept as text (a list split into its items, none \
                 read); limit: the same chunks gathered into lines by the plainest reader (one line \
                 buffer, `memchr`), each validated by serde_json into `IgnoredAny`, nothing else \
                 allocated. For reference, its validation alone over lines already split (no \
                 framing): {}",
                speed[UNFRAMED]
                    .map_or_else(|| "—".to_owned(), |v| Unit::MegabytesPerSecond.format(v)),
            )),
        );
        let typed = [Some(OURS_TYPED), Some(RMCP_TYPED), None];
        rows.push(
            Row::new(
                format!("{label}: decoded to typed values"),
                Unit::MegabytesPerSecond,
                pick(typed),
            )
            .with_rss(pick_rss(typed))
            .rmcp_target()
            .with_notes(format!(
                "ours: every tool read as a `Tool` (small: every result as a `CallToolResult`); \
                 rmcp: its typed messages. For reference, not a floor: a `serde_json::Value` tree \
                 of each line, {} (peak RSS {} MB)",
                speed[VALUE_TREE]
                    .map_or_else(|| "—".to_owned(), |v| Unit::MegabytesPerSecond.format(v)),
                megabytes(rss[VALUE_TREE]),
            )),
        );
        if workload == "big" {
            let times = growth.map(|g| g.map(|g| g * 1e6 / largest));
            let ours_times = times[OURS_TYPED].unwrap_or(f64::INFINITY);
            let memory = [Some(OURS_TYPED), Some(RMCP_TYPED), Some(FLOOR)];
            rows.push(
                Row::new(
                    "B1 40 MB line: peak RSS growth while decoding it once to typed values",
                    Unit::Megabytes,
                    memory.map(|i| i.and_then(|i| growth[i])),
                )
                .with_rss(pick_rss(memory))
                .target("≤ 3× the message", ours_times <= 3.0)
                .with_notes(format!(
                    "× the {:.1} MB message: ours {} (kept as text {}), rmcp {}, limit (framed, \
                     `IgnoredAny`) {}, `Value` tree {}",
                    largest / 1e6,
                    fixed(times[OURS_TYPED], 1),
                    fixed(times[OURS_CHECKED], 1),
                    fixed(times[RMCP_TYPED], 1),
                    fixed(times[FLOOR], 1),
                    fixed(times[VALUE_TREE], 1),
                )),
            );
        }
    }
    Ok(())
}
