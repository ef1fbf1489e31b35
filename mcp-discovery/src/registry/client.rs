//! [`RegistryClient`]: the registry's read API over HTTP, with a cache.
//!
//! * `GET /v0.1/servers` (`search`, `cursor`, `limit`, `version=latest`,
//!   `updated_since`) and `GET /v0.1/servers/{name}/versions/{version}`,
//!   the name percent-encoded as one path segment.
//! * Pages are followed through `metadata.nextCursor` (or `next_cursor`),
//!   at most [`RegistryOptions::max_pages`], and a cursor seen before ends
//!   the listing with a warning.
//! * Entries that are not active are dropped unless asked for; an entry
//!   that does not read as a server is skipped with a warning naming it.
//! * Every answer is cached on disk for [`CACHE_TTL`](super::cache::CACHE_TTL); a registry that is
//!   unreachable or answers 429 or 5xx falls back to a stale answer, with a warning.
//! * Every request has a timeout, every body a size limit, and redirects
//!   are followed only within the registry's origin.

use std::path::PathBuf;
use std::time::Duration;

use hmac_sha256::Hash as Sha256;
use serde_json::Value;

use super::cache::{Cached, ResponseCache};
use super::error::RegistryError;
use super::options::{RegistryOptions, SearchQuery};
use super::types::RegistryEntry;
use super::warning::RegistryWarning;

/// The largest answer read.
const MAX_BODY: usize = 8 * 1024 * 1024;
/// The largest bundle downloaded.
const MAX_BUNDLE: usize = 256 * 1024 * 1024;
/// How long one request may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How long one bundle download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);

/// What a search found.
#[derive(Debug, Clone, Default)]
pub struct SearchResults {
    /// The entries, in the registry's order.
    pub entries: Vec<RegistryEntry>,
    /// Entries skipped, pages cut short, stale answers used.
    pub warnings: Vec<RegistryWarning>,
    /// Whether every page came from the cache.
    pub from_cache: bool,
}

/// A client of one registry.
#[derive(Debug, Clone)]
pub struct RegistryClient {
    http: reqwest::Client,
    base: url::Url,
    options: RegistryOptions,
    cache: Option<ResponseCache>,
}

