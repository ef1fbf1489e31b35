//! [`StdioConfig`]: how to start a server process.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::StderrLines;
use crate::secret::{ExposeSecret, Masker, SecretString};

/// The variables the reference TypeScript SDK passes to a server on Unix.
pub const SDK_INHERITED_UNIX: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The variables the reference TypeScript SDK passes to a server on Windows.
pub const SDK_INHERITED_WINDOWS: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// What else a server may need from our environment, beyond the SDK's
/// list: locale and time zone, temporary directories, and the proxy and
/// CA-bundle variables that `npx` and `uvx` need behind a corporate proxy.
/// `LC_*` and `XDG_*` are prefixes.
pub const ALSO_INHERITED: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "XDG_*",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
];

/// Which of our own environment variables a server process sees.
///
/// The default is [`EnvPolicy::Allowlist`]: a server run for its tools
/// should not read your cloud credentials, shell tokens or anything else
/// you happen to have exported. It sees its configured `env`, plus the
/// variables it needs to run at all ([`is_inherited_by_default`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvPolicy {
    /// The safe default list, plus these names.
    Allowlist {
        /// More variables to pass through by name (`envPassthrough`).
        passthrough: Vec<String>,
    },
    /// All of our variables (`inheritEnv: true`, `--inherit-env`).
    InheritAll,
}

impl Default for EnvPolicy {
    fn default() -> Self {
        Self::Allowlist {
            passthrough: Vec::new(),
        }
    }
}

impl EnvPolicy {
    /// Whether a variable of ours named `name` reaches the server.
    pub fn passes(&self, name: &str) -> bool {
        match self {
            Self::InheritAll => true,
            Self::Allowlist { passthrough } => {
                is_inherited_by_default(name) || passthrough.iter().any(|p| p == name)
            }
        }
    }

    /// A short description, for `mcp-cli servers`: `allowlist`, `allowlist + A, B`, `inherit all`.
    pub fn describe(&self) -> String {
        match self {
            Self::InheritAll => "inherit all".to_owned(),
            Self::Allowlist { passthrough } if passthrough.is_empty() => "allowlist".to_owned(),
            Self::Allowlist { passthrough } => format!("allowlist + {}", passthrough.join(", ")),
        }
    }
}

/// Whether the default policy passes our variable `name` to a server:
/// the reference SDK's list for this platform ([`SDK_INHERITED_UNIX`],
/// [`SDK_INHERITED_WINDOWS`]) and [`ALSO_INHERITED`].
pub fn is_inherited_by_default(name: &str) -> bool {
    let sdk = if cfg!(windows) {
        SDK_INHERITED_WINDOWS
    } else {
        SDK_INHERITED_UNIX
    };
    let matches = |pattern: &&str| match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None if cfg!(windows) => name.eq_ignore_ascii_case(pattern),
        None => name == *pattern,
    };
    sdk.iter().any(matches) || ALSO_INHERITED.iter().any(matches)
}

/// How to start one stdio server: [`StdioConfig::new`], then a setter per
/// field. `Debug` never shows environment values. New fields may be added,
/// so the struct cannot be built as a literal outside this crate.
#[derive(Clone)]
#[non_exhaustive]
pub struct StdioConfig {
    /// The server's name, for errors and logs.
    pub name: String,
    /// The program, run directly (never through a shell). A bare name is looked up on `PATH`.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables set for the child.
    pub env: BTreeMap<String, SecretString>,
    /// Which of our own variables the child inherits.
    pub env_policy: EnvPolicy,
    /// Masks known secrets in everything the server writes that we pass on
    /// (the stderr tail in errors, stderr and stdout lines in logs).
    pub masker: Masker,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// The bound on one line from the server.
    pub max_frame_len: usize,
    /// How long to wait after closing stdin before SIGTERM.
    pub shutdown_grace: Duration,
    /// How long to wait after SIGTERM before SIGKILL.
    pub term_grace: Duration,
    /// Where the lines the server writes to stderr go (masked).
    pub stderr: StderrLines,
}

