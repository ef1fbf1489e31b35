//! Rows of the report, their targets, and the Markdown report.

use std::fmt::Write as _;

use super::criterion::MicroResult;
use super::run_info::RunInfo;

/// The unit of a row's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    MegabytesPerSecond,
    RequestsPerSecond,
    Microseconds,
    Milliseconds,
    Megabytes,
    Kibibytes,
}

impl Unit {
    pub(super) fn higher_is_better(self) -> bool {
        matches!(self, Unit::MegabytesPerSecond | Unit::RequestsPerSecond)
    }

    pub(super) fn format(self, value: f64) -> String {
        match self {
            Unit::MegabytesPerSecond => format!("{value:.1} MB/s"),
            Unit::RequestsPerSecond => format!("{value:.0} req/s"),
            Unit::Microseconds => format!("{value:.1} µs"),
            Unit::Milliseconds => format!("{value:.1} ms"),
            Unit::Megabytes => format!("{value:.1} MB"),
            Unit::Kibibytes => format!("{value:.0} KiB"),
        }
    }
}

/// A target and whether this run met it.
#[derive(Debug, Clone)]
pub(super) struct Check {
    pub(super) target: String,
    pub(super) met: bool,
}

/// One line of the table.
#[derive(Debug, Clone)]
pub(super) struct Row {
    pub(super) case: String,
    pub(super) unit: Unit,
    /// Values of ours, the contender (rmcp, or the peer a row names) and the limit.
    pub(super) values: [Option<f64>; 3],
    /// Peak RSS of ours, rmcp and the limit, in KiB (the largest over rounds).
    pub(super) rss_kib: [Option<u64>; 3],
    pub(super) checks: Vec<Check>,
    pub(super) notes: String,
}

impl Row {
    pub(super) fn new(case: impl Into<String>, unit: Unit, values: [Option<f64>; 3]) -> Self {
        Self {
            case: case.into(),
            unit,
            values,
            rss_kib: [None; 3],
            checks: Vec::new(),
            notes: String::new(),
        }
    }

    pub(super) fn with_rss(mut self, rss_kib: [Option<u64>; 3]) -> Self {
        self.rss_kib = rss_kib;
        self
    }

    pub(super) fn with_notes(mut self, notes: impl Into<String>) -> Self {
        self.notes = notes.into();
        self
    }

    pub(super) fn ratio(&self, other: usize) -> Option<f64> {
        match (self.values[0], self.values[other]) {
            (Some(ours), Some(theirs)) if theirs > 0.0 => Some(ours / theirs),
            _ => None,
        }
    }

    /// Ours against the limit: throughput at least `factor` of it, or time at most `factor` of it.
    pub(super) fn limit_target(mut self, factor: f64) -> Self {
        let (target, met) = if self.unit.higher_is_better() {
            (
                format!("≥ {factor}× limit"),
                self.ratio(2).is_some_and(|r| r >= factor),
            )
        } else {
            (
                format!("≤ {factor}× limit"),
                self.ratio(2).is_some_and(|r| r <= factor),
            )
        };
        self.checks.push(Check { target, met });
        self
    }

    /// Ours at least as good as rmcp.
    pub(super) fn rmcp_target(mut self) -> Self {
        let met = self.ratio(1).is_some_and(|r| {
            if self.unit.higher_is_better() {
                r >= 1.0
            } else {
                r <= 1.0
            }
        });
        self.checks.push(Check {
            target: "≥ rmcp".into(),
            met,
        });
        self
    }

    /// Ours ahead of the peer gateway `name` (the contender column).
    pub(super) fn peer_target(mut self, name: &str) -> Self {
        let met = self.ratio(1).is_some_and(|r| {
            if self.unit.higher_is_better() {
                r > 1.0
            } else {
                r < 1.0
            }
        });
        self.checks.push(Check {
            target: format!("ahead of {name}"),
            met,
        });
        self
    }

    pub(super) fn target(mut self, target: impl Into<String>, met: bool) -> Self {
        self.checks.push(Check {
            target: target.into(),
            met,
        });
        self
    }
}

/// The median of `values`; `None` when empty.
pub(super) fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    Some(sorted[sorted.len() / 2])
}

pub(super) fn fixed(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.decimals$}"))
}

pub(super) fn megabytes(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "—".to_owned(),
        |k| format!("{:.0}", k as f64 * 1024.0 / 1e6),
    )
}

