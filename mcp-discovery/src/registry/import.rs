//! The registry's servers brought into a host: one looked up and resolved
//! ([`RegistryClient::look_up`]), added to a config file in that file's own
//! format ([`RegistryClient::add`]), or every match of a search read as
//! [`ServerConfig`]s to discover at once, no file written
//! ([`RegistryClient::server_configs`]). No secret is written: what the
//! registry marks required stays an `${env:NAME}` reference, and what is
//! not set is said ([`Addition::missing_env`], [`LeftOutReason::MissingEnv`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::client::{RegistryClient, shown};
use super::error::RegistryError;
use super::options::{ResolveOptions, SearchQuery};
use super::resolve::resolve;
use super::resolved::{Choice, RequiredEnv, ResolveError, Resolved, ResolvedEntry};
use super::types::RegistryEntry;
use super::warning::{LeftOutReason, RegistryWarning};
use crate::config::{
    Added, ConfigError, ParseOptions, ServerConfig, ServerEntry, VarSource, add_server, add_target,
};

/// A registry server read and resolved.
#[derive(Debug, Clone)]
pub struct Lookup {
    /// The registry's entry: its `server.json` and the registry's metadata.
    pub entry: RegistryEntry,
    /// The entry resolved into our config, or why it cannot be.
    pub resolved: Result<Resolved, ResolveError>,
    /// Stale answers used.
    pub warnings: Vec<RegistryWarning>,
}

/// Where and how [`RegistryClient::add`] writes. Built from
/// [`AddOptions::default`] and the setters below (a new option is then no
/// breaking change).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct AddOptions {
    /// The config file; the first host config found from the current
    /// directory and the home folder when `None`, else `./.mcp.json`
    /// ([`add_target`]).
    pub to: Option<PathBuf>,
    /// The server's name in the config; the last part of its registry name
    /// ([`Resolved::name`]) when `None`.
    pub local_name: Option<String>,
    /// Whether a server of that name already there is replaced (else it is an error).
    pub replace: bool,
}

impl AddOptions {
    /// Writes into the config file `path`.
    pub fn to(mut self, path: impl Into<PathBuf>) -> Self {
        self.to = Some(path.into());
        self
    }

    /// Names the server `name` in the config.
    pub fn local_name(mut self, name: impl Into<String>) -> Self {
        self.local_name = Some(name.into());
        self
    }

    /// Whether a server of that name already there is replaced.
    pub fn replace(mut self, replace: bool) -> Self {
        self.replace = replace;
        self
    }
}

/// What [`RegistryClient::add`] did.
#[derive(Debug, Clone)]
pub struct Addition {
    /// The config file written.
    pub path: PathBuf,
    /// The server's name in it.
    pub name: String,
    /// Added, replaced, or the file created.
    pub added: Added,
    /// What runs or reaches the server.
    pub choice: Choice,
    /// The variables it needs that are not set: set them before using it.
    pub missing_env: Vec<RequiredEnv>,
}

/// Why [`RegistryClient::add`] wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AddError {
    /// The server cannot be resolved into a config entry.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// Its bundle could not be fetched, verified or read.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The config file cannot be read or written, or has the name already.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No file was named and the current directory, where it is looked for, is unknown.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
}

/// The servers of [`RegistryClient::server_configs`].
#[derive(Debug, Clone, Default)]
pub struct RegistryServers {
    /// Each resolved server, read as a config's would be (its `source` is
    /// `registry: <registry name>`), named uniquely.
    pub servers: Vec<ServerConfig>,
    /// Servers left out and why, stale answers used, or that none matched.
    pub warnings: Vec<RegistryWarning>,
}

impl RegistryClient {
    /// Server `name` (at `version`, else its latest), resolved as `options` ask.
    pub async fn look_up(
        &self,
        name: &str,
        version: Option<&str>,
        options: &ResolveOptions,
    ) -> Result<Lookup, RegistryError> {
        let (entry, warnings) = self.get(name, version).await?;
        let resolved = resolve(&entry.server, options);
        Ok(Lookup {
            entry,
            resolved,
            warnings,
        })
    }

