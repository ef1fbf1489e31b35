//! Test counts: parsing cargo's `test result:` lines and nextest's summary,
//! and summing them over steps.

/// Passed/failed counts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Passed tests.
    pub passed: u64,
    /// Failed tests.
    pub failed: u64,
}

impl Counts {
    /// Adds another count.
    pub fn add(&mut self, other: Counts) {
        self.passed = self.passed.saturating_add(other.passed);
        self.failed = self.failed.saturating_add(other.failed);
    }
}

/// Parses `test result: ok. 3 passed; 1 failed; 0 ignored; ...` (also `FAILED.`); other lines give `None`.
pub fn parse_test_result(line: &str) -> Option<Counts> {
    let rest = line.trim().strip_prefix("test result: ")?;
    let (_, rest) = rest.split_once(". ")?;
    let mut counts = Counts::default();
    let mut found = 0;
    for part in rest.split("; ") {
        let Some((number, label)) = part.split_once(' ') else {
            continue;
        };
        let Ok(number) = number.parse::<u64>() else {
            continue;
        };
        match label {
            "passed" => {
                counts.passed = number;
                found += 1;
            }
            "failed" => {
                counts.failed = number;
                found += 1;
            }
            _ => {}
        }
    }
    (found == 2).then_some(counts)
}

/// Parses nextest's last line, `Summary [ 71.3s] 559 tests run: 557 passed
/// (2 slow), 2 failed, 1 timed out, 0 skipped`: timed-out tests count as
/// failed. Other lines give `None`.
pub fn parse_nextest_summary(line: &str) -> Option<Counts> {
    let rest = line.trim().strip_prefix("Summary [")?;
    let (_, rest) = rest.split_once("tests run: ")?;
    let mut counts = Counts::default();
    let mut found = false;
    for part in rest.split(", ") {
        let part = part.split(" (").next().unwrap_or_default().trim();
        let Some((number, label)) = part.split_once(' ') else {
            continue;
        };
        let Ok(number) = number.parse::<u64>() else {
            continue;
        };
        match label {
            "passed" => {
                counts.passed = number;
                found = true;
            }
            "failed" | "timed out" => counts.failed = counts.failed.saturating_add(number),
            _ => {}
        }
    }
    (found || counts.failed > 0).then_some(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nextest_summaries() {
        let ok = "     Summary [  71.295s] 559 tests run: 559 passed, 0 skipped";
        assert_eq!(
            parse_nextest_summary(ok),
            Some(Counts {
                passed: 559,
                failed: 0
            })
        );
        let bad = "     Summary [  80.1s] 10 tests run: 7 passed (1 slow), 2 failed, 1 timed out, 0 skipped";
        assert_eq!(
            parse_nextest_summary(bad),
            Some(Counts {
                passed: 7,
                failed: 3
            })
        );
        assert_eq!(parse_nextest_summary("        PASS [   0.013s] x"), None);
        assert_eq!(parse_test_result(ok), None);
    }

    #[test]
    fn parses_ok_and_failed_lines() {
        let ok = "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.02s";
        assert_eq!(
            parse_test_result(ok),
            Some(Counts {
                passed: 12,
                failed: 0
            })
        );
        let bad = "test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s";
        assert_eq!(
            parse_test_result(bad),
            Some(Counts {
                passed: 3,
                failed: 2
            })
        );
        assert_eq!(parse_test_result("running 3 tests"), None);
        assert_eq!(parse_test_result("test result: ok. lots passed"), None);
    }

    #[test]
    fn add_sums() {
        let mut total = Counts {
            passed: 1,
            failed: 2,
        };
        total.add(Counts {
            passed: 10,
            failed: 0,
        });
        assert_eq!(
            total,
            Counts {
                passed: 11,
                failed: 2
            }
        );
    }
}
