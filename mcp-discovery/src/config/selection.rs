//! Which config files to read, and which of their servers to use: the
//! rules behind `mcp-cli`'s `--config`, `--dir`, `--all-hosts`, `--server`
//! and `--inherit-env`.
//!
//! | selection | files read |
//! |---|---|
//! | `files` (`--config FILE`…) | each, in order; an error fails the load |
//! | `dirs` (`--dir PATH`…) | every definition in each folder; a bad file is skipped with a warning |
//! | `all_hosts` | every host's config that exists; a bad one is skipped with a warning |
//! | none of these | the first host config found ([`first_found`]) |
//!
//! Servers merge as [`Merged`] says; `servers` keeps only the ones named.

use std::path::PathBuf;

use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::stdio::EnvPolicy;

use super::config_file::ConfigFile;
use super::detect::{Candidate, candidates};
use super::error::ConfigError;
use super::expand::VarSource;
use super::launch::Launch;
use super::merge::{Merged, Origin};
use super::options::ParseOptions;
use super::profile::Profiles;
use super::read::load_file;
use super::server::ServerConfig;
use super::sources::{first_found, load_dir, read_hosts};

/// Which config files to read, and which of their servers to use. Built
/// from [`SourceSelection::new`] and the setters below (a new option is
/// then no breaking change).
///
/// ```no_run
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcpdisco::config::{ProcessEnv, SourceSelection};
/// let loaded = SourceSelection::new(std::env::current_dir()?, None)
///     .files(["mcp_config.json"])
///     .servers(["github"])
///     .load(&ProcessEnv)?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SourceSelection {
    /// Files to read (`--config`), in order.
    pub files: Vec<PathBuf>,
    /// Folders of definitions to read (`--dir`), in order.
    pub dirs: Vec<PathBuf>,
    /// Read every host's config (`--all-hosts`).
    pub all_hosts: bool,
    /// Use only these servers (`--server`); all when empty.
    pub servers: Vec<String>,
    /// Every stdio server sees all of our environment (`--inherit-env`).
    pub inherit_env: bool,
    /// Where hosts' project configs are looked for.
    pub cwd: PathBuf,
    /// Where hosts' user configs are looked for.
    pub home: Option<PathBuf>,
    /// How files are read.
    pub options: ParseOptions,
}

/// What a [`SourceSelection`] read.
#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    /// The files read, in order.
    pub files: Vec<PathBuf>,
    /// When auto-detecting or reading every host: every place looked at, found or not.
    pub candidates: Vec<Candidate>,
    /// The servers to use, in configuration order.
    pub servers: Vec<ServerConfig>,
    /// Warnings to show (unknown fields, duplicate names, files skipped).
    pub warnings: Vec<String>,
    /// The errors of the files that were skipped (a bad file of a `--dir`
    /// folder, or of a host's config with `--all_hosts`), also among the warnings.
    pub skipped: Vec<String>,
    /// The profiles of every file read (the first definition of a name wins).
    pub profiles: Profiles,
}

impl LoadedConfig {
    /// The masker of every loaded server's secrets, for whatever is printed or logged.
    pub fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        for server in &self.servers {
            builder.masker(&server.masker());
        }
        builder.build()
    }

    /// The loaded server named `name`, or the error naming the servers there
    /// are and the files read.
    pub fn server(&self, name: &str) -> Result<&ServerConfig, SourceError> {
        self.servers
            .iter()
            .find(|server| server.name == name)
            .ok_or_else(|| SourceError::UnknownServer {
                name: name.to_owned(),
                known: self.servers.iter().map(|s| s.name.clone()).collect(),
                files: self.files.clone(),
            })
    }
}

/// Why a [`SourceSelection`] gave no servers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// A config file could not be read or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Nothing was named and nothing found where hosts keep their configs.
    #[error("no MCP config found; looked for:\n{}", list(.searched))]
    NoConfig {
        /// Where we looked.
        searched: Vec<PathBuf>,
    },
    /// A server named in `servers` is in no file read.
    #[error("no server named '{name}' in {}; configured: {}", list_inline(.files), known.join(", "))]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: Vec<String>,
        /// The files read.
        files: Vec<PathBuf>,
    },
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

