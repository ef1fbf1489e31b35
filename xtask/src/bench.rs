//! `cargo xtask bench`: our client side by side with rmcp and with the limit (a
//! raw baseline with no protocol logic), as ratios measured in the same run.
//!
//! It builds the bench crate (`bench/`, outside the workspace, so nothing else
//! ever compiles rmcp) and `mcp-cli` in release mode, then runs every case ×
//! contender as its own child process: `bench-runner` for B1, B2, B4 and the
//! rmcp and raw sides of B3, `mcp-cli` itself for our side of B3. Each goes
//! through `bench-runner measure`, a small process whose only child it is,
//! which reports the wall time and the peak RSS the OS gives
//! (`getrusage(RUSAGE_CHILDREN)`: the maximum over the child and the processes
//! it reaped). Linux counts the spawner's own peak into a child's at `exec`,
//! so the spawner must be small: this harness, which holds results, is not.
//! Contenders alternate within each round, so drift on a shared machine hits
//! all of them alike; a value is the median over rounds (and over passes, for
//! B1). The table is printed and written to `target/bench-report.md`.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::process;
use crate::workspace::Workspace;

/// Time allowed for building the bench crate and mcp-cli.
const BUILD_TIMEOUT: Duration = Duration::from_secs(40 * 60);
/// How often the measurer is polled for its exit.
const POLL: Duration = Duration::from_millis(10);
/// Time allowed for one case × contender process.
const CASE_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// How long to wait for a finished child's output pipes to close.
const PIPE_TIMEOUT: Duration = Duration::from_secs(10);
/// The most output kept from one child's stdout (the rest is read and dropped).
const MAX_STDOUT: usize = 16 * 1024 * 1024;
/// The most output kept from one child's stderr (its end).
const MAX_STDERR: usize = 64 * 1024;
/// Rounds of every case; contenders alternate within a round.
const ROUNDS: usize = 3;
/// The contenders, in the order they run within a round.
const CONTENDERS: [&str; 3] = ["ours", "rmcp", "raw"];
/// Tools per bench server (B2, B3, B4).
const TOOLS: usize = 50;
/// Server counts of B3.
const SERVER_COUNTS: [usize; 3] = [1, 10, 50];
/// Start delay of B3's slow set, like a Node server.
const SLOW_START_MS: u64 = 300;

/// Runs every benchmark, prints the table and writes `target/bench-report.md`.
pub fn run(ws: &Workspace) -> Result<()> {
    let started = Instant::now();
    let bench = Bench::build(ws)?;
    let mut rows = Vec::new();
    codec(&bench, &mut rows)?;
    stdio(&bench, &mut rows)?;
    http(&bench, &mut rows)?;
    discovery(&bench, &mut rows)?;
    let report = render(&rows, &bench, started.elapsed());
    println!("\n{report}");
    let path = ws.root().join("target").join("bench-report.md");
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    fs::write(&path, &report).with_context(|| format!("cannot write {}", path.display()))?;
    println!("bench: report written to {}", path.display());
    Ok(())
}

/// The built programs and the scratch directory.
struct Bench {
    root: PathBuf,
    runner: PathBuf,
    server: PathBuf,
    cli: PathBuf,
    scratch: PathBuf,
}

