//! [`RegistryOptions`]: which registry, its cache, and where bundles go;
//! [`SearchQuery`]: what a search asks for; [`ResolveOptions`]: how a
//! `server.json` is made a config entry.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The official registry.
pub const DEFAULT_REGISTRY: &str = "https://registry.modelcontextprotocol.io";
/// The environment variable naming another registry.
pub const REGISTRY_URL_ENV: &str = "MCP_REGISTRY_URL";
/// The most pages one search follows, unless [`RegistryOptions::max_pages`] says otherwise.
pub const DEFAULT_MAX_PAGES: usize = 50;

/// How to reach the registry. Built from [`RegistryOptions::default`] (the
/// official registry, cached beside the discovery cache) and the setters
/// below (a new option is then no breaking change).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RegistryOptions {
    /// The registry's base URL.
    pub base_url: String,
    /// Where answers are cached (`None`: not cached).
    pub cache_dir: Option<PathBuf>,
    /// Ask the registry even when a fresh answer is cached.
    pub refresh: bool,
    /// The most pages one search follows.
    pub max_pages: usize,
    /// Where `mcpb` bundles are downloaded and unpacked, each in a folder
    /// named by its SHA-256.
    pub bundle_dir: PathBuf,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_REGISTRY.to_owned(),
            cache_dir: crate::cache::Cache::default_dir().map(|dir| dir.join("registry")),
            refresh: false,
            max_pages: DEFAULT_MAX_PAGES,
            bundle_dir: crate::cache::Cache::default_dir()
                .unwrap_or_else(std::env::temp_dir)
                .join("bundles"),
        }
    }
}

impl RegistryOptions {
    /// The registry at `base_url` (default [`DEFAULT_REGISTRY`]).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// Where answers are cached; `None`: not cached (default: `registry`
    /// in the discovery cache's folder).
    pub fn cache_dir(mut self, dir: impl Into<Option<PathBuf>>) -> Self {
        self.cache_dir = dir.into();
        self
    }

    /// Whether the registry is asked even when a fresh answer is cached.
    pub fn refresh(mut self, refresh: bool) -> Self {
        self.refresh = refresh;
        self
    }

    /// The most pages one search follows (default [`DEFAULT_MAX_PAGES`]).
    pub fn max_pages(mut self, max_pages: usize) -> Self {
        self.max_pages = max_pages;
        self
    }

    /// Where bundles are downloaded and unpacked (default: `bundles` in the
    /// discovery cache's folder, else in the temporary folder).
    pub fn bundle_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.bundle_dir = dir.into();
        self
    }
}

/// What to search for. Built from [`SearchQuery::default`] (every entry)
/// or [`SearchQuery::matching`] and the setters below (a new criterion is
/// then no breaking change).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SearchQuery {
    /// A substring of the server's name.
    pub search: Option<String>,
    /// The most entries wanted.
    pub limit: Option<usize>,
    /// Only each server's latest version (`version=latest`).
    pub latest_only: bool,
    /// Only entries updated since this RFC 3339 time.
    pub updated_since: Option<String>,
    /// Keep deprecated and deleted entries too.
    pub include_inactive: bool,
}

impl SearchQuery {
    /// The servers whose name holds `text`.
    pub fn matching(text: impl Into<String>) -> Self {
        Self::default().search(text)
    }

    /// Only servers whose name holds `text`.
    pub fn search(mut self, text: impl Into<String>) -> Self {
        self.search = Some(text.into());
        self
    }

    /// At most `limit` entries.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Whether only each server's latest version is listed.
    pub fn latest_only(mut self, latest_only: bool) -> Self {
        self.latest_only = latest_only;
        self
    }

    /// Only entries updated since this RFC 3339 time.
    pub fn updated_since(mut self, since: impl Into<String>) -> Self {
        self.updated_since = Some(since.into());
        self
    }

    /// Whether deprecated and deleted entries are kept too.
    pub fn include_inactive(mut self, include_inactive: bool) -> Self {
        self.include_inactive = include_inactive;
        self
    }
}

/// How to resolve a `server.json`. Built from [`ResolveOptions::default`] (the first stdio
/// package of a known type, no values given) and the setters below (a new
/// option is then no breaking change).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ResolveOptions {
    /// Take a remote endpoint when the server has one.
    pub prefer_remote: bool,
    /// Take the package of this registry type (`npm`, `pypi`, …).
    pub registry_type: Option<String>,
    /// Values for `{variables}` and inputs, by name.
    pub values: BTreeMap<String, String>,
}

impl ResolveOptions {
    /// Whether a remote endpoint is taken when the server has one.
    pub fn prefer_remote(mut self, prefer_remote: bool) -> Self {
        self.prefer_remote = prefer_remote;
        self
    }

    /// Takes the package of this registry type (`npm`, `pypi`, …).
    pub fn registry_type(mut self, registry_type: impl Into<Option<String>>) -> Self {
        self.registry_type = registry_type.into();
        self
    }

    /// Values for `{variables}` and inputs, by name (added to those given).
    pub fn values<I, K, V>(mut self, values: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.values
            .extend(values.into_iter().map(|(k, v)| (k.into(), v.into())));
        self
    }
}
