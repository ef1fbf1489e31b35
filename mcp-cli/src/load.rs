//! Which config files to read, and which of their servers to use.

use std::path::PathBuf;

use mcpdisco::config::{
    self, Candidate, ConfigError, ConfigFile, EnvPolicy, Launch, Merged, Origin, ParseOptions,
    ProcessEnv, ServerConfig,
};
use mcpdisco::secret::Masker;

use crate::cli::GlobalOptions;

/// A usage or configuration problem: exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A config file could not be read or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No `--config` and nothing found where hosts keep theirs.
    #[error("no MCP config found; looked for:\n{}\nPass one with --config FILE.", list(.searched))]
    NoConfig {
        /// Where we looked.
        searched: Vec<PathBuf>,
    },
    /// `--server` named a server no config has.
    #[error("no server named '{name}' in {}; configured: {}", list_inline(.files), known.join(", "))]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: Vec<String>,
        /// The files read.
        files: Vec<PathBuf>,
    },
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
    #[error("'{0}' is not an HTTP server; only HTTP servers use OAuth")]
    NotHttp(String),
    /// A capabilities folder or the lock file cannot be used.
    #[error("{0}")]
    Capabilities(String),
    /// The token store cannot be used.
    #[error("credential store: {0}")]
    CredentialStore(String),
    /// `serve --http` on an address other machines can reach, without a token.
    #[error(
        "--http {0} is reachable from other machines: give --http-token TOKEN (or MCP_GATEWAY_TOKEN), or bind 127.0.0.1"
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
    /// The MCP Registry could not be used.
    #[error("{0}")]
    Registry(String),
    /// `--cache` is not a usable shared cache URL.
    #[error("--cache: {0}")]
    CacheUrl(String),
    /// The current directory is unknown.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|path| format!("  {}", path.display()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn list_inline(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What was read.
#[derive(Debug)]
pub struct Loaded {
    /// The files read, in order.
    pub files: Vec<PathBuf>,
    /// When auto-detecting: every place looked at, found or not.
    pub candidates: Vec<Candidate>,
    /// The servers to use, in configuration order (filtered by `--server`).
    pub servers: Vec<ServerConfig>,
    /// Warnings to show on stderr (unknown fields, duplicate names).
    pub warnings: Vec<String>,
}

/// Reads the configs named by `--config`, the folders of `--dir`, every
/// host's config with `--all-hosts`, or else the first config
/// auto-detection finds.
pub fn load(global: &GlobalOptions) -> Result<Loaded, UsageError> {
    let cwd = std::env::current_dir().map_err(UsageError::CurrentDir)?;
    let home = dirs::home_dir();
    let options = ParseOptions::default();
    let mut sources = Sources::default();
    if global.configs.is_empty() && global.dirs.is_empty() && !global.all_hosts {
        let candidates = config::candidates(&cwd, home.as_deref());
        match config::first_found(&candidates, &ProcessEnv, &options) {
            Some((_, file)) => sources.add(file?, Origin::File),
            None => {
                return Err(UsageError::NoConfig {
                    searched: candidates.into_iter().map(|c| c.path).collect(),
                });
            }
        }
        sources.candidates = candidates;
    }
    for path in &global.configs {
        sources.add(
            config::load_file_with(path, &ProcessEnv, &options)?,
            Origin::File,
        );
    }
    for dir in &global.dirs {
        let read = config::load_dir(dir, &ProcessEnv, &options)?;
        for error in read.errors {
            sources.warnings.push(format!("{error}; skipped"));
        }
        for file in read.files {
            sources.add(file, Origin::Dir);
        }
    }
    if global.all_hosts {
        let candidates = config::candidates(&cwd, home.as_deref());
        let found = config::read_hosts(&candidates, &ProcessEnv, &options);
        if found.is_empty() && global.configs.is_empty() && global.dirs.is_empty() {
            return Err(UsageError::NoConfig {
                searched: candidates.into_iter().map(|c| c.path).collect(),
            });
        }
        for (candidate, file) in found {
            match file {
                // A host's general settings without an MCP section are not an MCP config.
                Ok(file) if candidate.shared && file.servers.is_empty() => {}
                Ok(file) => sources.add(file, Origin::Host(candidate.host)),
                Err(error) => sources.warnings.push(format!("{error}; skipped")),
            }
        }
        sources.candidates = candidates;
    }
    let mut loaded = sources.finish(&global.servers)?;
    if global.inherit_env {
        for server in &mut loaded.servers {
            if let Launch::Stdio { env_policy, .. } = &mut server.launch {
                *env_policy = EnvPolicy::InheritAll;
            }
        }
    }
    Ok(loaded)
}

/// Files read so far, their servers merged.
#[derive(Default)]
struct Sources {
    files: Vec<PathBuf>,
    candidates: Vec<Candidate>,
    merged: Merged,
    warnings: Vec<String>,
}

impl Sources {
    fn add(&mut self, file: ConfigFile, origin: Origin) {
        self.warnings
            .extend(file.warnings.iter().map(ToString::to_string));
        if !self.files.contains(&file.path) {
            self.files.push(file.path.clone());
        }
        self.merged.add(file, origin);
    }

    /// The servers, kept to `only` when names are given.
    fn finish(self, only: &[String]) -> Result<Loaded, UsageError> {
        let mut servers = self.merged.servers;
        let mut warnings = self.warnings;
        warnings.extend(self.merged.warnings);
        for name in only {
            if !servers.iter().any(|server| &server.name == name) {
                return Err(UsageError::UnknownServer {
                    name: name.clone(),
                    known: servers.iter().map(|s| s.name.clone()).collect(),
                    files: self.files,
                });
            }
        }
        if !only.is_empty() {
            servers.retain(|server| only.contains(&server.name));
        }
        Ok(Loaded {
            files: self.files,
            candidates: self.candidates,
            servers,
            warnings,
        })
    }
}

impl Loaded {
    /// The masker of every loaded server's secrets, for whatever we print or log.
    pub fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        for server in &self.servers {
            builder.masker(&server.masker());
        }
        builder.build()
    }
}

#[cfg(test)]
fn read(paths: &[PathBuf], only: &[String]) -> Result<Loaded, UsageError> {
    let mut sources = Sources::default();
    for path in paths {
        sources.add(config::load_file(path, &ProcessEnv)?, Origin::File);
    }
    sources.finish(only)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_definition_wins_and_unknown_server_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        std::fs::write(&a, r#"{"mcpServers": {"x": {"command": "one"}}}"#).unwrap();
        std::fs::write(
            &b,
            r#"{"mcpServers": {"x": {"command": "two"}, "y": {"command": "three"}}}"#,
        )
        .unwrap();
        let loaded = read(&[a.clone(), b.clone()], &[]).unwrap();
        assert_eq!(loaded.servers.len(), 2);
        assert!(loaded.warnings[0].contains("server 'x' is also defined"));
        let only = read(&[a.clone(), b.clone()], &["y".to_owned()]).unwrap();
        assert_eq!(only.servers.len(), 1);
        let error = read(&[a, b], &["nope".to_owned()]).unwrap_err();
        assert!(
            error.to_string().contains("no server named 'nope'"),
            "{error}"
        );
    }
}
