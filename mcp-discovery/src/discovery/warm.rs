//! Cache warming: ask servers ahead of use so hosts start from fresh
//! entries (`mcp-cli warm`, at a host's start-up or from cron).

use serde::Serialize;

use super::options::DiscoveryOptions;
use super::run::discover;
use crate::cache::CacheMode;
use crate::clock::now_ms;
use crate::config::ServerConfig;
use crate::report::DiscoveryReport;

/// Which servers to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WarmMode {
    /// Every enabled server.
    #[default]
    All,
    /// Only servers whose entry is expired or missing.
    IfStale,
}

/// What warming did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WarmStats {
    /// Servers asked.
    pub refreshed: usize,
    /// Of those, how many answered and are cached.
    pub succeeded: usize,
    /// Of those, how many failed (their last known status is cached beside
    /// any last good entry, which is kept).
    pub failed: usize,
    /// Servers left alone because their entry was still fresh (`IfStale`).
    pub fresh: usize,
    /// Servers left alone because they are disabled.
    pub disabled: usize,
    /// Tools, resources, resource templates and prompts now cached, over the servers that succeeded.
    pub items_cached: usize,
}

/// Refreshes the cache entries of `servers` (every enabled one, or only the
/// stale ones) and says what it did. The report has the servers asked.
/// Without a cache in `options` nothing is stored, and warming only checks
/// the servers.
pub async fn warm(
    servers: &[ServerConfig],
    options: &DiscoveryOptions,
    mode: WarmMode,
) -> (WarmStats, DiscoveryReport) {
    let mut stats = WarmStats::default();
    let now = now_ms();
    let mut wanted = Vec::new();
    for server in servers {
        if !server.enabled {
            stats.disabled += 1;
            continue;
        }
        if mode == WarmMode::IfStale
            && let Some(cache) = &options.cache
            && cache
                .lookup_fresh(&options.fingerprint(server), now)
                .await
                .is_some()
        {
            stats.fresh += 1;
            continue;
        }
        wanted.push(server.clone());
    }
    let mut refreshing = options.clone();
    refreshing.cache_mode = CacheMode::Refresh;
    let report = discover(&wanted, &refreshing).await;
    stats.refreshed = report.servers.len();
    for server in &report.servers {
        if server.is_current() {
            stats.succeeded += 1;
            stats.items_cached += server.tools.len()
                + server.resources.len()
                + server.resource_templates.len()
                + server.prompts.len();
        } else {
            stats.failed += 1;
        }
    }
    (stats, report)
}
