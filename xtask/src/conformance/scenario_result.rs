//! [`ScenarioResult`]: one scenario's result, as the suite reports it.

/// One scenario's result as printed in the suite summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioResult {
    /// Scenario name, e.g. `tools_call`.
    pub scenario: String,
    /// Passed checks (`None` when the suite skipped the scenario).
    pub passed: Option<u32>,
    /// Failed checks.
    pub failed: u32,
    /// Warning checks.
    pub warnings: u32,
    /// Whether the suite counts it for the requirement set (extensions and
    /// scenarios added after the release are run but not scored).
    pub scored: bool,
}

impl ScenarioResult {
    /// Our pass rule: at least one passed check, no failure, no warning.
    pub fn is_pass(&self) -> bool {
        self.passed.is_some_and(|p| p > 0) && self.failed == 0 && self.warnings == 0
    }

    /// Whether no check passed, failed or warned: the suite skipped the
    /// scenario (its summary says `skipped`, or `0 passed, 0 failed` when
    /// the scenario's only check is a SKIPPED one).
    pub fn checked_nothing(&self) -> bool {
        self.passed.unwrap_or(0) == 0 && self.failed == 0 && self.warnings == 0
    }
}
