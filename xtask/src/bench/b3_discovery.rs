//! B3: discovery wall time of 1, 10 and 50 servers, and a cached run.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::measure::{Measured, measure};
use super::report::{Row, Unit, fixed, median};
use super::{
    Bench, CASE_TIMEOUT, Gathered, ROUNDS, SERVER_COUNTS, SLOW_START_MS, TOOLS, medians, number,
    peaks,
};

/// `mcp-cli`'s default `--concurrency`.
const DEFAULT_CONCURRENCY: usize = 64;

/// Each server of a set discovered alone, in its own process (the raw client).
#[derive(Debug, Default)]
struct Singles {
    /// Whole-process wall time of each, in milliseconds.
    wall_ms: Vec<f64>,
    /// CPU time of each (client and server), in milliseconds.
    cpu_ms: Vec<f64>,
    /// The largest peak RSS of any.
    rss_kib: u64,
}

impl Singles {
    /// The slowest of the first `servers`, each alone.
    fn slowest(&self, servers: usize) -> f64 {
        self.wall_ms
            .iter()
            .take(servers)
            .copied()
            .fold(0.0, f64::max)
    }

    /// The CPU floor for the first `servers`: all their work spread over every core.
    fn cpu_floor(&self, servers: usize, cpus: usize) -> f64 {
        self.cpu_ms.iter().take(servers).sum::<f64>() / cpus.max(1) as f64
    }
}

/// One of B3's server sets.
struct ServerSet {
    label: &'static str,
    start_delay_ms: u64,
}

/// Runs B3 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    let sets = [
        ServerSet {
            label: "instant",
            start_delay_ms: 0,
        },
        ServerSet {
            label: "300 ms start",
            start_delay_ms: SLOW_START_MS,
        },
    ];
    for set in &sets {
        let largest = SERVER_COUNTS.iter().copied().max().unwrap_or(1);
        // The limit: each server alone, whole process; for N servers, the slowest of the first N.
        let mut singles = Singles::default();
        for index in 0..largest {
            println!("bench: B3 {} raw server {index} alone", set.label);
            let (measured, result) = bench.case(
                "discovery",
                &set_args(
                    set,
                    largest,
                    &["--contender", "raw", "--index", &index.to_string()],
                ),
            )?;
            if number(&result, "/tools")? != TOOLS as f64 {
                bail!("raw server {index} listed the wrong number of tools: {result}");
            }
            singles.wall_ms.push(measured.wall.as_secs_f64() * 1e3);
            singles.cpu_ms.push(measured.cpu.as_secs_f64() * 1e3);
            singles.rss_kib = singles.rss_kib.max(measured.max_rss_kib);
        }
        for servers in SERVER_COUNTS {
            discovery_case(bench, set, servers, &singles, rows)?;
        }
        for servers in SWEEP_SERVERS {
            concurrency_sweep(bench, set, servers, rows)?;
        }
    }
    Ok(())
}

/// The `--concurrency` settings measured against each other (`None`: every server at once).
const SWEEP: [Option<usize>; 5] = [Some(8), Some(16), Some(32), Some(64), None];
/// The server counts of the sweep.
const SWEEP_SERVERS: [usize; 2] = [10, 50];
/// How much slower than the best setting the default may be, in any case.
const SWEEP_TOLERANCE: f64 = 1.1;
/// Rounds of the sweep: its fast cases last 20 ms, where 3 rounds are noise.
const SWEEP_ROUNDS: usize = 7;

