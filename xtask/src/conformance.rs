//! `cargo xtask conformance`: runs the MCP conformance suite against our client for each requirement set,
//! then the client scenarios outside them one by one (`extra`), then the server scenarios of every
//! requirement set against our servers (`server`).
//!
//! Scoring is strict: a scenario passes with X/X checks, X > 0, and no
//! warnings. What fails must be listed in [`EXPECTED_FAILURES`], which may
//! only shrink (it is empty). The authorization scenarios run apart, scored
//! and unscored; the `extra` scenarios are judged under the revision `extra`.
//! The server scenarios the suite runs but does not score (extensions such
//! as tasks, pending ones) are held to [`unscored::UNSCORED_PASSES`], the
//! list of those we pass, both ways; those the suite itself skips, to
//! [`unscored::SUITE_SKIPS`].
//!
//! Each run is held to the scenarios the suite lists for its requirement
//! set (`conformance list --requirements REV`, [`scenario_list`]): a listed
//! scenario without a result, a result the list does not name, a summary
//! line the parser cannot read and a non-zero exit of the suite each count
//! as a failed scenario.

mod extra;
mod scenario_list;
mod scenario_result;
mod server;
mod unscored;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process::{self, Stream};
use crate::tools::Tools;
use crate::workspace::Workspace;

use extra::EXTRA_LABEL;
use scenario_list::{ScenarioList, hold_to_list};
pub use scenario_result::ScenarioResult;
use unscored::{SUITE_SKIPS, UNSCORED_PASSES, UnscoredJudgement};

/// The requirement sets (spec revisions) the client is checked against.
pub const REVISIONS: &[&str] = &["2025-11-25", "2026-07-28"];

/// The expected-failures list, relative to the workspace root.
pub const EXPECTED_FAILURES: &str = "xtask/conformance-expected-failures.txt";

const SUITE_TIMEOUT: Duration = Duration::from_secs(15 * 60);
const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);
const MAX_SCENARIOS: usize = 1000;
/// At most this many lines of failed checks are kept, each cut to [`MAX_REASON_CHARS`].
const MAX_REASONS: usize = 200;
const MAX_REASON_CHARS: usize = 500;

/// Parses one `✓ name: P passed, F failed[, W warnings]` or `- name: skipped` summary line.
pub fn parse_summary_line(line: &str) -> Option<ScenarioResult> {
    let line = line.trim_end();
    if let Some(rest) = line.strip_prefix("- ") {
        let scenario = rest.strip_suffix(": skipped")?;
        return Some(ScenarioResult {
            scenario: scenario.to_owned(),
            passed: None,
            failed: 0,
            warnings: 0,
            scored: true,
        });
    }
    let rest = line
        .strip_prefix("✓ ")
        .or_else(|| line.strip_prefix("✗ "))?;
    let (scenario, counts) = rest.rsplit_once(": ")?;
    let mut passed = None;
    let mut failed = None;
    let mut warnings = 0;
    for part in counts.split(", ") {
        let (number, label) = part.split_once(' ')?;
        let number: u32 = number.parse().ok()?;
        match label {
            "passed" => passed = Some(number),
            "failed" => failed = Some(number),
            "warnings" => warnings = number,
            _ => return None,
        }
    }
    Some(ScenarioResult {
        scenario: scenario.to_owned(),
        passed: Some(passed?),
        failed: failed?,
        warnings,
        scored: true,
    })
}

/// Collects scenario results from the suite's stdout (only lines after `=== SUITE SUMMARY ===`,
/// or `=== SUMMARY ===` as the server runs print it).
///
/// Run with `--verbose`, the client suite follows a failed scenario's line
/// with its failed checks (`    - Name: message`, a message may span lines):
/// those are kept as the scenario's reasons, not as unreadable lines.
#[derive(Debug, Default)]
pub struct SummaryParser {
    in_summary: bool,
    in_unscored: bool,
    /// Whether the last result failed: its failed checks may follow.
    in_reasons: bool,
    /// Whether a failed check of the last result was read: a line that is
    /// not a result continues its message.
    reason_open: bool,
    results: Vec<ScenarioResult>,
    unscored: BTreeSet<String>,
    /// Lines of the summary block that are neither a result nor blank.
    unreadable: Vec<String>,
    /// The failed checks printed under a failed scenario: (scenario, line).
    reasons: Vec<(String, String)>,
}

