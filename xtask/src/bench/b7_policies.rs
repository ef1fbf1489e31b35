//! B7: what the default policies cost a user. A stdio server that lists
//! 1,000 tools in 100 pages of 10, discovered by `mcp-cli` with the default
//! policy (rate limit 10 per second, burst 20) and with none in effect,
//! alternating within each round: the limit counts operations, so the pages
//! must not wait. And an HTTP server whose port refuses connections: the
//! failure must come at once, not after the retries' backoff.

use std::ffi::OsStr;
use std::fs;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::measure::measure;
use super::report::{Row, Unit, median};
use super::{Bench, CASE_TIMEOUT};

/// Rounds of each case: they last a fraction of a second, where 3 are noise.
const ROUNDS: usize = 7;
/// The paged server: this many tools, in pages of [`PAGE_SIZE`].
const PAGED_TOOLS: usize = 1000;
/// Items per page of the paged server.
const PAGE_SIZE: usize = 10;
/// How much slower the default policy may be than none.
const PAGED_TOLERANCE: f64 = 1.1;
/// How long a refused connection may take to be reported.
const REFUSED_LIMIT_MS: f64 = 1000.0;

/// Runs B7 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    paged(bench, rows)?;
    refused(bench, rows)
}

fn write_config(bench: &Bench, name: &str, servers: Value) -> Result<std::path::PathBuf> {
    let config = bench.scratch.join(format!("{name}.json"));
    fs::write(&config, json!({ "mcpServers": servers }).to_string())
        .with_context(|| format!("cannot write {}", config.display()))?;
    Ok(config)
}

/// `mcp-cli --config CONFIG --refresh --json discover` plus `extra`, timed;
/// the wall time in milliseconds and the report.
fn discover(bench: &Bench, config: &std::path::Path, extra: &[&str]) -> Result<(f64, Value)> {
    let cache = bench.scratch.join("cache-b7");
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("--config"),
        config.as_os_str(),
        OsStr::new("--cache-dir"),
        cache.as_os_str(),
        OsStr::new("--refresh"),
    ];
    args.extend(extra.iter().map(OsStr::new));
    args.extend([OsStr::new("--json"), OsStr::new("discover")]);
    let measured = measure(
        &bench.runner,
        &bench.cli,
        &args,
        Some(&bench.scratch),
        CASE_TIMEOUT,
    )?;
    let report: Value = serde_json::from_str(&measured.stdout)
        .with_context(|| format!("`mcp-cli discover` printed no report: {}", measured.stderr))?;
    Ok((measured.wall.as_secs_f64() * 1e3, report))
}

fn paged(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    let config = write_config(
        bench,
        "b7-paged",
        json!({"paged": {
            "command": bench.server,
            "args": ["stdio", "--tools", PAGED_TOOLS.to_string(), "--page-size", PAGE_SIZE.to_string()],
        }}),
    )?;
    // No policy in effect: a limit no discovery can reach.
    let settings: [(&str, &[&str]); 2] = [
        ("default policy", &[]),
        (
            "no limit",
            &["--rate-limit", "1000000000", "--burst", "1000000"],
        ),
    ];
    let mut samples = [Vec::new(), Vec::new()];
    for round in 0..ROUNDS {
        for (index, (label, extra)) in settings.iter().enumerate() {
            println!("bench: B7 100 pages, {label} (round {})", round + 1);
            let (wall, report) = discover(bench, &config, extra)?;
            let tools = report["servers"][0]["tools"].as_array().map_or(0, Vec::len);
            if tools != PAGED_TOOLS {
                bail!("the paged server listed {tools} tools with the {label}: {report}");
            }
            samples[index].push(wall);
        }
    }
    let default = median(&samples[0]);
    let none = median(&samples[1]);
    rows.push(
        Row::new(
            format!("B7 discovery of {PAGED_TOOLS} tools in 100 pages: default policy (limit: no limit in effect)"),
            Unit::Milliseconds,
            [default, None, none],
        )
        .with_notes("the rate limit counts a whole discovery as one operation; its pages never wait")
        .limit_target(PAGED_TOLERANCE),
    );
    Ok(())
}

fn refused(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    // A port that refuses: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .context("cannot find a free port")?
        .port();
    let config = write_config(
        bench,
        "b7-refused",
        json!({"down": {"url": format!("http://127.0.0.1:{port}/mcp")}}),
    )?;
    let mut samples = Vec::new();
    for round in 0..ROUNDS {
        println!("bench: B7 refused connection (round {})", round + 1);
        let (wall, report) = discover(bench, &config, &[])?;
        let message = report["servers"][0]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !message.contains("connection refused") {
            bail!("a refused port was not reported as such: {report}");
        }
        samples.push(wall);
    }
    let wall = median(&samples);
    rows.push(
        Row::new(
            "B7 an HTTP server whose port refuses: wall time to its failure",
            Unit::Milliseconds,
            [wall, None, None],
        )
        .with_notes("refused, DNS and TLS failures are not retried")
        .target(
            format!("< {REFUSED_LIMIT_MS:.0} ms"),
            wall.is_some_and(|w| w < REFUSED_LIMIT_MS),
        ),
    );
    Ok(())
}