    /// The entry of `resolved`: as it is, or for an `mcpb` bundle, the one
    /// its manifest gives once the bundle is downloaded into
    /// [`bundle_dir`](super::RegistryOptions::bundle_dir) and verified
    /// ([`fetch_bundle`](Self::fetch_bundle)).
    pub async fn entry_of(&self, resolved: &Resolved) -> Result<ServerEntry, RegistryError> {
        let bundle = match &resolved.entry {
            ResolvedEntry::Ready(entry) => return Ok(entry.clone()),
            ResolvedEntry::Bundle(bundle) => bundle,
        };
        let download = &bundle.download;
        let unpacked = self
            .fetch_bundle(&download.url, &download.sha256, &self.options().bundle_dir)
            .await?;
        super::bundle::manifest_entry(bundle, &unpacked).map_err(|message| RegistryError::Bundle {
            url: url::Url::parse(&download.url)
                .map_or_else(|_| download.url.clone(), |url| shown(&url)),
            message,
        })
    }

    /// Adds the server `lookup` resolved to a config file, in that file's
    /// own format, the rest of the file kept ([`add_server`]). A bundle is
    /// fetched and verified first. `vars` tell which required variables
    /// are not set, and are read by the configs looked at when no file is
    /// named.
    pub async fn add(
        &self,
        lookup: &Lookup,
        options: &AddOptions,
        vars: &(dyn VarSource + Sync),
    ) -> Result<Addition, AddError> {
        let resolved = lookup.resolved.clone()?;
        let entry = self.entry_of(&resolved).await?;
        let path = match &options.to {
            Some(path) => path.clone(),
            None => {
                let cwd = std::env::current_dir().map_err(AddError::CurrentDir)?;
                let home = dirs::home_dir();
                add_target(&cwd, home.as_deref(), vars, &ParseOptions::default())
            }
        };
        let name = options
            .local_name
            .clone()
            .unwrap_or_else(|| resolved.name.clone());
        let added = add_server(&path, &name, &entry, options.replace)?;
        Ok(Addition {
            path,
            name,
            added,
            missing_env: resolved.missing_env(vars),
            choice: resolved.choice,
        })
    }

    /// The servers matching `query`, each resolved (as
    /// [`ResolveOptions::default`] does), its bundle fetched and verified,
    /// and read as a config's server would be, references expanded from
    /// `vars`, relative paths from the current directory. A server that
    /// cannot be resolved, needs variables that are not set, or cannot be
    /// read is left out with a warning; names clashing get `-2`, `-3`….
    pub async fn server_configs(
        &self,
        query: &SearchQuery,
        vars: &(dyn VarSource + Sync),
    ) -> Result<RegistryServers, RegistryError> {
        let found = self.search(query).await?;
        let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let mut read = RegistryServers {
            servers: Vec::new(),
            warnings: found.warnings,
        };
        for entry in &found.entries {
            let server = entry.server.name.clone();
            match self.server_config(entry, &read.servers, &dir, vars).await {
                Ok(config) => read.servers.push(config),
                Err(reason) => read
                    .warnings
                    .push(RegistryWarning::LeftOut { server, reason }),
            }
        }
        if read.servers.is_empty() && read.warnings.is_empty() {
            read.warnings.push(RegistryWarning::NoMatch {
                registry: self.base_url().to_owned(),
                query: query.search.clone().unwrap_or_default(),
            });
        }
        Ok(read)
    }

    /// `entry` as a server named apart from those `taken`.
    async fn server_config(
        &self,
        entry: &RegistryEntry,
        taken: &[ServerConfig],
        dir: &Path,
        vars: &(dyn VarSource + Sync),
    ) -> Result<ServerConfig, LeftOutReason> {
        let resolved = resolve(&entry.server, &ResolveOptions::default())
            .map_err(LeftOutReason::Unresolvable)?;
        let missing = resolved.missing_env(vars);
        if !missing.is_empty() {
            return Err(LeftOutReason::MissingEnv(missing));
        }
        let server_entry = self
            .entry_of(&resolved)
            .await
            .map_err(LeftOutReason::Bundle)?;
        let name = unique_name(&resolved.name, taken);
        let source = PathBuf::from(format!("registry: {}", entry.server.name));
        server_entry
            .to_server(&name, &source, dir, vars)
            .map_err(|error| LeftOutReason::Config(Arc::new(error)))
    }
}

/// `name`, or `name-2`, `name-3`… when a server of `taken` has it.
fn unique_name(name: &str, taken: &[ServerConfig]) -> String {
    let is_taken = |candidate: &str| taken.iter().any(|server| server.name == candidate);
    let mut unique = name.to_owned();
    let mut counter = 2;
    while is_taken(&unique) {
        unique = format!("{name}-{counter}");
        counter += 1;
    }
    unique
}
