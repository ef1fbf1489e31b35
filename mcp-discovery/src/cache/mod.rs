//! The discovery cache: what each server offered, in memory and on disk,
//! keyed by a [`Fingerprint`] of its launch configuration.
//!
//! * One JSON file per server under the cache directory (by default
//!   `~/.cache/mcp-discovery/` or the OS equivalent; `MCP_DISCOVERY_CACHE_DIR`
//!   overrides it).
//! * Writes go to a temporary file in the same directory and are renamed into
//!   place, so a reader (another `mcp-cli`, say) sees the old entry or the new
//!   one, never half of one. Two writers at once leave one whole entry.
//! * A corrupt or unreadable entry is a miss, logged, and rewritten by the next
//!   store: never fatal.
//! * An entry is fresh for its TTL: 24 hours by default, or the server's own
//!   modern `ttlMs` when it gives a positive one. A `list_changed`
//!   notification invalidates it ([`Cache::invalidate`]).
//! * A failure never replaces a good entry. Each key has two records: the
//!   last good discovery and the last failure, each written on its own
//!   (another file; another Redis key), so processes refreshing one cache
//!   at once leave a good entry for every server that succeeded in any of
//!   them. Read back, a good entry with a newer failure is the last good
//!   catalog marked stale, the failure beside it
//!   ([`ServerReport::stale`]); discovery serves it until a refresh
//!   succeeds or it is older than the server's maximum stale age
//!   ([`DEFAULT_STALE_MAX_AGE`]).
//! * The directory is created `0700` and files `0600`: they may describe
//!   servers whose configuration carries credentials (the key includes them,
//!   so a `cacheScope: "private"` result is never served to other
//!   credentials). A directory that exists but is writable by group or
//!   others, or belongs to another user, is not used: the cache stays in
//!   memory and [`Cache::warning`] says why.
//! * What is stored was masked before it got here (discovery reports carry
//!   no secret value, error texts included).
//! * A shared store ([`CacheStore`], such as `RedisStore` with the `redis`
//!   feature) may stand in
//!   front of the disk, so many hosts share one catalog: discovery asks it
//!   first and stores into both. A store that fails or does not answer
//!   within [`SHARED_LIMIT`] is passed over, with one warning
//!   ([`Cache::shared_warning`]), for [`SHARED_RETRY`]; the files serve
//!   meanwhile, so no run fails because the shared store is down.
//! * Each key's record has a generation, checked just before the rename, so
//!   a slow write never brings back an entry invalidated meanwhile.

mod entry;
mod error;
mod fingerprint;
#[cfg(feature = "redis")]
mod redis_store;
mod shared;
mod store;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::time::Duration;

use mcpdisco_transport::sync::{Mutex, MutexGuard};

pub use entry::{CacheEntry, DEFAULT_TTL, ttl_for};
pub use error::CacheError;
pub use fingerprint::Fingerprint;
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use shared::{CacheStore, StoreError};

use crate::clock::millis;
use crate::report::{ServerReport, ServerStatus};
use store::Record;

/// The key prefix of a shared store when none is configured.
pub const DEFAULT_PREFIX: &str = "mcp-discovery:";

/// How long the last good catalog may be served after refreshing it failed.
pub const DEFAULT_STALE_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// How long one call to the shared store may take.
pub const SHARED_LIMIT: Duration = Duration::from_secs(3);
/// How long a shared store that failed is passed over before it is asked again.
pub const SHARED_RETRY: Duration = Duration::from_secs(30);

/// The environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "MCP_DISCOVERY_CACHE_DIR";

/// How discovery uses the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// Serve fresh entries; ask servers for the rest and store the answers.
    #[default]
    Use,
    /// Ask every server and store the answers (`--refresh`).
    Refresh,
    /// Neither read nor write (`--no-cache`).
    Off,
}

/// What a key's two records read as together: the good entry, marked stale
/// when a failure came after it; else the failure (the last known status).
fn combine(good: Option<CacheEntry>, failure: Option<CacheEntry>) -> Option<CacheEntry> {
    match (good, failure) {
        (Some(mut good), Some(failure))
            if good.report.status == ServerStatus::Ready
                && failure.fetched_at_ms >= good.fetched_at_ms =>
        {
            if let Some(error) = failure.report.error {
                good.report = good.report.into_stale(error);
            }
            Some(good)
        }
        (Some(good), _) => Some(good),
        (None, failure) => failure,
    }
}