impl SummaryParser {
    /// Feeds one stdout line.
    pub fn feed(&mut self, line: &str) {
        if matches!(line.trim(), "=== SUITE SUMMARY ===" | "=== SUMMARY ===") {
            self.in_summary = true;
            return;
        }
        if line.starts_with("Not scored for ") {
            self.in_unscored = true;
            return;
        }
        if self.in_unscored {
            // `  ✓ auth/dpop (extension)`: the scenario the suite does not score.
            let name = line
                .trim()
                .trim_start_matches(['✓', '✗'])
                .split_whitespace()
                .next();
            match name {
                Some(name) if self.unscored.len() < MAX_SCENARIOS => {
                    self.unscored.insert(name.to_owned());
                }
                _ => self.in_unscored = false,
            }
            return;
        }
        if !self.in_summary || self.results.len() >= MAX_SCENARIOS {
            return;
        }
        if line.starts_with("Total: ") {
            self.in_summary = false;
            return;
        }
        if let Some(result) = parse_summary_line(line) {
            self.in_reasons = result.failed > 0;
            self.reason_open = false;
            self.results.push(result);
            return;
        }
        let text = line.trim();
        if text.is_empty() {
            return;
        }
        // A failed check starts indented (`    - `); what follows it up to
        // the next result is its message.
        self.reason_open |= self.in_reasons && line.starts_with("    - ");
        if self.reason_open {
            if self.reasons.len() < MAX_REASONS
                && let Some(last) = self.results.last()
            {
                let text: String = text.chars().take(MAX_REASON_CHARS).collect();
                self.reasons.push((last.scenario.clone(), text));
            }
        } else if self.unreadable.len() < MAX_SCENARIOS {
            self.unreadable.push(text.to_owned());
        }
    }

    /// The lines of the summary block it could not read (none are expected).
    pub fn unreadable(&self) -> &[String] {
        &self.unreadable
    }

    /// The failed checks printed under failed scenarios: (scenario, line).
    pub fn reasons(&self) -> &[(String, String)] {
        &self.reasons
    }

    /// The parsed results, each marked scored or not.
    pub fn finish(self) -> Vec<ScenarioResult> {
        let unscored = self.unscored;
        self.results
            .into_iter()
            .map(|mut result| {
                result.scored = !unscored.contains(&result.scenario);
                result
            })
            .collect()
    }
}

/// `(revision, scenario)` pairs that are allowed to fail; the revision of an
/// extra scenario is [`EXTRA_LABEL`].
pub fn parse_expected_failures(text: &str) -> Result<BTreeSet<(String, String)>> {
    parse_scenario_list(text, EXPECTED_FAILURES)
}

/// Parses a list of `revision scenario` lines (`#` starts a comment) read from `file`.
fn parse_scenario_list(text: &str, file: &str) -> Result<BTreeSet<(String, String)>> {
    let mut set = BTreeSet::new();
    for (number, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(revision), Some(scenario), None) => {
                if !REVISIONS.contains(&revision)
                    && revision != EXTRA_LABEL
                    && !server::is_server_label(revision)
                {
                    bail!("{file}:{}: unknown revision `{revision}`", number + 1);
                }
                set.insert((revision.to_owned(), scenario.to_owned()));
            }
            _ => bail!("{file}:{}: expected `revision scenario`", number + 1),
        }
    }
    Ok(set)
}

/// Verdict for one scenario run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Passed and not listed.
    Pass,
    /// Failed but listed as expected.
    ExpectedFailure,
    /// Failed and not listed.
    Fail,
    /// Listed as expected failure but passed: the list must shrink.
    UnexpectedPass,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::ExpectedFailure => "expected failure",
            Self::Fail => "FAIL",
            Self::UnexpectedPass => "FAIL (passes but listed as expected failure)",
        }
    }
}

/// Outcome of a whole conformance run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Scenarios that passed.
    pub passed: u32,
    /// Unexpected failures, unexpected passes, stale list entries and suite errors.
    pub failed: u32,
    /// Failures listed in the expected-failures file.
    pub expected: u32,
}

/// Table row: revision, scenario, verdict.
pub type Row = (String, String, Verdict);

