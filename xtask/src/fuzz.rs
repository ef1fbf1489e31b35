//! `cargo xtask fuzz --seconds N`: builds every cargo-fuzz target once, then
//! runs them side by side for N seconds each; a crash fails.

use std::collections::VecDeque;
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::tools::Tools;
use crate::workspace::Workspace;

/// The fuzz targets, in the workspace's `fuzz/` cargo-fuzz project.
pub const TARGETS: &[&str] = &[
    "ndjson_decode",
    "sse_decode",
    "message_decode",
    "session_id_open",
];

/// Time allowed for building a target on top of its run time.
const BUILD_ALLOWANCE: Duration = Duration::from_secs(20 * 60);

/// Checks that the root manifest excludes `fuzz` from the workspace (`exclude = ["fuzz"]`).
pub fn check_exclusion(manifest: &str) -> Result<()> {
    let mut in_workspace = false;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.starts_with('[') {
            in_workspace = line == "[workspace]";
            continue;
        }
        if !in_workspace {
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && key.trim() == "exclude"
            && value
                .split(',')
                .any(|v| v.trim().trim_matches(['[', ']', ' ']).trim_matches('"') == "fuzz")
        {
            return Ok(());
        }
    }
    bail!("the root Cargo.toml [workspace] must contain exclude = [\"fuzz\"]");
}

/// How the fuzz targets are built.
///
/// The decoders are safe Rust (no `unsafe` in `mcp-protocol` or
/// `mcp-transport`), so AddressSanitizer could find nothing that Rust's own
/// checks do not: libFuzzer's coverage guidance, the panics and the overflow
/// checks find the bugs. Either way the build has debug assertions and
/// overflow checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// Unoptimized: the quickest build, for the short smoke run of `test`.
    Smoke,
    /// Optimized (sixteen codegen units, on every core), for fuzzing runs
    /// long enough that execution speed matters (`cargo xtask fuzz`).
    Thorough,
}

impl Build {
    /// The `cargo fuzz build`/`run` flags.
    fn flags(self) -> &'static [&'static str] {
        match self {
            Build::Smoke => &["--dev", "--sanitizer", "none"],
            Build::Thorough => &[
                "--release",
                "--debug-assertions",
                "--sanitizer",
                "none",
                "--codegen-units",
                "16",
            ],
        }
    }
}

/// Lines of a failed target's output shown with its failure.
const FAILURE_TAIL: usize = 60;

/// Installs cargo-fuzz if needed, builds every target once, then runs them
/// side by side, each for `seconds`; a crash fails.
pub fn run(ws: &Workspace, tools: &Tools, seconds: u64, build: Build) -> Result<()> {
    prepare(ws, tools, build)?;
    run_targets(ws, tools, seconds, build)
}