/// The cache: an in-memory map in front of an optional directory. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Cache {
    inner: Arc<Inner>,
}

/// How many entries are written to disk at once: enough to overlap with
/// discovery, few enough that 50 servers finishing together do not start 50
/// blocking threads.
const DISK_WRITERS: usize = 2;

#[derive(Debug)]
struct Inner {
    dir: Option<PathBuf>,
    /// Why the configured directory is not used, if it is not.
    warning: Option<String>,
    memory: Mutex<HashMap<Fingerprint, CacheEntry>>,
    /// Per key, how many times it was stored or invalidated. A disk write
    /// renames its file into place only if no later store or invalidation
    /// came in the meantime (checked under this lock, which `invalidate`
    /// also holds while it removes the file), so a slow write can neither
    /// bring back an invalidated entry nor overwrite a newer one.
    generations: Mutex<HashMap<(Fingerprint, Record), u64>>,
    writers: Arc<tokio::sync::Semaphore>,
    /// The shared store asked before the disk, if any.
    shared: Option<Arc<dyn CacheStore>>,
    /// Until when the shared store is passed over after a failure.
    shared_down_until: Mutex<Option<std::time::Instant>>,
    /// The first failure of the shared store, said in words.
    shared_warning: std::sync::OnceLock<String>,
}

impl Inner {
    /// A new generation for `record` of `key`: pending writes of older ones will not land.
    fn next_generation(&self, key: &Fingerprint, record: Record) -> u64 {
        let mut generations = self.generations.lock();
        let generation = generations.entry((key.clone(), record)).or_insert(0);
        *generation += 1;
        *generation
    }

    /// Writes `entry` to disk as its record if `generation` is still the
    /// newest for it. A good entry then removes the failure record it
    /// supersedes.
    fn write_if_current(
        &self,
        dir: &Path,
        key: &Fingerprint,
        entry: &CacheEntry,
        generation: u64,
    ) -> Result<(), CacheError> {
        let record = Record::of(entry);
        let prepared = store::prepare(dir, key, record, entry)?;
        let generations = self.generations.lock();
        if generations.get(&(key.clone(), record)) != Some(&generation) {
            // Superseded: the temporary file is removed when dropped.
            return Ok(());
        }
        store::commit(prepared)?;
        if record == Record::Good
            && store::read(dir, key, Record::Failure)
                .is_some_and(|failure| failure.fetched_at_ms <= entry.fetched_at_ms)
        {
            store::remove(dir, key, Record::Failure);
        }
        Ok(())
    }
}

