//! [`RunInfo`]: what a report says of its run, so that a number can be
//! traced to the machine, the commit, the day and the toolchain that made it.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::process;

/// Time allowed for `git` and `rustc` to say what they are.
const QUERY_TIMEOUT: Duration = Duration::from_secs(30);

/// The machine, commit, date and toolchain of one `cargo xtask bench` run.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RunInfo {
    /// The CPU model (`/proc/cpuinfo`).
    pub(super) cpu_model: String,
    /// The CPUs this process may use.
    pub(super) cpus: usize,
    /// The Linux kernel release.
    pub(super) kernel: String,
    /// The commit measured, and whether the tree had changes beside it.
    pub(super) commit: String,
    /// When the run ended, UTC (`YYYY-MM-DD HH:MM`).
    pub(super) date: String,
    /// `rustc --version`.
    pub(super) rustc: String,
    /// rmcp's version in `bench/Cargo.lock`.
    pub(super) rmcp: String,
    /// The cases run: every one, or those named.
    pub(super) cases: String,
    /// Rounds of every case.
    pub(super) rounds: usize,
    /// The whole run's time.
    pub(super) elapsed: Duration,
}

impl RunInfo {
    /// Gathers what can be known of this run; what cannot is `?`.
    pub(super) fn gather(root: &Path, only: &[String], rounds: usize, elapsed: Duration) -> Self {
        let head = first_line(git(root).args(["rev-parse", "--short=12", "HEAD"]));
        // Changes to tracked files only; the report itself is rewritten by
        // every run, so it does not count.
        let changed = first_line(git(root).args([
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".",
            &format!(":!{}", super::REPORT),
        ]));
        let commit = match (head, changed) {
            (Some(head), None) => head,
            (Some(head), Some(_)) => format!("{head} with uncommitted changes"),
            (None, _) => "?".to_owned(),
        };
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        Self {
            cpu_model: cpu_model(),
            cpus: thread::available_parallelism().map_or(0, usize::from),
            kernel: fs::read_to_string("/proc/sys/kernel/osrelease")
                .map_or_else(|_| "?".to_owned(), |s| s.trim().to_owned()),
            commit,
            date: utc_minute(SystemTime::now()),
            rustc: first_line(Command::new(rustc).arg("--version")).unwrap_or_else(|| "?".into()),
            rmcp: rmcp_version(root),
            cases: if only.is_empty() {
                "all".to_owned()
            } else {
                only.join(", ")
            },
            rounds,
            elapsed,
        }
    }
}

fn git(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(root);
    cmd
}

/// The first line a command prints on stdout, when it succeeds and prints one.
fn first_line(cmd: &mut Command) -> Option<String> {
    let mut first = None;
    let finished = process::run_quiet(cmd, QUERY_TIMEOUT, |stream, line| {
        if stream == process::Stream::Stdout && first.is_none() && !line.trim().is_empty() {
            first = Some(line.trim().to_owned());
        }
    })
    .ok()?;
    finished.success().then_some(first).flatten()
}

/// `time` as `YYYY-MM-DD HH:MM UTC`.
fn utc_minute(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .and_then(|rest| rest.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

fn rmcp_version(root: &Path) -> String {
    let lock = fs::read_to_string(root.join("bench").join("Cargo.lock")).unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"rmcp\""
            && let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
        {
            return version.trim_matches('"').to_owned();
        }
    }
    "?".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(utc_minute(UNIX_EPOCH), "1970-01-01 00:00 UTC");
        // 2024-02-29 12:34 UTC: a leap day.
        let leap = UNIX_EPOCH + Duration::from_secs(1_709_210_040);
        assert_eq!(utc_minute(leap), "2024-02-29 12:34 UTC");
        // 2026-12-31 23:59 UTC: the last minute of a year.
        let end = UNIX_EPOCH + Duration::from_secs(1_798_761_540);
        assert_eq!(utc_minute(end), "2026-12-31 23:59 UTC");
    }

    #[test]
    fn the_commit_and_the_toolchain_are_found() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let info = RunInfo::gather(&root, &["b1".to_owned()], 3, Duration::from_secs(1));
        assert!(info.rustc.starts_with("rustc "), "{}", info.rustc);
        assert_ne!(info.commit, "?");
        assert_eq!(info.cases, "b1");
        assert!(info.cpus > 0);
    }
}
