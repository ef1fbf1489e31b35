//! [`StdioConfig`]: how to start a server process.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Which of our environment variables the child inherits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum EnvMode {
    /// All of them, with the configured ones on top.
    #[default]
    Inherit,
    /// Only these (plus the configured ones).
    AllowList(Vec<String>),
}

/// How to start one stdio server. `Debug` never shows environment values.
#[derive(Clone)]
pub struct StdioConfig {
    /// The server's name, for errors and logs.
    pub name: String,
    /// The program, run directly (never through a shell). A bare name is looked up on `PATH`.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables set for the child (values are secret).
    pub env: BTreeMap<String, String>,
    /// Which of our own variables the child inherits.
    pub env_mode: EnvMode,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// The bound on one line from the server.
    pub max_frame_len: usize,
    /// How long to wait after closing stdin before SIGTERM.
    pub shutdown_grace: Duration,
    /// How long to wait after SIGTERM before SIGKILL.
    pub term_grace: Duration,
}

impl StdioConfig {
    /// A configuration with defaults.
    pub fn new(name: impl Into<String>, command: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            env_mode: EnvMode::Inherit,
            cwd: None,
            max_frame_len: crate::codec::ndjson::DEFAULT_MAX_FRAME_LEN,
            shutdown_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one environment variable.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The command line for messages: program and arguments, never the environment.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl fmt::Debug for StdioConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioConfig")
            .field("name", &self.name)
            .field("command", &self.command)
            .field("args", &self.args)
            .field(
                "env",
                &self
                    .env
                    .keys()
                    .map(|k| (k.as_str(), "***"))
                    .collect::<Vec<_>>(),
            )
            .field("env_mode", &self.env_mode)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_env_values() {
        let config = StdioConfig::new("gh", "server").env("API_TOKEN", "sekrit-123");
        let shown = format!("{config:?}");
        assert!(shown.contains("API_TOKEN"));
        assert!(!shown.contains("sekrit-123"));
    }
}
