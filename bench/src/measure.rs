//! [`measure`]: run a program to its end and take its wall time and peak
//! memory from the operating system.
//!
//! The harness runs every case through `bench-runner measure`, not directly:
//! Linux counts the spawning process's own peak RSS into a child's `ru_maxrss`
//! when the child execs, so the spawner must be small. This one is (about
//! 2 MB, no runtime started); the harness, which holds results, is not.

use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::BenchError;

/// What the OS said about one finished program.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Measurement {
    /// From just before the spawn to the reaping, in seconds.
    pub wall_seconds: f64,
    /// The peak RSS of the program and of every process it reaped, in KiB
    /// (`getrusage(RUSAGE_CHILDREN)` of this process, whose only child it was).
    pub max_rss_kib: u64,
    /// The CPU time (user and system) of the program and of every process it
    /// reaped, in seconds.
    pub cpu_seconds: f64,
    /// The exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// From just before the spawn to its first byte on stdout, in seconds
    /// (for a program that prints its whole report at once, when the report
    /// was ready); `None` when it printed nothing.
    pub first_output_seconds: Option<f64>,
}

/// Runs `program` with `args` (stdin empty, stdout passed through, stderr inherited) and
/// measures it; kills it after `timeout`. Call it from a process with no other child.
///
/// The program leads a process group of its own: after the timeout, and
/// once it has ended, whatever it started and left running is killed with
/// it (a shell's `sleep`, a server it spawned), so that nothing it started
/// outlives the measurement or holds its output open.
pub fn measure(
    program: &OsString,
    args: &[OsString],
    timeout: Duration,
) -> Result<Measurement, BenchError> {
    let shown = program.to_string_lossy().into_owned();
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| BenchError::io(format!("cannot start {shown}"), e))?;
    // Its stdout passes through, and the first byte's time is noted.
    let forwarder = child.stdout.take().map(|mut stdout| {
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            let mut first = None;
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                match stdout.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        first.get_or_insert_with(Instant::now);
                        // Locked per write: another measurement's forwarder
                        // may be writing too, and must not hold this one up.
                        let mut out = std::io::stdout().lock();
                        let _ = out.write_all(&buffer[..read]);
                        let _ = out.flush();
                    }
                }
            }
            first
        })
    });
    let pid = i32::try_from(child.id())
        .map(Pid::from_raw)
        .map_err(|_| BenchError::Unexpected("process id out of range".into()))?;
    let (reaped, exits) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = reaped.send((Instant::now(), status));
    });
    let (ended, status) = match exits.recv_timeout(timeout) {
        Ok(exit) => exit,
        Err(_) => {
            let _ = killpg(pid, Signal::SIGKILL);
            let _ = waiter.join();
            return Err(BenchError::Timeout(format!(
                "{shown} ran longer than {}s and was killed",
                timeout.as_secs()
            )));
        }
    };
    let _ = waiter.join();
    // What it left behind (none, for a well-behaved program) would keep its
    // stdout open and the forwarder waiting.
    let _ = killpg(pid, Signal::SIGKILL);
    let first_output = forwarder.and_then(|thread| thread.join().ok().flatten());
    let status = status.map_err(|e| BenchError::io(format!("cannot wait for {shown}"), e))?;
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN)
        .map_err(|e| BenchError::io("getrusage(RUSAGE_CHILDREN)", std::io::Error::from(e)))?;
    Ok(Measurement {
        wall_seconds: ended.duration_since(started).as_secs_f64(),
        max_rss_kib: u64::try_from(usage.max_rss()).unwrap_or(0),
        cpu_seconds: seconds(usage.user_time()) + seconds(usage.system_time()),
        code: status.code(),
        signal: status.signal(),
        first_output_seconds: first_output.map(|at| at.duration_since(started).as_secs_f64()),
    })
}

fn seconds(time: nix::sys::time::TimeVal) -> f64 {
    use nix::sys::time::TimeValLike;
    time.num_microseconds() as f64 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str, timeout: Duration) -> Result<Measurement, BenchError> {
        measure(
            &OsString::from("sh"),
            &[OsString::from("-c"), OsString::from(script)],
            timeout,
        )
    }

    #[test]
    fn reports_exit_code_time_and_memory() {
        let measured = shell(
            "sleep 0.05; echo x; sleep 0.1; exit 3",
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(measured.code, Some(3));
        let first = measured.first_output_seconds.unwrap();
        assert!(
            first >= 0.05 && first + 0.09 < measured.wall_seconds,
            "{measured:?}"
        );
        assert_eq!(measured.signal, None);
        assert!(measured.wall_seconds >= 0.05);
        assert!(measured.max_rss_kib > 0);
        assert!(measured.cpu_seconds < measured.wall_seconds + 1.0);
    }

    #[test]
    fn counts_the_cpu_time_of_the_whole_tree() {
        // A child that burns CPU in a grandchild it reaps.
        let measured = shell(
            "sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'",
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(measured.code, Some(0));
        assert!(measured.cpu_seconds > 0.05, "{measured:?}");
    }

    #[test]
    fn kills_after_the_timeout() {
        let started = Instant::now();
        let outcome = shell("sleep 30", Duration::from_millis(200));
        assert!(matches!(outcome, Err(BenchError::Timeout(_))));
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    /// Whether process `pid` is gone (or only a zombie, which its new
    /// parent reaps), within a few seconds.
    fn ends_soon(pid: i32) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat"));
            // The state is the first field after the command's `)`.
            let zombie = |stat: &str| {
                stat.rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'))
            };
            match state {
                Err(_) => return true,
                Ok(stat) if zombie(&stat) => return true,
                Ok(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        false
    }

    #[test]
    fn what_the_program_started_dies_with_it_on_the_timeout_and_after_its_end() {
        let dir = std::env::temp_dir().join(format!("measure-group-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (script, timeout) in [
            // Killed at the timeout while its child sleeps.
            ("sleep 30 & echo $! > {pid}; wait", Duration::from_millis(300)),
            // Ended by itself, its child left running.
            ("sleep 30 > /dev/null & echo $! > {pid}; sleep 0.2", Duration::from_secs(20)),
        ] {
            let pid_file = dir.join("pid");
            let _ = std::fs::remove_file(&pid_file);
            let script = script.replace("{pid}", &pid_file.display().to_string());
            let started = Instant::now();
            let _ = shell(&script, timeout);
            assert!(started.elapsed() < Duration::from_secs(10), "{script}");
            let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
            assert!(ends_soon(pid), "{script}: its `sleep 30` ({pid}) outlived it");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