impl Bench {
    /// Builds the bench crate (its own target dir) and mcp-cli (the workspace's), in release mode.
    fn build(ws: &Workspace) -> Result<Self> {
        let root = ws.root().to_path_buf();
        let bench_dir = root.join("bench");
        let mut cmd = ws.cargo();
        cmd.args(["build", "--release", "--manifest-path"])
            .arg(bench_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", bench_dir.join("target"));
        println!("bench: {}", process::describe(&cmd));
        process::run_checked(&mut cmd, BUILD_TIMEOUT)?;
        let mut cmd = ws.cargo();
        cmd.args(["build", "--release", "-p", "mcp-cli"]);
        println!("bench: {}", process::describe(&cmd));
        process::run_checked(&mut cmd, BUILD_TIMEOUT)?;
        let release = bench_dir.join("target").join("release");
        let scratch = ws.target_dir().join("bench-scratch");
        if scratch.exists() {
            fs::remove_dir_all(&scratch)
                .with_context(|| format!("cannot clear {}", scratch.display()))?;
        }
        fs::create_dir_all(&scratch)
            .with_context(|| format!("cannot create {}", scratch.display()))?;
        let bench = Self {
            root,
            runner: release.join("bench-runner"),
            server: release.join("bench-server"),
            cli: ws.target_dir().join("release").join("mcp-cli"),
            scratch,
        };
        for program in [&bench.runner, &bench.server, &bench.cli] {
            if !program.is_file() {
                bail!("{} was not built", program.display());
            }
        }
        Ok(bench)
    }

    /// A `bench-runner` command for `bench` with `args` (and the bench server, where one is used).
    fn runner<S: AsRef<OsStr>>(&self, bench: &str, args: &[S]) -> Command {
        let mut cmd = Command::new(&self.runner);
        cmd.arg(bench).args(args);
        if bench != "codec" {
            cmd.arg("--server").arg(&self.server);
        }
        cmd
    }

    /// Runs a `bench-runner` case and returns its measurement and its `bench-result` JSON.
    fn case<S: AsRef<OsStr>>(&self, bench: &str, args: &[S]) -> Result<(Measured, Value)> {
        let cmd = self.runner(bench, args);
        let args: Vec<&OsStr> = cmd.get_args().collect();
        let measured = measure(&self.runner, &self.runner, &args, None, CASE_TIMEOUT)?;
        let result = measured.result(&cmd)?;
        Ok((measured, result))
    }
}

// ---------------------------------------------------------------------------
// Measuring one child process.

/// What the OS said about one finished child.
struct Measured {
    wall: Duration,
    max_rss_kib: u64,
    /// The exit code; `None` when a signal ended it.
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Measured {
    fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// The `bench-result` JSON a successful runner printed.
    fn result(&self, cmd: &Command) -> Result<Value> {
        if !self.success() {
            bail!(
                "`{}` failed ({}): {}",
                process::describe(cmd),
                self.code
                    .map_or_else(|| "killed by a signal".to_owned(), |c| format!("exit {c}")),
                self.stderr.trim()
            );
        }
        let line = self
            .stdout
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix("bench-result "))
            .with_context(|| format!("`{}` printed no bench-result", process::describe(cmd)))?;
        serde_json::from_str(line)
            .with_context(|| format!("`{}` printed invalid JSON", process::describe(cmd)))
    }
}

/// Runs `program` through `bench-runner measure` (killed after `timeout`) and
/// takes its wall time and peak RSS from what the measurer reports.
fn measure<S: AsRef<OsStr>>(
    runner: &Path,
    program: &Path,
    args: &[S],
    current_dir: Option<&Path>,
    timeout: Duration,
) -> Result<Measured> {
    let mut cmd = Command::new(runner);
    cmd.arg("measure")
        .arg("--timeout-secs")
        .arg(timeout.as_secs().to_string())
        .arg("--")
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = current_dir {
        cmd.current_dir(dir);
    }
    let described = process::describe(&cmd);
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{described}`"))?;
    let (pipes_done, pipes) = mpsc::channel::<(bool, String)>();
    let outputs: [(bool, Option<Box<dyn Read + Send>>); 2] = [
        (true, child.stdout.take().map(|p| Box::new(p) as _)),
        (false, child.stderr.take().map(|p| Box::new(p) as _)),
    ];
    for (is_stdout, pipe) in outputs {
        let Some(pipe) = pipe else { continue };
        let done = pipes_done.clone();
        thread::spawn(move || {
            let limit = if is_stdout { MAX_STDOUT } else { MAX_STDERR };
            let _ = done.send((is_stdout, read_bounded(pipe, limit, is_stdout)));
        });
    }
    drop(pipes_done);
    // The measurer kills the program at `timeout`; this bound is for the measurer itself.
    let deadline = Instant::now() + timeout + PIPE_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot poll bench-runner")? {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("`{described}` did not end and was killed");
        }
        thread::sleep(POLL);
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let pipe_deadline = Instant::now() + PIPE_TIMEOUT;
    for _ in 0..2 {
        match pipes.recv_timeout(pipe_deadline.saturating_duration_since(Instant::now())) {
            Ok((true, text)) => stdout = text,
            Ok((false, text)) => stderr = text,
            // A grandchild still holds a pipe: take what there is.
            Err(_) => break,
        }
    }
    if !status.success() {
        bail!("`{described}` failed ({status}): {}", stderr.trim());
    }
    let (output, report) = stdout
        .rsplit_once("bench-measure ")
        .with_context(|| format!("`{described}` reported no measurement"))?;
    let report: Value = serde_json::from_str(report.trim())
        .with_context(|| format!("`{described}` reported invalid JSON"))?;
    Ok(Measured {
        wall: Duration::from_secs_f64(number(&report, "/wall_seconds")?.max(0.0)),
        max_rss_kib: report
            .get("max_rss_kib")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        code: report
            .get("code")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok()),
        stdout: output.to_owned(),
        stderr,
    })
}

/// Reads `pipe` to its end, keeping at most `limit` bytes: the start when
/// `keep_start`, otherwise the end.
fn read_bounded(mut pipe: impl Read, limit: usize, keep_start: bool) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 64 * 1024];
    loop {
        let read = match pipe.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        kept.extend_from_slice(&buffer[..read]);
        if kept.len() > limit {
            if keep_start {
                kept.truncate(limit);
            } else {
                kept.drain(..kept.len() - limit);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

// ---------------------------------------------------------------------------
// Rows of the report.

/// The unit of a row's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    MegabytesPerSecond,
    RequestsPerSecond,
    Microseconds,
    Milliseconds,
    Megabytes,
}

impl Unit {
    fn higher_is_better(self) -> bool {
        matches!(self, Unit::MegabytesPerSecond | Unit::RequestsPerSecond)
    }

    fn format(self, value: f64) -> String {
        match self {
            Unit::MegabytesPerSecond => format!("{value:.1} MB/s"),
            Unit::RequestsPerSecond => format!("{value:.0} req/s"),
            Unit::Microseconds => format!("{value:.1} µs"),
            Unit::Milliseconds => format!("{value:.1} ms"),
            Unit::Megabytes => format!("{value:.1} MB"),
        }
    }
}

/// A target and whether this run met it.
#[derive(Debug, Clone)]
struct Check {
    target: String,
    met: bool,
}

/// One line of the table.
#[derive(Debug, Clone)]
struct Row {
    case: String,
    unit: Unit,
    /// Values of ours, rmcp and the limit.
    values: [Option<f64>; 3],
    /// Peak RSS of ours, rmcp and the limit, in KiB (the largest over rounds).
    rss_kib: [Option<u64>; 3],
    checks: Vec<Check>,
    notes: String,
}

impl Row {
    fn new(case: impl Into<String>, unit: Unit, values: [Option<f64>; 3]) -> Self {
        Self {
            case: case.into(),
            unit,
            values,
            rss_kib: [None; 3],
            checks: Vec::new(),
            notes: String::new(),
        }
    }

    fn with_rss(mut self, rss_kib: [Option<u64>; 3]) -> Self {
        self.rss_kib = rss_kib;
        self
    }

    fn with_notes(mut self, notes: impl Into<String>) -> Self {
        self.notes = notes.into();
        self
    }

    fn ratio(&self, other: usize) -> Option<f64> {
        match (self.values[0], self.values[other]) {
            (Some(ours), Some(theirs)) if theirs > 0.0 => Some(ours / theirs),
            _ => None,
        }
    }

    /// Ours against the limit: throughput at least `factor` of it, or time at most `factor` of it.
    fn limit_target(mut self, factor: f64) -> Self {
        let (target, met) = if self.unit.higher_is_better() {
            (
                format!("≥ {factor}× limit"),
                self.ratio(2).is_some_and(|r| r >= factor),
            )
        } else {
            (
                format!("≤ {factor}× limit"),
                self.ratio(2).is_some_and(|r| r <= factor),
            )
        };
        self.checks.push(Check { target, met });
        self
    }

    /// Ours at least as good as rmcp.
    fn rmcp_target(mut self) -> Self {
        let met = self.ratio(1).is_some_and(|r| {
            if self.unit.higher_is_better() {
                r >= 1.0
            } else {
                r <= 1.0
            }
        });
        self.checks.push(Check {
            target: "≥ rmcp".into(),
            met,
        });
        self
    }

    fn target(mut self, target: impl Into<String>, met: bool) -> Self {
        self.checks.push(Check {
            target: target.into(),
            met,
        });
        self
    }
}

/// The median of `values`; `None` when empty.
fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    Some(sorted[sorted.len() / 2])
}

/// Samples and peak RSS gathered for one contender over the rounds.
#[derive(Debug, Clone, Default)]
struct Gathered {
    samples: Vec<f64>,
    /// A second series (p99, memory growth, connections …).
    extra: Vec<f64>,
    rss_kib: Option<u64>,
}

impl Gathered {
    fn note_rss(&mut self, kib: u64) {
        self.rss_kib = Some(self.rss_kib.map_or(kib, |old| old.max(kib)));
    }
}

fn medians(gathered: &[Gathered; 3]) -> [Option<f64>; 3] {
    [0, 1, 2].map(|i| median(&gathered[i].samples))
}

fn extra_medians(gathered: &[Gathered; 3]) -> [Option<f64>; 3] {
    [0, 1, 2].map(|i| median(&gathered[i].extra))
}

fn peaks(gathered: &[Gathered; 3]) -> [Option<u64>; 3] {
    [0, 1, 2].map(|i| gathered[i].rss_kib)
}

fn number(value: &Value, pointer: &str) -> Result<f64> {
    value
        .pointer(pointer)
        .and_then(Value::as_f64)
        .with_context(|| format!("result has no number at {pointer}: {value}"))
}

// ---------------------------------------------------------------------------
// B1: codec throughput and memory.

fn codec(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
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

// ---------------------------------------------------------------------------
// B2: stdio request latency and throughput.

fn stdio(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    let cases = [
        ("ping", "sequential", "5000", "500"),
        ("tools", "sequential", "2000", "200"),
        ("ping", "inflight", "20000", "500"),
        ("tools", "inflight", "2000", "200"),
    ];
    for (method, mode, requests, warmup) in cases {
        let mut gathered: [Gathered; 3] = Default::default();
        for round in 0..ROUNDS {
            for (index, contender) in CONTENDERS.iter().enumerate() {
                println!(
                    "bench: B2 {method} {mode} {contender} (round {})",
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
        if mode == "sequential" {
            rows.push(
                Row::new(
                    format!("B2 stdio {request}, sequential: median latency"),
                    Unit::Microseconds,
                    medians(&gathered),
                )
                .with_rss(peaks(&gathered))
                .limit_target(1.2),
            );
            rows.push(
                Row::new(
                    format!("B2 stdio {request}, sequential: p99 latency"),
                    Unit::Microseconds,
                    extra_medians(&gathered),
                )
                .with_rss(peaks(&gathered)),
            );
        } else {
            rows.push(
                Row::new(
                    format!("B2 stdio {request}, 64 in flight: throughput"),
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

// ---------------------------------------------------------------------------
// B4: Streamable HTTP.

fn http(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
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

// ---------------------------------------------------------------------------
// B3: discovery wall time.

/// One of B3's server sets.
struct ServerSet {
    label: &'static str,
    start_delay_ms: u64,
}

fn discovery(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
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
        let mut singles = Vec::with_capacity(largest);
        let mut single_rss = 0;
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
            singles.push(measured.wall.as_secs_f64() * 1e3);
            single_rss = single_rss.max(measured.max_rss_kib);
        }
        for servers in SERVER_COUNTS {
            discovery_case(bench, set, servers, &singles, single_rss, rows)?;
        }
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
    singles: &[f64],
    single_rss: u64,
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
    // rmcp's loop is sequential: one round when a run would take long.
    let rmcp_rounds = if servers as u64 * set.start_delay_ms > 3000 {
        1
    } else {
        ROUNDS
    };
    let mut gathered: [Gathered; 3] = Default::default();
    let mut wide = Gathered::default();
    for round in 0..ROUNDS {
        println!(
            "bench: B3 {} N={servers} ours (round {})",
            set.label,
            round + 1
        );
        let measured = run_cli(&["--refresh", "--json", "discover"], "discover")?;
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
        if servers > 16 {
            println!(
                "bench: B3 {} N={servers} ours --concurrency {servers} (round {})",
                set.label,
                round + 1
            );
            let concurrency = servers.to_string();
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
            wide.samples.push(measured.wall.as_secs_f64() * 1e3);
            wide.note_rss(measured.max_rss_kib);
        }
    }
    let limit = singles.iter().take(servers).copied().fold(0.0, f64::max);
    gathered[2].samples.push(limit);
    gathered[2].rss_kib = Some(single_rss);
    let mut row = Row::new(
        format!("B3 discovery, {servers} server(s), {}: wall time", set.label),
        Unit::Milliseconds,
        medians(&gathered),
    )
    .with_rss(peaks(&gathered))
    .with_notes(format!(
        "ours = `mcp-cli --refresh --json discover` (default concurrency 16); rmcp median of {rmcp_rounds} run(s)"
    ));
    if servers == 50 {
        row = row.limit_target(1.15);
    }
    rows.push(row);
    if servers > 16 {
        let values = [median(&wide.samples), None, Some(limit)];
        rows.push(
            Row::new(
                format!(
                    "B3 discovery, {servers} servers, {}, `--concurrency {servers}`: wall time",
                    set.label
                ),
                Unit::Milliseconds,
                values,
            )
            .with_rss([wide.rss_kib, None, Some(single_rss)])
            .with_notes("for comparison: every server started at once"),
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
    let starts_before = count_lines(start_log);
    let mut gathered = Gathered::default();
    let mut tools = 0;
    for round in 0..5 {
        println!(
            "bench: B3 {} N={servers} cached tools (run {})",
            set.label,
            round + 1
        );
        let measured = run_cli(&["--json", "tools"], "cached tools")?;
        gathered.samples.push(measured.wall.as_secs_f64() * 1e3);
        gathered.note_rss(measured.max_rss_kib);
        let document: Value = serde_json::from_str(&measured.stdout)
            .context("`mcp-cli tools --json` printed invalid JSON")?;
        tools = document
            .get("tools")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
    }
    let started = count_lines(start_log).saturating_sub(starts_before);
    let wall = median(&gathered.samples);
    rows.push(
        Row::new(
            format!(
                "B3 cached `mcp-cli --json tools`, {servers} servers, {}: wall time",
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
    Ok(())
}

fn count_lines(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

// ---------------------------------------------------------------------------
// The report.

fn fixed(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.decimals$}"))
}

fn megabytes(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "—".to_owned(),
        |k| format!("{:.0}", k as f64 * 1024.0 / 1e6),
    )
}

fn render(rows: &[Row], bench: &Bench, elapsed: Duration) -> String {
    let mut out = String::new();
    let cpus = thread::available_parallelism().map_or(0, usize::from);
    let _ = writeln!(out, "# Benchmarks: ours, rmcp and the limit\n");
    let _ = writeln!(
        out,
        "- Machine: {cpus} CPU(s), {}; Linux {}.",
        cpu_model(),
        fs::read_to_string("/proc/sys/kernel/osrelease")
            .map_or_else(|_| "?".to_owned(), |s| s.trim().to_owned())
    );
    let _ = writeln!(
        out,
        "- rmcp {} (bench/Cargo.lock); everything built in release mode.",
        rmcp_version(&bench.root)
    );
    let _ = writeln!(
        out,
        "- Method: the harness (no criterion): every case × contender is its own child process; \
         {ROUNDS} rounds with contenders alternating within each; a value is the median over rounds \
         (for B1, over rounds × passes, after one untimed pass per process). Peak RSS is the OS's ru_maxrss of that process and the processes it reaped, \
         taken by `bench-runner measure` (whose own ~2 MB it includes), in MB."
    );
    let _ = writeln!(
        out,
        "- Limits: B1 `serde_json::from_slice::<Value>` on lines already split; B2 blocking write-a-line, \
         read-a-line with no protocol logic; B3 the slowest single server's own whole-process time \
         (spawn, initialize, tools/list, reap), each server measured alone; B4 a pooled reqwest POST loop \
         that reads the body and decodes nothing."
    );
    let _ = writeln!(
        out,
        "- Ratios are of the row's unit: for MB/s and req/s higher is better, for times and MB lower is better.\n"
    );
    let _ = writeln!(
        out,
        "| case | ours | rmcp | limit | ours/limit | ours/rmcp | peak RSS ours / rmcp / limit (MB) | target | notes |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let value =
            |index: usize| row.values[index].map_or_else(|| "—".to_owned(), |v| row.unit.format(v));
        let ratio = |index: usize| {
            row.ratio(index)
                .map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×"))
        };
        let checks = if row.checks.is_empty() {
            "—".to_owned()
        } else {
            row.checks
                .iter()
                .map(|c| format!("{}: {}", c.target, if c.met { "met" } else { "**MISSED**" }))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} / {} / {} | {} | {} |",
            row.case,
            value(0),
            value(1),
            value(2),
            ratio(2),
            ratio(1),
            megabytes(row.rss_kib[0]),
            megabytes(row.rss_kib[1]),
            megabytes(row.rss_kib[2]),
            checks,
            if row.notes.is_empty() {
                "—"
            } else {
                &row.notes
            },
        );
    }
    let missed: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            row.checks
                .iter()
                .filter(|c| !c.met)
                .map(move |c| format!("{} ({})", row.case, c.target))
        })
        .collect();
    let _ = writeln!(out);
    if missed.is_empty() {
        let _ = writeln!(out, "Every target met.");
    } else {
        let _ = writeln!(out, "Missed targets ({}):", missed.len());
        for miss in missed {
            let _ = writeln!(out, "- {miss}");
        }
    }
    let _ = writeln!(
        out,
        "\nTotal time of `cargo xtask bench`: {:.0} s.",
        elapsed.as_secs_f64()
    );
    out
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .and_then(|rest| rest.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

fn rmcp_version(root: &Path) -> String {
    let lock = fs::read_to_string(root.join("bench").join("Cargo.lock")).unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"rmcp\"" {
            if let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return version.trim_matches('"').to_owned();
            }
        }
    }
    "?".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measurement_needs_the_measurers_report() {
        // `sh` stands in for bench-runner: it runs, but reports nothing.
        let outcome = measure(
            Path::new("sh"),
            Path::new("true"),
            &["-c", "echo 'bench-result {}'"],
            None,
            Duration::from_secs(30),
        );
        assert!(outcome.is_err());
    }

    #[test]
    fn results_come_from_the_last_bench_result_line() {
        let cmd = Command::new("x");
        let measured = Measured {
            wall: Duration::from_millis(5),
            max_rss_kib: 1024,
            code: Some(0),
            stdout: "noise\nbench-result {\"x\": 1}\nbench-result {\"x\": 2}\n".into(),
            stderr: String::new(),
        };
        assert_eq!(measured.result(&cmd).unwrap()["x"], 2);
        let failed = Measured {
            code: Some(3),
            ..measured
        };
        assert!(failed.result(&cmd).is_err());
    }

    #[test]
    fn bounded_reads_keep_the_start_or_the_end() {
        assert_eq!(read_bounded(&b"abcdef"[..], 4, true), "abcd");
        assert_eq!(read_bounded(&b"abcdef"[..], 4, false), "cdef");
        assert_eq!(read_bounded(&b"ab"[..], 4, false), "ab");
    }

    #[test]
    fn ratios_and_targets_follow_the_unit() {
        let row = Row::new(
            "t",
            Unit::MegabytesPerSecond,
            [Some(90.0), Some(100.0), Some(100.0)],
        )
        .limit_target(0.8)
        .rmcp_target();
        assert_eq!(row.ratio(2), Some(0.9));
        assert!(row.checks[0].met);
        assert!(!row.checks[1].met);
        let row = Row::new(
            "t",
            Unit::Microseconds,
            [Some(11.0), Some(20.0), Some(10.0)],
        )
        .limit_target(1.2)
        .rmcp_target();
        assert!(row.checks[0].met);
        assert!(row.checks[1].met);
        let row = Row::new("t", Unit::Milliseconds, [Some(1.0), None, None]).limit_target(1.15);
        assert!(!row.checks[0].met);
    }

    #[test]
    fn median_skips_nothing_but_non_finite_values() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn the_report_has_a_row_per_case_and_lists_misses() {
        let bench = Bench {
            root: PathBuf::from("/nonexistent"),
            runner: PathBuf::new(),
            server: PathBuf::new(),
            cli: PathBuf::new(),
            scratch: PathBuf::new(),
        };
        let rows = vec![
            Row::new(
                "a case",
                Unit::RequestsPerSecond,
                [Some(5.0), Some(10.0), None],
            )
            .with_rss([Some(2048), None, Some(1024)])
            .rmcp_target(),
        ];
        let text = render(&rows, &bench, Duration::from_secs(3));
        assert!(text.contains("| a case | 5 req/s | 10 req/s | — | — | 0.50× | 2 / — / 1 |"));
        assert!(text.contains("Missed targets (1):\n- a case (≥ rmcp)"));
        assert!(text.contains("CPU(s)"));
    }
}
