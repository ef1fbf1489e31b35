//! The server scenarios the suite runs but does not score (extensions such
//! as tasks, and scenarios it marks pending): the ones we pass are listed in
//! [`UNSCORED_PASSES`], and the list is held to the runs both ways. A
//! listed scenario that no longer passes (or no longer runs) is a
//! regression; an unlisted one that passes must be added, so the list is
//! always exactly what we pass.

use std::collections::BTreeSet;

use super::scenario_result::ScenarioResult;

/// The list of unscored server scenarios we pass, relative to the workspace root.
pub const UNSCORED_PASSES: &str = "xtask/conformance-unscored-passes.txt";

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
}

impl UnscoredJudgement {
    /// Holds the unscored results of `runs` (every server run, its scored
    /// results too: they are skipped) to `listed`.
    pub fn of(listed: &BTreeSet<Listed>, runs: &[(String, Vec<ScenarioResult>)]) -> Self {
        let passed: BTreeSet<Listed> = runs
            .iter()
            .flat_map(|(label, results)| {
                results
                    .iter()
                    .filter(|result| !result.scored && result.is_pass())
                    .map(move |result| (label.clone(), result.scenario.clone()))
            })
            .collect();
        Self {
            kept: listed.intersection(&passed).cloned().collect(),
            regressed: listed.difference(&passed).cloned().collect(),
            unlisted: passed.difference(listed).cloned().collect(),
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
        let judgement = UnscoredJudgement::of(&listed, &runs);
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
            UnscoredJudgement::of(&BTreeSet::new(), &runs),
            UnscoredJudgement::default()
        );
    }
}
