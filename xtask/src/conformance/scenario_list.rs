//! The scenarios a run must report, from the suite's own list for the
//! pinned version (`conformance list --requirements REV`), and the check of
//! a run against them: a scenario missing from the summary, one the list
//! does not hold, a summary line the parser cannot read, or a non-zero
//! exit of the suite each become a failing result, so nothing vanishes.

use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::scenario_result::ScenarioResult;
use crate::process::{self, Stream};
use crate::tools::Tools;

/// How long listing the scenarios may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(60);
/// The most scenarios a list may hold.
const MAX_LISTED: usize = 1000;

/// The scenarios one requirement set runs, scored or not, by side.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ScenarioList {
    /// Scenarios run against a client.
    pub client: BTreeSet<String>,
    /// Scenarios run against a server.
    pub server: BTreeSet<String>,
}

/// Which part of the list a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Preamble,
    Server,
    Client,
    Unscored,
}

/// Parses the output of `conformance list --requirements REV`: the
/// `Server scenarios` and `Client scenarios` blocks (`  - name`), and the
/// ones `Run and reported, but never scored` (`    - name [client]`).
pub fn parse(text: &str) -> Result<ScenarioList> {
    let mut list = ScenarioList::default();
    let mut section = Section::Preamble;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("Server scenarios") {
            section = Section::Server;
            continue;
        }
        if trimmed.starts_with("Client scenarios") {
            section = Section::Client;
            continue;
        }
        if trimmed.starts_with("Run and reported, but never scored") {
            section = Section::Unscored;
            continue;
        }
        let Some(item) = trimmed.strip_prefix("- ") else {
            continue;
        };
        let side = match section {
            Section::Preamble => bail!("a scenario before any heading: `{trimmed}`"),
            Section::Server => &mut list.server,
            Section::Client => &mut list.client,
            Section::Unscored => match item.rsplit_once(' ') {
                Some((_, "[client]")) => &mut list.client,
                Some((_, "[server]")) => &mut list.server,
                _ => bail!("an unscored scenario of no side: `{trimmed}`"),
            },
        };
        let name = item.split_whitespace().next().unwrap_or_default();
        if side.len() >= MAX_LISTED {
            bail!("more than {MAX_LISTED} scenarios listed");
        }
        side.insert(name.to_owned());
    }
    if list.client.is_empty() || list.server.is_empty() {
        bail!("the list names no client or no server scenario");
    }
    Ok(list)
}

/// Asks the suite for the scenarios of `revision`.
pub fn list(tools: &Tools, revision: &str) -> Result<ScenarioList> {
    let mut cmd = std::process::Command::new(tools.conformance_bin());
    cmd.args(["list", "--requirements", revision])
        .env("PATH", tools.node_path()?);
    let mut text = String::new();
    let finished = process::run_quiet(&mut cmd, LIST_TIMEOUT, |stream, line| {
        if stream == Stream::Stdout && text.len() < 256 * 1024 {
            text.push_str(line);
            text.push('\n');
        }
    })?;
    if !finished.success() {
        bail!(
            "`{}` failed ({})",
            process::describe(&cmd),
            process::status_text(&finished)
        );
    }
    parse(&text).with_context(|| format!("the suite's scenario list for {revision}"))
}

/// A failing stand-in for what went wrong in a run (it shows in the table
/// under this name, and counts as a failure).
fn problem(name: String) -> ScenarioResult {
    ScenarioResult {
        scenario: name,
        passed: None,
        failed: 1,
        warnings: 0,
        scored: true,
    }
}

/// Holds a run's results to the scenarios it must report: a listed
/// scenario without a result, a result of a scenario not listed (its
/// result made failing), each unreadable summary line and a failed suite
/// exit (`exit`, its status text, when not a success) add a failing result.
pub fn hold_to_list(
    mut results: Vec<ScenarioResult>,
    expected: &BTreeSet<String>,
    unreadable: &[String],
    exit: Option<String>,
) -> Vec<ScenarioResult> {
    let reported: BTreeSet<String> = results.iter().map(|r| r.scenario.clone()).collect();
    for result in &mut results {
        if !expected.contains(&result.scenario) {
            *result = problem(format!("{} (not in the suite's list)", result.scenario));
        }
    }
    results.extend(
        expected
            .difference(&reported)
            .map(|missing| problem(format!("{missing} (missing from the summary)"))),
    );
    results.extend(
        unreadable
            .iter()
            .map(|line| problem(format!("(unreadable summary line: {line})"))),
    );
    if let Some(status) = exit {
        results.push(problem(format!("(the suite exited with {status})")));
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "Required for 2025-11-25 (48 scenarios, frozen; run at the 2025-11-25 wire):

Server scenarios (test against a server):
  - server-initialize
  - ping

Client scenarios (test against a client):
  - initialize
  - auth/metadata-default

Run and reported, but never scored:
  extension (1):
    - auth/dpop [client]
  pending (2):
    - json-schema-2020-12 [server]
    - server-sse-polling [server]
";

    fn names(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    fn passed(name: &str) -> ScenarioResult {
        ScenarioResult {
            scenario: name.to_owned(),
            passed: Some(2),
            failed: 0,
            warnings: 0,
            scored: true,
        }
    }

    #[test]
    fn reads_both_sides_scored_or_not() {
        let list = parse(LIST).unwrap();
        assert_eq!(
            list.client,
            names(&["initialize", "auth/metadata-default", "auth/dpop"])
        );
        assert_eq!(
            list.server,
            names(&[
                "server-initialize",
                "ping",
                "json-schema-2020-12",
                "server-sse-polling"
            ])
        );
        assert!(parse("Server scenarios:\n  - ping\n").is_err());
        assert!(parse(&LIST.replace(" [server]", "")).is_err());
    }

    #[test]
    fn a_missing_an_unknown_or_an_unreadable_scenario_and_a_failed_exit_fail() {
        let expected = names(&["initialize", "tools_call", "sse-retry"]);
        let all = vec![
            passed("initialize"),
            passed("tools_call"),
            passed("sse-retry"),
        ];
        let held = hold_to_list(all.clone(), &expected, &[], None);
        assert_eq!(held, all);
        assert!(held.iter().all(ScenarioResult::is_pass));

        let results = vec![
            passed("initialize"),
            passed("tools_call"),
            passed("surprise"),
        ];
        let held = hold_to_list(
            results,
            &expected,
            &["✓ weird line".to_owned()],
            Some("exit status: 1".to_owned()),
        );
        let failing: Vec<&str> = held
            .iter()
            .filter(|r| !r.is_pass())
            .map(|r| r.scenario.as_str())
            .collect();
        assert_eq!(
            failing,
            vec![
                "surprise (not in the suite's list)",
                "sse-retry (missing from the summary)",
                "(unreadable summary line: ✓ weird line)",
                "(the suite exited with exit status: 1)",
            ]
        );
    }
}
