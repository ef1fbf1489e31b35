//! Child processes: run a command with a deadline, stream its output live and hand every line to a callback.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Longest line kept for parsing; longer lines are still echoed in full but truncated for the callback.
const MAX_LINE: usize = 64 * 1024;

/// How often a running child is polled for exit.
const POLL: Duration = Duration::from_millis(50);

/// Where a captured line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// The child's standard output.
    Stdout,
    /// The child's standard error.
    Stderr,
}

/// Outcome of a finished (or killed) child.
#[derive(Debug)]
pub struct Finished {
    /// Exit status; `None` when the child was killed because the deadline passed.
    pub status: Option<ExitStatus>,
}

impl Finished {
    /// True when the child exited on its own with status 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// Renders a command for logs: program and arguments only (never the environment, which may hold secrets).
pub fn describe(cmd: &Command) -> String {
    let mut out = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        out.push(' ');
        out.push_str(&arg.to_string_lossy());
    }
    out
}

/// Runs `cmd` to completion within `timeout`, echoing stdout/stderr live and passing each line to `on_line`.
///
/// The child is killed and reaped when the deadline passes (then `status` is `None`).
pub fn run_streaming(
    cmd: &mut Command,
    timeout: Duration,
    on_line: impl FnMut(Stream, &str),
) -> Result<Finished> {
    run(cmd, timeout, Echo::Live, on_line)
}

/// Like [`run_streaming`], but nothing is echoed: every line goes to `on_line` only.
pub fn run_quiet(
    cmd: &mut Command,
    timeout: Duration,
    on_line: impl FnMut(Stream, &str),
) -> Result<Finished> {
    run(cmd, timeout, Echo::None, on_line)
}

/// Whether a child's output is echoed as it comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Echo {
    Live,
    None,
}

fn run(
    cmd: &mut Command,
    timeout: Duration,
    echo: Echo,
    mut on_line: impl FnMut(Stream, &str),
) -> Result<Finished> {
    let started = Instant::now();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", describe(cmd)))?;
    let (tx, rx) = mpsc::channel::<(Stream, String)>();
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        readers.push(spawn_reader(out, Stream::Stdout, echo, tx.clone()));
    }
    if let Some(err) = child.stderr.take() {
        readers.push(spawn_reader(err, Stream::Stderr, echo, tx.clone()));
    }
    drop(tx);
    let deadline = started + timeout;
    let status = loop {
        while let Ok((stream, line)) = rx.try_recv() {
            on_line(stream, &line);
        }
        if let Some(status) = child.try_wait().context("cannot poll child")? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            eprintln!(
                "xtask: `{}` exceeded {}s, killing it",
                describe(cmd),
                timeout.as_secs()
            );
            kill_and_reap(&mut child);
            break None;
        }
        match rx.recv_timeout(POLL) {
            Ok((stream, line)) => on_line(stream, &line),
            Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
        }
    };
    // The pipes close when the child (and any grandchild holding them) is gone; drain what is left, bounded.
    let drain_deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = drain_deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match rx.recv_timeout(left) {
            Ok((stream, line)) => on_line(stream, &line),
            Err(_) => break,
        }
    }
    for reader in readers {
        if reader.is_finished() {
            let _ = reader.join();
        }
    }
    Ok(Finished { status })
}

/// Runs `cmd` within `timeout`, streaming its output, and fails unless it exits with status 0.
pub fn run_checked(cmd: &mut Command, timeout: Duration) -> Result<()> {
    let described = describe(cmd);
    let finished = run_streaming(cmd, timeout, |_, _| {})?;
    if !finished.success() {
        bail!("`{described}` failed ({})", status_text(&finished));
    }
    Ok(())
}

/// Human text for how a child ended.
pub fn status_text(finished: &Finished) -> String {
    match finished.status {
        Some(status) => status.to_string(),
        None => "killed after timeout".to_owned(),
    }
}

fn kill_and_reap(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn spawn_reader(
    pipe: impl Read + Send + 'static,
    stream: Stream,
    echo_mode: Echo,
    tx: mpsc::Sender<(Stream, String)>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader
                .by_ref()
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut buf)
            {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if echo_mode == Echo::Live {
                echo(stream, &buf);
            }
            let text = String::from_utf8_lossy(&buf);
            let line = text.trim_end_matches(['\n', '\r']).to_owned();
            if tx.send((stream, line)).is_err() {
                break;
            }
        }
    })
}

fn echo(stream: Stream, bytes: &[u8]) {
    // Echo failures (closed terminal) must not stop the child from being drained.
    match stream {
        Stream::Stdout => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(bytes);
            let _ = out.flush();
        }
        Stream::Stderr => {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(bytes);
            let _ = err.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_lines_from_both_streams() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo one; echo two >&2; echo three"]);
        let mut seen = Vec::new();
        let finished = run_streaming(&mut cmd, Duration::from_secs(30), |s, l| {
            seen.push((s, l.to_owned()))
        })
        .unwrap();
        assert!(finished.success());
        assert!(seen.contains(&(Stream::Stdout, "one".to_owned())));
        assert!(seen.contains(&(Stream::Stderr, "two".to_owned())));
        assert!(seen.contains(&(Stream::Stdout, "three".to_owned())));
    }

    #[test]
    fn kills_on_deadline() {
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let finished = run_streaming(&mut cmd, Duration::from_millis(200), |_, _| {}).unwrap();
        assert!(finished.status.is_none());
        assert!(!finished.success());
    }

    #[test]
    fn describe_lists_program_and_args() {
        let mut cmd = Command::new("cargo");
        cmd.args(["test", "--workspace"]).env("SECRET", "hidden");
        assert_eq!(describe(&cmd), "cargo test --workspace");
    }
}
