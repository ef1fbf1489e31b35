//! [`Client::stdio`]: a server started as a child process.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpdisco_transport::stdio::{EnvPolicy, StderrLines, StdioConfig, StdioTransport};

use super::Client;
use crate::session::{Session, SessionError};

/// The start of a [`Client`] that runs a program: its
/// [`StdioConfig`](mcpdisco_transport::stdio::StdioConfig), set through
/// the client's setters.
#[derive(Debug, Clone)]
pub struct Stdio {
    config: StdioConfig,
}

impl Client<Stdio> {
    /// A client that starts `program` (a bare name is looked up on `PATH`;
    /// never run through a shell), named after the program's file stem.
    pub fn stdio(program: impl Into<String>) -> Self {
        let program = program.into();
        let name = Path::new(&program)
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .filter(|stem| !stem.is_empty())
            .unwrap_or_else(|| program.clone());
        Self::from(StdioConfig::new(name, program))
    }

    fn config(mut self, change: impl FnOnce(StdioConfig) -> StdioConfig) -> Self {
        self.start.config = change(self.start.config);
        self
    }

    /// Adds arguments.
    pub fn args<I, A>(self, args: I) -> Self
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        self.config(|config| config.args(args))
    }

    /// Sets an environment variable of the child; its value is a secret,
    /// masked in everything the server sends.
    pub fn env(self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.config(|config| config.env(key, value))
    }

    /// Sets which of our own environment variables the child sees (by
    /// default only those a server needs to run; see [`EnvPolicy`]).
    pub fn env_policy(self, policy: EnvPolicy) -> Self {
        self.config(|config| config.env_policy(policy))
    }

    /// Sets the child's working directory.
    pub fn cwd(self, dir: impl Into<PathBuf>) -> Self {
        self.config(|config| config.cwd(dir))
    }

    /// Sets where the lines the server writes to stderr go, masked (to
    /// `tracing` by default; [`StderrLines::Forward`] shows them on ours).
    pub fn stderr(self, lines: StderrLines) -> Self {
        self.config(|config| config.stderr(lines))
    }

    /// Sets how long the server gets to exit after its stdin is closed, and
    /// then after SIGTERM, before it is killed.
    pub fn shutdown_graces(self, after_close: Duration, after_term: Duration) -> Self {
        self.config(|config| config.shutdown_grace(after_close).term_grace(after_term))
    }

    /// Starts the program, detects the era and completes the handshake. On
    /// failure the child is stopped and reaped.
    pub async fn connect(self) -> Result<Session, SessionError> {
        let Self {
            start: Stdio { mut config },
            name,
            mut options,
        } = self;
        config.name.clone_from(&name);
        // What the server sends back is masked with the start's secrets too,
        // and what it writes to stderr with the session's.
        options.masker = options
            .masker
            .union(&config.masker)
            .union(&config.own_masker());
        config.masker = options.masker.clone();
        let transport = StdioTransport::spawn(config)
            .map_err(|error| SessionError::from_transport(&name, "start", error))?;
        Session::connect(&name, transport, options).await
    }
}

impl From<StdioConfig> for Client<Stdio> {
    /// A client that starts the program of `config`, under its name.
    fn from(config: StdioConfig) -> Self {
        let name = config.name.clone();
        Self::with_start(Stdio { config }, name)
    }
}
