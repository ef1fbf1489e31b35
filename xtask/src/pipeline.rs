//! `cargo xtask test`: the project's single test command.
//!
//! fmt check -> the dependency budget (`cargo tree`, no build) -> the
//! import circles (`syn` over the sources, no build) -> clippy +
//! build (one compilation, linted as it builds) ->
//! publishable (package, man page) -> the MSRV check, the feature
//! combinations, the fresh client project (`mcpdisco-client` with only
//! `stdio`, from outside the workspace), the Windows check and the fuzz
//! build side by side -> tests
//! (nextest when installed, then the doc tests)
//! -> conformance -> the bench crate's own tests (`bench/`, its own
//! workspace) -> fuzz smoke, each step timed. The downloads (node, the
//! venv, Redis; the MSRV toolchain and the Windows target) run in the
//! background from the start, and the steps needing them wait for them. It
//! ends with every step's time, the slowest, and one line `tests: N
//! passed, M failed`.

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::conformance;
use crate::deps;
use crate::fresh_client;
use crate::fuzz;
use crate::imports;
use crate::process::{self, Stream};
use crate::release;
use crate::tally::{Counts, parse_nextest_summary, parse_test_result};
use crate::tools::Tools;
use crate::workspace::{self, Workspace};

const FMT_TIMEOUT: Duration = Duration::from_secs(5 * 60);
const BUILD_TIMEOUT: Duration = Duration::from_secs(40 * 60);
const TEST_TIMEOUT: Duration = Duration::from_secs(40 * 60);

/// Seconds each fuzz target runs during `test`.
pub const FUZZ_SMOKE_SECONDS: u64 = 10;

/// Runs every step and returns the summed counts (a failed step without its own counts adds one failure).
pub fn run(ws: &Workspace, tools: &Tools) -> Counts {
    let started = Instant::now();
    let mut total = Steps::default();
    // Downloads (npm, pip, apt; rustup's MSRV toolchain and Windows target)
    // wait on the network, not the CPU: they run beside the first steps, and
    // the steps needing them wait for them. Everything else competes for the
    // CPU, so it runs one step after the other.
    let setup = Background::start("setup", {
        let tools = tools.clone();
        move || tools.setup()
    });
    let toolchains = Background::start("toolchains", {
        let ws = ws.clone();
        move || {
            release::install_toolchains(&ws)?;
            release::install_windows_target()
        }
    });
    step(
        "fmt",
        || cargo_step(ws, &["fmt", "--all", "--check"], FMT_TIMEOUT),
        &mut total,
    );
    step(
        "deps",
        || deps::run(ws).map(|()| Counts::default()),
        &mut total,
    );
    step(
        "imports",
        || imports::run(ws).map(|()| Counts::default()),
        &mut total,
    );
    // One compilation of every target, linted by clippy as it builds: the
    // CLI and interop tests run other packages' binaries (mcp-cli, the
    // example server), and the test and conformance steps reuse it.
    let built = step("clippy + build", || lint_and_build(ws), &mut total);
    step(
        "publishable",
        || {
            release::package(ws)?;
            // The binary the build step made: no build of its own.
            release::man_of(ws, &ws.debug_binary("mcp-cli"))?;
            Ok(Counts::default())
        },
        &mut total,
    );
    if toolchains.join(&mut total) {
        // Four builds none of which the tests need, three in target folders
        // of their own and the feature combinations in the workspace's
        // (reusing its build scripts and proc macros): each spends its last
        // seconds on one crate at a time, so side by side they keep both
        // cores busy.
        step(
            "msrv + features + windows + fuzz build",
            || {
                let failures: Vec<String> = thread::scope(|scope| {
                    let windows = scope.spawn(|| release::check_windows(ws));
                    let fuzz = scope.spawn(|| fuzz::prepare(ws, tools, fuzz::Build::Smoke));
                    let features = scope.spawn(|| release::check_feature_combinations(ws));
                    let fresh = scope.spawn(|| fresh_client::run(ws));
                    let msrv = release::check_on_msrv(ws);
                    [
                        ("the MSRV check", msrv),
                        ("the feature combinations", joined(features)),
                        ("the fresh client project", joined(fresh)),
                        ("the Windows check", joined(windows)),
                        ("the fuzz build", joined(fuzz)),
                    ]
                    .into_iter()
                    .filter_map(|(what, result)| result.err().map(|err| format!("{what}: {err:#}")))
                    .collect()
                });
                if failures.is_empty() {
                    Ok(Counts::default())
                } else {
                    anyhow::bail!("{}", failures.join("; "))
                }
            },
            &mut total,
        );
    } else {
        println!("msrv and windows checks: skipped because the toolchains are missing");
        total.counts.failed += 1;
    }
    let setup_ok = setup.join(&mut total);
    if setup_ok && built {
        step("tests", || run_tests(ws, tools), &mut total);
        step(
            "conformance",
            || {
                conformance::run(ws, tools, &conformance::Options::default()).map(|t| Counts {
                    passed: u64::from(t.passed),
                    failed: u64::from(t.failed),
                })
            },
            &mut total,
        );
    } else {
        println!("tests and conformance: skipped because the setup or the build failed");
        total.counts.failed += 2;
    }
    step("bench crate tests", || bench_crate_tests(ws), &mut total);
    step(
        "fuzz smoke",
        // Built above; `cargo fuzz run` only checks that it is fresh.
        || {
            fuzz::run_targets(ws, tools, FUZZ_SMOKE_SECONDS, fuzz::Build::Smoke)
                .map(|()| Counts::default())
        },
        &mut total,
    );
    println!("\n==> step times");
    for (name, took) in &total.timings {
        let waited = total.background.iter().any(|(other, _)| other == name);
        let note = if waited { "  (waiting for it)" } else { "" };
        println!("    {name:<16} {:>8}{note}", seconds(*took));
    }
    for (name, took) in &total.background {
        println!("    {name:<16} {:>8}  (in the background)", seconds(*took));
    }
    println!("==> all steps took {}", seconds(started.elapsed()));
    if let Some((name, took)) = total.slowest() {
        println!("==> slowest step: {name} ({})", seconds(took));
    }
    total.counts
}

