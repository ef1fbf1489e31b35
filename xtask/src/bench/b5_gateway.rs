//! B5: the gateway (`mcp-cli serve`): what it adds to a `tools/call`, its
//! memory in front of 50 servers, and (criterion, `bench/benches/tool_search.rs`)
//! one `search_tools` query over 1,000 tools.

use anyhow::{Result, bail};

use super::criterion::MicroResult;
use super::report::{Row, Unit, median};
use super::{Bench, ROUNDS, TOOLS, number};

/// Calls timed per process, and untimed ones first.
const CALLS: &str = "3000";
const WARMUP: &str = "300";
/// Servers behind the gateway in the memory case.
const MEMORY_SERVERS: usize = 50;

/// The most one search over 1,000 tools may take, in milliseconds.
const SEARCH_TARGET_MS: f64 = 5.0;

/// Adds the row of the tool-search bench (`searched`, its criterion results).
pub(super) fn tool_search_row(searched: &[MicroResult], rows: &mut Vec<Row>) {
    let median_ms = searched.first().map(|result| result.median_ns / 1e6);
    rows.push(
        Row::new(
            "B5 `serve --tool-search`: one search_tools query over 1,000 tools (BM25 index built once per catalog): median time",
            Unit::Milliseconds,
            [median_ms, None, None],
        )
        .target(
            "< 5 ms",
            median_ms.is_some_and(|ms| ms < SEARCH_TARGET_MS),
        )
        .with_notes("criterion, `bench/benches/tool_search.rs`; no rmcp or limit counterpart"),
    );
}

/// Runs B5 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    let scratch = bench.scratch.join("b5");
    std::fs::create_dir_all(&scratch)?;
    let cli = bench.cli.display().to_string();
    let scratch_arg = scratch.display().to_string();
    let (mut direct, mut gateway, mut direct_p99, mut gateway_p99) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut direct_rss, mut gateway_rss) = (0u64, 0u64);
    for round in 0..ROUNDS {
        // Alternating, so drift on a shared machine hits both alike.
        for via in ["direct", "gateway"] {
            println!("bench: B5 tools/call {via} (round {})", round + 1);
            let (measured, result) = bench.case(
                "gateway",
                &[
                    "--via",
                    via,
                    "--cli",
                    &cli,
                    "--scratch",
                    &scratch_arg,
                    "--requests",
                    CALLS,
                    "--warmup",
                    WARMUP,
                    "--tools",
                    &TOOLS.to_string(),
                ],
            )?;
            let (samples, p99, rss) = if via == "direct" {
                (&mut direct, &mut direct_p99, &mut direct_rss)
            } else {
                (&mut gateway, &mut gateway_p99, &mut gateway_rss)
            };
            samples.push(number(&result, "/latency/median_us")?);
            p99.push(number(&result, "/latency/p99_us")?);
            *rss = (*rss).max(measured.max_rss_kib);
        }
    }
    let (through, straight) = (median(&gateway), median(&direct));
    let added = through.zip(straight).map(|(g, d)| g - d);
    let shown = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}"));
    rows.push(
        Row::new(
            "B5 stdio tools/call through `mcp-cli serve` (ours) vs straight to the server (limit), sequential: median latency",
            Unit::Microseconds,
            [through, None, straight],
        )
        .with_rss([Some(gateway_rss), None, Some(direct_rss)])
        .limit_target(1.3)
        .target("≤ 100 µs added", added.is_some_and(|a| a <= 100.0))
        .with_notes(format!(
            "added {} µs per call (one more process and pipe each way); p99 µs: gateway {}, direct {}; the server answers at once, so the hop is most of the ratio",
            shown(added),
            shown(median(&gateway_p99)),
            shown(median(&direct_p99)),
        )),
    );

    let mut resident = Vec::new();
    let mut single = Vec::new();
    for round in 0..ROUNDS {
        for servers in [1, MEMORY_SERVERS] {
            println!(
                "bench: B5 gateway memory, {servers} server(s) (round {})",
                round + 1
            );
            let (_, result) = bench.case(
                "gateway",
                &[
                    "--via",
                    "gateway",
                    "--memory",
                    "--servers",
                    &servers.to_string(),
                    "--cli",
                    &cli,
                    "--scratch",
                    &scratch_arg,
                    "--tools",
                    &TOOLS.to_string(),
                ],
            )?;
            let listed = number(&result, "/tools_listed")?;
            if listed < (servers * TOOLS) as f64 {
                bail!("B5: the gateway listed {listed} tools over {servers} server(s)");
            }
            let kib = number(&result, "/gateway_rss_kib")?;
            if servers == 1 {
                single.push(kib);
            } else {
                resident.push(kib);
            }
        }
    }
    let megabytes = |kib: Option<f64>| kib.map(|k| k * 1024.0 / 1e6);
    let per_server = median(&resident)
        .zip(median(&single))
        .map(|(many, one)| (many - one) / (MEMORY_SERVERS - 1) as f64);
    rows.push(
        Row::new(
            format!(
                "B5 `mcp-cli serve` over {MEMORY_SERVERS} servers ({TOOLS} tools each), all ready: resident memory of the gateway"
            ),
            Unit::Megabytes,
            [megabytes(median(&resident)), None, None],
        )
        .with_notes(format!(
            "over 1 server: {} MB; each further server: {} KiB (its session, its lists, its process handle)",
            shown(megabytes(median(&single))),
            shown(per_server),
        )),
    );
    Ok(())
}
