//! `cargo xtask bench`: our client side by side with rmcp and with a floor (a
//! raw baseline with no protocol logic), as ratios measured in the same run.
//!
//! It builds the bench crate (`bench/`, outside the workspace; its tests run
//! in `cargo xtask test`) and `mcp-cli` in the `profiling` profile (release
//! code with line tables, for perf). The bench crate is built twice, each
//! side as its users build it, in a target folder of its own so that
//! feature unification cannot leak one side's serde_json features into the
//! other's: [`OURS_FEATURES`] (our crates, with `preserve_order` and
//! `raw_value` as our workspace turns them on) and [`PEERS_FEATURES`] (rmcp
//! and the raw floors, with serde_json's default features, as rmcp's users
//! get it). It runs every case ×
//! contender as its own child process: `bench-runner` for B1, B2, B4 and the
//! rmcp and raw sides of B3, `mcp-cli` itself for our side of B3. Each goes
//! through `bench-runner measure`, a small process whose only child it is,
//! which reports the wall time, the peak RSS and the CPU time the OS gives
//! (`getrusage(RUSAGE_CHILDREN)`: over the child and the processes it reaped). Linux counts the spawner's own peak into a child's at `exec`,
//! so the spawner must be small: this harness, which holds results, is not.
//! Contenders alternate within each round, so drift on a shared machine hits
//! all of them alike; a value is the median over rounds (and over passes, for
//! B1). Then it runs the criterion micro-benchmarks of our decoders
//! ([`criterion`]), with B5 the criterion bench of tool search, and with
//! B9 (the gateway as a fleet behind HAProxy) that of sealed session ids.
//! The report (machine, commit, date, every row) is
//! printed and written to [`REPORT`], which `docs/performance.md` quotes:
//! commit the report of the run the docs quote. A run of some cases
//! (`--only`) writes `target/bench-report.md` instead.
//!
//! | module | what |
//! |---|---|
//! | [`b1_codec`], [`b2_stdio`], [`b3_discovery`], [`b4_http`], [`b5_gateway`], [`b5_fronts`], [`b6_real`], [`b7_policies`], [`b8_telemetry`], [`b9_fleet`] | the cases, each adding its rows |
//! | [`measure`] | one child process measured through `bench-runner measure` |
//! | [`report`] | rows, targets and the Markdown report |
//! | [`run_info`] | the machine, commit, date and toolchain a report names |
//! | [`criterion`] | the codec and tool-search micro-benchmarks, read back from criterion's estimates |

mod b1_codec;
mod b2_stdio;
mod b3_discovery;
mod b4_http;
mod b5_fronts;
mod b5_gateway;
mod b5_hop;
mod b6_real;
mod b7_policies;
mod b8_telemetry;
mod b9_fleet;
mod criterion;
mod measure;
mod report;
mod run_info;

use std::ffi::OsStr;
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::process;
use crate::workspace::Workspace;

use measure::{Measured, number};
use report::median;

/// Where the report of a full run is written, from the workspace root.
pub const REPORT: &str = "docs/bench/report.md";
/// Where the report of a run of some cases (`--only`) is written, from the
/// workspace's target folder: it never replaces the full one.
const PARTIAL_REPORT: &str = "bench-report.md";
/// The bench crate's features for our side.
pub const OURS_FEATURES: &str = "ours";
/// The bench crate's features for rmcp and the raw floors.
pub const PEERS_FEATURES: &str = "peers";

/// Time allowed for building the bench crate and mcp-cli.
const BUILD_TIMEOUT: Duration = Duration::from_secs(40 * 60);
/// Time allowed for one case × contender process.
const CASE_TIMEOUT: Duration = Duration::from_secs(5 * 60);
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

/// Runs every benchmark (or those in `only`), prints the report and writes
/// it to [`REPORT`] (a full run) or `target/bench-report.md` (some cases).
pub fn run(ws: &Workspace, only: &[String]) -> Result<()> {
    let started = Instant::now();
    let known = ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9"];
    if let Some(unknown) = only.iter().find(|case| !known.contains(&case.as_str())) {
        bail!(
            "no bench case '{unknown}'; the cases are {}",
            known.join(", ")
        );
    }
    let wanted = |case: &str| only.is_empty() || only.iter().any(|o| o == case);
    let bench = Bench::build(ws)?;
    let mut rows = Vec::new();
    if wanted("b1") {
        b1_codec::run(&bench, &mut rows)?;
    }
    if wanted("b2") {
        b2_stdio::run(&bench, &mut rows)?;
    }
    if wanted("b4") {
        b4_http::run(&bench, &mut rows)?;
    }
    if wanted("b5") {
        b5_gateway::run(&bench, &mut rows)?;
        b5_fronts::run(&bench, ws, &mut rows)?;
        let searched = criterion::run(ws, "tool_search")?;
        b5_gateway::tool_search_row(&searched, &mut rows);
        let hop = criterion::run(ws, "serve_hop")?;
        let criterion_dir = side_target_dir(ws, OURS_FEATURES).join("criterion");
        rows.push(b5_hop::row(&hop, b5_hop::allocations(&criterion_dir)));
    }
    if wanted("b3") {
        b3_discovery::run(&bench, &mut rows)?;
    }
    if wanted("b6") {
        b6_real::run(&bench, ws, &mut rows)?;
    }
    if wanted("b7") {
        b7_policies::run(&bench, &mut rows)?;
    }
    if wanted("b8") {
        b8_telemetry::run(&bench, &mut rows)?;
    }
    if wanted("b9") {
        b9_fleet::run(&bench, ws, &mut rows)?;
    }
    // The decoder micro-benchmarks go with B1.
    let micro = if wanted("b1") {
        criterion::run(ws, "codecs")?
    } else {
        Default::default()
    };
    let run = run_info::RunInfo::gather(ws.root(), only, ROUNDS, started.elapsed());
    let report = report::render(&rows, &micro, &run);
    println!("\n{report}");
    let path = if only.is_empty() {
        ws.root().join(REPORT)
    } else {
        ws.target_dir().join(PARTIAL_REPORT)
    };
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    fs::write(&path, &report).with_context(|| format!("cannot write {}", path.display()))?;
    println!("bench: report written to {}", path.display());
    Ok(())
}

