//! [`RedisStore`]: cache entries in Redis, for fleets of hosts sharing one
//! catalog (`--cache redis://HOST:PORT/DB`).
//!
//! * Keys are `<prefix>entry:<fingerprint>` for the last good discovery and
//!   `<prefix>failed:<fingerprint>` for the last failure, so a failure never
//!   replaces a good entry; the prefix is `mcp-discovery:` unless
//!   configured, so many catalogs can share a database.
//! * Values are the bytes of a disk cache file (the same format version).
//! * Expiry is Redis's own (`SET … PX`), at the time the cache gives: a
//!   good entry is kept while it may be served stale.
//! * Storing a good entry forgets the failure in the same transaction.
//! * One multiplexed connection, opened at first use, with a connect
//!   timeout and a response timeout: an unreachable Redis costs one
//!   bounded wait, after which the cache uses its files.

use async_trait::async_trait;
use redis::AsyncCommands;
use std::time::Duration;

use super::entry::CacheEntry;
use super::fingerprint::Fingerprint;
use super::shared::{CacheStore, StoreError};
use super::store;
use crate::clock::now_ms;
use mcpdisco_transport::secret::Masker;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one command may take.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Cache entries in one Redis database.
pub struct RedisStore {
    client: redis::Client,
    shown: String,
    prefix: String,
    masker: Masker,
    connection: tokio::sync::OnceCell<redis::aio::MultiplexedConnection>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("url", &self.shown)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store at `url` (`redis://[user:password@]host:port/db`) under `prefix`.
    /// Nothing is connected until the first command.
    pub fn open(url: &str, prefix: impl Into<String>) -> Result<Self, StoreError> {
        let parsed = url::Url::parse(url)
            .map_err(|error| StoreError::new(format!("the cache URL is not a URL: {error}")))?;
        if parsed.scheme() != "redis" {
            return Err(StoreError::new(format!(
                "the cache URL must start with redis:// (found {}://)",
                parsed.scheme()
            )));
        }
        let mut masker = Masker::builder();
        if let Some(password) = parsed.password() {
            masker.secret(password);
        }
        let mut shown = parsed.clone();
        if parsed.password().is_some() {
            let _ = shown.set_password(Some("***"));
        }
        let shown = shown.to_string();
        let client = redis::Client::open(url).map_err(|error| {
            StoreError::new(format!(
                "{shown}: {}",
                masker.build().mask(&error.to_string())
            ))
        })?;
        Ok(Self {
            client,
            shown,
            prefix: prefix.into(),
            masker: masker.build(),
            connection: tokio::sync::OnceCell::new(),
        })
    }

    fn key(&self, key: &Fingerprint) -> String {
        format!("{}entry:{key}", self.prefix)
    }

    fn failure_key(&self, key: &Fingerprint) -> String {
        format!("{}failed:{key}", self.prefix)
    }

    fn decode(&self, bytes: Option<Vec<u8>>, key: &Fingerprint) -> Option<CacheEntry> {
        bytes.and_then(|bytes| store::decode(&bytes, key, &self.shown))
    }

    async fn set_until(
        &self,
        redis_key: String,
        entry: &CacheEntry,
        expires_at_ms: u64,
        forget: Option<String>,
    ) -> Result<(), StoreError> {
        let left = expires_at_ms.saturating_sub(now_ms());
        if left == 0 {
            return Ok(());
        }
        let bytes = store::encode(entry).map_err(|error| StoreError::new(error.to_string()))?;
        let mut connection = self.connection().await?;
        let options = redis::SetOptions::default().with_expiration(redis::SetExpiry::PX(left));
        let mut pipe = redis::pipe();
        pipe.atomic()
            .set_options(redis_key, bytes, options)
            .ignore();
        if let Some(forget) = forget {
            pipe.del(forget).ignore();
        }
        pipe.query_async::<()>(&mut connection)
            .await
            .map_err(|error| self.error(&error))
    }

    fn error(&self, error: &redis::RedisError) -> StoreError {
        StoreError::new(format!(
            "{}: {}",
            self.shown,
            self.masker.mask(&error.to_string())
        ))
    }

    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, StoreError> {
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT));
        self.connection
            .get_or_try_init(|| async {
                self.client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .map_err(|error| self.error(&error))
            })
            .await
            .cloned()
    }
}

impl RedisStore {
    /// A whole document stored under `<prefix><name>` with no expiry (the
    /// pins, `pins`), if there is one.
    pub async fn get_document(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let mut connection = self.connection().await?;
        connection
            .get(format!("{}{name}", self.prefix))
            .await
            .map_err(|error| self.error(&error))
    }

    /// Stores a whole document under `<prefix><name>`, with no expiry.
    pub async fn put_document(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let mut connection = self.connection().await?;
        connection
            .set::<_, _, ()>(format!("{}{name}", self.prefix), bytes)
            .await
            .map_err(|error| self.error(&error))
    }
}

#[async_trait]
impl CacheStore for RedisStore {
    fn describe(&self) -> String {
        self.shown.clone()
    }

    async fn get(&self, key: &Fingerprint) -> Result<Option<CacheEntry>, StoreError> {
        let mut connection = self.connection().await?;
        let bytes: Option<Vec<u8>> = connection
            .get(self.key(key))
            .await
            .map_err(|error| self.error(&error))?;
        Ok(self.decode(bytes, key))
    }

    async fn get_failure(&self, key: &Fingerprint) -> Result<Option<CacheEntry>, StoreError> {
        let mut connection = self.connection().await?;
        let bytes: Option<Vec<u8>> = connection
            .get(self.failure_key(key))
            .await
            .map_err(|error| self.error(&error))?;
        Ok(self.decode(bytes, key))
    }

    async fn get_both(
        &self,
        key: &Fingerprint,
    ) -> Result<(Option<CacheEntry>, Option<CacheEntry>), StoreError> {
        let mut connection = self.connection().await?;
        let (good, failure): (Option<Vec<u8>>, Option<Vec<u8>>) = connection
            .mget(&[self.key(key), self.failure_key(key)])
            .await
            .map_err(|error| self.error(&error))?;
        Ok((self.decode(good, key), self.decode(failure, key)))
    }

    async fn put(
        &self,
        key: &Fingerprint,
        entry: &CacheEntry,
        expires_at_ms: u64,
    ) -> Result<(), StoreError> {
        self.set_until(
            self.key(key),
            entry,
            expires_at_ms,
            Some(self.failure_key(key)),
        )
        .await
    }

    async fn put_failure(
        &self,
        key: &Fingerprint,
        entry: &CacheEntry,
        expires_at_ms: u64,
    ) -> Result<(), StoreError> {
        self.set_until(self.failure_key(key), entry, expires_at_ms, None)
            .await
    }

    async fn remove(&self, key: &Fingerprint) -> Result<(), StoreError> {
        let mut connection = self.connection().await?;
        connection
            .del::<_, ()>(&[self.key(key), self.failure_key(key)])
            .await
            .map_err(|error| self.error(&error))
    }
}
