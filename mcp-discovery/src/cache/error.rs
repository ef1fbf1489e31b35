//! [`CacheError`]: what can go wrong writing the disk store.

use std::path::PathBuf;

/// Errors of the disk store. Discovery logs them and goes on.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The directory or an entry could not be written.
    #[error("cache {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// An entry could not be serialized.
    #[error("cache entry for '{server}': {source}")]
    Encode {
        /// The server.
        server: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}
