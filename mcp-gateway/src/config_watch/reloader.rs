//! [`reload_on_change`]: each change of the config read again and applied
//! to a running gateway, or refused as a whole.

use std::sync::Arc;

use mcpdisco::config::LoadedConfig;

use super::watcher::{ConfigWatch, Trigger};
use crate::serve::Gateway;
use crate::supervisor::ReloadSummary;

/// Reads the config again, as it was first read (the same paths, so a
/// swapped symlink is followed anew). `Err` says why it cannot be used,
/// naming the file; it runs on a blocking thread.
pub type ConfigLoader = Arc<dyn Fn() -> Result<LoadedConfig, String> + Send + Sync>;

/// What came of one change.
#[derive(Debug)]
pub enum ReloadOutcome {
    /// The config was read and applied.
    Applied {
        /// Why it was read.
        trigger: Trigger,
        /// What happened to each server.
        summary: ReloadSummary,
        /// The config's warnings.
        warnings: Vec<String>,
    },
    /// The config could not be read: nothing changed.
    Refused {
        /// Why it was read.
        trigger: Trigger,
        /// Why it could not be used.
        error: String,
    },
}

/// Until `watch` stops: at each change, reads the config with `load` and
/// applies it to `gateway` (servers and profiles), telling `report` what
/// came of it. A config that cannot be read changes nothing.
pub async fn reload_on_change(
    gateway: Gateway,
    mut watch: ConfigWatch,
    load: ConfigLoader,
    report: impl Fn(ReloadOutcome) + Send,
) {
    while let Some(trigger) = watch.changed().await {
        let load = Arc::clone(&load);
        let loaded = match tokio::task::spawn_blocking(move || load()).await {
            Ok(loaded) => loaded,
            Err(error) => Err(format!("reading the config failed: {error}")),
        };
        match loaded {
            Ok(loaded) => {
                let summary = gateway.reload(loaded.servers, loaded.profiles).await;
                report(ReloadOutcome::Applied {
                    trigger,
                    summary,
                    warnings: loaded.warnings,
                });
            }
            Err(error) => report(ReloadOutcome::Refused { trigger, error }),
        }
    }
}