impl SourceSelection {
    /// Looks for hosts' configs from `cwd` and `home`; reads nothing named yet.
    pub fn new(cwd: impl Into<PathBuf>, home: Option<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            home,
            ..Self::default()
        }
    }

    /// Reads these files (`--config`), in order.
    pub fn files<I, P>(mut self, files: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.files = files.into_iter().map(Into::into).collect();
        self
    }

    /// Reads every definition in these folders (`--dir`), in order.
    pub fn dirs<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.dirs = dirs.into_iter().map(Into::into).collect();
        self
    }

    /// Whether every host's config is read (`--all-hosts`).
    pub fn all_hosts(mut self, all_hosts: bool) -> Self {
        self.all_hosts = all_hosts;
        self
    }

    /// Uses only these servers (`--server`); all when empty.
    pub fn servers<I, S>(mut self, servers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// Whether every stdio server sees all of our environment (`--inherit-env`).
    pub fn inherit_env(mut self, inherit_env: bool) -> Self {
        self.inherit_env = inherit_env;
        self
    }

    /// How files are read.
    pub fn options(mut self, options: ParseOptions) -> Self {
        self.options = options;
        self
    }

    /// Whether nothing is named: the first host config found is read.
    fn auto_detects(&self) -> bool {
        self.files.is_empty() && self.dirs.is_empty() && !self.all_hosts
    }

    /// Reads what is selected, expanding references from `vars`.
    pub fn load(&self, vars: &dyn VarSource) -> Result<LoadedConfig, SourceError> {
        let options = &self.options;
        let mut sources = Sources::default();
        if self.auto_detects() {
            let candidates = candidates(&self.cwd, self.home.as_deref());
            match first_found(&candidates, vars, options) {
                Some((_, file)) => sources.add(file?, Origin::File),
                None => return Err(no_config(candidates)),
            }
            sources.loaded.candidates = candidates;
        }
        for path in &self.files {
            sources.add(load_file(path, vars, options)?, Origin::File);
        }
        for dir in &self.dirs {
            let read = load_dir(dir, vars, options)?;
            for error in read.errors {
                sources.skip(error.to_string());
            }
            for file in read.files {
                sources.add(file, Origin::Dir);
            }
        }
        if self.all_hosts {
            let candidates = candidates(&self.cwd, self.home.as_deref());
            let found = read_hosts(&candidates, vars, options);
            if found.is_empty() && self.files.is_empty() && self.dirs.is_empty() {
                return Err(no_config(candidates));
            }
            for (candidate, file) in found {
                match file {
                    // A host's general settings without an MCP section are not an MCP config.
                    Ok(file) if candidate.shared && file.servers.is_empty() => {}
                    Ok(file) => sources.add(file, Origin::Host(candidate.host)),
                    Err(error) => sources.skip(error.to_string()),
                }
            }
            sources.loaded.candidates = candidates;
        }
        let mut loaded = sources.finish(&self.servers)?;
        if self.inherit_env {
            for server in &mut loaded.servers {
                if let Launch::Stdio { env_policy, .. } = &mut server.launch {
                    *env_policy = EnvPolicy::InheritAll;
                }
            }
        }
        Ok(loaded)
    }
}

/// Every server a profile names is configured; else the error names the
/// profile's file, the profile and the server.
fn check_profiles(loaded: &LoadedConfig) -> Result<(), SourceError> {
    for profile in loaded.profiles.values() {
        for server in profile.servers.iter().flatten() {
            if !loaded.servers.iter().any(|s| &s.name == server) {
                let known: Vec<&str> = loaded.servers.iter().map(|s| s.name.as_str()).collect();
                return Err(SourceError::Config(ConfigError::invalid(
                    &profile.source,
                    format!(
                        "profile '{}': no server named '{server}'; configured: {}",
                        profile.name,
                        known.join(", ")
                    ),
                )));
            }
        }
    }
    Ok(())
}

fn no_config(candidates: Vec<Candidate>) -> SourceError {
    SourceError::NoConfig {
        searched: candidates.into_iter().map(|c| c.path).collect(),
    }
}

/// Files read so far, their servers merged.
#[derive(Default)]
struct Sources {
    loaded: LoadedConfig,
    merged: Merged,
}

impl Sources {
    fn add(&mut self, mut file: ConfigFile, origin: Origin) {
        self.loaded
            .warnings
            .extend(file.warnings.iter().map(ToString::to_string));
        if !self.loaded.files.contains(&file.path) {
            self.loaded.files.push(file.path.clone());
        }
        for profile in std::mem::take(&mut file.profiles) {
            match self.loaded.profiles.get(&profile.name) {
                Some(taken) => self.loaded.warnings.push(format!(
                    "{}: profile '{}' is also defined in {}; the first definition is used",
                    profile.source.display(),
                    profile.name,
                    taken.source.display()
                )),
                None => {
                    self.loaded.profiles.insert(profile.name.clone(), profile);
                }
            }
        }
        self.merged.add(file, origin);
    }

    /// A file that could not be read, skipped.
    fn skip(&mut self, error: String) {
        self.loaded.warnings.push(format!("{error}; skipped"));
        self.loaded.skipped.push(error);
    }

    /// The servers, kept to `only` when names are given.
    fn finish(self, only: &[String]) -> Result<LoadedConfig, SourceError> {
        let mut loaded = self.loaded;
        loaded.servers = self.merged.servers;
        loaded.warnings.extend(self.merged.warnings);
        check_profiles(&loaded)?;
        for name in only {
            loaded.server(name)?;
        }
        if !only.is_empty() {
            loaded.servers.retain(|server| only.contains(&server.name));
        }
        Ok(loaded)
    }
}