/// `mcp-cli discover` at every setting of [`SWEEP`], alternating within
/// each round: the table that backs the default `--concurrency`.
fn concurrency_sweep(
    bench: &Bench,
    set: &ServerSet,
    servers: usize,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let name = format!("sweep-{}-{servers}", set.start_delay_ms);
    let config = bench.scratch.join(format!("servers-{name}.json"));
    let cache_dir = bench.scratch.join(format!("cache-{name}"));
    let mut args = set_args(set, servers, &["--out"]);
    args.insert(1, config.display().to_string());
    let cmd = bench.runner("config", &args);
    let config_args: Vec<&OsStr> = cmd.get_args().collect();
    let written = measure(
        &bench.runner,
        &bench.runner,
        &config_args,
        None,
        CASE_TIMEOUT,
    )?;
    if !written.success() {
        bail!("cannot write the sweep config: {}", written.stderr.trim());
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); SWEEP.len()];
    for round in 0..SWEEP_ROUNDS {
        for (setting, concurrency) in SWEEP.iter().enumerate() {
            let shown = concurrency.map_or_else(|| "unlimited".to_owned(), |n| n.to_string());
            println!(
                "bench: B3 {} N={servers} --concurrency {shown} (round {})",
                set.label,
                round + 1
            );
            let limit = concurrency.unwrap_or(usize::from(u16::MAX)).to_string();
            let args: Vec<&OsStr> = vec![
                OsStr::new("--config"),
                config.as_os_str(),
                OsStr::new("--cache-dir"),
                cache_dir.as_os_str(),
                OsStr::new("--refresh"),
                OsStr::new("--concurrency"),
                OsStr::new(&limit),
                OsStr::new("--json"),
                OsStr::new("discover"),
            ];
            let measured = measure(
                &bench.runner,
                &bench.cli,
                &args,
                Some(&bench.scratch),
                CASE_TIMEOUT,
            )?;
            if !measured.success() {
                bail!(
                    "`mcp-cli --concurrency {shown} discover` failed: {}",
                    measured.stderr.trim()
                );
            }
            check_discovered(&measured, servers)?;
            samples[setting].push(measured.wall.as_secs_f64() * 1e3);
        }
    }
    let medians: Vec<Option<f64>> = samples.iter().map(|s| median(s)).collect();
    let best = medians
        .iter()
        .flatten()
        .copied()
        .fold(f64::INFINITY, f64::min);
    for (setting, concurrency) in SWEEP.iter().enumerate() {
        let shown = concurrency.map_or_else(|| "unlimited".to_owned(), |n| n.to_string());
        let value = medians[setting];
        let ratio = value.map(|v| v / best);
        let mut row = Row::new(
            format!(
                "B3 sweep, {servers} servers, {}, `--concurrency {shown}`: wall time",
                set.label
            ),
            Unit::Milliseconds,
            [value, None, None],
        )
        .with_notes(format!(
            "÷ the best setting of this case: {}",
            ratio.map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×"))
        ));
        if *concurrency == Some(DEFAULT_CONCURRENCY) {
            row = row.target(
                format!("default ≤ {SWEEP_TOLERANCE}× the best setting"),
                ratio.is_some_and(|r| r <= SWEEP_TOLERANCE),
            );
        }
        rows.push(row);
    }
    Ok(())
}

fn set_args(set: &ServerSet, servers: usize, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    args.extend([
        "--servers".to_owned(),
        servers.to_string(),
        "--tools".to_owned(),
        TOOLS.to_string(),
        "--start-delay-ms".to_owned(),
        set.start_delay_ms.to_string(),
    ]);
    args
}

