//! The child process: spawning it in its own process group, and shutting the
//! whole group down (close stdin, wait, SIGTERM, wait, SIGKILL), always reaping.
//!
//! On Windows a bare command is found through `PATH` and `PATHEXT` first
//! ([`super::resolve`]), so `npx` runs `npx.cmd` (std runs batch files
//! through `cmd.exe` with arguments quoted so they cannot inject commands, and
//! refuses arguments it cannot quote safely); the process gets a new process
//! group, and stopping it is closing stdin, waiting, then terminating it.

use crate::sync::Mutex;
use std::process::Stdio;
use std::time::Duration;

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

/// How a stopping process is told to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGTERM to the group (Unix); nothing to send on Windows, where the
    /// grace simply runs on.
    Terminate,
    /// SIGKILL to the group (Unix); TerminateProcess (Windows).
    Kill,
}

#[cfg(unix)]
fn convert(status: std::process::ExitStatus) -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitStatus::Code(code),
        (None, Some(signal)) => ExitStatus::Signal(signal),
        (None, None) => ExitStatus::Unknown,
    }
}

#[cfg(not(unix))]
fn convert(status: std::process::ExitStatus) -> ExitStatus {
    match status.code() {
        Some(code) => ExitStatus::Code(code),
        None => ExitStatus::Unknown,
    }
}

/// The program to run: as configured, or on Windows the file that `PATH`
/// and `PATHEXT` resolve a bare name to.
fn program(config: &StdioConfig) -> Result<std::ffi::OsString, TransportError> {
    let platform = super::resolve::Platform::current();
    if platform == super::resolve::Platform::Unix {
        // execvp's own search (it also skips files that are not executable).
        return Ok(config.command.clone().into());
    }
    super::resolve::program_file(&config.command, &config.env, config.cwd.as_deref())
        .map(std::path::PathBuf::into_os_string)
        .map_err(|not_found| TransportError::Spawn {
            server: config.name.clone(),
            command: config.command.clone(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, not_found.to_string()),
        })
}

impl Process {
    /// Starts the program directly (no shell), in a new process group.
    pub(crate) fn spawn(config: &StdioConfig) -> Result<(Self, Pipes), TransportError> {
        let mut command = Command::new(program(config)?);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        #[cfg(windows)]
        {
            /// `CREATE_NEW_PROCESS_GROUP`: Ctrl-C in our console is not theirs.
            const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
            command.creation_flags(CREATE_NEW_PROCESS_GROUP);
        }
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

    /// Tells the whole process group to stop; a group that is gone is fine.
    #[cfg(unix)]
    pub(crate) fn signal_group(&self, stop: Stop) {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        let signal = match stop {
            Stop::Terminate => Signal::SIGTERM,
            Stop::Kill => Signal::SIGKILL,
        };
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            let _ = killpg(Pid::from_raw(pid), signal);
        }
    }

    /// Terminates the process (Windows has no group signal for it); one
    /// that is gone, or being waited for, is left to `kill_on_drop`.
    #[cfg(not(unix))]
    pub(crate) fn signal_group(&self, stop: Stop) {
        if stop == Stop::Kill
            && let Ok(mut child) = self.child.try_lock()
        {
            let _ = child.start_kill();
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
                self.signal_group(Stop::Terminate);
                match self.wait_for(term_grace).await {
                    Some(status) => status,
                    None => {
                        self.signal_group(Stop::Kill);
                        self.wait_for(KILL_WAIT)
                            .await
                            .unwrap_or(ExitStatus::Unknown)
                    }
                }
            }
        };
        self.signal_group(Stop::Kill);
        status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Whatever is left of the group dies with us. `kill_on_drop` and tokio's
        // orphan reaper take care of a leader that was never waited for.
        self.signal_group(Stop::Kill);
    }
}
