//! [`ConfigWatch`]: the config's folders watched with `notify` (debounced;
//! feature `watch`), and SIGHUP on Unix, as one stream of [`Trigger`]s.

use std::path::PathBuf;
use std::time::Duration;

#[cfg(feature = "watch")]
use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
#[cfg(feature = "watch")]
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
use tokio::sync::mpsc;

use super::watched::Watched;

/// How long the files must be quiet before a change is reported: an editor's
/// save or an atomic replace is several events, reported once.
pub const DEBOUNCE: Duration = Duration::from_millis(300);

/// Why the config should be read again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// A watched path changed (the first one reported).
    Changed(PathBuf),
    /// SIGHUP.
    Hangup,
}

/// Why the config's folders cannot be watched (none in a build without
/// `watch`, which watches no folder).
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The watcher could not start, or a folder could not be watched.
    #[cfg(feature = "watch")]
    #[error("cannot watch {}: {source}", folder.display())]
    Watch {
        /// The folder (empty when the watcher itself failed).
        folder: PathBuf,
        /// The cause.
        #[source]
        source: notify_debouncer_mini::notify::Error,
    },
}

/// The config's files and folders, watched. Dropping it stops the watch.
pub struct ConfigWatch {
    triggers: mpsc::Receiver<Trigger>,
    /// Stops the watcher's thread when dropped.
    #[cfg(feature = "watch")]
    _debouncer: Debouncer<RecommendedWatcher>,
    /// Without `watch`, no folder is watched: kept so the channel stays
    /// open, and SIGHUP alone triggers.
    #[cfg(not(feature = "watch"))]
    _sender: mpsc::Sender<Trigger>,
    #[cfg(unix)]
    hangup: Option<tokio::signal::unix::Signal>,
}

impl std::fmt::Debug for ConfigWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfigWatch").finish_non_exhaustive()
    }
}

impl ConfigWatch {
    /// Watches the folders of `watched` (relative paths from the current
    /// folder), each change debounced by `debounce`; on Unix SIGHUP too.
    /// Without the `watch` feature, SIGHUP alone: `watched` and `debounce`
    /// are not used. Must be called within a tokio runtime.
    pub fn new(watched: &Watched, debounce: Duration) -> Result<Self, WatchError> {
        // One trigger waiting is enough: a reload reads everything.
        let (sender, triggers) = mpsc::channel(1);
        #[cfg(feature = "watch")]
        let debouncer = watch_folders(&absolute(watched), debounce, sender)?;
        #[cfg(not(feature = "watch"))]
        let _ = (watched, debounce);
        Ok(Self {
            triggers,
            #[cfg(feature = "watch")]
            _debouncer: debouncer,
            #[cfg(not(feature = "watch"))]
            _sender: sender,
            #[cfg(unix)]
            hangup: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok(),
        })
    }

    /// The next reason to read the config again; `None` once the watcher
    /// stopped. Without `watch`, only SIGHUP ends the wait.
    pub async fn changed(&mut self) -> Option<Trigger> {
        #[cfg(unix)]
        if let Some(hangup) = self.hangup.as_mut() {
            return tokio::select! {
                trigger = self.triggers.recv() => trigger,
                Some(()) = hangup.recv() => Some(Trigger::Hangup),
            };
        }
        self.triggers.recv().await
    }
}

/// The folders of `watched`, watched: each change that concerns the config
/// sent on `sender` once the files were quiet for `debounce`.
#[cfg(feature = "watch")]
fn watch_folders(
    watched: &Watched,
    debounce: Duration,
    sender: mpsc::Sender<Trigger>,
) -> Result<Debouncer<RecommendedWatcher>, WatchError> {
    let concerns = watched.clone();
    let on_events = move |events: DebounceEventResult| {
        let Ok(events) = events else {
            return;
        };
        if let Some(event) = events.iter().find(|event| concerns.concerns(&event.path)) {
            let _ = sender.try_send(Trigger::Changed(event.path.clone()));
        }
    };
    let mut debouncer = new_debouncer(debounce, on_events).map_err(|source| WatchError::Watch {
        folder: PathBuf::new(),
        source,
    })?;
    for folder in watched.folders() {
        debouncer
            .watcher()
            .watch(&folder, RecursiveMode::NonRecursive)
            .map_err(|source| WatchError::Watch { folder, source })?;
    }
    Ok(debouncer)
}

/// `watched` with relative paths joined to the current folder.
#[cfg(feature = "watch")]
fn absolute(watched: &Watched) -> Watched {
    let cwd = std::env::current_dir().unwrap_or_default();
    let join = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths
            .iter()
            .map(|path| {
                if path.is_absolute() {
                    path.clone()
                } else {
                    cwd.join(path)
                }
            })
            .collect()
    };
    Watched {
        files: join(&watched.files),
        dirs: join(&watched.dirs),
    }
}
