//! Test counts: parsing cargo's `test result:` lines and nextest's summary
//! (colour codes stripped first), and summing them over steps, Rust tests,
//! doc tests and conformance runs each on its own ([`Totals`]).

use std::fmt;

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

/// What `cargo xtask test` counts, each kind on its own.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// The Rust tests (unit and integration, with and without default features).
    pub rust: Counts,
    /// The doc tests.
    pub doc: Counts,
    /// The conformance runs (one per scenario and requirement set or target).
    pub conformance: Counts,
    /// Steps that failed without a count of their own (a build, a check).
    pub steps_failed: u64,
}

impl Totals {
    /// Adds another step's totals.
    pub fn add(&mut self, other: Totals) {
        self.rust.add(other.rust);
        self.doc.add(other.doc);
        self.conformance.add(other.conformance);
        self.steps_failed = self.steps_failed.saturating_add(other.steps_failed);
    }

    /// Every failure: failed tests and runs, and failed steps.
    pub fn failed(&self) -> u64 {
        [
            self.rust.failed,
            self.doc.failed,
            self.conformance.failed,
            self.steps_failed,
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }
}

impl fmt::Display for Totals {
    /// `tests: 812 Rust tests passed, 0 failed; 35 doc tests passed, 0
    /// failed; 140 conformance runs passed, 0 failed; 0 other steps failed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self {
            rust,
            doc,
            conformance,
            steps_failed,
        } = self;
        write!(
            f,
            "tests: {} Rust tests passed, {} failed; {} doc tests passed, {} failed; \
             {} conformance runs passed, {} failed; {steps_failed} other steps failed",
            rust.passed,
            rust.failed,
            doc.passed,
            doc.failed,
            conformance.passed,
            conformance.failed
        )
    }
}

/// `line` without its ANSI escape sequences (`ESC [ … letter`), as a
/// terminal would show it: colour forced on (`CARGO_TERM_COLOR=always`)
/// must not hide a line from a parser.
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.clone().next() == Some('[') {
            chars.next();
            // Parameters and intermediates, up to the final letter.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

/// Parses `test result: ok. 3 passed; 1 failed; 0 ignored; ...` (also `FAILED.`); other lines give `None`.
pub fn parse_test_result(line: &str) -> Option<Counts> {
    let line = strip_ansi(line);
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
/// (2 slow), 1 failed, 1 exec failed, 0 skipped`. Every test run that did
/// not pass is a failure, whatever nextest calls it (`failed`, `exec
/// failed`, `timed out`, or a kind this does not know), and so is every
/// test of a cancelled run that never ran (`5/559 tests run`). Other lines
/// give `None`.
pub fn parse_nextest_summary(line: &str) -> Option<Counts> {
    let line = strip_ansi(line);
    let rest = line.trim().strip_prefix("Summary [")?;
    let (_, rest) = rest.split_once("] ")?;
    let (run, rest) = rest.split_once(" run: ")?;
    let run = run
        .strip_suffix(" tests")
        .or_else(|| run.strip_suffix(" test"))?;
    let (ran, planned) = match run.split_once('/') {
        Some((ran, planned)) => (ran.parse::<u64>().ok()?, planned.parse::<u64>().ok()?),
        None => {
            let ran = run.parse::<u64>().ok()?;
            (ran, ran)
        }
    };
    let mut counts = Counts::default();
    for part in rest.split(", ") {
        let part = part.split(" (").next().unwrap_or_default().trim();
        let (number, label) = part.split_once(' ')?;
        let number = number.parse::<u64>().ok()?;
        match label {
            "passed" => counts.passed = counts.passed.saturating_add(number),
            "skipped" => {}
            _ => counts.failed = counts.failed.saturating_add(number),
        }
    }
    let not_passed = ran.saturating_sub(counts.passed);
    counts.failed = counts
        .failed
        .max(not_passed)
        .saturating_add(planned.saturating_sub(ran));
    Some(counts)
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

    const ESC: &str = "\u{1b}";

    #[test]
    fn colour_codes_hide_no_result_line() {
        let nextest = format!(
            "{ESC}[32;1m     Summary{ESC}[0m [  71.295s] {ESC}[1m559{ESC}[0m tests run: {ESC}[1m558{ESC}[0m {ESC}[32;1mpassed{ESC}[0m, {ESC}[1m1{ESC}[0m {ESC}[31;1mfailed{ESC}[0m, {ESC}[1m0{ESC}[0m {ESC}[33;1mskipped{ESC}[0m"
        );
        assert_eq!(
            parse_nextest_summary(&nextest),
            Some(Counts {
                passed: 558,
                failed: 1
            })
        );
        let libtest = format!(
            "test result: {ESC}[32mok{ESC}[0m. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"
        );
        assert_eq!(
            parse_test_result(&libtest),
            Some(Counts {
                passed: 12,
                failed: 0
            })
        );
        assert_eq!(strip_ansi("plain"), "plain");
        assert_eq!(
            strip_ansi(&format!("{ESC}[1m{ESC}[33mwarning{ESC}[0m: x")),
            "warning: x"
        );
    }

    #[test]
    fn every_test_that_did_not_pass_is_a_failure() {
        let exec =
            "     Summary [   9.0s] 12 tests run: 10 passed, 1 failed, 1 exec failed, 2 skipped";
        assert_eq!(
            parse_nextest_summary(exec),
            Some(Counts {
                passed: 10,
                failed: 2
            })
        );
        // A kind of failure this does not know still counts.
        let unknown = "Summary [ 1.0s] 5 tests run: 4 passed, 1 leaked badly, 0 skipped";
        assert_eq!(
            parse_nextest_summary(unknown),
            Some(Counts {
                passed: 4,
                failed: 1
            })
        );
        // A cancelled run: the tests it never ran count too.
        let cancelled = "Summary [ 3.0s] 5/20 tests run: 4 passed, 1 failed, 0 skipped";
        assert_eq!(
            parse_nextest_summary(cancelled),
            Some(Counts {
                passed: 4,
                failed: 16
            })
        );
        let one = "Summary [ 0.1s] 1 test run: 1 passed, 0 skipped";
        assert_eq!(
            parse_nextest_summary(one),
            Some(Counts {
                passed: 1,
                failed: 0
            })
        );
    }

    #[test]
    fn totals_keep_each_kind_apart_and_say_so() {
        let mut totals = Totals::default();
        totals.add(Totals {
            rust: Counts {
                passed: 800,
                failed: 1,
            },
            doc: Counts {
                passed: 35,
                failed: 0,
            },
            ..Totals::default()
        });
        totals.add(Totals {
            conformance: Counts {
                passed: 140,
                failed: 2,
            },
            steps_failed: 1,
            ..Totals::default()
        });
        assert_eq!(totals.failed(), 4);
        assert_eq!(
            totals.to_string(),
            "tests: 800 Rust tests passed, 1 failed; 35 doc tests passed, 0 failed; \
             140 conformance runs passed, 2 failed; 1 other steps failed"
        );
    }
}
