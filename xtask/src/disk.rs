//! The room the build takes and the free space of the disk it writes to,
//! for the step lines: a step that fails on a full disk says so beside its
//! time, and each line shows which step took the disk.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::{self, Stream};

const DF_TIMEOUT: Duration = Duration::from_secs(10);
/// `du` walks every file of the build folders (tens of thousands).
const DU_TIMEOUT: Duration = Duration::from_secs(60);

/// What a run of the test command on a fresh machine writes, at its
/// fullest, in KiB, rounded up from 4.3 GiB: the build folders (2.4 GiB,
/// both at the end of a CI run and at their fullest, sampled every 8 s),
/// the pinned tools (0.6 GiB), the MSRV toolchain and the Windows target
/// (0.7 GiB) and the crates' sources (0.6 GiB).
pub const FRESH_RUN_KIB: u64 = 5 * 1024 * 1024;

/// A warning when the disk holding `dir` has less free space than a fresh
/// run writes ([`FRESH_RUN_KIB`]): a run that reuses earlier builds may
/// still fit, so it is said, not enforced. `None` when there is room, or
/// `df` gives no answer.
pub fn room_warning(dir: &Path) -> Option<String> {
    short_of_room(free_kib(dir)?, FRESH_RUN_KIB)
}

/// The warning of [`room_warning`] for `free` KiB against `needed` KiB.
fn short_of_room(free: u64, needed: u64) -> Option<String> {
    (free < needed).then(|| {
        format!(
            "disk: {} free, and a run on a fresh machine writes about {}: a step may fail with \
             \"No space left on device\" (each step's line gives the free space)",
            gib(free),
            gib(needed)
        )
    })
}

/// The space free for the user on the file system holding `dir`, as `df`
/// reports it (`12.3 GiB free`); `None` when `df` gives no answer.
pub fn free_space(dir: &Path) -> Option<String> {
    free_kib(dir).map(|kib| format!("{} free", gib(kib)))
}

/// [`free_space`] in KiB.
fn free_kib(dir: &Path) -> Option<u64> {
    let mut cmd = Command::new("df");
    cmd.arg("-Pk").arg(dir);
    let mut lines = Vec::new();
    let finished = process::run_quiet(&mut cmd, DF_TIMEOUT, |stream, line| {
        if stream == Stream::Stdout && lines.len() < 4 {
            lines.push(line.to_owned());
        }
    })
    .ok()?;
    if !finished.success() {
        return None;
    }
    available_kib(lines.get(1)?)
}

/// The space the folders of `dirs` that exist take, summed, as `du`
/// reports it (`3.4 GiB`); `None` when none exists or `du` gives no answer.
pub fn used_space(dirs: &[PathBuf]) -> Option<String> {
    used_kib(dirs).map(gib)
}

/// [`used_space`] in kibibytes.
fn used_kib(dirs: &[PathBuf]) -> Option<u64> {
    let existing: Vec<&PathBuf> = dirs.iter().filter(|dir| dir.is_dir()).collect();
    if existing.is_empty() {
        return None;
    }
    let mut cmd = Command::new("du");
    cmd.arg("-sk").args(&existing);
    let mut kib = 0u64;
    let mut read = 0usize;
    let finished = process::run_quiet(&mut cmd, DU_TIMEOUT, |stream, line| {
        if stream == Stream::Stdout
            && let Some(size) = leading_kib(line)
        {
            kib += size;
            read += 1;
        }
    })
    .ok()?;
    // A file removed while `du` walks makes it fail; its sums still stand.
    if read != existing.len() && !finished.success() {
        return None;
    }
    Some(kib)
}

/// The first column of a line of `du -sk` (kibibytes).
fn leading_kib(line: &str) -> Option<u64> {
    line.split_whitespace().next()?.parse().ok()
}

fn gib(kib: u64) -> String {
    format!("{:.1} GiB", kib as f64 / (1024.0 * 1024.0))
}

/// The `Available` column of a line of `df -Pk` (kibibytes).
fn available_kib(line: &str) -> Option<u64> {
    line.split_whitespace().nth(3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_available_column_is_read_in_kibibytes() {
        let line = "/dev/vda  264218344 84893188 11599548  89% /";
        assert_eq!(available_kib(line), Some(11_599_548));
        assert_eq!(available_kib("Filesystem 1024-blocks Used Available"), None);
    }

    #[test]
    fn the_used_column_is_read_in_kibibytes() {
        assert_eq!(leading_kib("3565412\t/work/main/target"), Some(3_565_412));
        assert_eq!(leading_kib("du: cannot read"), None);
        assert_eq!(gib(3 * 1024 * 1024 + 512 * 1024), "3.5 GiB");
    }

    #[test]
    fn the_space_of_the_folders_that_exist_is_summed() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        for (folder, mib) in [(&one, 3), (&two, 2)] {
            std::fs::create_dir(folder).unwrap();
            std::fs::write(folder.join("file"), vec![1u8; mib << 20]).unwrap();
        }
        let missing = dir.path().join("missing");
        let first = used_kib(&[one.clone(), missing.clone()]).unwrap();
        let second = used_kib(std::slice::from_ref(&two)).unwrap();
        assert!(first >= 3 * 1024, "{first} KiB");
        assert!(second >= 2 * 1024, "{second} KiB");
        assert_eq!(used_kib(&[one, two, missing.clone()]), Some(first + second));
        assert_eq!(used_kib(&[missing]), None);
    }

    #[test]
    fn a_disk_with_less_room_than_a_fresh_run_writes_is_warned_of() {
        let warning = short_of_room(512 * 1024, FRESH_RUN_KIB).unwrap();
        assert!(warning.contains("0.5 GiB free"), "{warning}");
        assert!(warning.contains("about 5.0 GiB"), "{warning}");
        assert_eq!(short_of_room(FRESH_RUN_KIB, FRESH_RUN_KIB), None);
        assert_eq!(short_of_room(60 * 1024 * 1024, FRESH_RUN_KIB), None);
    }

    #[test]
    fn the_target_folders_disk_has_a_free_space() {
        let free = free_space(Path::new(".")).expect("df answers for the current folder");
        assert!(free.ends_with(" GiB free"), "{free}");
    }
}
