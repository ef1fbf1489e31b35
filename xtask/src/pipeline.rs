//! `cargo xtask test`: the project's single test command.
//!
//! fmt check -> the dependency budget (`cargo tree`, no build) -> the
//! import circles (`syn` over the sources, no build) -> clippy +
//! build (one compilation, linted as it builds) ->
//! publishable (package, man page) -> the MSRV check, the feature
//! combinations, the fresh client project (`mcpdisco-client` with only
//! `stdio`, from outside the workspace), the Windows check and the fuzz
//! build side by side -> fuzz smoke -> tests
//! (nextest when installed, then the library crates' unit tests without
//! default features, then the doc tests)
//! -> conformance -> the bench crate's own tests (`bench/`, its own
//! workspace), each step timed; the deployment files are
//! checked once the tools are in (`deploy`). The downloads (node, the
//! venv, Redis; the MSRV toolchain and the Windows target) run in the
//! background from the start, and the steps needing them wait for them. It
//! ends with every step's time, the slowest, and one line counting Rust
//! tests, doc tests and conformance runs each on its own, and the steps
//! that failed without a count ([`Totals`]). Each step's line gives the
//! room the build folders take and the disk's free space; on CI, a folder
//! only one part builds in is removed once that part is over
//! ([`Workspace::remove_scratch_on_ci`]). Build warnings are read from
//! cargo's JSON messages ([`crate::warnings`]) and test output is asked for
//! without colour (and read with colour codes stripped), so
//! `CARGO_TERM_COLOR=always` hides neither a warning nor a count.

use std::path::PathBuf;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::conformance;
use crate::deploy_check;
use crate::deps;
use crate::disk;
use crate::fresh_client;
use crate::fuzz;
use crate::imports;
use crate::process;
use crate::release;
use crate::tally::{Counts, Totals, parse_nextest_summary, parse_test_result};
use crate::tools::Tools;
use crate::warnings::{self, Gated};
use crate::workspace::Workspace;

const FMT_TIMEOUT: Duration = Duration::from_secs(5 * 60);
const BUILD_TIMEOUT: Duration = Duration::from_secs(40 * 60);
const TEST_TIMEOUT: Duration = Duration::from_secs(40 * 60);

/// Seconds each fuzz target runs during `test`.
pub const FUZZ_SMOKE_SECONDS: u64 = 10;

/// Runs every step and returns the summed counts (a failed step without its own counts adds one failure).
pub fn run(ws: &Workspace, tools: &Tools) -> Totals {
    let started = Instant::now();
    if let Some(warning) = disk::room_warning(ws.root()) {
        println!("{warning}");
    }
    let mut total = Steps {
        build_dirs: vec![ws.target_dir(), fuzz::build_dir(ws)],
        ..Steps::default()
    };
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
        || deps::run(ws).map(|()| Totals::default()),
        &mut total,
    );
    step(
        "imports",
        || imports::run(ws).map(|()| Totals::default()),
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
            Ok(Totals::default())
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
                // The first part runs on this thread, the others beside it.
                let parts: Vec<(&str, Part<'_>)> = vec![
                    ("the MSRV check", Box::new(|| release::check_on_msrv(ws))),
                    (
                        "the feature combinations",
                        Box::new(|| release::check_feature_combinations(ws)),
                    ),
                    (
                        "the fresh client project",
                        Box::new(|| fresh_client::run(ws)),
                    ),
                    ("the Windows check", Box::new(|| release::check_windows(ws))),
                    (
                        "the fuzz build",
                        Box::new(|| fuzz::prepare(ws, tools, fuzz::Build::Smoke)),
                    ),
                ];
                let failures: Vec<String> = thread::scope(|scope| {
                    let mut parts = parts.into_iter();
                    let here = parts.next();
                    let beside: Vec<_> = parts
                        .map(|(what, work)| (what, scope.spawn(move || timed(what, work))))
                        .collect();
                    here.map(|(what, work)| (what, timed(what, work)))
                        .into_iter()
                        .chain(
                            beside
                                .into_iter()
                                .map(|(what, handle)| (what, joined(handle))),
                        )
                        .filter_map(|(what, result)| {
                            result.err().map(|err| format!("{what}: {err:#}"))
                        })
                        .collect()
                });
                if failures.is_empty() {
                    Ok(Totals::default())
                } else {
                    anyhow::bail!("{}", failures.join("; "))
                }
            },
            &mut total,
        );
    } else {
        println!("msrv and windows checks: skipped because the toolchains are missing");
        total.counts.steps_failed += 1;
    }
    step(
        "fuzz smoke",
        // Built above; `cargo fuzz run` only checks that it is fresh. It runs
        // here, not last, so that on CI its build folder is gone before the
        // tests' builds add theirs.
        || {
            let ran = fuzz::run_targets(ws, tools, FUZZ_SMOKE_SECONDS, fuzz::Build::Smoke);
            ws.remove_scratch_on_ci(&fuzz::build_dir(ws))?;
            ran.map(|()| Totals::default())
        },
        &mut total,
    );
    let setup_ok = setup.join(&mut total);
    if setup_ok {
        step(
            "deploy",
            || deploy_check::run(ws, tools).map(|()| Totals::default()),
            &mut total,
        );
    }
    if setup_ok && built {
        step("tests", || run_tests(ws, tools), &mut total);
        step(
            "conformance",
            || {
                conformance::run(ws, tools, &conformance::Options::default()).map(|t| Totals {
                    conformance: Counts {
                        passed: u64::from(t.passed),
                        failed: u64::from(t.failed),
                    },
                    ..Totals::default()
                })
            },
            &mut total,
        );
    } else {
        println!("tests and conformance: skipped because the setup or the build failed");
        total.counts.steps_failed += 2;
    }
    step("bench crate tests", || bench_crate_tests(ws), &mut total);
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

