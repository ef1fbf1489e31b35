//! Hot reload for `serve`: the config files and folders watched, SIGHUP,
//! and each change applied to a running [`Gateway`](crate::serve::Gateway).
//!
//! - [`ConfigWatch`] watches every config file read (through its parent
//!   folder, so a file replaced by a rename, as editors and atomic writers
//!   do, is still seen) and every `--dir` folder, with `notify` and a
//!   debounce (`notify-debouncer-mini`, [`DEBOUNCE`]; feature `watch`), and
//!   on Unix also takes SIGHUP, with or without `watch`. Which paths concern
//!   the config is the pure [`Watched`].
//! - [`reload_on_change`] reads the config again at each change (on a
//!   blocking thread) and applies it with
//!   [`Gateway::reload`](crate::serve::Gateway::reload). A config that does
//!   not read (half-written, invalid, a file of a folder skipped) changes
//!   nothing: the error is reported and the next valid write applies.

mod reloader;
mod watched;
mod watcher;

pub use reloader::{ConfigLoader, ReloadOutcome, reload_on_change};
pub use watched::Watched;
pub use watcher::{ConfigWatch, DEBOUNCE, Trigger, WatchError};