/// The built programs and the scratch directory.
struct Bench {
    /// `bench-runner` of our side (features [`OURS_FEATURES`]); it also
    /// measures every process and writes the configs.
    runner: PathBuf,
    /// `bench-runner` of rmcp and the raw floors (features [`PEERS_FEATURES`]).
    peers_runner: PathBuf,
    server: PathBuf,
    cli: PathBuf,
    scratch: PathBuf,
}

impl Bench {
    /// Builds each side of the bench crate (each in its own target folder)
    /// and mcp-cli (the workspace's), in the `profiling` profile.
    fn build(ws: &Workspace) -> Result<Self> {
        let root = ws.root().to_path_buf();
        let bench_dir = root.join("bench");
        for features in [OURS_FEATURES, PEERS_FEATURES] {
            let mut cmd = ws.cargo();
            cmd.args(["build", "--profile", "profiling", "--manifest-path"])
                .arg(bench_dir.join("Cargo.toml"))
                .args(["--no-default-features", "--features", features])
                .env("CARGO_TARGET_DIR", side_target_dir(ws, features));
            println!("bench: {}", process::describe(&cmd));
            process::run_checked(&mut cmd, BUILD_TIMEOUT)?;
        }
        let mut cmd = ws.cargo();
        cmd.args(["build", "--profile", "profiling", "-p", "mcpdisco-cli"]);
        println!("bench: {}", process::describe(&cmd));
        process::run_checked(&mut cmd, BUILD_TIMEOUT)?;
        let release = side_target_dir(ws, OURS_FEATURES).join("profiling");
        let scratch = ws.target_dir().join("bench-scratch");
        if scratch.exists() {
            fs::remove_dir_all(&scratch)
                .with_context(|| format!("cannot clear {}", scratch.display()))?;
        }
        fs::create_dir_all(&scratch)
            .with_context(|| format!("cannot create {}", scratch.display()))?;
        let bench = Self {
            runner: release.join("bench-runner"),
            peers_runner: side_target_dir(ws, PEERS_FEATURES)
                .join("profiling")
                .join("bench-runner"),
            server: release.join("bench-server"),
            cli: ws.target_dir().join("profiling").join("mcp-cli"),
            scratch,
        };
        for program in [
            &bench.runner,
            &bench.peers_runner,
            &bench.server,
            &bench.cli,
        ] {
            if !program.is_file() {
                bail!("{} was not built", program.display());
            }
        }
        Ok(bench)
    }

    /// The `bench-runner` of the side whose `--contender` `args` name:
    /// rmcp and raw are the peers'; anything else is ours.
    fn runner_for<S: AsRef<OsStr>>(&self, args: &[S]) -> &PathBuf {
        let peers = args.windows(2).any(|pair| {
            pair[0].as_ref() == "--contender"
                && matches!(pair[1].as_ref().to_str(), Some("rmcp" | "raw"))
        });
        if peers {
            &self.peers_runner
        } else {
            &self.runner
        }
    }

    /// A `bench-runner` command for `bench` with `args` (and the bench server,
    /// where one is used), of the side the arguments' contender is on.
    fn runner<S: AsRef<OsStr>>(&self, bench: &str, args: &[S]) -> Command {
        let mut cmd = Command::new(self.runner_for(args));
        cmd.arg(bench).args(args);
        if bench != "codec" && bench != "real" {
            cmd.arg("--server").arg(&self.server);
        }
        cmd
    }

    /// Runs a `bench-runner` case and returns its measurement and its `bench-result` JSON.
    fn case<S: AsRef<OsStr>>(&self, bench: &str, args: &[S]) -> Result<(Measured, Value)> {
        self.case_with_env(bench, args, &[])
    }

    /// Like [`case`](Self::case), with `env` added to the case's environment
    /// (and so to the programs it starts).
    fn case_with_env<S: AsRef<OsStr>>(
        &self,
        bench: &str,
        args: &[S],
        env: &[(&str, &str)],
    ) -> Result<(Measured, Value)> {
        let cmd = self.runner(bench, args);
        let program = PathBuf::from(cmd.get_program());
        let args: Vec<&OsStr> = cmd.get_args().collect();
        let measured =
            measure::measure_with_env(&self.runner, &program, &args, None, CASE_TIMEOUT, env)?;
        let result = measured.result(&cmd)?;
        Ok((measured, result))
    }
}

/// The target folder of the bench crate built with `features`.
fn side_target_dir(ws: &Workspace, features: &str) -> PathBuf {
    ws.root().join("bench").join("target").join(features)
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