/// The result of a scoped thread's work (a panic is an error).
fn joined(handle: thread::ScopedJoinHandle<'_, Result<()>>) -> Result<()> {
    handle
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("its thread panicked")))
}

/// A step run on a thread of its own while the others go on; its output
/// interleaves with theirs, line by line.
struct Background {
    name: &'static str,
    started: Instant,
    outcome: Outcome,
}

/// What a background step's thread hands back: its result and its own time.
type Finished = (Result<()>, Duration);

enum Outcome {
    Running(thread::JoinHandle<Finished>),
    /// The thread could not be started.
    NotStarted(std::io::Error),
}

impl Background {
    /// Starts `body` on a thread of its own.
    fn start(name: &'static str, body: impl FnOnce() -> Result<()> + Send + 'static) -> Self {
        println!("\n==> {name} (in the background)");
        let started = Instant::now();
        let timed = move || {
            let result = body();
            (result, started.elapsed())
        };
        let outcome = match thread::Builder::new().name(name.to_owned()).spawn(timed) {
            Ok(handle) => Outcome::Running(handle),
            Err(err) => Outcome::NotStarted(err),
        };
        Self {
            name,
            started,
            outcome,
        }
    }

    /// Waits for the step, reports it like any other (with the time it
    /// took, and how long this waited for it) and returns whether it succeeded.
    fn join(self, total: &mut Steps) -> bool {
        let Self {
            name,
            started,
            outcome,
        } = self;
        let waiting = Instant::now();
        let (result, elapsed) = match outcome {
            Outcome::Running(handle) => handle.join().unwrap_or_else(|_| {
                (
                    Err(anyhow::anyhow!("the {name} thread panicked")),
                    started.elapsed(),
                )
            }),
            Outcome::NotStarted(err) => (
                Err(anyhow::anyhow!("cannot start a thread: {err}")),
                Duration::ZERO,
            ),
        };
        let waited = waiting.elapsed();
        total.background.push((name, elapsed));
        if waited >= Duration::from_millis(500) {
            total.timings.push((name, waited));
        }
        let took = seconds(elapsed);
        let waited = seconds(waited);
        match result {
            Ok(()) => {
                println!("\n==> {name}: ok in {took} (in the background; waited {waited} for it)");
                true
            }
            Err(err) => {
                total.counts.failed += 1;
                println!(
                    "\n==> {name}: FAILED in {took} (in the background; waited {waited} for it): {err:#}"
                );
                false
            }
        }
    }
}

