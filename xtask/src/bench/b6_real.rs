//! B6: the real stdio servers the test command installs (server-everything,
//! server-filesystem, server-memory, mcp-server-time, mcp-server-git,
//! mcp-server-fetch and the FastMCP fixture), discovered all at once by
//! ours (`mcp-cli discover`, whole process, every server reaped before it
//! exits), rmcp (`join_all`) and the raw floor (handshake and lists, no
//! client logic, killed at the end), alternating within each round.

use std::ffi::OsStr;
use std::fs;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::measure::measure;
use super::report::{Row, Unit};
use super::{Bench, CASE_TIMEOUT, Gathered, medians, number, peaks};
use crate::tools::Tools;
use crate::workspace::Workspace;

/// Rounds of B6 (real servers vary more than the synthetic ones).
const REAL_ROUNDS: usize = 5;

/// Runs B6 and adds its row.
pub(super) fn run(bench: &Bench, ws: &Workspace, rows: &mut Vec<Row>) -> Result<()> {
    let tools = Tools::new(ws);
    tools.setup()?;
    let config = bench.scratch.join("real-servers.json");
    let root = bench.scratch.join("real-files");
    fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    fs::write(root.join("notes.txt"), "a file to list\n")
        .with_context(|| format!("cannot write in {}", root.display()))?;
    let node = tools.node_bin_dir().join("node");
    let npm = tools.npm_bin_dir();
    let servers = json!({"mcpServers": {
        "everything": {"command": node, "args": [npm.join("mcp-server-everything"), "stdio"]},
        "filesystem": {"command": node, "args": [npm.join("mcp-server-filesystem"), root]},
        "memory": {"command": node, "args": [npm.join("mcp-server-memory")],
                   "env": {"MEMORY_FILE_PATH": bench.scratch.join("memory.jsonl")}},
        "time": {"command": tools.venv_bin("mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"command": tools.venv_bin("mcp-server-git"), "args": ["--repository", ws.root()]},
        "fetch": {"command": tools.venv_bin("mcp-server-fetch"), "args": []},
        "fastmcp": {"command": tools.venv_bin("python"),
                    "args": [ws.root().join("tests/fixtures/servers/fastmcp_server.py"), "stdio"]},
    }});
    fs::write(&config, serde_json::to_string_pretty(&servers)?)
        .with_context(|| format!("cannot write {}", config.display()))?;
    let cache_dir = bench.scratch.join("cache-real");
    let cli_args: Vec<&OsStr> = vec![
        OsStr::new("--config"),
        config.as_os_str(),
        OsStr::new("--cache-dir"),
        cache_dir.as_os_str(),
        OsStr::new("--refresh"),
        OsStr::new("--json"),
        OsStr::new("discover"),
    ];
    let config_text = config.display().to_string();
    let mut gathered: [Gathered; 3] = Default::default();
    // Ours's whole process: the report, then every server reaped.
    let mut ours_whole = Gathered::default();
    let mut tool_counts = [0usize; 3];
    // Round 0 warms the interpreters' caches (Python byte code) and is not counted.
    for round in 0..=REAL_ROUNDS {
        println!("bench: B6 real servers, ours (round {round})");
        let measured = measure(
            &bench.runner,
            &bench.cli,
            &cli_args,
            Some(&bench.scratch),
            CASE_TIMEOUT,
        )?;
        if !measured.success() {
            bail!(
                "`mcp-cli discover` over the real servers failed: {}",
                measured.stderr.trim()
            );
        }
        let document: Value = serde_json::from_str(&measured.stdout)
            .context("`mcp-cli --json discover` printed invalid JSON")?;
        let reports = document["servers"].as_array().cloned().unwrap_or_default();
        if let Some(failed) = reports.iter().find(|s| s["status"] != "ready") {
            bail!("a real server failed under ours: {failed}");
        }
        tool_counts[0] = reports
            .iter()
            .map(|s| s["tools"].as_array().map_or(0, Vec::len))
            .sum();
        if round > 0 {
            let report = measured.first_output.context("`mcp-cli` printed nothing")?;
            gathered[0].samples.push(report.as_secs_f64() * 1e3);
            gathered[0].note_rss(measured.max_rss_kib);
            ours_whole.samples.push(measured.wall.as_secs_f64() * 1e3);
            ours_whole.note_rss(measured.max_rss_kib);
        }
        for (slot, contender) in [(1, "rmcp"), (2, "raw")] {
            println!("bench: B6 real servers, {contender} (round {round})");
            let (measured, result) = bench.case(
                "real",
                &["--contender", contender, "--config", &config_text],
            )?;
            tool_counts[slot] = number(&result, "/tools")? as usize;
            if round > 0 {
                gathered[slot]
                    .samples
                    .push(measured.wall.as_secs_f64() * 1e3);
                gathered[slot].note_rss(measured.max_rss_kib);
            }
        }
    }
    if tool_counts[0] != tool_counts[2] || tool_counts[1] != tool_counts[2] {
        bail!(
            "the contenders found different tools: ours {}, rmcp {}, raw {}",
            tool_counts[0],
            tool_counts[1],
            tool_counts[2]
        );
    }
    let values = medians(&gathered);
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}×", a / b),
        _ => "—".to_owned(),
    };
    let whole = super::report::median(&ours_whole.samples);
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    rows.push(
        Row::new(
            "B6 discovery of 7 real stdio servers at once (3 Node, 4 Python): until the report",
            Unit::Milliseconds,
            values,
        )
        .with_rss(peaks(&gathered))
        .with_notes(format!(
            "median of {REAL_ROUNDS} rounds after a warm-up, {cpus} CPUs, {} tools each; ours = \
             `mcp-cli --refresh --json discover` from launch to its report on stdout (printed at \
             the last answer); rmcp 3.11 (join_all, then cancel) and the floor (handshake and \
             lists, killed at the end): whole processes, so not the same work and no target \
             (the next row has it); ours ÷ rmcp = {}",
            tool_counts[0],
            ratio(values[0], values[1])
        )),
    );
    rows.push(
        Row::new(
            "B6 the same, ours's whole process (every server reaped before it exits)",
            Unit::Milliseconds,
            [whole, values[1], values[2]],
        )
        .with_rss([ours_whole.rss_kib, peaks(&gathered)[1], peaks(&gathered)[2]])
        .limit_target(1.1)
        .with_notes(format!(
            "ours also waits for each server to stop: stdin closed, a 100 ms grace, SIGTERM; \
             ours ÷ floor = {}, ours ÷ rmcp = {}",
            ratio(whole, values[2]),
            ratio(whole, values[1])
        )),
    );
    Ok(())
}
