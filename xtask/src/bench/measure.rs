//! Measuring one child process: its wall time, peak RSS and CPU time, as
//! `bench-runner measure` takes them from the OS, and its bounded output.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::process;

/// How often the measurer is polled for its exit.
const POLL: Duration = Duration::from_millis(10);
/// How long to wait for a finished child's output pipes to close.
const PIPE_TIMEOUT: Duration = Duration::from_secs(10);
/// The most output kept from one child's stdout (the rest is read and dropped).
const MAX_STDOUT: usize = 16 * 1024 * 1024;
/// The most output kept from one child's stderr (its end).
const MAX_STDERR: usize = 64 * 1024;

/// What the OS said about one finished child.
pub(super) struct Measured {
    pub(super) wall: Duration,
    pub(super) max_rss_kib: u64,
    /// CPU time (user and system) of the process and the processes it reaped.
    pub(super) cpu: Duration,
    /// The exit code; `None` when a signal ended it.
    pub(super) code: Option<i32>,
    /// When its first byte reached stdout (its report, for `mcp-cli`).
    pub(super) first_output: Option<Duration>,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

impl Measured {
    pub(super) fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// The `bench-result` JSON a successful runner printed.
    pub(super) fn result(&self, cmd: &Command) -> Result<Value> {
        if !self.success() {
            bail!(
                "`{}` failed ({}): {}",
                process::describe(cmd),
                self.code
                    .map_or_else(|| "killed by a signal".to_owned(), |c| format!("exit {c}")),
                self.stderr.trim()
            );
        }
        let line = self
            .stdout
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix("bench-result "))
            .with_context(|| format!("`{}` printed no bench-result", process::describe(cmd)))?;
        serde_json::from_str(line)
            .with_context(|| format!("`{}` printed invalid JSON", process::describe(cmd)))
    }
}

/// Runs `program` through `bench-runner measure` (killed after `timeout`) and
/// takes its wall time and peak RSS from what the measurer reports.
pub(super) fn measure<S: AsRef<OsStr>>(
    runner: &Path,
    program: &Path,
    args: &[S],
    current_dir: Option<&Path>,
    timeout: Duration,
) -> Result<Measured> {
    measure_with_env(runner, program, args, current_dir, timeout, &[])
}

