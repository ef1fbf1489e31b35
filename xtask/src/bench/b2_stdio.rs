//! B2: stdio request latency and throughput.

use anyhow::Result;

use super::report::{Row, Unit, median};

/// B2's target against the second floor, the raw loop that checks each
/// answer as JSON: what a client that validates its input can reach.
const CHECKED_FLOOR_TARGET: f64 = 1.3;
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
        // The second floor: the raw loop that also checks each answer as
        // JSON (serde_json into IgnoredAny), as a validating client must.
        let mut checked = Gathered::default();
        for round in 0..ROUNDS {
            let floor_too = (mode == "sequential").then_some(3);
            for (index, contender) in CONTENDERS
                .iter()
                .enumerate()
                .chain(floor_too.map(|i| (i, &"raw")))
            {
                let checking = index == 3;
                println!(
                    "bench: B2 {method} {mode} {placement} {runtime} {contender}{} (round {})",
                    if checking { " checking JSON" } else { "" },
                    round + 1
                );
                let tools = TOOLS.to_string();
                let mut args = vec![
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
                    &tools,
                ];
                if checking {
                    args.push("--check-json");
                }
                let (measured, result) = bench.case("stdio", &args)?;
                let entry = if checking {
                    &mut checked
                } else {
                    &mut gathered[index]
                };
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
            let values = medians(&gathered);
            let floor = median(&checked.samples);
            let ratio = match (values[0], floor) {
                (Some(ours), Some(floor)) if floor > 0.0 => Some(ours / floor),
                _ => None,
            };
            rows.push(
                Row::new(
                    format!("B2 stdio {request}, sequential, {where_}: median latency"),
                    Unit::Microseconds,
                    values,
                )
                .with_rss(peaks(&gathered))
                .limit_target(1.2)
                .target(
                    format!("≤ {CHECKED_FLOOR_TARGET}× the checking floor"),
                    ratio.is_some_and(|r| r <= CHECKED_FLOOR_TARGET),
                )
                .with_notes(format!(
                    "checking floor (the raw loop + serde_json into IgnoredAny) {} µs, ours ÷ it {}; p99 µs: ours {}, rmcp {}, limit {}",
                    shown(floor),
                    ratio.map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×")),
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
