//! [`UsageError`]: a usage or configuration problem, exit status 1, and the
//! library's errors in the CLI's words.

use std::path::PathBuf;

use mcpdisco::config::{ConfigError, SourceError};
#[cfg(feature = "registry")]
use mcpdisco::registry::{AddError, RegistryError};

/// What a user of the CLI does about a config format this build left out:
/// the library's feature has a namesake among the CLI's.
fn feature_hint(error: &ConfigError) -> String {
    match error {
        ConfigError::NeedsFeature { feature, .. } => format!(
            "\nThis mcp-cli was built without it: install it with feature `{feature}` of mcpdisco-cli (on by default)."
        ),
        _ => String::new(),
    }
}

/// A usage or configuration problem: exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A config file could not be read or is invalid; one in a format this
    /// build left out names the CLI's feature that reads it.
    #[error("{0}{hint}", hint = feature_hint(.0))]
    Config(#[from] ConfigError),
    /// No `--config` and nothing found where hosts keep theirs (a
    /// [`SourceError::NoConfig`]), with what to do about it.
    #[error("{0}\nPass one with --config FILE.")]
    NoConfig(SourceError),
    /// `--args` is not a JSON object.
    #[error("--args must be a JSON object: {0}")]
    Arguments(String),
    /// The trace file cannot be created.
    #[error("cannot create the trace file {}: {source}", path.display())]
    Trace {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `login` or `logout` of a server that is not an HTTP server.
    #[cfg(feature = "oauth")]
    #[error("'{0}' is not an HTTP server; only HTTP servers use OAuth")]
    NotHttp(String),
    /// A capabilities folder or the lock file cannot be used.
    #[error("{0}")]
    Capabilities(String),
    /// The token store cannot be used.
    #[cfg(feature = "oauth")]
    #[error("credential store: {0}")]
    CredentialStore(String),
    /// `serve --http` on an address other machines can reach, without a token.
    #[error(
        "--http {0} is reachable from other machines: give --http-token TOKEN (or MCP_GATEWAY_TOKEN) or --auth-jwks, or bind 127.0.0.1"
    )]
    OpenBind(std::net::SocketAddr),
    /// `serve --http` could not listen.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// `serve --auth-jwks`: the identity provider's keys cannot be used.
    #[cfg(feature = "jwt-auth")]
    #[error("{0}")]
    AuthKeys(String),
    /// The MCP Registry could not be used.
    #[cfg(feature = "registry")]
    #[error("{0}")]
    Registry(String),
    /// `--cache` is not a usable shared cache URL.
    #[cfg(feature = "redis")]
    #[error("--cache: {0}")]
    CacheUrl(String),
    /// The current directory is unknown.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    /// The config sources failed otherwise (such as a server named that no
    /// config has).
    #[error(transparent)]
    Sources(SourceError),
    /// A command or flag whose feature this build left out
    /// (`cargo install mcpdisco-cli --no-default-features`).
    #[error("{what} needs feature `{feature}` of mcpdisco-cli, which this build left out")]
    LeftOut {
        /// The command or flag, as typed (`login`, `--cache`).
        what: String,
        /// The feature (`oauth`, `redis`).
        feature: &'static str,
    },
}

impl UsageError {
    /// `what` (a command or flag) in a build without `feature`.
    pub fn left_out(what: impl Into<String>, feature: &'static str) -> Self {
        Self::LeftOut {
            what: what.into(),
            feature,
        }
    }
}

impl From<SourceError> for UsageError {
    fn from(error: SourceError) -> Self {
        match error {
            SourceError::Config(error) => Self::Config(error),
            error @ SourceError::NoConfig { .. } => Self::NoConfig(error),
            other => Self::Sources(other),
        }
    }
}

#[cfg(feature = "registry")]
impl From<RegistryError> for UsageError {
    fn from(error: RegistryError) -> Self {
        UsageError::Registry(error.to_string())
    }
}

#[cfg(feature = "registry")]
impl From<AddError> for UsageError {
    fn from(error: AddError) -> Self {
        match error {
            AddError::Config(error) => UsageError::Config(error),
            AddError::CurrentDir(error) => UsageError::CurrentDir(error),
            other => UsageError::Registry(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco::config::{ProcessEnv, SourceSelection};

    #[test]
    fn a_config_format_left_out_names_the_clis_feature() {
        let error = UsageError::from(ConfigError::NeedsFeature {
            path: PathBuf::from("/home/ada/.codex/config.toml"),
            format: "Codex's TOML",
            feature: "toml",
        });
        assert_eq!(
            error.to_string(),
            "/home/ada/.codex/config.toml: Codex's TOML needs feature `toml` of mcpdisco\n\
             This mcp-cli was built without it: install it with feature `toml` of \
             mcpdisco-cli (on by default)."
        );
    }

    #[test]
    fn a_left_out_feature_is_named() {
        assert_eq!(
            UsageError::left_out("login", "oauth").to_string(),
            "login needs feature `oauth` of mcpdisco-cli, which this build left out"
        );
    }

    #[test]
    fn the_librarys_errors_read_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        std::fs::write(&a, r#"{"mcpServers": {"x": {"command": "one"}}}"#).unwrap();
        let selection = SourceSelection::new(dir.path(), None)
            .files([a.clone()])
            .servers(["nope"]);
        let error = UsageError::from(selection.load(&ProcessEnv).unwrap_err());
        assert_eq!(
            error.to_string(),
            format!("no server named 'nope' in {}; configured: x", a.display())
        );
        let empty = tempfile::tempdir().unwrap();
        let none = SourceSelection::new(empty.path(), Some(empty.path().to_owned()));
        let error = UsageError::from(none.load(&ProcessEnv).unwrap_err());
        let shown = error.to_string();
        assert!(
            shown.starts_with("no MCP config found; looked for:\n  ")
                && shown.ends_with("\nPass one with --config FILE."),
            "{shown}"
        );
    }
}
