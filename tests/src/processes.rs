//! Processes of a test: a child waited for within a bound, whether a
//! process was reaped (a zombie of this test process, or of a process it
//! started, was not: nobody waited for it), and the server processes a
//! gateway test started, found by the marker in their environment
//! (`GATEWAY_TEST_MARKER`), so none may outlive the gateway.

use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// The environment variable that marks a test's server processes.
pub const MARKER_VARIABLE: &str = "GATEWAY_TEST_MARKER";

/// `child`'s output once it exits; killed and a panic after `timeout`.
pub fn wait_with_timeout(mut child: Child, timeout: Duration) -> Output {
    let deadline = Instant::now() + timeout;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "timed out after {timeout:?}:\n{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessStat {
    /// The state letter: `R`, `S`, `D`, … ; `Z` for a zombie (exited, not
    /// yet waited for by its parent), `X` for dead.
    pub state: char,
    /// The parent's pid.
    pub parent: u32,
}

impl ProcessStat {
    /// Whether the process has exited (a zombie or dead).
    pub fn exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// `pid`'s state and parent, `None` when no such process exists.
pub fn stat(pid: u32) -> Option<ProcessStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: the command may hold spaces and `)`.
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some(ProcessStat { state, parent })
}

/// Whether `pid` runs (exists and has not exited).
pub fn running(pid: u32) -> bool {
    stat(pid).is_some_and(|stat| !stat.exited())
}

/// Whether `pid` was reaped: it is gone, or it is a zombie that is not
/// ours to wait for (its parent is outside this test's process tree). A
/// zombie of this test process, or of a process it started, is not reaped.
pub fn reaped(pid: u32) -> bool {
    match stat(pid) {
        None => true,
        Some(stat) if stat.exited() => !descendants().contains(&stat.parent),
        Some(_) => false,
    }
}

/// This test process and every process under it.
fn descendants() -> Vec<u32> {
    let root = std::process::id();
    let parents: Vec<(u32, u32)> = all_pids()
        .into_iter()
        .filter_map(|pid| Some((pid, stat(pid)?.parent)))
        .collect();
    let mut found = vec![root];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        found.extend(
            parents
                .iter()
                .filter(|(pid, of)| *of == parent && !found.contains(pid))
                .map(|(pid, _)| *pid)
                .collect::<Vec<_>>(),
        );
        next += 1;
    }
    found
}

/// Zombies whose parent is this test process or one it started: children
/// nobody waited for.
pub fn unreaped_zombies() -> Vec<u32> {
    let tree = descendants();
    tree.iter()
        .copied()
        .filter(|pid| stat(*pid).is_some_and(|stat| stat.state == 'Z'))
        .collect()
}

/// Every pid under `/proc`.
fn all_pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// Processes still running with `marker` in their environment.
pub fn marked_processes(marker: &str) -> Vec<u32> {
    let needle = format!("{MARKER_VARIABLE}={marker}");
    all_pids()
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|b| *b == 0)
                    .any(|var| var == needle.as_bytes())
            })
        })
        .collect()
}

/// Waits (15 s at most) until no process marked `marker` runs and no
/// zombie is left under this test process (a zombie's environment is
/// empty, so its marker cannot be read: any unreaped child counts); panics
/// naming the ones left.
pub fn assert_none_marked(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = marked_processes(marker);
        let zombies = unreaped_zombies();
        if left.is_empty() && zombies.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "server processes outlived the gateway: {left:?}; zombies nobody reaped: {zombies:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// Waits (bounded) until `pid` has exited, waited for or not.
    fn exited(pid: u32) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while stat(pid).is_some_and(|stat| !stat.exited()) {
            assert!(Instant::now() < deadline, "{pid} never exited");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_child_left_as_a_zombie_is_not_reaped_until_waited_for() {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        exited(pid);
        assert_eq!(stat(pid).map(|stat| stat.state), Some('Z'));
        assert!(!running(pid));
        assert!(!reaped(pid), "a zombie of this test counted as reaped");
        assert!(unreaped_zombies().contains(&pid));
        child.wait().unwrap();
        assert!(reaped(pid));
        assert!(!unreaped_zombies().contains(&pid));
    }

    #[test]
    fn the_stat_of_this_process_names_its_parent() {
        let me = stat(std::process::id()).unwrap();
        assert!(!me.exited());
        assert_eq!(me.parent, std::os::unix::process::parent_id());
    }
}