/// One part of a step whose parts run side by side.
type Part<'a> = Box<dyn FnOnce() -> Result<()> + Send + 'a>;

/// Runs `work`, one of a step's parts running side by side, and says how
/// long it took: the step's time alone does not tell which part to shorten.
fn timed(what: &str, work: impl FnOnce() -> Result<()>) -> Result<()> {
    let started = Instant::now();
    let outcome = work();
    println!("    {what} took {}", seconds(started.elapsed()));
    outcome
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
                total.counts.steps_failed += 1;
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
    counts: Totals,
    timings: Vec<(&'static str, Duration)>,
    /// The background steps: their time overlaps the others'.
    background: Vec<(&'static str, Duration)>,
    /// The build folders (the workspace's target folder first, on whose
    /// disk every build writes): each step's line gives the room they take
    /// and the disk's free space (none in tests).
    build_dirs: Vec<PathBuf>,
}

impl Steps {
    /// The step that took longest, and its time (of those run one after
    /// the other: a background step's time overlaps theirs).
    fn slowest(&self) -> Option<(&'static str, Duration)> {
        self.timings.iter().copied().max_by_key(|(_, took)| *took)
    }
}

/// Runs one step with a header and timing. A step error counts as one failure. Returns whether it succeeded.
fn step(name: &'static str, body: impl FnOnce() -> Result<Totals>, total: &mut Steps) -> bool {
    println!("\n==> {name}");
    let started = Instant::now();
    let outcome = body();
    let elapsed = started.elapsed();
    total.timings.push((name, elapsed));
    let mut took = seconds(elapsed);
    let room = [
        disk::used_space(&total.build_dirs).map(|used| format!("build folders {used}")),
        total
            .build_dirs
            .first()
            .and_then(|dir| disk::free_space(dir)),
    ];
    let room: Vec<String> = room.into_iter().flatten().collect();
    if !room.is_empty() {
        took = format!("{took} ({})", room.join(", "));
    }
    match outcome {
        Ok(counts) => {
            total.counts.add(counts);
            let verdict = if counts.failed() == 0 { "ok" } else { "FAILED" };
            println!("==> {name}: {verdict} in {took}");
            counts.failed() == 0
        }
        Err(err) => {
            total.counts.steps_failed += 1;
            println!("==> {name}: FAILED in {took}: {err:#}");
            false
        }
    }
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.1}s", elapsed.as_secs_f64())
}

fn cargo_step(ws: &Workspace, args: &[&str], timeout: Duration) -> Result<Totals> {
    let mut cmd = ws.cargo();
    cmd.args(args);
    process::run_checked(&mut cmd, timeout)?;
    Ok(Totals::default())
}

/// `cargo build` of every target through clippy ([`Workspace::build_for_tests`]).
/// Any warning (clippy's, rustc's or cargo's) fails the step, as `cargo
/// clippy -- -D warnings` would, but only once everything is built: the
/// tests still run and report. The warnings are counted from cargo's JSON
/// messages ([`warnings::run_gated`]).
fn lint_and_build(ws: &Workspace) -> Result<Totals> {
    let mut cmd = ws.build_for_tests()?;
    println!("build: {}", process::describe(&cmd));
    let Gated { finished, warnings } = warnings::run_gated(&mut cmd, BUILD_TIMEOUT)?;
    if !finished.success() {
        anyhow::bail!("the build failed ({})", process::status_text(&finished));
    }
    if warnings > 0 {
        anyhow::bail!(
            "{warnings} warning(s) above (clippy, rustc or cargo); the build itself is complete"
        );
    }
    Ok(Totals::default())
}

/// The tests: with cargo-nextest when it is installed (every test binary
/// at once, each test in a process of its own), else `cargo test
/// --no-fail-fast`; then the unit
/// tests of the library crates without their default features (one run
/// over all of them, so the features the gateway needs of the crates below
/// it, `stdio` and `http`, stay on: what runs is the code behind `oauth`,
/// `otel`, `redis` and the other opt-in features left out); then the doc
/// tests, which nextest does not run, counted apart. The main runs go
/// through clippy like the build step, or cargo would compile every
/// workspace crate again. Output is asked for without colour.
fn run_tests(ws: &Workspace, tools: &Tools) -> Result<Totals> {
    let with_env = |mut cmd: Command| {
        cmd.env("MCP_TOOLS_DIR", tools.dir())
            .env("MCP_REQUIRE_TOOLS", "1")
            // The client crate's doc example runs this server (built above)
            // instead of building one of its own.
            .env("MCP_EXAMPLE_SERVER", ws.debug_binary("mcp-example-server"));
        cmd
    };
    let nextest = nextest_installed(ws);
    let runner = |cmd: &mut Command| {
        cmd.args(runner_args(nextest));
    };
    if !nextest {
        println!("tests: cargo-nextest is not installed; running cargo test");
    }
    let mut totals = Totals::default();
    let mut all = with_env(ws.cargo_through_clippy()?);
    runner(&mut all);
    all.arg("--workspace");
    if !nextest {
        // The doc tests run on their own below, counted apart.
        all.args(["--lib", "--bins", "--tests"]);
    }
    let described = if nextest {
        "cargo nextest"
    } else {
        "cargo test"
    };
    totals.rust.add(counted(&mut all, described)?);
    let mut features_off = with_env(ws.cargo_through_clippy()?);
    runner(&mut features_off);
    features_off.args(feature_off_args());
    totals.rust.add(counted(
        &mut features_off,
        "the unit tests without default features",
    )?);
    let mut doc = with_env(ws.cargo_through_clippy()?);
    doc.args([
        "test",
        "--workspace",
        "--doc",
        "--no-fail-fast",
        "--color",
        "never",
    ]);
    totals.doc.add(counted(&mut doc, "the doc tests")?);
    Ok(totals)
}

/// The test runner's arguments: nextest's or `cargo test`'s, each running
/// every test binary whatever fails (`--no-fail-fast`), in plain text.
fn runner_args(nextest: bool) -> Vec<String> {
    let mut args: Vec<String> = if nextest {
        vec!["nextest".into(), "run".into()]
    } else {
        vec!["test".into()]
    };
    args.extend(["--no-fail-fast", "--color", "never"].map(String::from));
    if nextest {
        // The tests mostly wait on the servers they start: two per core.
        let threads = thread::available_parallelism().map_or(2, |n| n.get() * 2);
        args.push(format!("--test-threads={threads}"));
    }
    args
}

/// The arguments selecting the library crates' unit tests without their
/// default features.
fn feature_off_args() -> Vec<&'static str> {
    let mut args = vec!["--lib", "--no-default-features"];
    for package in release::LIBRARIES {
        args.extend(["-p", package]);
    }
    args
}

