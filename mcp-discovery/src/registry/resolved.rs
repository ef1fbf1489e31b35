//! What a resolution gives: [`Resolved`], the config entry (or the bundle
//! to fetch for it), what was chosen, and the variables it needs; and
//! [`ResolveError`], why a `server.json` cannot be resolved.

use std::fmt;

use mcpdisco_transport::secret::redact_url;

use crate::config::{ServerEntry, VarSource};

/// A server resolved into our config.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// A local name for it: the last part of its registry name.
    pub name: String,
    /// The config entry, or the bundle to fetch for it.
    pub entry: ResolvedEntry,
    /// What was chosen.
    pub choice: Choice,
    /// Environment variables that must be set (referenced as `${env:NAME}`).
    pub required_env: Vec<String>,
    /// Of all the variables named, those holding secrets.
    pub secret_env: Vec<String>,
}

impl Resolved {
    /// The required variables `vars` does not have.
    pub fn missing_env(&self, vars: &dyn VarSource) -> Vec<RequiredEnv> {
        self.required_env
            .iter()
            .filter(|name| vars.var(name).is_none())
            .map(|name| RequiredEnv {
                name: name.clone(),
                secret: self.secret_env.contains(name),
            })
            .collect()
    }

    /// The required variables, each said secret or not.
    pub fn required(&self) -> Vec<RequiredEnv> {
        self.required_env
            .iter()
            .map(|name| RequiredEnv {
                name: name.clone(),
                secret: self.secret_env.contains(name),
            })
            .collect()
    }
}

/// An environment variable a resolved entry refers to (`${env:NAME}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredEnv {
    /// Its name.
    pub name: String,
    /// Whether it holds a secret.
    pub secret: bool,
}

impl fmt::Display for RequiredEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if self.secret {
            f.write_str(" (secret)")?;
        }
        Ok(())
    }
}

/// The entry a resolution gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedEntry {
    /// Ready to write into a config or to run.
    Ready(ServerEntry),
    /// An `mcpb` bundle, whose command its manifest gives once it is
    /// downloaded and verified ([`RegistryClient::entry_of`](super::RegistryClient::entry_of)).
    Bundle(PendingBundle),
}

impl ResolvedEntry {
    /// The entry, when no bundle must be fetched first.
    pub fn ready(&self) -> Option<&ServerEntry> {
        match self {
            Self::Ready(entry) => Some(entry),
            Self::Bundle(_) => None,
        }
    }
}

/// An `mcpb` bundle still to fetch, and what its entry will hold besides
/// what its manifest says.
#[derive(Clone, PartialEq, Eq)]
pub struct PendingBundle {
    /// Where it is, and the hash it must have.
    pub download: McpbDownload,
    /// The environment the registry asks for, in order (references as written).
    pub env: Vec<(String, String)>,
    /// The server's description.
    pub description: Option<String>,
}

impl fmt::Debug for PendingBundle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingBundle")
            .field("download", &self.download)
            // A value given for a secret input may be among them: only the names.
            .field(
                "env",
                &self.env.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            )
            .field("description", &self.description)
            .finish()
    }
}

/// A bundle to download and check before it can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpbDownload {
    /// Where it is.
    pub url: String,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
}

/// What was chosen to run or reach the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A package: its registry type, identifier and version.
    Package {
        /// `npm`, `pypi`, …
        registry_type: String,
        /// The package.
        identifier: String,
        /// Its version, if given.
        version: Option<String>,
    },
    /// A remote endpoint.
    Remote {
        /// The URL, variables filled in.
        url: String,
    },
}

/// `npm @acme/files 1.2.0`, or `remote https://host/mcp` with any
/// credential in the URL masked.
impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Package {
                registry_type,
                identifier,
                version: Some(version),
            } => write!(f, "{registry_type} {identifier} {version}"),
            Self::Package {
                registry_type,
                identifier,
                version: None,
            } => write!(f, "{registry_type} {identifier}"),
            Self::Remote { url } => write!(f, "remote {}", redact_url(url)),
        }
    }
}

/// Why a `server.json` cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// Its packages are all of types we do not know how to run.
    #[error("{server}: unknown registry type(s) {}: not guessed; known: npm, pypi, oci, nuget, mcpb", .types.join(", "))]
    UnknownRegistryType {
        /// The server.
        server: String,
        /// The types.
        types: Vec<String>,
    },
    /// No package of the asked type.
    #[error("{server}: no package of type '{wanted}' (it has: {})", .have.join(", "))]
    NoSuchPackage {
        /// The server.
        server: String,
        /// The type asked for.
        wanted: String,
        /// The types it has.
        have: Vec<String>,
    },
    /// Neither a package nor a remote.
    #[error("{0}: neither a package nor a remote to run or reach")]
    Nothing(String),
    /// An `mcpb` package without `fileSha256`.
    #[error("{0}: the mcpb bundle has no fileSha256; it is not downloaded unverified")]
    UnverifiedBundle(String),
    /// A package that serves HTTP itself once started.
    #[error(
        "{server}: the {registry_type} package serves {transport} once started; start it yourself and add its URL"
    )]
    LocalHttp {
        /// The server.
        server: String,
        /// Its registry type.
        registry_type: String,
        /// Its transport.
        transport: String,
    },
    /// A URL variable without a value.
    #[error("{server}: the URL variable '{variable}' has no value; give it (--var {variable}=…)")]
    MissingVariable {
        /// The server.
        server: String,
        /// The variable.
        variable: String,
    },
    /// A transport type we do not know.
    #[error("{server}: unknown transport '{transport}'")]
    UnknownTransport {
        /// The server.
        server: String,
        /// The transport.
        transport: String,
    },
}
