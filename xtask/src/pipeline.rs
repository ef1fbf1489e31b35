//! `cargo xtask test`: the project's single test command.
//!
//! setup -> fmt check -> clippy -> build -> publishable (package, features, MSRV,
//! Windows check, install, man page) -> cargo test -> fuzz smoke -> conformance, each step timed, ending with one
//! line `tests: N passed, M failed`.

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::conformance;
use crate::fuzz;
use crate::process::{self, Stream};
use crate::release;
use crate::tally::{Counts, parse_test_result};
use crate::tools::Tools;
use crate::workspace::Workspace;

const FMT_TIMEOUT: Duration = Duration::from_secs(5 * 60);
const CLIPPY_TIMEOUT: Duration = Duration::from_secs(40 * 60);
const TEST_TIMEOUT: Duration = Duration::from_secs(40 * 60);

/// Seconds each fuzz target runs during `test`.
pub const FUZZ_SMOKE_SECONDS: u64 = 10;

/// Runs every step and returns the summed counts (a failed step without its own counts adds one failure).
pub fn run(ws: &Workspace, tools: &Tools) -> Counts {
    let started = Instant::now();
    let mut total = Steps::default();
    let setup_ok = step(
        "setup",
        || {
            tools.setup().map(|()| Counts {
                passed: 0,
                failed: 0,
            })
        },
        &mut total,
    );
    step(
        "fmt",
        || cargo_step(ws, &["fmt", "--all", "--check"], FMT_TIMEOUT),
        &mut total,
    );
    step(
        "clippy",
        || {
            cargo_step(
                ws,
                &[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
                CLIPPY_TIMEOUT,
            )
        },
        &mut total,
    );
    // The CLI and interop tests run other packages' binaries (mcp-cli, the
    // example server); built with the test targets, so `cargo test` and the
    // conformance step reuse this build instead of compiling their own.
    step(
        "build binaries",
        || {
            process::run_checked(&mut ws.build_for_tests(), CLIPPY_TIMEOUT)?;
            Ok(Counts::default())
        },
        &mut total,
    );
    step(
        "publishable",
        || {
            release::package(ws)?;
            release::check_features(ws)?;
            release::check_msrv(ws)?;
            release::check_windows(ws)?;
            release::check_install(ws)?;
            release::man(ws)?;
            Ok(Counts::default())
        },
        &mut total,
    );
    if setup_ok {
        step("cargo test", || cargo_test(ws, tools), &mut total);
    } else {
        println!("cargo test: skipped because setup failed");
        total.counts.failed += 1;
    }
    step(
        "fuzz smoke",
        || {
            fuzz::run(ws, tools, FUZZ_SMOKE_SECONDS).map(|()| Counts {
                passed: 0,
                failed: 0,
            })
        },
        &mut total,
    );
    if setup_ok {
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
        println!("conformance: skipped because setup failed");
        total.counts.failed += 1;
    }
    println!("\n==> all steps took {}", seconds(started.elapsed()));
    if let Some((name, took)) = total.slowest() {
        println!("==> slowest step: {name} ({})", seconds(took));
    }
    total.counts
}

/// The counts of the steps run so far, and how long each took.
#[derive(Default)]
struct Steps {
    counts: Counts,
    timings: Vec<(&'static str, Duration)>,
}

impl Steps {
    /// The step that took longest, and its time.
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

fn cargo_test(ws: &Workspace, tools: &Tools) -> Result<Counts> {
    let mut cmd = ws.cargo();
    cmd.args(["test", "--workspace"])
        .env("MCP_TOOLS_DIR", tools.dir())
        .env("MCP_REQUIRE_TOOLS", "1")
        // The client crate's doc example runs this server (built above)
        // instead of building one of its own.
        .env("MCP_EXAMPLE_SERVER", ws.debug_binary("mcp-example-server"));
    let mut counts = Counts::default();
    let finished = process::run_streaming(&mut cmd, TEST_TIMEOUT, |stream, line| {
        if stream == Stream::Stdout
            && let Some(found) = parse_test_result(line)
        {
            counts.add(found);
        }
    })?;
    if !finished.success() && counts.failed == 0 {
        // Build failure, timeout or a crashed test binary: no result line carries the failure.
        println!(
            "cargo test ended with {} without a failing test count",
            process::status_text(&finished)
        );
        counts.failed += 1;
    }
    Ok(counts)
}