impl Cache {
    /// A cache stored under `dir` (created on the first store).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self::with_dir(Some(dir.into()))
    }

    /// A cache in memory only.
    pub fn in_memory() -> Self {
        Self::with_dir(None)
    }

    /// The cache under [`default_dir`](Self::default_dir), or in memory only when there is none.
    pub fn open_default() -> Self {
        Self::with_dir(Self::default_dir())
    }

    /// A cache under `dir` (or in memory only) with `shared` asked first and
    /// written too: `RedisStore` (feature `redis`) for a fleet's shared catalog.
    pub fn with_shared(dir: Option<PathBuf>, shared: Arc<dyn CacheStore>) -> Self {
        Self::build(dir, Some(shared))
    }

    fn with_dir(dir: Option<PathBuf>) -> Self {
        Self::build(dir, None)
    }

    fn build(dir: Option<PathBuf>, shared: Option<Arc<dyn CacheStore>>) -> Self {
        let warning = dir.as_deref().and_then(store::unsafe_dir).map(|reason| {
            format!("not using the cache directory: {reason}; the cache is kept in memory only")
        });
        let dir = if warning.is_some() { None } else { dir };
        Self {
            inner: Arc::new(Inner {
                dir,
                warning,
                memory: Mutex::new(HashMap::new()),
                generations: Mutex::new(HashMap::new()),
                writers: Arc::new(tokio::sync::Semaphore::new(DISK_WRITERS)),
                shared,
                shared_down_until: Mutex::new(None),
                shared_warning: std::sync::OnceLock::new(),
            }),
        }
    }

    /// `$MCP_DISCOVERY_CACHE_DIR`, else `mcp-discovery` under the user's cache directory.
    pub fn default_dir() -> Option<PathBuf> {
        match std::env::var_os(CACHE_DIR_ENV) {
            Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
            _ => dirs::cache_dir().map(|dir| dir.join("mcp-discovery")),
        }
    }

    /// The directory, when the cache has one.
    pub fn dir(&self) -> Option<&Path> {
        self.inner.dir.as_deref()
    }

    /// Why the directory asked for is not used (it is writable by group or
    /// others, or belongs to another user), if it is not.
    pub fn warning(&self) -> Option<&str> {
        self.inner.warning.as_deref()
    }

    /// The shared store, if there is one.
    pub fn shared(&self) -> Option<&dyn CacheStore> {
        self.inner.shared.as_deref()
    }

    /// Why the shared store was passed over (it failed or did not answer), once it was.
    pub fn shared_warning(&self) -> Option<&str> {
        self.inner.shared_warning.get().map(String::as_str)
    }

    /// Runs one call to the shared store, bounded by [`SHARED_LIMIT`]; a
    /// failure passes the store over for [`SHARED_RETRY`]. `None` when there
    /// is no store, it is passed over, or it failed.
    async fn ask_shared<'a, T, F>(&'a self, call: impl FnOnce(&'a dyn CacheStore) -> F) -> Option<T>
    where
        F: std::future::Future<Output = Result<T, StoreError>> + 'a,
    {
        let store = self.inner.shared.as_deref()?;
        let down_until = *self.inner.shared_down_until.lock();
        if down_until.is_some_and(|until| std::time::Instant::now() < until) {
            return None;
        }
        let failure = match tokio::time::timeout(SHARED_LIMIT, call(store)).await {
            Ok(Ok(value)) => return Some(value),
            Ok(Err(error)) => error.message,
            Err(_) => format!(
                "{}: no answer within {} s",
                store.describe(),
                SHARED_LIMIT.as_secs()
            ),
        };
        *self.inner.shared_down_until.lock() = Some(std::time::Instant::now() + SHARED_RETRY);
        let warning = format!("shared cache unavailable ({failure}); using the file cache");
        if self.inner.shared_warning.set(warning.clone()).is_ok() {
            tracing::warn!("{warning}");
        } else {
            tracing::debug!("{warning}");
        }
        None
    }

    /// The entry for `key` if it is fresh at `now_ms`: from memory, else the
    /// shared store, else the disk. A fresh entry may be marked stale (a
    /// refresh failed since): it is served all the same.
    pub async fn lookup_fresh(&self, key: &Fingerprint, now_ms: u64) -> Option<CacheEntry> {
        if let Some(entry) = self.memory().get(key).filter(|e| e.is_fresh(now_ms)) {
            return Some(entry.clone());
        }
        if let Some(entry) = self
            .shared_entry(key)
            .await
            .filter(|entry| entry.is_fresh(now_ms))
        {
            self.memory().insert(key.clone(), entry.clone());
            return Some(entry);
        }
        self.get_fresh(key, now_ms)
    }

    /// The entry for `key`, fresh or not: the shared store's, else the local one.
    pub async fn lookup(&self, key: &Fingerprint) -> Option<CacheEntry> {
        match self.shared_entry(key).await {
            Some(entry) => Some(entry),
            None => self.get(key),
        }
    }

    /// The shared store's two records of `key`, read as one.
    async fn shared_entry(&self, key: &Fingerprint) -> Option<CacheEntry> {
        let (good, failure) = self.ask_shared(|store| store.get_both(key)).await?;
        combine(good, failure)
    }

    /// The entry for `key`, fresh or not; `None` when there is none or it cannot be read.
    pub fn get(&self, key: &Fingerprint) -> Option<CacheEntry> {
        if let Some(entry) = self.memory().get(key) {
            return Some(entry.clone());
        }
        let dir = self.inner.dir.as_deref()?;
        let entry = combine(
            store::read(dir, key, Record::Good),
            store::read(dir, key, Record::Failure),
        )?;
        self.memory().insert(key.clone(), entry.clone());
        Some(entry)
    }

    /// The entry for `key` if it is fresh at `now_ms`.
    pub fn get_fresh(&self, key: &Fingerprint, now_ms: u64) -> Option<CacheEntry> {
        self.get(key).filter(|entry| entry.is_fresh(now_ms))
    }

    /// Keeps `entry` in memory: a good one as it is; a failure beside the
    /// good entry already there, which it marks stale.
    fn remember(&self, key: &Fingerprint, entry: &CacheEntry) {
        let merged = match Record::of(entry) {
            Record::Good => entry.clone(),
            Record::Failure => {
                // The good entry this one goes beside: in memory, else on disk.
                let good = self.get(key).filter(|e| Record::of(e) == Record::Good);
                combine(good, Some(entry.clone())).unwrap_or_else(|| entry.clone())
            }
        };
        self.memory().insert(key.clone(), merged);
    }

    /// Stores an entry (memory at once, then disk atomically). A failure
    /// never replaces a good entry: it is kept beside it.
    pub fn put(&self, key: &Fingerprint, entry: CacheEntry) -> Result<(), CacheError> {
        self.remember(key, &entry);
        let generation = self.inner.next_generation(key, Record::of(&entry));
        match self.inner.dir.as_deref() {
            Some(dir) => self.inner.write_if_current(dir, key, &entry, generation),
            None => Ok(()),
        }
    }

    /// Stores what discovery found for `key`: in memory at once, then on disk
    /// from a blocking thread, so a slow disk never stalls other servers' I/O.
    /// A failure is kept beside the last good entry, never in its place.
    /// A good entry is kept in a shared store for [`DEFAULT_STALE_MAX_AGE`]
    /// past its TTL, so it can be served stale.
    pub async fn store(&self, key: &Fingerprint, report: &ServerReport) -> Result<(), CacheError> {
        self.store_retained(key, report, DEFAULT_STALE_MAX_AGE)
            .await
    }

    /// Like [`store`](Self::store), keeping a good entry in a shared store
    /// for `stale_max_age` past its fetch (or its TTL, when longer).
    pub async fn store_retained(
        &self,
        key: &Fingerprint,
        report: &ServerReport,
        stale_max_age: Duration,
    ) -> Result<(), CacheError> {
        let entry = CacheEntry::of(key, report);
        let record = Record::of(&entry);
        self.remember(key, &entry);
        let generation = self.inner.next_generation(key, record);
        match record {
            Record::Good => {
                let keep = entry.ttl_ms.max(millis(stale_max_age));
                let expires_at_ms = entry.fetched_at_ms.saturating_add(keep);
                self.ask_shared(|store| store.put(key, &entry, expires_at_ms))
                    .await;
            }
            Record::Failure => {
                let expires_at_ms = entry.fetched_at_ms.saturating_add(entry.ttl_ms);
                self.ask_shared(|store| store.put_failure(key, &entry, expires_at_ms))
                    .await;
            }
        }
        let Some(dir) = self.inner.dir.clone() else {
            return Ok(());
        };
        let key = key.clone();
        let path = dir.clone();
        // The semaphore is never closed, so acquiring only waits. The permit
        // goes with the write: if this future is dropped, the write it
        // started still counts against the limit until it ends.
        let writer = Arc::clone(&self.inner.writers).acquire_owned().await.ok();
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            let _writer = writer;
            inner.write_if_current(&dir, &key, &entry, generation)
        })
        .await
        .unwrap_or_else(|join| {
            Err(CacheError::Io {
                path,
                source: std::io::Error::other(format!("the cache writer stopped: {join}")),
            })
        })
    }

    /// Forgets the entry for `key` (a `list_changed` arrived, say): both records.
    pub fn invalidate(&self, key: &Fingerprint) {
        self.memory().remove(key);
        // One critical section: no pending write can land between the new
        // generation and the removal.
        let mut generations = self.inner.generations.lock();
        for record in [Record::Good, Record::Failure] {
            *generations.entry((key.clone(), record)).or_insert(0) += 1;
            if let Some(dir) = self.inner.dir.as_deref() {
                store::remove(dir, key, record);
            }
        }
        drop(generations);
        if self.inner.shared.is_some()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let cache = self.clone();
            let key = key.clone();
            runtime.spawn(async move {
                cache.ask_shared(|store| store.remove(&key)).await;
            });
        }
    }

    fn memory(&self) -> MutexGuard<'_, HashMap<Fingerprint, CacheEntry>> {
        self.inner.memory.lock()
    }
}

#[cfg(test)]
mod tests;