/// The judged outcome of all revisions.
#[derive(Debug)]
pub struct Judgement {
    /// One row per scenario run.
    pub rows: Vec<Row>,
    /// Listed `(revision, scenario)` pairs that were not run in a revision that did run.
    pub stale: Vec<(String, String)>,
    /// Counts.
    pub tally: Tally,
}

/// Judges the results of all revisions against the expected-failures list.
pub fn judge(
    runs: &[(String, Vec<ScenarioResult>)],
    expected: &BTreeSet<(String, String)>,
) -> Judgement {
    let mut rows = Vec::new();
    let mut tally = Tally::default();
    let mut seen = BTreeSet::new();
    for (revision, results) in runs {
        for result in results {
            let key = (revision.clone(), result.scenario.clone());
            let listed = expected.contains(&key);
            let verdict = match (result.is_pass(), listed) {
                (true, false) => Verdict::Pass,
                (false, true) => Verdict::ExpectedFailure,
                (false, false) => Verdict::Fail,
                (true, true) => Verdict::UnexpectedPass,
            };
            match verdict {
                Verdict::Pass => tally.passed += 1,
                Verdict::ExpectedFailure => tally.expected += 1,
                Verdict::Fail | Verdict::UnexpectedPass => tally.failed += 1,
            }
            rows.push((revision.clone(), result.scenario.clone(), verdict));
            seen.insert(key);
        }
    }
    let ran: BTreeSet<&String> = runs.iter().map(|(r, _)| r).collect();
    let stale: Vec<(String, String)> = expected
        .iter()
        .filter(|k| ran.contains(&k.0) && !seen.contains(*k))
        .cloned()
        .collect();
    tally.failed += u32::try_from(stale.len()).unwrap_or(u32::MAX);
    Judgement { rows, stale, tally }
}

/// Options for a conformance run.
#[derive(Debug, Default)]
pub struct Options {
    /// Client command overriding the built `conformance-client` (e.g. `true` to exercise the runner).
    pub command: Option<String>,
    /// Only the server scenarios (against the built servers); no client run.
    pub servers_only: bool,
}