fn discovery_case(
    bench: &Bench,
    set: &ServerSet,
    servers: usize,
    singles: &Singles,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let name = format!("{}-{servers}", set.start_delay_ms);
    let config = bench.scratch.join(format!("servers-{name}.json"));
    let start_log = bench.scratch.join(format!("starts-{name}.log"));
    let cache_dir = bench.scratch.join(format!("cache-{name}"));
    let mut args = set_args(set, servers, &["--out"]);
    args.insert(1, config.display().to_string());
    args.extend(["--start-log".to_owned(), start_log.display().to_string()]);
    let cmd = bench.runner("config", &args);
    let config_args: Vec<&OsStr> = cmd.get_args().collect();
    let measured = measure(
        &bench.runner,
        &bench.runner,
        &config_args,
        None,
        CASE_TIMEOUT,
    )?;
    if !measured.success() {
        bail!("cannot write the B3 config: {}", measured.stderr.trim());
    }
    let run_cli = |extra: &[&str], what: &str| -> Result<Measured> {
        let mut args: Vec<&OsStr> = vec![
            OsStr::new("--config"),
            config.as_os_str(),
            OsStr::new("--cache-dir"),
            cache_dir.as_os_str(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        let measured = measure(
            &bench.runner,
            &bench.cli,
            &args,
            Some(&bench.scratch),
            CASE_TIMEOUT,
        )?;
        if !measured.success() {
            bail!(
                "`mcp-cli {}` ({what}) failed with {:?}: {}",
                extra.join(" "),
                measured.code,
                measured.stderr.trim()
            );
        }
        Ok(measured)
    };
    // rmcp starts every server at once (`join_all`), as in B6.
    let rmcp_rounds = ROUNDS;
    let mut gathered: [Gathered; 3] = Default::default();
    let mut wide = Gathered::default();
    // Where the time of `--concurrency N` goes: when the last server started,
    // and how long discovery ran after that server's start delay.
    let (mut last_start_ms, mut tail_ms) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        println!(
            "bench: B3 {} N={servers} ours (round {})",
            set.label,
            round + 1
        );
        let measured = run_cli(&["--refresh", "--json", "discover"], "discover")?;
        check_discovered(&measured, servers)?;
        gathered[0].samples.push(measured.wall.as_secs_f64() * 1e3);
        gathered[0].note_rss(measured.max_rss_kib);
        if round < rmcp_rounds {
            println!(
                "bench: B3 {} N={servers} rmcp (round {})",
                set.label,
                round + 1
            );
            let (measured, result) = bench.case(
                "discovery",
                &set_args(set, servers, &["--contender", "rmcp"]),
            )?;
            if number(&result, "/tools")? != (servers * TOOLS) as f64 {
                bail!("rmcp listed the wrong number of tools: {result}");
            }
            gathered[1].samples.push(measured.wall.as_secs_f64() * 1e3);
            gathered[1].note_rss(measured.max_rss_kib);
        }
        if servers > DEFAULT_CONCURRENCY {
            println!(
                "bench: B3 {} N={servers} ours --concurrency {servers} (round {})",
                set.label,
                round + 1
            );
            let concurrency = servers.to_string();
            let starts_before = count_lines(&start_log);
            let launched = SystemTime::now();
            let measured = run_cli(
                &[
                    "--refresh",
                    "--concurrency",
                    &concurrency,
                    "--json",
                    "discover",
                ],
                "discover",
            )?;
            check_discovered(&measured, servers)?;
            wide.samples.push(measured.wall.as_secs_f64() * 1e3);
            wide.note_rss(measured.max_rss_kib);
            if let Some(spread) = StartSpread::read(
                &start_log,
                starts_before,
                launched,
                measured.wall,
                set.start_delay_ms,
            ) {
                last_start_ms.push(spread.last_start_ms);
                tail_ms.push(spread.tail_ms);
            }
        }
    }
    let slowest = singles.slowest(servers);
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let floor = singles.cpu_floor(servers, cpus);
    // On few cores, starting many servers at once is bound by their CPU, not
    // by the slowest one: the limit is the larger of the two lower bounds.
    let limit = slowest.max(floor);
    let floor_note = |ours: Option<f64>| {
        format!(
            "limit = max(the slowest single server alone {slowest:.1} ms, the CPU floor: the {servers} \
             singles' CPU time ÷ {cpus} cores {floor:.1} ms); ours ÷ the slowest single = {}",
            ours.map_or_else(|| "—".to_owned(), |ours| format!("{:.2}×", ours / slowest))
        )
    };
    gathered[2].samples.push(limit);
    gathered[2].rss_kib = Some(singles.rss_kib);
    let values = medians(&gathered);
    let waves = servers.div_ceil(DEFAULT_CONCURRENCY);
    let mut row = Row::new(
        format!("B3 discovery, {servers} server(s), {}: wall time", set.label),
        Unit::Milliseconds,
        values,
    )
    .with_rss(peaks(&gathered))
    .with_notes(format!(
        "ours = `mcp-cli --refresh --json discover`, default concurrency {DEFAULT_CONCURRENCY} ({waves} wave(s)); \
         rmcp: median of {rmcp_rounds} run(s); {}",
        floor_note(values[0])
    ));
    if servers == 50 {
        row = row.limit_target(1.15);
    }
    rows.push(row);
    if servers > DEFAULT_CONCURRENCY {
        let wide_median = median(&wide.samples);
        rows.push(
            Row::new(
                format!(
                    "B3 discovery, {servers} servers, {}, `--concurrency {servers}`: wall time",
                    set.label
                ),
                Unit::Milliseconds,
                [wide_median, None, Some(limit)],
            )
            .with_rss([wide.rss_kib, None, Some(singles.rss_kib)])
            .limit_target(1.15)
            .with_notes(format!(
                "every server started at once; the last one started {} ms after launch \
                 (server start-ups queue on {cpus} CPUs), and discovery ended {} ms after its \
                 start delay; {}",
                fixed(median(&last_start_ms), 1),
                fixed(median(&tail_ms), 1),
                floor_note(wide_median)
            )),
        );
    }
    if servers == 50 {
        cached_case(set, servers, &start_log, &run_cli, rows)?;
    }
    Ok(())
}

fn cached_case(
    set: &ServerSet,
    servers: usize,
    start_log: &Path,
    run_cli: &dyn Fn(&[&str], &str) -> Result<Measured>,
    rows: &mut Vec<Row>,
) -> Result<()> {
    // Both outputs: the JSON document a host reads, and the table a person does.
    for (args, shown) in [
        (&["--json", "tools"][..], "mcp-cli --json tools"),
        (&["tools"][..], "mcp-cli tools"),
    ] {
        let starts_before = count_lines(start_log);
        let mut gathered = Gathered::default();
        let mut tools = 0;
        for round in 0..5 {
            println!(
                "bench: B3 {} N={servers} cached `{shown}` (run {})",
                set.label,
                round + 1
            );
            let measured = run_cli(args, "cached tools")?;
            gathered.samples.push(measured.wall.as_secs_f64() * 1e3);
            gathered.note_rss(measured.max_rss_kib);
            tools = listed_tools(&measured.stdout, args[0] == "--json")?;
        }
        let started = count_lines(start_log).saturating_sub(starts_before);
        let wall = median(&gathered.samples);
        rows.push(
            Row::new(
                format!(
                    "B3 cached `{shown}`, {servers} servers, {}: wall time",
                    set.label
                ),
                Unit::Milliseconds,
                [wall, None, None],
            )
            .with_rss([gathered.rss_kib, None, None])
            .target("≤ 20 ms", wall.is_some_and(|w| w <= 20.0))
            .target("starts no server", started == 0)
            .with_notes(format!(
                "whole process; servers started: {started}; tools listed: {tools} (expected {})",
                servers * TOOLS
            )),
        );
    }
    Ok(())
}

/// Fails unless `mcp-cli --json discover` reported every one of `servers`
/// ready with [`TOOLS`] tools each, as the other contenders' counts are checked.
fn check_discovered(measured: &Measured, servers: usize) -> Result<()> {
    let (ready, tools) = discovered(&measured.stdout)?;
    if ready != servers || tools != servers * TOOLS {
        bail!(
            "`mcp-cli discover` found {ready} ready server(s) and {tools} tool(s), expected \
             {servers} and {}",
            servers * TOOLS
        );
    }
    Ok(())
}

/// The ready servers and their tools in `mcp-cli --json discover`'s document.
fn discovered(stdout: &str) -> Result<(usize, usize)> {
    let document: Value =
        serde_json::from_str(stdout).context("`mcp-cli --json discover` printed invalid JSON")?;
    let servers = document
        .get("servers")
        .and_then(Value::as_array)
        .context("`mcp-cli --json discover` printed no servers")?;
    let ready: Vec<&Value> = servers
        .iter()
        .filter(|server| server.get("status").and_then(Value::as_str) == Some("ready"))
        .collect();
    let tools = ready
        .iter()
        .map(|server| {
            server
                .get("tools")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .sum();
    Ok((ready.len(), tools))
}

/// How many tools `mcp-cli tools` listed: entries of the JSON document, or
/// table rows (each starts with a server's namespaced name, `sNN__`).
fn listed_tools(stdout: &str, json: bool) -> Result<usize> {
    if json {
        let document: Value =
            serde_json::from_str(stdout).context("`mcp-cli tools --json` printed invalid JSON")?;
        return Ok(document
            .get("tools")
            .and_then(Value::as_array)
            .map_or(0, Vec::len));
    }
    Ok(stdout
        .lines()
        .filter(|line| {
            let name = line.trim_start();
            name.starts_with('s') && name.get(3..5) == Some("__")
        })
        .count())
}

/// When the servers of one run started, from the start log's timestamps.
struct StartSpread {
    /// The last server's start, after the launch of `mcp-cli`.
    last_start_ms: f64,
    /// From the end of the last server's start delay to the end of the run.
    tail_ms: f64,
}

impl StartSpread {
    /// Reads the lines after the first `skip` of `log` (`name pid start_µs`).
    fn read(
        log: &Path,
        skip: usize,
        launched: SystemTime,
        wall: Duration,
        delay_ms: u64,
    ) -> Option<Self> {
        let launched_us = launched.duration_since(UNIX_EPOCH).ok()?.as_secs_f64() * 1e6;
        let text = fs::read_to_string(log).ok()?;
        let last_us = text
            .lines()
            .skip(skip)
            .filter_map(|line| line.split_whitespace().nth(2)?.parse::<f64>().ok())
            .fold(None, |last: Option<f64>, start| {
                Some(last.map_or(start, |l| l.max(start)))
            })?;
        let last_start_ms = (last_us - launched_us) / 1e3;
        Some(Self {
            last_start_ms,
            tail_ms: wall.as_secs_f64() * 1e3 - last_start_ms - delay_ms as f64,
        })
    }
}

fn count_lines(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_spread_comes_from_the_log_lines_of_the_run() {
        let dir = std::env::temp_dir().join(format!("xtask-spread-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let log = dir.join("starts.log");
        let launched = UNIX_EPOCH + Duration::from_secs(1000);
        fs::write(&log, "old 1 1\ns00 2 1000010000\ns01 3 1000040000\ntorn\n").unwrap();
        let spread = StartSpread::read(&log, 1, launched, Duration::from_millis(350), 300).unwrap();
        assert_eq!(spread.last_start_ms, 40.0);
        assert_eq!(spread.tail_ms, 10.0);
        assert!(StartSpread::read(&log, 4, launched, Duration::from_millis(1), 0).is_none());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tools_are_counted_in_both_outputs() {
        assert_eq!(
            listed_tools(r#"{"tools": [{"a": 1}, {"b": 2}], "summary": {}}"#, true).unwrap(),
            2
        );
        let table =
            "NAME         SIGNATURE\ns00__tool_0  tool_0()\ns49__tool_9  tool_9()\n\n2 ready\n";
        assert_eq!(listed_tools(table, false).unwrap(), 2);
        assert!(listed_tools("not json", true).is_err());
    }

    #[test]
    fn only_ready_servers_and_their_tools_are_counted() {
        let document = r#"{"servers": [
            {"name": "s00", "status": "ready", "tools": [{"name": "a"}, {"name": "b"}]},
            {"name": "s01", "status": "failed", "tools": [{"name": "c"}]},
            {"name": "s02", "status": "ready", "tools": []}
        ]}"#;
        assert_eq!(discovered(document).unwrap(), (2, 2));
        assert!(discovered(r#"{"summary": {}}"#).is_err());
        assert!(discovered("not json").is_err());
    }
}