/// The whole report: what ran where, the method, every row, the misses and
/// the micro-benchmarks.
pub(super) fn render(rows: &[Row], micro: &[MicroResult], run: &RunInfo) -> String {
    let rounds = run.rounds;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!-- Written by `cargo xtask bench`; do not edit by hand. -->\n"
    );
    let _ = writeln!(out, "# Benchmarks: ours, rmcp and the limit\n");
    let _ = writeln!(
        out,
        "- Run: {}, commit {}, cases: {}; the whole `cargo xtask bench` took {:.0} s.",
        run.date,
        run.commit,
        run.cases,
        run.elapsed.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "- Machine: {} CPU(s), {}; Linux {}; {}.",
        run.cpus, run.cpu_model, run.kernel, run.rustc
    );
    let _ = writeln!(
        out,
        "- rmcp {} (bench/Cargo.lock); everything built in the `profiling` profile (release with line tables). \
         Each side is built as its users build it, in a target folder of its own so that features cannot \
         leak between them: ours with serde_json's `preserve_order` and `raw_value` (our workspace's), \
         rmcp and the raw floors with serde_json's default features (rmcp asks for none).",
        run.rmcp
    );
    let _ = writeln!(
        out,
        "- Method: every case × contender is its own child process; \
         {rounds} rounds with contenders alternating within each; a value is the median over rounds \
         (for B1, over rounds × passes, after one untimed pass per process). Peak RSS is the OS's ru_maxrss of that process and the processes it reaped, \
         taken by `bench-runner measure` (whose own ~2 MB it includes), in MB."
    );
    let _ = writeln!(
        out,
        "- Limits: B1 the same chunks gathered into lines by the plainest reader (one line buffer, \
         `memchr` over the new bytes), each line validated in place by `serde_json` into `IgnoredAny` \
         shapes (the framing any reader does, then a validating pass that allocates nothing; B1's \
         rows compare the same work: checked and kept as text against it, and typed against rmcp's \
         typed decoding, with the validation over lines already split and a `Value` tree in the \
         notes for reference); B2 blocking write-a-line, \
         read-a-line with no protocol logic; B3 (rmcp with `join_all`, as in B6) the larger of two lower bounds: the slowest single \
         server's own whole-process time (spawn, initialize, tools/list, reap), each server \
         measured alone, and the CPU floor (those singles' CPU time, client and server, spread \
         over every core), both in the notes; B4 a pooled reqwest POST loop \
         that reads the body and decodes nothing; B5 our own client calling the server straight, \
         without the gateway in between, and under load a byte relay that copies between the \
         client's pipe and the server's and parses nothing. Peer: B5's HTTP rows put mcp-proxy \
         0.6.0 (crates.io, `cargo install --locked --no-default-features`) in the contender column."
    );
    let _ = writeln!(
        out,
        "- B2 pins its processes with `sched_setaffinity` and `taskset`: on a VM a pipe round trip \
         takes ~2.5 µs when both ends share a CPU and ~60 µs when the other end's CPU must be woken, \
         and left to the scheduler each run lands in one mode or the other at random. Latency is \
         measured in both placements; throughput with a CPU for each side. B5's 1-client stdio \
         case is pinned the same way (the client on CPU 0; the front and its server on CPU 1, or \
         on CPU 0 too), the relay and ours alike, and its target is on those rows."
    );
    let _ = writeln!(
        out,
        "- Ratios are of the row's unit: for MB/s and req/s higher is better, for times and MB lower is better.\n"
    );
    let _ = writeln!(
        out,
        "| case | ours | rmcp or peer | limit | ours/limit | ours/contender | peak RSS ours / contender / limit (MB) | target | notes |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let value =
            |index: usize| row.values[index].map_or_else(|| "—".to_owned(), |v| row.unit.format(v));
        let ratio = |index: usize| {
            row.ratio(index)
                .map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×"))
        };
        let checks = if row.checks.is_empty() {
            "—".to_owned()
        } else {
            row.checks
                .iter()
                .map(|c| format!("{}: {}", c.target, if c.met { "met" } else { "**MISSED**" }))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} / {} / {} | {} | {} |",
            row.case,
            value(0),
            value(1),
            value(2),
            ratio(2),
            ratio(1),
            megabytes(row.rss_kib[0]),
            megabytes(row.rss_kib[1]),
            megabytes(row.rss_kib[2]),
            checks,
            if row.notes.is_empty() {
                "—"
            } else {
                &row.notes
            },
        );
    }
    let missed: Vec<String> = rows
        .iter()
        .flat_map(|row| {
            row.checks
                .iter()
                .filter(|c| !c.met)
                .map(move |c| format!("{} ({})", row.case, c.target))
        })
        .collect();
    let _ = writeln!(out);
    if missed.is_empty() {
        let _ = writeln!(out, "Every target met.");
    } else {
        let _ = writeln!(out, "Missed targets ({}):", missed.len());
        for miss in missed {
            let _ = writeln!(out, "- {miss}");
        }
    }
    micro_section(&mut out, micro);
    out
}