impl StdioConfig {
    /// A configuration with defaults.
    pub fn new(name: impl Into<String>, command: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            env_policy: EnvPolicy::default(),
            masker: Masker::default(),
            cwd: None,
            max_frame_len: crate::codec::ndjson::DEFAULT_MAX_FRAME_LEN,
            shutdown_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
            stderr: StderrLines::default(),
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

    /// Sets one environment variable; its value also joins the masker.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let value: String = value.into();
        self.masker = self.masker.union(&Masker::new([value.as_str()]));
        self.env.insert(key.into(), value.into());
        self
    }

    /// Sets [`env_policy`](Self::env_policy): which of our variables the child sees.
    pub fn env_policy(mut self, policy: EnvPolicy) -> Self {
        self.env_policy = policy;
        self
    }

    /// Sets [`masker`](Self::masker): known secrets masked in what the server writes.
    pub fn masker(mut self, masker: Masker) -> Self {
        self.masker = masker;
        self
    }

    /// Sets [`cwd`](Self::cwd): the child's working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets [`max_frame_len`](Self::max_frame_len): the bound on one line.
    pub fn max_frame_len(mut self, bytes: usize) -> Self {
        self.max_frame_len = bytes;
        self
    }

    /// Sets [`shutdown_grace`](Self::shutdown_grace): the wait after closing stdin.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Sets [`term_grace`](Self::term_grace): the wait after SIGTERM.
    pub fn term_grace(mut self, grace: Duration) -> Self {
        self.term_grace = grace;
        self
    }

    /// Sets [`stderr`](Self::stderr): where the server's stderr lines go.
    pub fn stderr(mut self, lines: StderrLines) -> Self {
        self.stderr = lines;
        self
    }

    /// The masker of this configuration alone: its env values, and the
    /// arguments that follow token-like flags or look like credentials.
    pub fn own_masker(&self) -> Masker {
        let mut builder = Masker::builder();
        for value in self.env.values() {
            builder.secret(value.expose_secret());
        }
        builder.args(&self.args);
        builder.build()
    }

    /// The command line for messages: program and arguments (masked), never the environment.
    pub fn command_line(&self) -> String {
        let line = std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        self.masker.union(&self.own_masker()).mask_string(line)
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
            .field("env_policy", &self.env_policy)
            .field("cwd", &self.cwd)
            .field("stderr", &self.stderr)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_policy_passes_only_what_a_server_needs() {
        let policy = EnvPolicy::default();
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "XDG_CACHE_HOME",
            "HTTPS_PROXY",
            "TMPDIR",
        ] {
            assert!(policy.passes(name), "{name}");
        }
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "SSH_AUTH_SOCK",
        ] {
            assert!(!policy.passes(name), "{name}");
        }
        let more = EnvPolicy::Allowlist {
            passthrough: vec!["GITHUB_TOKEN".into()],
        };
        assert!(more.passes("GITHUB_TOKEN") && !more.passes("AWS_SECRET_ACCESS_KEY"));
        assert_eq!(more.describe(), "allowlist + GITHUB_TOKEN");
        assert!(EnvPolicy::InheritAll.passes("AWS_SECRET_ACCESS_KEY"));
    }

    #[test]
    fn command_lines_mask_flag_values() {
        let config =
            StdioConfig::new("gh", "server").args(["--token", "tok-123456", "--port", "80"]);
        assert_eq!(config.command_line(), "server --token *** --port 80");
    }

    #[test]
    fn debug_hides_env_values() {
        let config = StdioConfig::new("gh", "server").env("API_TOKEN", "sekrit-123");
        let shown = format!("{config:?}");
        assert!(shown.contains("API_TOKEN"));
        assert!(!shown.contains("sekrit-123"));
    }
}