/// The counts of the steps run so far, and how long each took.
#[derive(Default)]
struct Steps {
    counts: Counts,
    timings: Vec<(&'static str, Duration)>,
    /// The background steps: their time overlaps the others'.
    background: Vec<(&'static str, Duration)>,
}

impl Steps {
    /// The step that took longest, and its time (of those run one after
    /// the other: a background step's time overlaps theirs).
    fn slowest(&self) -> Option<(&'static str, Duration)> {
        self.timings.iter().copied().max_by_key(|(_, took)| *took)
    }
}

/// Runs one step with a header and timing. A step error counts as one failure. Returns whether it succeeded.
fn step(name: &'static str, body: impl FnOnce() -> Result<Counts>, total: &mut Steps) -> bool {
    println!("\n==> {name}");
    let started = Instant::now();
    let outcome = body();
    let elapsed = started.elapsed();
    total.timings.push((name, elapsed));
    let took = seconds(elapsed);
    match outcome {
        Ok(counts) => {
            total.counts.add(counts);
            let verdict = if counts.failed == 0 { "ok" } else { "FAILED" };
            println!("==> {name}: {verdict} in {took}");
            counts.failed == 0
        }
        Err(err) => {
            total.counts.failed += 1;
            println!("==> {name}: FAILED in {took}: {err:#}");
            false
        }
    }
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.1}s", elapsed.as_secs_f64())
}

fn cargo_step(ws: &Workspace, args: &[&str], timeout: Duration) -> Result<Counts> {
    let mut cmd = ws.cargo();
    cmd.args(args);
    process::run_checked(&mut cmd, timeout)?;
    Ok(Counts::default())
}

/// `cargo build` of every target through clippy ([`Workspace::build_for_tests`]).
/// Any warning (clippy's, rustc's or cargo's) fails the step, as `cargo
/// clippy -- -D warnings` would, but only once everything is built: the
/// tests still run and report.
fn lint_and_build(ws: &Workspace) -> Result<Counts> {
    let mut cmd = ws.build_for_tests()?;
    println!("build: {}", process::describe(&cmd));
    let mut warnings = 0_u64;
    let finished = process::run_streaming(&mut cmd, BUILD_TIMEOUT, |stream, line| {
        if stream == Stream::Stderr && workspace::is_warning(line) {
            warnings += 1;
        }
    })?;
    if !finished.success() {
        anyhow::bail!("the build failed ({})", process::status_text(&finished));
    }
    if warnings > 0 {
        anyhow::bail!(
            "{warnings} warning(s) above (clippy, rustc or cargo); the build itself is complete"
        );
    }
    Ok(Counts::default())
}

/// The tests: with cargo-nextest when it is installed (every test binary
/// at once, each test in a process of its own; then the doc tests, which
/// nextest does not run), else `cargo test`. Either way through clippy like
/// the build step, or cargo would compile every workspace crate again.
fn run_tests(ws: &Workspace, tools: &Tools) -> Result<Counts> {
    let with_env = |mut cmd: Command| {
        cmd.env("MCP_TOOLS_DIR", tools.dir())
            .env("MCP_REQUIRE_TOOLS", "1")
            // The client crate's doc example runs this server (built above)
            // instead of building one of its own.
            .env("MCP_EXAMPLE_SERVER", ws.debug_binary("mcp-example-server"));
        cmd
    };
    if !nextest_installed(ws) {
        println!("tests: cargo-nextest is not installed; running cargo test");
        let mut cmd = with_env(ws.cargo_through_clippy()?);
        cmd.args(["test", "--workspace"]);
        return counted(&mut cmd, "cargo test");
    }
    // The tests mostly wait on the servers they start: two per core.
    let threads = thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let mut nextest = with_env(ws.cargo_through_clippy()?);
    nextest.args(["nextest", "run", "--workspace", "--no-fail-fast"]);
    nextest.arg(format!("--test-threads={threads}"));
    let mut counts = counted(&mut nextest, "cargo nextest")?;
    let mut doc = with_env(ws.cargo_through_clippy()?);
    doc.args(["test", "--workspace", "--doc"]);
    counts.add(counted(&mut doc, "the doc tests")?);
    Ok(counts)
}

/// The bench crate's own tests (`bench/`: its own workspace and target
/// folder, both sides in one build; see `cargo xtask bench`).
fn bench_crate_tests(ws: &Workspace) -> Result<Counts> {
    let bench = ws.root().join("bench");
    let mut cmd = ws.cargo();
    cmd.arg("test")
        .arg("--manifest-path")
        .arg(bench.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", bench.join("target"));
    counted(&mut cmd, "the bench crate's tests")
}

/// Whether `cargo nextest` runs here.
fn nextest_installed(ws: &Workspace) -> bool {
    let mut cmd = ws.cargo();
    cmd.args(["nextest", "--version"]);
    process::run_quiet(&mut cmd, Duration::from_secs(60), |_, _| {}).is_ok_and(|f| f.success())
}

/// Runs a test command and counts its tests from its result lines (cargo's
/// `test result:` or nextest's `Summary`).
fn counted(cmd: &mut Command, what: &str) -> Result<Counts> {
    let mut counts = Counts::default();
    let finished = process::run_streaming(cmd, TEST_TIMEOUT, |_, line| {
        if let Some(found) = parse_test_result(line).or_else(|| parse_nextest_summary(line)) {
            counts.add(found);
        }
    })?;
    if !finished.success() && counts.failed == 0 {
        // Build failure, timeout or a crashed test binary: no result line carries the failure.
        println!(
            "{what} ended with {} without a failing test count",
            process::status_text(&finished)
        );
        counts.failed += 1;
    }
    Ok(counts)
}