/// The criterion results: each decoder against the raw limit of its group.
fn micro_section(out: &mut String, micro: &[MicroResult]) {
    if micro.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Decoder micro-benchmarks (criterion, `bench/benches/codecs.rs`)\n\n\
         Our decoders yield messages whose results are checked but kept raw; the floor gathers \
         the same chunks into lines (one line buffer, `memchr`) and validates each with \
         `serde_json` into `IgnoredAny` (nothing else allocated); the same validation over the \
         texts already split and a `Value` tree of each are shown for reference. Every function's count of decoded \
         messages is checked. Median of criterion's samples.\n"
    );
    let _ = writeln!(
        out,
        "| case | decoder | median time | throughput | ÷ floor |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for result in micro {
        let limit = micro
            .iter()
            .find(|other| other.group == result.group && other.is_floor())
            .and_then(MicroResult::megabytes_per_second);
        let speed = result.megabytes_per_second();
        let ratio = match (speed, limit) {
            (Some(speed), Some(limit)) if limit > 0.0 => format!("{:.2}×", speed / limit),
            _ => "—".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} ms | {} | {ratio} |",
            result.group,
            result.function,
            result.median_ns / 1e6,
            speed.map_or_else(|| "—".to_owned(), |s| format!("{s:.0} MB/s")),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn ratios_and_targets_follow_the_unit() {
        let row = Row::new(
            "t",
            Unit::MegabytesPerSecond,
            [Some(90.0), Some(100.0), Some(100.0)],
        )
        .limit_target(0.8)
        .rmcp_target();
        assert_eq!(row.ratio(2), Some(0.9));
        assert!(row.checks[0].met);
        assert!(!row.checks[1].met);
        let row = Row::new(
            "t",
            Unit::Microseconds,
            [Some(11.0), Some(20.0), Some(10.0)],
        )
        .limit_target(1.2)
        .rmcp_target();
        assert!(row.checks[0].met);
        assert!(row.checks[1].met);
        let row = Row::new("t", Unit::Milliseconds, [Some(1.0), None, None]).limit_target(1.15);
        assert!(!row.checks[0].met);
    }

    #[test]
    fn median_skips_nothing_but_non_finite_values() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn the_report_has_a_row_per_case_and_lists_misses() {
        let rows = vec![
            Row::new(
                "a case",
                Unit::RequestsPerSecond,
                [Some(5.0), Some(10.0), None],
            )
            .with_rss([Some(2048), None, Some(1024)])
            .rmcp_target(),
        ];
        let micro = vec![
            MicroResult {
                group: "g".into(),
                function: "serde_json IgnoredAny (floor)".into(),
                median_ns: 2e6,
                bytes: Some(2_000_000),
            },
            MicroResult {
                group: "g".into(),
                function: "ours".into(),
                median_ns: 1e6,
                bytes: Some(2_000_000),
            },
        ];
        let run = RunInfo {
            cpu_model: "Some CPU".into(),
            cpus: 2,
            kernel: "6.1".into(),
            commit: "0123456789ab".into(),
            date: "2026-11-28 15:00 UTC".into(),
            rustc: "rustc 1.91.0".into(),
            rmcp: "3.11.0".into(),
            cases: "all".into(),
            rounds: 3,
            elapsed: Duration::from_secs(3),
        };
        let text = render(&rows, &micro, &run);
        assert!(text.contains("| a case | 5 req/s | 10 req/s | — | — | 0.50× | 2 / — / 1 |"));
        assert!(text.contains("Missed targets (1):\n- a case (≥ rmcp)"));
        assert!(text.contains(
            "- Run: 2026-11-28 15:00 UTC, commit 0123456789ab, cases: all; the whole `cargo xtask bench` took 3 s."
        ));
        assert!(text.contains("- Machine: 2 CPU(s), Some CPU; Linux 6.1; rustc 1.91.0."));
        assert!(text.contains("- rmcp 3.11.0 (bench/Cargo.lock)"));
        assert!(
            text.contains("| g | ours | 1.0 ms | 2000 MB/s | 2.00× |"),
            "{text}"
        );
    }
}