/// Runs the suite for every revision, then each extra scenario, prints the
/// tables and returns the tally.
pub fn run(ws: &Workspace, tools: &Tools, options: &Options) -> Result<Tally> {
    let expected_path = ws.root().join(EXPECTED_FAILURES);
    let expected_text = fs::read_to_string(&expected_path)
        .with_context(|| format!("cannot read {}", expected_path.display()))?;
    let expected = parse_expected_failures(&expected_text)?;
    let unscored_path = ws.root().join(UNSCORED_PASSES);
    let unscored_text = fs::read_to_string(&unscored_path)
        .with_context(|| format!("cannot read {}", unscored_path.display()))?;
    let unscored_passes = parse_scenario_list(&unscored_text, UNSCORED_PASSES)?;
    let skips_path = ws.root().join(SUITE_SKIPS);
    let skips_text = fs::read_to_string(&skips_path)
        .with_context(|| format!("cannot read {}", skips_path.display()))?;
    let suite_skips = parse_scenario_list(&skips_text, SUITE_SKIPS)?;
    let command = match &options.command {
        Some(command) => command.clone(),
        None => build_client(ws)?,
    };
    let lists = REVISIONS
        .iter()
        .map(|revision| {
            Ok((
                (*revision).to_owned(),
                scenario_list::list(tools, revision)?,
            ))
        })
        .collect::<Result<BTreeMap<String, ScenarioList>>>()?;
    let mut runs = Vec::new();
    let mut suite_errors = 0;
    let client_revisions: &[&str] = if options.servers_only { &[] } else { REVISIONS };
    for revision in client_revisions {
        let out_dir = ws.target_dir().join("conformance").join(revision);
        let expected = lists
            .get(*revision)
            .map(|list| &list.client)
            .context("no scenario list")?;
        match run_revision(tools, &command, revision, expected, &out_dir) {
            Ok(results) if !results.is_empty() => runs.push(((*revision).to_owned(), results)),
            Ok(_) => {
                eprintln!("conformance {revision}: the suite printed no scenario results");
                suite_errors += 1;
            }
            Err(err) => {
                eprintln!("conformance {revision}: {err:#}");
                suite_errors += 1;
            }
        }
    }
    let revisions_run = runs.len();
    let extras = if options.servers_only {
        Vec::new()
    } else {
        run_extras(ws, tools, &command)?
    };
    let extra_count = count_passes(&extras);
    if !options.servers_only {
        runs.push((EXTRA_LABEL.to_owned(), extras));
    }
    let (server_runs, server_errors) = run_servers(ws, tools, &lists)?;
    suite_errors += server_errors;
    let server_counts: Vec<ServerCount> = server_runs
        .iter()
        .map(|(label, results)| {
            let (scored, unscored): (Vec<_>, Vec<_>) =
                results.iter().cloned().partition(|r| r.scored);
            ServerCount {
                label: label.clone(),
                scored: count_passes(&scored),
                unscored: count_passes(&unscored),
            }
        })
        .collect();
    // Server runs are judged on the scenarios the suite scores; the
    // extensions and pending scenarios it runs besides are held to the list
    // of those we pass.
    let unscored = UnscoredJudgement::of(&unscored_passes, &suite_skips, &server_runs);
    runs.extend(server_runs.into_iter().map(|(label, results)| {
        (
            label,
            results.into_iter().filter(|r| r.scored).collect::<Vec<_>>(),
        )
    }));
    let Judgement {
        rows,
        stale,
        mut tally,
    } = judge(&runs, &expected);
    tally.failed += suite_errors;
    tally.passed += u32::try_from(unscored.kept.len()).unwrap_or(u32::MAX);
    tally.failed += u32::try_from(
        unscored.regressed.len() + unscored.unlisted.len() + unscored.unskipped.len(),
    )
    .unwrap_or(u32::MAX);
    let is_server = |label: &str| label.starts_with(server::SERVER_LABEL_PREFIX);
    let (server_rows, rows): (Vec<Row>, Vec<Row>) =
        rows.into_iter().partition(|(label, _, _)| is_server(label));
    let (server_stale, stale): (Vec<_>, Vec<_>) =
        stale.into_iter().partition(|(label, _)| is_server(label));
    let (extra_rows, rows): (Vec<Row>, Vec<Row>) = rows
        .into_iter()
        .partition(|(label, _, _)| label == EXTRA_LABEL);
    let (extra_stale, stale): (Vec<_>, Vec<_>) = stale
        .into_iter()
        .partition(|(label, _)| label == EXTRA_LABEL);
    print_table(&rows, &stale);
    print_auth_counts(&runs[..revisions_run]);
    print_table(&extra_rows, &extra_stale);
    println!(
        "extra client scenarios: {}/{} passed",
        extra_count.0, extra_count.1
    );
    print_table(&server_rows, &server_stale);
    for ServerCount {
        label,
        scored,
        unscored,
    } in &server_counts
    {
        println!(
            "{label}: {}/{} scored scenarios passed; {}/{} unscored (extensions, pending) passed",
            scored.0, scored.1, unscored.0, unscored.1
        );
    }
    unscored.print();
    println!(
        "expected failures (listed in {EXPECTED_FAILURES}): {}",
        tally.expected
    );
    println!("{} passed, {} failed", tally.passed, tally.failed);
    Ok(tally)
}

/// Runs [`extra::EXTRA_SCENARIOS`] one by one, their output under the
/// conformance folder's `extra`.
fn run_extras(ws: &Workspace, tools: &Tools, command: &str) -> Result<Vec<ScenarioResult>> {
    let out_dir = ws.target_dir().join("conformance").join(EXTRA_LABEL);
    clear_dir(&out_dir)?;
    Ok(extra::run_all(tools, command, &out_dir))
}

/// Runs the server scenarios against every server target, their output
/// under the conformance folder's `server`; the runs that gave results,
/// and how many gave none.
fn run_servers(
    ws: &Workspace,
    tools: &Tools,
    lists: &BTreeMap<String, ScenarioList>,
) -> Result<(Vec<LabelledResults>, u32)> {
    let out_dir = ws.target_dir().join("conformance").join("server");
    clear_dir(&out_dir)?;
    let binaries = |name: &str| ws.debug_binary(name);
    let mut runs = Vec::new();
    let mut errors = 0;
    for (label, result) in server::run_all(tools, &binaries, lists, &out_dir) {
        match result {
            Ok(results) => runs.push((label, results)),
            Err(err) => {
                eprintln!("conformance {label}: {err:#}");
                errors += 1;
            }
        }
    }
    Ok((runs, errors))
}

/// The results of one run, under its label.
type LabelledResults = (String, Vec<ScenarioResult>);