/// Checks the fuzz project, installs cargo-fuzz if needed and builds every target.
pub fn prepare(ws: &Workspace, tools: &Tools, build: Build) -> Result<()> {
    let manifest_path = ws.root().join("Cargo.toml");
    let manifest = fs::read_to_string(&manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?;
    check_exclusion(&manifest)?;
    let fuzz_dir = ws.root().join("fuzz");
    if !fuzz_dir.join("Cargo.toml").is_file() {
        bail!("no cargo-fuzz project at {}", fuzz_dir.display());
    }
    for target in TARGETS {
        let source = fuzz_dir.join("fuzz_targets").join(format!("{target}.rs"));
        if !source.is_file() {
            bail!("fuzz target {target} missing: no {}", source.display());
        }
    }
    tools.setup_cargo_fuzz(ws)?;
    let mut build_all = fuzz_cargo(ws, tools, build, &["build"])?;
    println!("fuzz: {}", process::describe(&build_all));
    process::run_checked(&mut build_all, BUILD_ALLOWANCE)
}

/// The fuzz project's own target folder (its builds are instrumented, so
/// they share nothing with the workspace's).
pub fn build_dir(ws: &Workspace) -> PathBuf {
    ws.root().join("fuzz").join("target")
}

/// `cargo fuzz ARGS` with the flags of `build`, in the fuzz project.
fn fuzz_cargo(ws: &Workspace, tools: &Tools, build: Build, args: &[&str]) -> Result<Command> {
    let fuzz_dir = ws.root().join("fuzz");
    let mut cmd = ws.cargo();
    // `cargo fuzz` finds the pinned cargo-fuzz through PATH.
    cmd.current_dir(&fuzz_dir)
        .arg("fuzz")
        .args(args)
        .args(build.flags())
        .env("PATH", tools.cargo_path()?)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", build_dir(ws));
    Ok(cmd)
}

/// Runs every target (built by [`prepare`]) side by side for `seconds` each.
pub fn run_targets(ws: &Workspace, tools: &Tools, seconds: u64, build: Build) -> Result<()> {
    let fuzz_dir = ws.root().join("fuzz");
    let mut runs = Vec::new();
    for target in TARGETS {
        let mut cmd = fuzz_cargo(ws, tools, build, &["run", target])?;
        // Committed seeds (`fuzz/seeds/<target>`) join the git-ignored corpus.
        let seeds = fuzz_dir.join("seeds").join(target);
        if seeds.is_dir() {
            let corpus = fuzz_dir.join("corpus").join(target);
            fs::create_dir_all(&corpus)
                .with_context(|| format!("cannot create {}", corpus.display()))?;
            cmd.arg(&corpus).arg(&seeds);
        }
        cmd.arg("--").arg(format!("-max_total_time={seconds}"));
        println!("fuzz: {}", process::describe(&cmd));
        runs.push((*target, cmd));
    }
    let deadline = BUILD_ALLOWANCE + Duration::from_secs(seconds);
    let outcomes: Vec<(&str, Result<String>)> = thread::scope(|scope| {
        let running: Vec<_> = runs
            .iter_mut()
            .map(|(target, cmd)| (*target, scope.spawn(move || run_target(cmd, deadline))))
            .collect();
        running
            .into_iter()
            .map(|(target, handle)| {
                let outcome = handle
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("its runner thread panicked")));
                (target, outcome)
            })
            .collect()
    });
    let mut failures = Vec::new();
    for (target, outcome) in outcomes {
        match outcome {
            Ok(summary) => println!("fuzz: {target} ran {seconds}s without a crash ({summary})"),
            Err(err) => {
                println!("fuzz: {target} FAILED: {err:#}");
                failures.push(target);
            }
        }
    }
    if !failures.is_empty() {
        bail!("fuzz targets failed: {}", failures.join(", "));
    }
    Ok(())
}

/// Runs one target quietly. On success, libFuzzer's last status line; on
/// failure, an error holding the last lines of its output.
fn run_target(cmd: &mut Command, deadline: Duration) -> Result<String> {
    let mut tail = VecDeque::with_capacity(FAILURE_TAIL);
    let finished = process::run_quiet(cmd, deadline, |_, line| {
        if tail.len() == FAILURE_TAIL {
            tail.pop_front();
        }
        tail.push_back(line.to_owned());
    })?;
    if finished.success() {
        // libFuzzer ends with "Done N runs in S second(s)".
        let status = tail
            .iter()
            .rev()
            .find(|line| line.starts_with("Done "))
            .map_or_else(String::new, |line| line.trim().to_owned());
        return Ok(status);
    }
    let shown: Vec<String> = tail.into_iter().collect();
    bail!("{}\n{}", process::status_text(&finished), shown.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusion_is_found_only_in_workspace_table() {
        assert!(check_exclusion("[workspace]\nmembers = [\"a\"]\nexclude = [\"fuzz\"]\n").is_ok());
        assert!(check_exclusion("[workspace]\nexclude = [\"other\", \"fuzz\"]\n").is_ok());
        assert!(check_exclusion("[workspace]\nmembers = [\"fuzz\"]\n").is_err());
        assert!(check_exclusion("[workspace]\n[package]\nexclude = [\"fuzz\"]\n").is_err());
        assert!(check_exclusion("[workspace]\n# exclude = [\"fuzz\"]\n").is_err());
    }
}
