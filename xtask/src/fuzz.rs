//! `cargo xtask fuzz --seconds N`: runs every cargo-fuzz target for N seconds; a crash fails.

use std::fs;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::tools::Tools;
use crate::workspace::Workspace;

/// The fuzz targets, in the workspace's `fuzz/` cargo-fuzz project.
pub const TARGETS: &[&str] = &["ndjson_decode", "sse_decode", "message_decode"];

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

/// Installs cargo-fuzz if needed and runs each target for `seconds`.
pub fn run(ws: &Workspace, tools: &Tools, seconds: u64) -> Result<()> {
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
    let path = tools.cargo_path()?;
    let mut failures = Vec::new();
    for target in TARGETS {
        let mut cmd = ws.cargo();
        // `cargo fuzz` finds the pinned cargo-fuzz through PATH.
        cmd.current_dir(&fuzz_dir).args(["fuzz", "run", target]);
        // Committed seeds (`fuzz/seeds/<target>`) join the git-ignored corpus.
        let seeds = fuzz_dir.join("seeds").join(target);
        if seeds.is_dir() {
            let corpus = fuzz_dir.join("corpus").join(target);
            fs::create_dir_all(&corpus)
                .with_context(|| format!("cannot create {}", corpus.display()))?;
            cmd.arg(&corpus).arg(&seeds);
        }
        cmd.arg("--")
            .env("PATH", &path)
            .arg(format!("-max_total_time={seconds}"))
            .env("RUSTC_BOOTSTRAP", "1")
            .env("CARGO_TARGET_DIR", fuzz_dir.join("target"));
        println!("fuzz: {}", process::describe(&cmd));
        let finished = process::run_streaming(
            &mut cmd,
            BUILD_ALLOWANCE + Duration::from_secs(seconds),
            |_, _| {},
        )?;
        if finished.success() {
            println!("fuzz: {target} ran {seconds}s without a crash");
        } else {
            println!(
                "fuzz: {target} FAILED ({})",
                process::status_text(&finished)
            );
            failures.push(*target);
        }
    }
    if !failures.is_empty() {
        bail!("fuzz targets failed: {}", failures.join(", "));
    }
    Ok(())
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
