//! The server scenarios the suite runs but does not score (extensions such
//! as tasks, and scenarios it marks pending): the ones we pass are listed in
//! [`UNSCORED_PASSES`], and the list is held to the runs both ways. A
//! listed scenario that no longer passes (or no longer runs) is a
//! regression; an unlisted one that passes must be added, so the list is
//! always exactly what we pass. The ones the suite's own harness skips
//! whatever the server does are listed apart, each with the reason read in
//! the suite's source ([`SUITE_SKIPS`]); one that the suite runs again
//! fails the step until it is taken off that list.

use std::collections::BTreeSet;

use super::scenario_result::ScenarioResult;

/// The list of unscored server scenarios we pass, relative to the workspace root.
pub const UNSCORED_PASSES: &str = "xtask/conformance-unscored-passes.txt";

/// The unscored server scenarios the suite skips whatever the server does,
/// relative to the workspace root.
pub const SUITE_SKIPS: &str = "xtask/conformance-suite-skips.txt";

/// A `label scenario` pair, as listed.
pub type Listed = (String, String);

/// The unscored runs held to the list.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UnscoredJudgement {
    /// Listed, and passed.
    pub kept: Vec<Listed>,
    /// Listed, and failed or did not run.
    pub regressed: Vec<Listed>,
    /// Passed, and not listed.
    pub unlisted: Vec<Listed>,
    /// Listed as skipped by the suite, and run by it (or not reported).
    pub unskipped: Vec<Listed>,
}

impl UnscoredJudgement {
    /// Holds the unscored results of `runs` (every server run, its scored
    /// results too: they are skipped) to `listed`.
    /// `skips` are the listed suite skips.
    pub fn of(
        listed: &BTreeSet<Listed>,
        skips: &BTreeSet<Listed>,
        runs: &[(String, Vec<ScenarioResult>)],
    ) -> Self {
        let passed: BTreeSet<Listed> = runs
            .iter()
            .flat_map(|(label, results)| {
                results
                    .iter()
                    .filter(|result| !result.scored && result.is_pass())
                    .map(move |result| (label.clone(), result.scenario.clone()))
            })
            .collect();
        let skipped: BTreeSet<Listed> = runs
            .iter()
            .flat_map(|(label, results)| {
                results
                    .iter()
                    .filter(|result| !result.scored && result.checked_nothing())
                    .map(move |result| (label.clone(), result.scenario.clone()))
            })
            .collect();
        let ran: BTreeSet<&String> = runs.iter().map(|(label, _)| label).collect();
        Self {
            kept: listed.intersection(&passed).cloned().collect(),
            regressed: listed.difference(&passed).cloned().collect(),
            unlisted: passed.difference(listed).cloned().collect(),
            unskipped: skips
                .iter()
                .filter(|skip| ran.contains(&skip.0) && !skipped.contains(*skip))
                .cloned()
                .collect(),
        }
    }

    /// Prints the verdict: one line, then each regression and each
    /// unlisted pass.
    pub fn print(&self) {
        println!(
            "unscored server scenarios we pass (listed in {UNSCORED_PASSES}): {} kept, {} regressed, {} not listed",
            self.kept.len(),
            self.regressed.len(),
            self.unlisted.len()
        );
        for (label, scenario) in &self.regressed {
            println!("  REGRESSED  {scenario}  {label}: listed as passing, and it did not");
        }
        for (label, scenario) in &self.unlisted {
            println!(
                "  UNLISTED   {scenario}  {label}: passes; add `{label} {scenario}` to the list"
            );
        }
        for (label, scenario) in &self.unskipped {
            println!(
                "  UNSKIPPED  {scenario}  {label}: listed in {SUITE_SKIPS}, and the suite no longer skips it; take it off"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(scenario: &str, scored: bool, pass: bool) -> ScenarioResult {
        ScenarioResult {
            scenario: scenario.to_owned(),
            passed: Some(3),
            failed: u32::from(!pass),
            warnings: 0,
            scored,
        }
    }

    fn pair(label: &str, scenario: &str) -> Listed {
        (label.to_owned(), scenario.to_owned())
    }

    #[test]
    fn listed_passes_are_kept_and_the_rest_named_both_ways() {
        let label = "server:example:2026-07-28";
        let runs = vec![(
            label.to_owned(),
            vec![
                result("tools-list", true, true),
                result("tasks-lifecycle", false, true),
                result("tasks-wire-fields", false, false),
                result("tasks-mrtr-input", false, true),
            ],
        )];
        let listed: BTreeSet<Listed> = [
            pair(label, "tasks-lifecycle"),
            pair(label, "tasks-wire-fields"),
            pair(label, "gone-scenario"),
        ]
        .into();
        let judgement = UnscoredJudgement::of(&listed, &BTreeSet::new(), &runs);
        assert_eq!(judgement.kept, vec![pair(label, "tasks-lifecycle")]);
        assert_eq!(
            judgement.regressed,
            vec![
                pair(label, "gone-scenario"),
                pair(label, "tasks-wire-fields")
            ]
        );
        assert_eq!(judgement.unlisted, vec![pair(label, "tasks-mrtr-input")]);
    }

    #[test]
    fn a_scored_pass_is_not_the_lists_business() {
        let runs = vec![(
            "server:serve:2025-11-25".to_owned(),
            vec![result("ping", true, true)],
        )];
        assert_eq!(
            UnscoredJudgement::of(&BTreeSet::new(), &BTreeSet::new(), &runs),
            UnscoredJudgement::default()
        );
    }

    #[test]
    fn a_listed_suite_skip_must_stay_skipped() {
        let label = "server:example:2026-07-28";
        // As the summary shows a scenario whose only check is SKIPPED.
        let skipped = ScenarioResult {
            passed: Some(0),
            ..result("tasks-status-notifications", false, true)
        };
        let skips: BTreeSet<Listed> = [
            pair(label, "tasks-status-notifications"),
            pair(label, "tasks-now-run"),
            pair("server:example:2025-11-25", "not-run-this-time"),
        ]
        .into();
        let runs = vec![(
            label.to_owned(),
            vec![skipped, result("tasks-now-run", false, true)],
        )];
        let judgement = UnscoredJudgement::of(&BTreeSet::new(), &skips, &runs);
        assert_eq!(judgement.unskipped, vec![pair(label, "tasks-now-run")]);
        assert_eq!(judgement.unlisted, vec![pair(label, "tasks-now-run")]);
        assert!(judgement.regressed.is_empty());
    }
}