/// A server run's passes: of the scored scenarios, and of the others.
struct ServerCount {
    label: String,
    scored: (usize, usize),
    unscored: (usize, usize),
}

/// How many of `results` pass, of how many.
fn count_passes(results: &[ScenarioResult]) -> (usize, usize) {
    (
        results.iter().filter(|r| r.is_pass()).count(),
        results.len(),
    )
}

/// Empties (or creates) `dir`.
fn clear_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// The authorization scenarios on their own line per revision: the scored
/// runs, then the extensions the suite runs without scoring.
fn print_auth_counts(runs: &[(String, Vec<ScenarioResult>)]) {
    for (revision, results) in runs {
        let count = |scored: bool| {
            let auth: Vec<_> = results
                .iter()
                .filter(|r| r.scenario.starts_with("auth/") && r.scored == scored)
                .collect();
            (auth.iter().filter(|r| r.is_pass()).count(), auth.len())
        };
        let (scored_passed, scored) = count(true);
        let (extra_passed, extra) = count(false);
        println!(
            "auth {revision}: {scored_passed}/{scored} scored runs passed; {extra_passed}/{extra} unscored extensions passed"
        );
    }
}

fn print_table(rows: &[Row], stale: &[(String, String)]) {
    if rows.is_empty() && stale.is_empty() {
        return;
    }
    let width = rows
        .iter()
        .map(|(_, s, _)| s.len())
        .max()
        .unwrap_or(8)
        .max(8);
    println!();
    println!("{:<width$}  {:<10}  result", "scenario", "revision");
    for (revision, scenario, verdict) in rows {
        println!("{scenario:<width$}  {revision:<10}  {}", verdict.label());
    }
    for (revision, scenario) in stale {
        println!(
            "{scenario:<width$}  {revision:<10}  FAIL (listed as expected failure but not run)"
        );
    }
}