/// The bench crate's own tests (`bench/`: its own workspace, both sides in
/// one build; see `cargo xtask bench`). Built in the workspace's target
/// folder: every dependency whose features the two builds share is not
/// compiled again (the bench's measured builds keep folders of their own).
fn bench_crate_tests(ws: &Workspace) -> Result<Totals> {
    let bench = ws.root().join("bench");
    let mut cmd = ws.cargo();
    cmd.args(["test", "--no-fail-fast", "--color", "never"])
        .arg("--manifest-path")
        .arg(bench.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", ws.target_dir());
    Ok(Totals {
        rust: counted(&mut cmd, "the bench crate's tests")?,
        ..Totals::default()
    })
}

/// Whether `cargo nextest` runs here.
fn nextest_installed(ws: &Workspace) -> bool {
    let mut cmd = ws.cargo();
    cmd.args(["nextest", "--version"]);
    process::run_quiet(&mut cmd, Duration::from_secs(60), |_, _| {}).is_ok_and(|f| f.success())
}

/// Runs a test command and counts its tests from its result lines (cargo's
/// `test result:` or nextest's `Summary`), and says how long it took.
fn counted(cmd: &mut Command, what: &str) -> Result<Counts> {
    let started = Instant::now();
    let counted = counted_untimed(cmd, what);
    // A step runs several of these; its time alone does not tell which to shorten.
    println!("    {what} took {}", seconds(started.elapsed()));
    counted
}

/// [`counted`] without the time. Where nextest ran, its `Summary` alone
/// counts: the output it shows of a failed test holds that test binary's
/// own `test result:` line, which would count the failure twice.
fn counted_untimed(cmd: &mut Command, what: &str) -> Result<Counts> {
    let mut cargo_test = Counts::default();
    let mut nextest: Option<Counts> = None;
    let finished = process::run_streaming(cmd, TEST_TIMEOUT, |_, line| {
        if let Some(found) = parse_nextest_summary(line) {
            nextest.get_or_insert_with(Counts::default).add(found);
        } else if let Some(found) = parse_test_result(line) {
            cargo_test.add(found);
        }
    })?;
    let mut counts = nextest.unwrap_or(cargo_test);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    #[test]
    fn a_coloured_nextest_summary_with_an_exec_failure_is_counted() {
        let mut cmd = sh(
            "printf '\\033[32;1m     Summary\\033[0m [   1.0s] 4 tests run: 2 passed, 1 failed, 1 exec failed, 0 skipped\\n' >&2; exit 100",
        );
        assert_eq!(
            counted(&mut cmd, "nextest").unwrap(),
            Counts {
                passed: 2,
                failed: 2
            }
        );
    }

    #[test]
    fn a_failed_tests_own_result_line_in_nextests_output_is_not_counted_again() {
        let mut cmd = sh("echo '        FAIL [   1.2s] (1/3) pkg::bin some::test'; \
             echo '    test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 9 filtered out'; \
             echo '     Summary [   2.0s] 3 tests run: 2 passed, 1 failed, 0 skipped'; exit 100");
        assert_eq!(
            counted(&mut cmd, "nextest").unwrap(),
            Counts {
                passed: 2,
                failed: 1
            }
        );
    }

    #[test]
    fn cargo_test_results_add_up_over_the_test_binaries() {
        let mut cmd = sh(
            "echo 'test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out'; \
             echo 'test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out'; exit 101",
        );
        assert_eq!(
            counted(&mut cmd, "cargo test").unwrap(),
            Counts {
                passed: 4,
                failed: 2
            }
        );
    }

    #[test]
    fn a_failed_run_without_a_result_line_is_one_failure() {
        let mut cmd = sh("echo 'error[E0425]: cannot find value'; exit 101");
        assert_eq!(
            counted(&mut cmd, "cargo test").unwrap(),
            Counts {
                passed: 0,
                failed: 1
            }
        );
    }

    #[test]
    fn steps_count_their_failures_by_kind() {
        let mut steps = Steps::default();
        assert!(!step("broken", || anyhow::bail!("no build"), &mut steps));
        assert!(step("fine", || Ok(Totals::default()), &mut steps));
        let tests = Totals {
            rust: Counts {
                passed: 3,
                failed: 1,
            },
            ..Totals::default()
        };
        assert!(!step("tests", || Ok(tests), &mut steps));
        assert_eq!(steps.counts.steps_failed, 1);
        assert_eq!(steps.counts.rust, tests.rust);
        assert_eq!(steps.counts.failed(), 2);
        assert_eq!(steps.timings.len(), 3);
    }

    #[test]
    fn both_runners_go_on_after_a_failure_in_plain_text() {
        for nextest in [true, false] {
            let args = runner_args(nextest);
            assert!(args.contains(&"--no-fail-fast".to_owned()), "{args:?}");
            let color = args.iter().position(|arg| arg == "--color");
            assert_eq!(
                color.and_then(|at| args.get(at + 1)).map(String::as_str),
                Some("never"),
                "{args:?}"
            );
        }
        assert_eq!(runner_args(false)[0], "test");
        assert_eq!(runner_args(true)[..2], ["nextest", "run"]);
    }

    #[test]
    fn the_feature_off_run_takes_every_library_without_default_features() {
        let args = feature_off_args();
        assert_eq!(args[..2], ["--lib", "--no-default-features"]);
        let packages: Vec<&str> = args.chunks(2).skip(1).map(|pair| pair[1]).collect();
        assert_eq!(packages, release::LIBRARIES);
        assert!(args.chunks(2).skip(1).all(|pair| pair[0] == "-p"));
    }
}
