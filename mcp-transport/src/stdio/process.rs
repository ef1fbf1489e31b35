//! The child process: spawning it in its own process group, and shutting the
//! whole group down (close stdin, wait, SIGTERM, wait, SIGKILL), always reaping.

use crate::sync::Mutex;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use super::config::{EnvPolicy, StdioConfig};
use crate::error::{ExitStatus, TransportError};
use crate::secret::ExposeSecret;

/// How long to wait for a process that has been sent SIGKILL.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// The pipes of a freshly spawned child.
pub(crate) struct Pipes {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) stderr: ChildStderr,
}

/// A running (or finished) server process and its process group.
pub(crate) struct Process {
    child: tokio::sync::Mutex<Child>,
    pid: Option<u32>,
    status: Mutex<Option<ExitStatus>>,
}

fn convert(status: std::process::ExitStatus) -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitStatus::Code(code),
        (None, Some(signal)) => ExitStatus::Signal(signal),
        (None, None) => ExitStatus::Unknown,
    }
}

impl Process {
    /// Starts the program directly (no shell), in a new process group.
    pub(crate) fn spawn(config: &StdioConfig) -> Result<(Self, Pipes), TransportError> {
        let mut command = Command::new(&config.command);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if config.env_policy != EnvPolicy::InheritAll {
            command.env_clear();
            for (key, value) in std::env::vars_os() {
                let passes = key
                    .to_str()
                    .is_some_and(|name| config.env_policy.passes(name));
                // Like the reference SDK: never pass on exported shell functions.
                let is_function = value.as_encoded_bytes().starts_with(b"()");
                if passes && !is_function {
                    command.env(key, value);
                }
            }
        }
        for (key, value) in &config.env {
            command.env(key, value.expose_secret());
        }
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        let spawn_error = |source| TransportError::Spawn {
            server: config.name.clone(),
            command: config.command.clone(),
            source,
        };
        let mut child = command.spawn().map_err(spawn_error)?;
        let missing = || {
            spawn_error(std::io::Error::other(
                "a standard stream of the child is missing",
            ))
        };
        let pipes = Pipes {
            stdin: child.stdin.take().ok_or_else(missing)?,
            stdout: child.stdout.take().ok_or_else(missing)?,
            stderr: child.stderr.take().ok_or_else(missing)?,
        };
        let pid = child.id();
        Ok((
            Self {
                child: tokio::sync::Mutex::new(child),
                pid,
                status: Mutex::new(None),
            },
            pipes,
        ))
    }

    /// The process id (also the process group id).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The exit status, once known.
    pub(crate) fn status(&self) -> Option<ExitStatus> {
        self.status.lock().clone()
    }

    /// Sends a signal to the whole process group; a group that is gone is fine.
    pub(crate) fn signal_group(&self, signal: Signal) {
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            let _ = killpg(Pid::from_raw(pid), signal);
        }
    }

    /// Waits up to `timeout` for the process to exit, reaping it.
    pub(crate) async fn wait_for(&self, timeout: Duration) -> Option<ExitStatus> {
        if let Some(status) = self.status() {
            return Some(status);
        }
        let mut child = self.child.lock().await;
        let status = match tokio::time::timeout(timeout, child.wait()).await {
            Ok(Ok(status)) => convert(status),
            Ok(Err(_)) => ExitStatus::Unknown,
            Err(_) => return None,
        };
        *self.status.lock() = Some(status.clone());
        Some(status)
    }

    /// Stops the process group: stdin is already closed; wait `grace`, SIGTERM,
    /// wait `term_grace`, SIGKILL. Reaps the leader, and kills what is left of the
    /// group so no grandchild outlives us.
    pub(crate) async fn shutdown(&self, grace: Duration, term_grace: Duration) -> ExitStatus {
        let status = match self.wait_for(grace).await {
            Some(status) => status,
            None => {
                self.signal_group(Signal::SIGTERM);
                match self.wait_for(term_grace).await {
                    Some(status) => status,
                    None => {
                        self.signal_group(Signal::SIGKILL);
                        self.wait_for(KILL_WAIT)
                            .await
                            .unwrap_or(ExitStatus::Unknown)
                    }
                }
            }
        };
        self.signal_group(Signal::SIGKILL);
        status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Whatever is left of the group dies with us. `kill_on_drop` and tokio's
        // orphan reaper take care of a leader that was never waited for.
        self.signal_group(Signal::SIGKILL);
    }
}