fn build_client(ws: &Workspace) -> Result<String> {
    // The test command's build: a no-op after its build step.
    let mut cmd = ws.build_for_tests()?;
    println!("conformance: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, BUILD_TIMEOUT)?;
    let client = ws.debug_binary("conformance-client");
    if !client.is_file() {
        bail!("built client not found at {}", client.display());
    }
    let text = client.to_str().context("client path is not UTF-8")?;
    if text.contains(char::is_whitespace) {
        bail!("the suite splits --command on spaces; client path {text} contains whitespace");
    }
    Ok(text.to_owned())
}

/// Runs the client scenarios of `revision`, held to the `expected` ones.
fn run_revision(
    tools: &Tools,
    command: &str,
    revision: &str,
    expected: &BTreeSet<String>,
    out_dir: &Path,
) -> Result<Vec<ScenarioResult>> {
    clear_dir(out_dir)?;
    let mut cmd = std::process::Command::new(tools.conformance_bin());
    cmd.args([
        "client",
        "--command",
        command,
        "--requirements",
        revision,
        // Each failed check's message under its scenario.
        "--verbose",
        "-o",
    ])
    .arg(out_dir)
    .env("PATH", tools.node_path()?);
    println!("conformance: {}", process::describe(&cmd));
    let mut parser = SummaryParser::default();
    let finished = process::run_streaming(&mut cmd, SUITE_TIMEOUT, |stream, line| {
        if stream == Stream::Stdout {
            parser.feed(line);
        }
    })?;
    if finished.status.is_none() {
        bail!("suite killed after {}s", SUITE_TIMEOUT.as_secs());
    }
    println!(
        "conformance {revision}: suite exit {}, results in {}",
        process::status_text(&finished),
        out_dir.display()
    );
    for (scenario, reason) in parser.reasons() {
        println!("conformance {revision}: {scenario} failed: {reason}");
    }
    let unreadable = parser.unreadable().to_vec();
    let exit = (!finished.success()).then(|| process::status_text(&finished));
    Ok(hold_to_list(parser.finish(), expected, &unreadable, exit))
}

/// Path of the per-revision output directory (for reports).
pub fn output_dir(ws: &Workspace) -> PathBuf {
    ws.target_dir().join("conformance")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, passed: Option<u32>, failed: u32, warnings: u32) -> ScenarioResult {
        ScenarioResult {
            scenario: name.to_owned(),
            passed,
            failed,
            warnings,
            scored: true,
        }
    }

    #[test]
    fn parses_summary_lines() {
        assert_eq!(
            parse_summary_line("✓ initialize: 0 passed, 0 failed"),
            Some(result("initialize", Some(0), 0, 0))
        );
        assert_eq!(
            parse_summary_line("✗ auth/scope-step-up: 2 passed, 3 failed, 1 warnings"),
            Some(result("auth/scope-step-up", Some(2), 3, 1))
        );
        assert_eq!(
            parse_summary_line("- sse-retry: skipped"),
            Some(result("sse-retry", None, 0, 0))
        );
        assert_eq!(
            parse_summary_line("Total: 0 passed, 65 failed, 0 warnings"),
            None
        );
        assert_eq!(parse_summary_line("✓ x: many passed, 0 failed"), None);
    }

    #[test]
    fn zero_of_zero_is_not_a_pass() {
        assert!(!result("initialize", Some(0), 0, 0).is_pass());
        assert!(!result("request-metadata", Some(7), 0, 1).is_pass());
        assert!(!result("skipped", None, 0, 0).is_pass());
        assert!(result("tools_call", Some(2), 0, 0).is_pass());
    }

    #[test]
    fn parser_reads_only_the_summary_block() {
        let out = "✓ early: 9 passed, 0 failed\n=== SUITE SUMMARY ===\n\n✓ tools_call: 2 passed, 0 failed\n\
                   ✗ sse-retry: 1 passed, 1 failed\n\nTotal: 3 passed, 1 failed, 0 warnings\n\
                   Not scored for 2025-11-25: 1 scenario(s) run, 1 failing.\n  ✗ auth/dpop (extension)\n";
        let mut parser = SummaryParser::default();
        out.lines().for_each(|l| parser.feed(l));
        let results = parser.finish();
        assert_eq!(
            results,
            vec![
                result("tools_call", Some(2), 0, 0),
                result("sse-retry", Some(1), 1, 0)
            ]
        );
        let out = "=== SUITE SUMMARY ===\n✓ auth/a: 3 passed, 0 failed\n✓ auth/dpop: 2 passed, 0 failed\n\
                   Total: 5 passed, 0 failed, 0 warnings\n\
                   Not scored for 2026-07-28: 1 scenario(s) run, 0 failing.\n  ✓ auth/dpop (extension)\n";
        let mut parser = SummaryParser::default();
        out.lines().for_each(|l| parser.feed(l));
        let scored: Vec<bool> = parser.finish().iter().map(|r| r.scored).collect();
        assert_eq!(scored, vec![true, false]);
        // The server runs' heading.
        let out = "=== SUMMARY ===\n✓ ping: 2 passed, 0 failed\nTotal: 2 passed, 0 failed\n\
                   Not scored for 2025-11-25: 1 scenario(s) run, 0 failing.\n  ✓ ping (pending)\n";
        let mut parser = SummaryParser::default();
        out.lines().for_each(|l| parser.feed(l));
        let results = parser.finish();
        assert_eq!(results.len(), 1);
        assert!(!results[0].scored);
        // A line of the summary block in a shape the parser does not know
        // is kept, to be counted, not dropped.
        let out = "=== SUMMARY ===\n✓ ping: 2 passed, 0 failed\n✓ tools-list: 3 passed, 1 skipped\n\n\
                   Total: 5 passed, 0 failed\n";
        let mut parser = SummaryParser::default();
        out.lines().for_each(|l| parser.feed(l));
        assert_eq!(parser.unreadable(), ["✓ tools-list: 3 passed, 1 skipped"]);
        assert_eq!(parser.finish().len(), 1);
    }

    #[test]
    fn a_failed_scenarios_checks_are_its_reasons_and_nothing_else_is() {
        // As `--verbose` prints them: the failed checks under the failed
        // scenario, a message going on over a second line.
        let out = "=== SUITE SUMMARY ===\n✗ auth/a: 0 passed, 1 failed\n\
                   \u{20}   - auth/a: ENOSPC: no space left on device,\n\
                   open 'checks.json'\n✓ auth/b: 3 passed, 0 failed\n\
                   \u{20}   - stray: under a passing scenario\n✗ auth/c: 1 passed, 1 failed\n\
                   not indented, so not a check\n\
                   Total: 4 passed, 2 failed, 0 warnings\n";
        let mut parser = SummaryParser::default();
        out.lines().for_each(|l| parser.feed(l));
        assert_eq!(
            parser.reasons(),
            [
                (
                    "auth/a".to_owned(),
                    "- auth/a: ENOSPC: no space left on device,".to_owned()
                ),
                ("auth/a".to_owned(), "open 'checks.json'".to_owned()),
            ]
        );
        assert_eq!(
            parser.unreadable(),
            [
                "- stray: under a passing scenario",
                "not indented, so not a check"
            ]
        );
        assert_eq!(parser.finish().len(), 3);
    }

    #[test]
    fn expected_failures_file_format() {
        let set = parse_expected_failures(
            "# comment\n2025-11-25 auth/dpop  # trailing\n\n2026-07-28 auth/x\n",
        )
        .unwrap();
        assert_eq!(set.len(), 2);
        assert!(set.contains(&("2025-11-25".to_owned(), "auth/dpop".to_owned())));
        assert!(parse_expected_failures("2030-01-01 auth/x\n").is_err());
        let extra =
            parse_expected_failures("extra auth/2025-03-26-oauth-endpoint-fallback\n").unwrap();
        assert!(extra.contains(&(
            EXTRA_LABEL.to_owned(),
            "auth/2025-03-26-oauth-endpoint-fallback".to_owned()
        )));
        assert!(parse_expected_failures("2025-11-25\n").is_err());
    }

    #[test]
    fn judge_counts_unexpected_passes_and_stale_entries() {
        let expected: BTreeSet<_> = [
            ("2025-11-25".to_owned(), "auth/a".to_owned()),
            ("2025-11-25".to_owned(), "auth/b".to_owned()),
            ("2025-11-25".to_owned(), "auth/gone".to_owned()),
            ("2026-07-28".to_owned(), "auth/not-run-revision".to_owned()),
        ]
        .into();
        let runs = vec![(
            "2025-11-25".to_owned(),
            vec![
                result("tools_call", Some(1), 0, 0),
                result("initialize", Some(0), 0, 0),
                result("auth/a", Some(0), 3, 0),
                result("auth/b", Some(4), 0, 0),
            ],
        )];
        let Judgement { rows, stale, tally } = judge(&runs, &expected);
        assert_eq!(rows[0].2, Verdict::Pass);
        assert_eq!(rows[1].2, Verdict::Fail);
        assert_eq!(rows[2].2, Verdict::ExpectedFailure);
        assert_eq!(rows[3].2, Verdict::UnexpectedPass);
        assert_eq!(
            stale,
            vec![("2025-11-25".to_owned(), "auth/gone".to_owned())]
        );
        assert_eq!(
            tally,
            Tally {
                passed: 1,
                failed: 3,
                expected: 1
            }
        );
    }

    #[test]
    fn extra_scenarios_are_judged_under_their_label() {
        let expected: BTreeSet<_> = [
            (EXTRA_LABEL.to_owned(), "sep-x".to_owned()),
            (EXTRA_LABEL.to_owned(), "auth/removed".to_owned()),
        ]
        .into();
        let runs = vec![
            (
                "2025-11-25".to_owned(),
                vec![result("sep-x", Some(2), 0, 0)],
            ),
            (
                EXTRA_LABEL.to_owned(),
                vec![
                    result("auth/fallback", Some(3), 0, 0),
                    result("sep-x", Some(1), 1, 0),
                    result("sep-y", None, 0, 0),
                ],
            ),
        ];
        let Judgement { rows, stale, tally } = judge(&runs, &expected);
        let verdicts: Vec<_> = rows.iter().map(|(_, _, v)| *v).collect();
        assert_eq!(
            verdicts,
            vec![
                Verdict::Pass,
                Verdict::Pass,
                Verdict::ExpectedFailure,
                Verdict::Fail
            ]
        );
        assert_eq!(
            stale,
            vec![(EXTRA_LABEL.to_owned(), "auth/removed".to_owned())]
        );
        assert_eq!(
            tally,
            Tally {
                passed: 2,
                failed: 2,
                expected: 1
            }
        );
    }

    #[test]
    fn shipped_expected_failures_file_is_empty() {
        let ws = Workspace::locate().unwrap();
        let text = fs::read_to_string(ws.root().join(EXPECTED_FAILURES)).unwrap();
        let set = parse_expected_failures(&text).unwrap();
        assert!(set.is_empty(), "every scenario passes: {set:?}");
    }
}