/// Like [`measure`], with `env` added to the program's environment. No
/// `OTEL_*` variable of the caller's reaches the program: every case runs
/// with telemetry off unless `env` turns it on (B8).
pub(super) fn measure_with_env<S: AsRef<OsStr>>(
    runner: &Path,
    program: &Path,
    args: &[S],
    current_dir: Option<&Path>,
    timeout: Duration,
    env: &[(&str, &str)],
) -> Result<Measured> {
    let mut cmd = Command::new(runner);
    clear_telemetry(&mut cmd, std::env::vars_os().map(|(name, _)| name));
    cmd.envs(env.iter().copied());
    cmd.arg("measure")
        .arg("--timeout-secs")
        .arg(timeout.as_secs().to_string())
        .arg("--")
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = current_dir {
        cmd.current_dir(dir);
    }
    let described = process::describe(&cmd);
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{described}`"))?;
    let (pipes_done, pipes) = mpsc::channel::<(bool, String)>();
    let outputs: [(bool, Option<Box<dyn Read + Send>>); 2] = [
        (true, child.stdout.take().map(|p| Box::new(p) as _)),
        (false, child.stderr.take().map(|p| Box::new(p) as _)),
    ];
    for (is_stdout, pipe) in outputs {
        let Some(pipe) = pipe else { continue };
        let done = pipes_done.clone();
        thread::spawn(move || {
            let limit = if is_stdout { MAX_STDOUT } else { MAX_STDERR };
            let _ = done.send((is_stdout, read_bounded(pipe, limit, is_stdout)));
        });
    }
    drop(pipes_done);
    // The measurer kills the program at `timeout`; this bound is for the measurer itself.
    let deadline = Instant::now() + timeout + PIPE_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot poll bench-runner")? {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("`{described}` did not end and was killed");
        }
        thread::sleep(POLL);
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let pipe_deadline = Instant::now() + PIPE_TIMEOUT;
    for _ in 0..2 {
        match pipes.recv_timeout(pipe_deadline.saturating_duration_since(Instant::now())) {
            Ok((true, text)) => stdout = text,
            Ok((false, text)) => stderr = text,
            // A grandchild still holds a pipe: take what there is.
            Err(_) => break,
        }
    }
    if !status.success() {
        bail!("`{described}` failed ({status}): {}", stderr.trim());
    }
    let (output, report) = stdout
        .rsplit_once("bench-measure ")
        .with_context(|| format!("`{described}` reported no measurement"))?;
    let report: Value = serde_json::from_str(report.trim())
        .with_context(|| format!("`{described}` reported invalid JSON"))?;
    Ok(Measured {
        first_output: report
            .get("first_output_seconds")
            .and_then(Value::as_f64)
            .map(|s| Duration::from_secs_f64(s.max(0.0))),
        wall: Duration::from_secs_f64(number(&report, "/wall_seconds")?.max(0.0)),
        max_rss_kib: report
            .get("max_rss_kib")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        cpu: Duration::from_secs_f64(number(&report, "/cpu_seconds")?.max(0.0)),
        code: report
            .get("code")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok()),
        stdout: output.to_owned(),
        stderr,
    })
}

/// Reads `pipe` to its end, keeping at most `limit` bytes: the start when
/// `keep_start`, otherwise the end.
fn read_bounded(mut pipe: impl Read, limit: usize, keep_start: bool) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 64 * 1024];
    loop {
        let read = match pipe.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        kept.extend_from_slice(&buffer[..read]);
        if kept.len() > limit {
            if keep_start {
                kept.truncate(limit);
            } else {
                kept.drain(..kept.len() - limit);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// The number at `pointer` of a case's `bench-result`, or why there is none.
pub(super) fn number(value: &Value, pointer: &str) -> Result<f64> {
    value
        .pointer(pointer)
        .and_then(Value::as_f64)
        .with_context(|| format!("result has no number at {pointer}: {value}"))
}

/// Removes from `cmd`'s environment every `OTEL_*` variable of `inherited`
/// (the OpenTelemetry SDK's configuration).
fn clear_telemetry(cmd: &mut Command, inherited: impl Iterator<Item = OsString>) {
    for name in inherited {
        if name.as_encoded_bytes().starts_with(b"OTEL_") {
            cmd.env_remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_callers_telemetry_variables_are_cleared() {
        let mut cmd = Command::new("true");
        let inherited = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "PATH",
            "OTEL_SDK_DISABLED",
            "MY_OTEL_X",
        ];
        clear_telemetry(&mut cmd, inherited.into_iter().map(OsString::from));
        let removed: Vec<_> = cmd
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_owned())
            .collect();
        assert_eq!(
            removed,
            ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SDK_DISABLED"]
        );
        // What the case sets itself is kept.
        cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1");
        assert!(
            cmd.get_envs()
                .any(|(name, value)| name == "OTEL_EXPORTER_OTLP_ENDPOINT" && value.is_some())
        );
    }

    #[test]
    fn a_measurement_needs_the_measurers_report() {
        // `sh` stands in for bench-runner: it runs, but reports nothing.
        let outcome = measure(
            Path::new("sh"),
            Path::new("true"),
            &["-c", "echo 'bench-result {}'"],
            None,
            Duration::from_secs(30),
        );
        assert!(outcome.is_err());
    }

    #[test]
    fn results_come_from_the_last_bench_result_line() {
        let cmd = Command::new("x");
        let measured = Measured {
            first_output: None,
            wall: Duration::from_millis(5),
            max_rss_kib: 1024,
            cpu: Duration::from_millis(4),
            code: Some(0),
            stdout: "noise\nbench-result {\"x\": 1}\nbench-result {\"x\": 2}\n".into(),
            stderr: String::new(),
        };
        assert_eq!(measured.result(&cmd).unwrap()["x"], 2);
        let failed = Measured {
            first_output: None,
            code: Some(3),
            ..measured
        };
        assert!(failed.result(&cmd).is_err());
    }

    #[test]
    fn bounded_reads_keep_the_start_or_the_end() {
        assert_eq!(read_bounded(&b"abcdef"[..], 4, true), "abcd");
        assert_eq!(read_bounded(&b"abcdef"[..], 4, false), "cdef");
        assert_eq!(read_bounded(&b"ab"[..], 4, false), "ab");
    }
}
