//! [`CacheStore`]: a store of cache entries shared beyond this process and
//! its disk, so many hosts keep one catalog. [`RedisStore`](super::RedisStore)
//! is the one we ship; a host can bring its own.

use std::fmt;

use async_trait::async_trait;

use super::{CacheEntry, Fingerprint};

/// Why a shared store did not answer. Discovery warns once and goes on with
/// the file cache.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct StoreError {
    /// What went wrong, without credentials.
    pub message: String,
}

impl StoreError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A shared store of entries, keyed by [`Fingerprint`]. Entries are stored in
/// the same form as the files of the disk cache, and each expires when its
/// TTL ends. Every call is bounded in time by the caller.
#[async_trait]
pub trait CacheStore: Send + Sync + fmt::Debug {
    /// The store for messages, without credentials: `redis://cache.internal:6379/0`.
    fn describe(&self) -> String;

    /// The entry for `key`, if the store has one.
    async fn get(&self, key: &Fingerprint) -> Result<Option<CacheEntry>, StoreError>;

    /// Stores `entry` under `key` until `expires_at_ms` (milliseconds since
    /// the Unix epoch); an entry already expired is not stored.
    async fn put(
        &self,
        key: &Fingerprint,
        entry: &CacheEntry,
        expires_at_ms: u64,
    ) -> Result<(), StoreError>;

    /// Forgets the entry for `key`.
    async fn remove(&self, key: &Fingerprint) -> Result<(), StoreError>;
}
