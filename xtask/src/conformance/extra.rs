//! The client scenarios outside the requirement sets: each run on its own
//! with `--scenario NAME`, its one-scenario result read from the suite's
//! stderr (`Passed: P/T, F failed, W warnings`) and scored like the rest.

use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};

use super::scenario_result::ScenarioResult;
use crate::process::{self, Stream};
use crate::tools::Tools;

/// Client scenarios the requirement sets leave out, run one by one: the
/// 2025-03-26 OAuth fallback, and the Skills extension's (SEP-2640).
pub const EXTRA_SCENARIOS: &[&str] = &[
    "auth/2025-03-26-oauth-endpoint-fallback",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

/// What the extra scenarios are judged under, in place of a revision: the
/// table's revision column and the expected-failures file's first word.
pub const EXTRA_LABEL: &str = "extra";

/// How long one scenario's suite run may take (the suite gives the client 30 s).
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Parses the one-scenario result line `Passed: P/T, F failed, W warnings`.
pub fn parse_result_line(scenario: &str, line: &str) -> Option<ScenarioResult> {
    let counts = line.trim().strip_prefix("Passed: ")?;
    let mut parts = counts.split(", ");
    let (passed, _total) = parts.next()?.split_once('/')?;
    let failed = parts.next()?.strip_suffix(" failed")?;
    let warnings = parts.next()?.strip_suffix(" warnings")?;
    if parts.next().is_some() {
        return None;
    }
    Some(ScenarioResult {
        scenario: scenario.to_owned(),
        passed: Some(passed.parse().ok()?),
        failed: failed.parse().ok()?,
        warnings: warnings.parse().ok()?,
        scored: true,
    })
}

/// Reads one scenario's result from the suite's output lines: the last
/// result line on stderr.
#[derive(Debug)]
pub struct ResultParser {
    scenario: String,
    result: Option<ScenarioResult>,
    skipped: bool,
}

impl ResultParser {
    /// A parser for the run of `scenario`.
    pub fn new(scenario: &str) -> Self {
        Self {
            scenario: scenario.to_owned(),
            result: None,
            skipped: false,
        }
    }

    /// Feeds one output line.
    pub fn feed(&mut self, stream: Stream, line: &str) {
        match stream {
            Stream::Stderr => {
                if let Some(result) = parse_result_line(&self.scenario, line) {
                    self.result = Some(result);
                }
            }
            Stream::Stdout => {
                if line.starts_with("SKIPPED: ") {
                    self.skipped = true;
                }
            }
        }
    }

    /// The result; a skipped run, or one that printed none, is an error.
    pub fn finish(self) -> Result<ScenarioResult> {
        match self.result {
            Some(result) => Ok(result),
            None if self.skipped => bail!("the suite skipped {}", self.scenario),
            None => bail!("the suite printed no result for {}", self.scenario),
        }
    }
}

/// Runs every extra scenario. A scenario whose run fails counts as a
/// failed scenario with no checks (the error is printed).
pub fn run_all(tools: &Tools, command: &str, out_dir: &Path) -> Vec<ScenarioResult> {
    EXTRA_SCENARIOS
        .iter()
        .map(
            |scenario| match run_scenario(tools, command, scenario, out_dir) {
                Ok(result) => result,
                Err(err) => {
                    eprintln!("conformance {scenario}: {err:#}");
                    ScenarioResult {
                        scenario: (*scenario).to_owned(),
                        passed: None,
                        failed: 0,
                        warnings: 0,
                        scored: true,
                    }
                }
            },
        )
        .collect()
}

fn run_scenario(
    tools: &Tools,
    command: &str,
    scenario: &str,
    out_dir: &Path,
) -> Result<ScenarioResult> {
    let mut cmd = std::process::Command::new(tools.conformance_bin());
    cmd.args(["client", "--command", command, "--scenario", scenario, "-o"])
        .arg(out_dir)
        .env("PATH", tools.node_path()?);
    println!("conformance: {}", process::describe(&cmd));
    let mut parser = ResultParser::new(scenario);
    let finished = process::run_streaming(&mut cmd, SCENARIO_TIMEOUT, |stream, line| {
        parser.feed(stream, line);
    })?;
    if finished.status.is_none() {
        bail!("suite killed after {}s", SCENARIO_TIMEOUT.as_secs());
    }
    let result = parser.finish()?;
    if !finished.success() {
        bail!(
            "the suite exited with {} ({} passed, {} failed)",
            process::status_text(&finished),
            result.passed.unwrap_or(0),
            result.failed
        );
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(passed: Option<u32>, failed: u32, warnings: u32) -> ScenarioResult {
        ScenarioResult {
            scenario: "auth/x".to_owned(),
            passed,
            failed,
            warnings,
            scored: true,
        }
    }

    #[test]
    fn parses_the_result_line() {
        assert_eq!(
            parse_result_line("auth/x", "Passed: 3/3, 0 failed, 0 warnings"),
            Some(result(Some(3), 0, 0))
        );
        assert_eq!(
            parse_result_line("auth/x", "Passed: 1/4, 3 failed, 2 warnings\n"),
            Some(result(Some(1), 3, 2))
        );
        assert_eq!(
            parse_result_line("auth/x", "Passed: 0/0, 0 failed, 0 warnings"),
            Some(result(Some(0), 0, 0))
        );
        for other in [
            "Test Results:",
            "✓ auth/x: 3 passed, 0 failed",
            "Passed: many/3, 0 failed, 0 warnings",
            "Passed: 3/3, 0 failed",
            "Passed: 3/3, 0 failed, 0 warnings, 1 skipped",
        ] {
            assert_eq!(parse_result_line("auth/x", other), None, "{other}");
        }
    }

    #[test]
    fn the_parser_takes_the_result_from_stderr_and_refuses_a_skip() {
        let mut parser = ResultParser::new("auth/x");
        parser.feed(Stream::Stdout, "Passed: 9/9, 0 failed, 0 warnings");
        parser.feed(Stream::Stderr, "Starting scenario: auth/x");
        parser.feed(Stream::Stderr, "Passed: 2/3, 1 failed, 0 warnings");
        parser.feed(Stream::Stderr, "❌ OVERALL: FAILED");
        let parsed = parser.finish().unwrap();
        assert_eq!(parsed, result(Some(2), 1, 0));
        assert!(!parsed.is_pass());

        let mut skipped = ResultParser::new("auth/x");
        skipped.feed(
            Stream::Stdout,
            "SKIPPED: scenario 'auth/x' is not applicable at spec version 2025-11-25",
        );
        let error = skipped.finish().unwrap_err().to_string();
        assert!(error.contains("skipped auth/x"), "{error}");
        assert!(ResultParser::new("auth/x").finish().is_err());
    }
}
