//! [`CacheStore`]: a store of cache entries shared beyond this process and
//! its disk, so many hosts keep one catalog. `RedisStore` (feature `redis`)
//! is the one we ship; a host can bring its own.

use std::fmt;

use async_trait::async_trait;

use super::entry::CacheEntry;
use super::fingerprint::Fingerprint;

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
/// the same form as the files of the disk cache, and each expires at the
/// time its writer gives. Each key has two records, like the disk cache:
/// the last good discovery ([`put`](Self::put)) and the last failure
/// ([`put_failure`](Self::put_failure)), so a failure never replaces a good
/// entry. Every call is bounded in time by the caller.
#[async_trait]
pub trait CacheStore: Send + Sync + fmt::Debug {
    /// The store for messages, without credentials: `redis://cache.internal:6379/0`.
    fn describe(&self) -> String;

    /// The good entry for `key`, if the store has one.
    async fn get(&self, key: &Fingerprint) -> Result<Option<CacheEntry>, StoreError>;

    /// The good entry for `key` and its last failure, each if the store has
    /// one. By default, [`get`](Self::get) and [`get_failure`](Self::get_failure)
    /// one after the other; a store may read both at once.
    async fn get_both(
        &self,
        key: &Fingerprint,
    ) -> Result<(Option<CacheEntry>, Option<CacheEntry>), StoreError> {
        Ok((self.get(key).await?, self.get_failure(key).await?))
    }

    /// Stores the good `entry` under `key` until `expires_at_ms`
    /// (milliseconds since the Unix epoch), and forgets the key's failure;
    /// an entry already expired is not stored.
    async fn put(
        &self,
        key: &Fingerprint,
        entry: &CacheEntry,
        expires_at_ms: u64,
    ) -> Result<(), StoreError>;

    /// The last failure recorded for `key`, if the store keeps failures. By
    /// default it keeps none.
    async fn get_failure(&self, key: &Fingerprint) -> Result<Option<CacheEntry>, StoreError> {
        let _ = key;
        Ok(None)
    }

    /// Records a failed discovery of `key` until `expires_at_ms`, beside
    /// (never in place of) its good entry. By default nothing is recorded.
    async fn put_failure(
        &self,
        key: &Fingerprint,
        entry: &CacheEntry,
        expires_at_ms: u64,
    ) -> Result<(), StoreError> {
        let _ = (key, entry, expires_at_ms);
        Ok(())
    }

    /// Forgets the entry for `key`, and its failure.
    async fn remove(&self, key: &Fingerprint) -> Result<(), StoreError>;
}