impl RegistryClient {
    /// A client of the registry `options` name.
    pub fn new(options: RegistryOptions) -> Result<Self, RegistryError> {
        let mut base = url::Url::parse(&options.base_url).map_err(|error| {
            RegistryError::Usage(format!("the registry URL {}: {error}", options.base_url))
        })?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(RegistryError::Usage(format!(
                "the registry URL must be http(s), not {}",
                base.scheme()
            )));
        }
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let origin = base.origin();
        let tls = mcpdisco_transport::http::tls::configure(reqwest::Client::builder())
            .map_err(|error| RegistryError::Usage(format!("TLS: {error}")))?;
        let http = tls
            .redirect(reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() < 5 && attempt.url().origin() == origin {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }))
            .connect_timeout(Duration::from_secs(10))
            .user_agent(concat!("mcp-discovery/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| {
                RegistryError::Usage(format!("the HTTP client: {}", error.without_url()))
            })?;
        let cache = options.cache_dir.clone().map(ResponseCache::new);
        Ok(Self {
            http,
            base,
            options,
            cache,
        })
    }

    /// The registry's base URL.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    /// How it was made.
    pub fn options(&self) -> &RegistryOptions {
        &self.options
    }

    /// Searches the registry, following pages until `query.limit` entries are in.
    pub async fn search(&self, query: &SearchQuery) -> Result<SearchResults, RegistryError> {
        let mut results = SearchResults {
            from_cache: true,
            ..SearchResults::default()
        };
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for page in 0.. {
            if page >= self.options.max_pages {
                results.warnings.push(RegistryWarning::PagesCut {
                    pages: self.options.max_pages,
                });
                break;
            }
            let mut url = self.url(&["v0.1", "servers"]);
            {
                let mut pairs = url.query_pairs_mut();
                if let Some(search) = &query.search {
                    pairs.append_pair("search", search);
                }
                if let Some(cursor) = &cursor {
                    pairs.append_pair("cursor", cursor);
                }
                if let Some(limit) = query.limit {
                    pairs.append_pair("limit", &limit.min(100).to_string());
                }
                if query.latest_only {
                    pairs.append_pair("version", "latest");
                }
                if let Some(since) = &query.updated_since {
                    pairs.append_pair("updated_since", since);
                }
                if query.include_inactive {
                    pairs.append_pair("include_deleted", "true");
                }
            }
            if url.query() == Some("") {
                url.set_query(None);
            }
            let (body, from_cache, warning) = self.get_json(&url).await?;
            results.from_cache &= from_cache;
            results.warnings.extend(warning);
            let servers = body
                .get("servers")
                .and_then(Value::as_array)
                .ok_or_else(|| RegistryError::Malformed {
                    url: shown(&url),
                    message: "no \"servers\" array".into(),
                })?;
            for (index, item) in servers.iter().enumerate() {
                match RegistryEntry::from_response(item) {
                    Ok(entry) if entry.official.is_active() || query.include_inactive => {
                        results.entries.push(entry);
                    }
                    Ok(_) => {}
                    Err(error) => {
                        let name = item
                            .get("server")
                            .and_then(|server| server.get("name"))
                            .and_then(Value::as_str)
                            .map_or_else(
                                || format!("entry {index} of page {}", page + 1),
                                str::to_owned,
                            );
                        results.warnings.push(RegistryWarning::Skipped {
                            entry: name,
                            message: error,
                        });
                    }
                }
            }
            if let Some(limit) = query.limit
                && results.entries.len() >= limit
            {
                results.entries.truncate(limit);
                break;
            }
            let metadata = body.get("metadata");
            let next = metadata
                .and_then(|m| m.get("nextCursor").or_else(|| m.get("next_cursor")))
                .and_then(Value::as_str)
                .filter(|next| !next.is_empty());
            match next {
                None => break,
                Some(next) if !seen.insert(next.to_owned()) => {
                    results.warnings.push(RegistryWarning::RepeatedCursor {
                        cursor: next.to_owned(),
                    });
                    break;
                }
                Some(next) => cursor = Some(next.to_owned()),
            }
        }
        Ok(results)
    }

    /// One server: `version` or the latest.
    pub async fn get(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<(RegistryEntry, Vec<RegistryWarning>), RegistryError> {
        let url = self.url(&[
            "v0.1",
            "servers",
            name,
            "versions",
            version.unwrap_or("latest"),
        ]);
        let (body, _, warning) = self.get_json(&url).await?;
        let entry =
            RegistryEntry::from_response(&body).map_err(|message| RegistryError::Malformed {
                url: shown(&url),
                message,
            })?;
        Ok((entry, warning.into_iter().collect()))
    }

    /// `base` joined with `segments`, each percent-encoded as one segment.
    fn url(&self, segments: &[&str]) -> url::Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }

    /// The JSON at `url`: cached when fresh, else fetched (and cached); a
    /// stale copy when the registry cannot be reached, with a warning.
    async fn get_json(
        &self,
        url: &url::Url,
    ) -> Result<(Value, bool, Option<RegistryWarning>), RegistryError> {
        let key = url.as_str();
        let cached = self.cache.as_ref().and_then(|cache| cache.get(key));
        if let Some(Cached { body, fresh: true }) = &cached
            && !self.options.refresh
        {
            return Ok((body.clone(), true, None));
        }
        match self.fetch(url, MAX_BODY, TIMEOUT).await {
            Ok(bytes) => {
                let body: Value =
                    serde_json::from_slice(&bytes).map_err(|error| RegistryError::Malformed {
                        url: shown(url),
                        message: format!("not JSON: {error}"),
                    })?;
                if let Some(cache) = &self.cache {
                    cache.put(key, &body);
                }
                Ok((body, false, None))
            }
            // No answer, or a registry that is overloaded or failing: an older answer will do.
            Err(
                error @ (RegistryError::Unreachable { .. }
                | RegistryError::Status {
                    status: 429 | 500..=599,
                    ..
                }),
            ) => match cached {
                Some(Cached { body, .. }) => {
                    Ok((body, true, Some(RegistryWarning::Stale { error })))
                }
                None => Err(error),
            },
            Err(error) => Err(error),
        }
    }

    /// The body at `url`, bounded in size and time.
    async fn fetch(
        &self,
        url: &url::Url,
        limit: usize,
        timeout: Duration,
    ) -> Result<Vec<u8>, RegistryError> {
        let exchange = async {
            let mut response = self
                .http
                .get(url.clone())
                .header(reqwest::header::ACCEPT, "application/json")
                .send()
                .await
                .map_err(|error| RegistryError::Unreachable {
                    url: shown(url),
                    message: mcpdisco_transport::http::error_chain(error),
                })?;
            let status = response.status();
            let mut body = Vec::new();
            while let Some(chunk) =
                response
                    .chunk()
                    .await
                    .map_err(|error| RegistryError::Unreachable {
                        url: shown(url),
                        message: mcpdisco_transport::http::error_chain(error),
                    })?
            {
                if body.len() + chunk.len() > limit {
                    return Err(RegistryError::Malformed {
                        url: shown(url),
                        message: format!("the answer exceeds {limit} bytes"),
                    });
                }
                body.extend_from_slice(&chunk);
            }
            if !status.is_success() {
                let text: String = String::from_utf8_lossy(&body)
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(200)
                    .collect();
                return Err(RegistryError::Status {
                    url: shown(url),
                    status: status.as_u16(),
                    body: text,
                });
            }
            Ok(body)
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| RegistryError::Unreachable {
                url: shown(url),
                message: format!("no answer within {} s", timeout.as_secs()),
            })?
    }

    /// Downloads an `mcpb` bundle into `dir`, checks its SHA-256 (a
    /// mismatch is an error and nothing is kept), and unpacks it into
    /// `dir/<sha256>/`. A bundle unpacked before is reused.
    pub async fn fetch_bundle(
        &self,
        url: &str,
        sha256: &str,
        dir: &std::path::Path,
    ) -> Result<PathBuf, RegistryError> {
        let target = dir.join(sha256);
        if target.join("manifest.json").is_file() {
            return Ok(target);
        }
        let parsed = url::Url::parse(url).map_err(|error| RegistryError::Bundle {
            url: url.to_owned(),
            message: format!("not a URL: {error}"),
        })?;
        if !matches!(parsed.scheme(), "https" | "http") {
            return Err(RegistryError::Bundle {
                url: url.to_owned(),
                message: "only http(s) bundles are downloaded".into(),
            });
        }
        let bytes = self.fetch(&parsed, MAX_BUNDLE, DOWNLOAD_TIMEOUT).await?;
        let actual = hex::encode(Sha256::hash(&bytes));
        if actual != sha256 {
            return Err(RegistryError::Bundle {
                url: shown(&parsed),
                message: format!("its SHA-256 is {actual}, not the published {sha256}; refused"),
            });
        }
        let dir = dir.to_owned();
        let unpacked =
            tokio::task::spawn_blocking(move || super::bundle::unpack(&bytes, &dir, &target))
                .await
                .map_err(|error| RegistryError::Bundle {
                    url: url.to_owned(),
                    message: error.to_string(),
                })?;
        unpacked.map_err(|message| RegistryError::Bundle {
            url: shown(&parsed),
            message,
        })
    }
}

/// A URL as shown in messages: without userinfo.
pub(super) fn shown(url: &url::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}
