//! The free space of the disk the build writes to, for the step lines: a
//! step that fails on a full disk says so beside its time.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::process::{self, Stream};

const DF_TIMEOUT: Duration = Duration::from_secs(10);

/// The space free for the user on the file system holding `dir`, as `df`
/// reports it (`12.3 GiB free`); `None` when `df` gives no answer.
pub fn free_space(dir: &Path) -> Option<String> {
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
    let kib = available_kib(lines.get(1)?)?;
    Some(format!("{:.1} GiB free", kib as f64 / (1024.0 * 1024.0)))
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
    fn the_target_folders_disk_has_a_free_space() {
        let free = free_space(Path::new(".")).expect("df answers for the current folder");
        assert!(free.ends_with(" GiB free"), "{free}");
    }
}
