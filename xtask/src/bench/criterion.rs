//! The criterion micro-benchmarks of our decoders
//! (`bench/benches/codecs.rs`: newline JSON and SSE against a validating
//! `serde_json` floor), run in the same `cargo xtask bench` and read back from
//! criterion's own estimates for the report.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::process;
use crate::workspace::Workspace;

/// Time allowed for the criterion run.
const CRITERION_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// One criterion benchmark: its group, its function and its median time.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MicroResult {
    /// The benchmark group (the case).
    pub(super) group: String,
    /// The function (the contender).
    pub(super) function: String,
    /// The median time of one iteration, in nanoseconds.
    pub(super) median_ns: f64,
    /// The bytes one iteration reads, when the group declares it.
    pub(super) bytes: Option<u64>,
}

impl MicroResult {
    /// Megabytes per second, when the bytes are known.
    pub(super) fn megabytes_per_second(&self) -> Option<f64> {
        let bytes = self.bytes? as f64;
        (self.median_ns > 0.0).then(|| bytes / self.median_ns * 1e3)
    }

    /// Whether this is a group's floor (its name says "floor").
    pub(super) fn is_floor(&self) -> bool {
        self.function.contains("(floor)")
    }
}

/// Runs the criterion bench `name` of `bench/benches/` (`codecs`,
/// `tool_search`) and returns what this run measured.
pub(super) fn run(ws: &Workspace, name: &str) -> Result<Vec<MicroResult>> {
    let started = SystemTime::now();
    let bench_dir = ws.root().join("bench");
    // Our side's build: the micro-benchmarks measure our decoders.
    let target_dir = super::side_target_dir(ws, super::OURS_FEATURES);
    let mut cmd = ws.cargo();
    cmd.arg("bench")
        .arg("--manifest-path")
        .arg(bench_dir.join("Cargo.toml"))
        .args(["--no-default-features", "--features", super::OURS_FEATURES])
        // The profile the other cases' programs were built in (criterion's
        // own dependencies still unify some features, so part of the tree
        // is built again once).
        .args(["--profile", "profiling"])
        .args(["--bench", name, "--", "--noplot"])
        .env("CARGO_TARGET_DIR", &target_dir);
    println!("bench: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, CRITERION_TIMEOUT)?;
    let mut results = Vec::new();
    collect(&target_dir.join("criterion"), started, &mut results)?;
    results.sort_by(|a, b| (&a.group, &a.function).cmp(&(&b.group, &b.function)));
    Ok(results)
}

/// Finds every `new/benchmark.json` under `dir` written since `since`, with its estimates.
fn collect(dir: &Path, since: SystemTime, results: &mut Vec<MicroResult>) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let benchmark = path.join("benchmark.json");
        let fresh = fs::metadata(&benchmark)
            .and_then(|m| m.modified())
            .is_ok_and(|modified| modified >= since);
        if path.file_name().is_some_and(|name| name == "new") && fresh {
            results.push(read(&path)?);
        } else {
            collect(&path, since, results)?;
        }
    }
    Ok(())
}

/// Reads one result directory (`…/new/`).
fn read(dir: &Path) -> Result<MicroResult> {
    let json = |name: &str| -> Result<Value> {
        let path = dir.join(name);
        let text =
            fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
    };
    parse(&json("benchmark.json")?, &json("estimates.json")?)
        .with_context(|| format!("unexpected criterion output in {}", dir.display()))
}

fn parse(benchmark: &Value, estimates: &Value) -> Option<MicroResult> {
    Some(MicroResult {
        group: benchmark.get("group_id")?.as_str()?.to_owned(),
        function: benchmark.get("function_id")?.as_str()?.to_owned(),
        median_ns: estimates.pointer("/median/point_estimate")?.as_f64()?,
        bytes: benchmark
            .pointer("/throughput/Bytes")
            .and_then(Value::as_u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_criterion_files_and_derives_throughput() {
        let benchmark = json!({"group_id": "g", "function_id": "serde_json IgnoredAny (floor)", "throughput": {"Bytes": 2_000_000}});
        let estimates = json!({"median": {"point_estimate": 1e9}, "mean": {"point_estimate": 2e9}});
        let result = parse(&benchmark, &estimates).unwrap();
        assert_eq!(result.median_ns, 1e9);
        assert_eq!(result.megabytes_per_second(), Some(2.0));
        assert!(result.is_floor());
        assert!(parse(&json!({}), &estimates).is_none());
    }

    #[test]
    fn only_results_written_since_the_start_are_collected() {
        let dir = std::env::temp_dir().join(format!("xtask-criterion-{}", std::process::id()));
        let new = dir.join("group").join("function").join("new");
        fs::create_dir_all(&new).unwrap();
        fs::write(
            new.join("benchmark.json"),
            r#"{"group_id":"group","function_id":"function","throughput":null}"#,
        )
        .unwrap();
        fs::write(
            new.join("estimates.json"),
            r#"{"median":{"point_estimate":5.0}}"#,
        )
        .unwrap();
        let mut found = Vec::new();
        collect(&dir, SystemTime::UNIX_EPOCH, &mut found).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].bytes, None);
        let mut none = Vec::new();
        let later = SystemTime::now() + Duration::from_secs(3600);
        collect(&dir, later, &mut none).unwrap();
        assert!(none.is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }
}
