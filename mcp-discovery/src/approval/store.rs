//! [`PinStore`]: where the pins live. The lock file (`mcp-lock.json`
//! beside the first config, unless the host names another) and, for a
//! fleet, a shared copy in the Redis cache, which is read first and written
//! too. A shared copy that cannot be opened, fails, or does not answer in
//! time is passed over with a [`Warning`]: the lock file holds the pins as
//! well.

use std::io;
use std::path::{Path, PathBuf};

use mcpdisco_capability::pins::{PinFile, PinFileError};
use mcpdisco_transport::fs::write_atomically;

use super::pins::{ServerChecks, checks};
use super::warning::{SharedPinsFailure, Warning};
use crate::config::{LoadedConfig, ServerConfig};
use crate::report::DiscoveryReport;

pub use mcpdisco_capability::pins::LOCK_FILE;

/// Why the pins could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PinStoreError {
    /// The lock file could not be read or written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done (`cannot read`, `cannot write`).
        what: &'static str,
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The pins' text is not a lock file.
    #[error(transparent)]
    Format(#[from] PinFileError),
}

/// The key of the pins in a shared Redis cache (after its prefix).
#[cfg(feature = "redis")]
const SHARED_PINS: &str = "pins";
/// How long the shared pins may take to read or write.
#[cfg(feature = "redis")]
const SHARED_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The fleet's copy of the pins.
#[derive(Debug)]
enum Shared {
    /// None: the lock file alone.
    None,
    /// In this Redis store, as `<prefix>pins`.
    #[cfg(feature = "redis")]
    Redis(Box<crate::cache::RedisStore>),
    /// Asked for, and not usable: said at every read and write.
    Unopened(crate::cache::StoreError),
}

/// Where the pins live: the lock file, and with a shared store the fleet's
/// copy, which is read first and written too.
#[derive(Debug)]
pub struct PinStore {
    lock: PathBuf,
    shared: Shared,
}

/// What a host's pins say about what its servers offer now.
#[derive(Debug, Clone)]
pub struct Verification {
    /// The checks of every ready server that has pins.
    pub servers: Vec<ServerChecks>,
    /// What was passed over reading the pins.
    pub warnings: Vec<Warning>,
}

impl Verification {
    /// Whether anything pinned changed or vanished, or a server with pins
    /// offers something nobody approved (a rename is a removal and a new item).
    pub fn violated(&self) -> bool {
        self.servers
            .iter()
            .any(|server| server.not_as_approved().next().is_some())
    }
}

impl PinStore {
    /// Pins in the lock file at `lock` only.
    pub fn new(lock: impl Into<PathBuf>) -> Self {
        Self {
            lock: lock.into(),
            shared: Shared::None,
        }
    }

    /// The same, with the fleet's shared copy in `shared` (under its
    /// prefix, as `pins`).
    #[cfg(feature = "redis")]
    pub fn with_shared(mut self, shared: crate::cache::RedisStore) -> Self {
        self.shared = Shared::Redis(Box::new(shared));
        self
    }

    /// The same, with the fleet's shared copy in the Redis cache at `url`
    /// (`redis://…`) under `prefix`. A URL that cannot be opened (or a
    /// build without the `redis` feature) leaves the lock file alone, and
    /// every read and write says so in its warnings.
    pub fn with_shared_url(mut self, url: &str, prefix: impl Into<String>) -> Self {
        #[cfg(feature = "redis")]
        let shared = match crate::cache::RedisStore::open(url, prefix) {
            Ok(store) => Shared::Redis(Box::new(store)),
            Err(error) => Shared::Unopened(error),
        };
        #[cfg(not(feature = "redis"))]
        let shared = {
            let _ = (url, prefix.into());
            Shared::Unopened(crate::cache::StoreError::new(
                "this build has no Redis client (the `redis` feature)",
            ))
        };
        self.shared = shared;
        self
    }

    /// The lock file beside `config` (`<dir>/mcp-lock.json`).
    pub fn path_beside(config: &Path) -> PathBuf {
        config.parent().unwrap_or(Path::new(".")).join(LOCK_FILE)
    }

    /// The lock file of `loaded`: beside the first config read, else
    /// `mcp-lock.json` in the current directory.
    pub fn path_for(loaded: &LoadedConfig) -> PathBuf {
        loaded.files.first().map_or_else(
            || PathBuf::from(LOCK_FILE),
            |config| Self::path_beside(config),
        )
    }

    /// The lock file.
    pub fn lock(&self) -> &Path {
        &self.lock
    }

    /// The pins, and a warning for each place passed over: the shared copy
    /// when there is one and it holds pins, else the lock file (a missing
    /// one is no pins).
    pub async fn load(&self) -> Result<(PinFile, Vec<Warning>), PinStoreError> {
        let mut warnings = Vec::new();
        let pins = self.load_into(&mut warnings).await?;
        Ok((pins, warnings))
    }

    /// [`load`](Self::load), its warnings added to `warnings` (kept when
    /// the lock file then fails).
    pub(crate) async fn load_into(
        &self,
        warnings: &mut Vec<Warning>,
    ) -> Result<PinFile, PinStoreError> {
        let unread = |failure| Warning::SharedPinsUnread {
            failure,
            lock: self.lock.clone(),
        };
        match &self.shared {
            Shared::None => {}
            Shared::Unopened(error) => {
                warnings.push(unread(SharedPinsFailure::Unopened(error.clone())));
            }
            #[cfg(feature = "redis")]
            Shared::Redis(store) => {
                use crate::cache::CacheStore as _;
                match tokio::time::timeout(SHARED_LIMIT, store.get_document(SHARED_PINS)).await {
                    Ok(Ok(Some(bytes))) => {
                        let place = format!("{} pins", store.describe());
                        return Ok(PinFile::from_bytes(&bytes, &place)?);
                    }
                    Ok(Ok(None)) => {}
                    Ok(Err(error)) => warnings.push(unread(SharedPinsFailure::Failed(error))),
                    Err(_) => warnings.push(unread(SharedPinsFailure::NoAnswer {
                        store: store.describe(),
                        after: SHARED_LIMIT,
                    })),
                }
            }
        }
        self.load_lock_file()
    }

    /// Writes the pins to the lock file (atomically) and to the shared copy
    /// when there is one; a warning for the shared copy if it was not
    /// updated (the lock file has them).
    pub async fn save(&self, pins: &PinFile) -> Result<Vec<Warning>, PinStoreError> {
        let mut warnings = Vec::new();
        self.save_into(pins, &mut warnings).await?;
        Ok(warnings)
    }

    /// [`save`](Self::save), its warnings added to `warnings`.
    pub(crate) async fn save_into(
        &self,
        pins: &PinFile,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), PinStoreError> {
        let text = pins.to_bytes();
        let io_error = |source| PinStoreError::Io {
            what: "cannot write",
            path: self.lock.clone(),
            source,
        };
        if let Some(dir) = self.lock.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_error)?;
        }
        write_atomically(&self.lock, &text).map_err(io_error)?;
        let not_updated = |failure| Warning::SharedPinsNotUpdated {
            failure,
            lock: self.lock.clone(),
        };
        match &self.shared {
            Shared::None => {}
            Shared::Unopened(error) => {
                warnings.push(not_updated(SharedPinsFailure::Unopened(error.clone())));
            }
            #[cfg(feature = "redis")]
            Shared::Redis(store) => {
                use crate::cache::CacheStore as _;
                match tokio::time::timeout(SHARED_LIMIT, store.put_document(SHARED_PINS, &text))
                    .await
                {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => warnings.push(not_updated(SharedPinsFailure::Failed(error))),
                    Err(_) => warnings.push(not_updated(SharedPinsFailure::NoAnswer {
                        store: store.describe(),
                        after: SHARED_LIMIT,
                    })),
                }
            }
        }
        Ok(())
    }

    /// The pins in the lock file alone, read at once (for a policy that
    /// runs at every listing); a missing file is no pins.
    pub fn load_lock_file(&self) -> Result<PinFile, PinStoreError> {
        match std::fs::read(&self.lock) {
            Ok(bytes) => Ok(PinFile::from_bytes(
                &bytes,
                &self.lock.display().to_string(),
            )?),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(PinFile::default()),
            Err(source) => Err(PinStoreError::Io {
                what: "cannot read",
                path: self.lock.clone(),
                source,
            }),
        }
    }

    /// The pins (as [`load`](Self::load) reads them) checked against what
    /// `report` found for `servers`.
    pub async fn verify(
        &self,
        servers: &[ServerConfig],
        report: &DiscoveryReport,
    ) -> Result<Verification, PinStoreError> {
        let (pins, warnings) = self.load().await?;
        Ok(Verification {
            servers: checks(&pins, servers, report),
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_shared_store_that_cannot_be_opened_is_a_warning_at_every_read_and_write() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join(LOCK_FILE);
        let store = PinStore::new(&lock).with_shared_url("http://cache.internal:6379", "p:");
        let warnings = store.save(&PinFile::default()).await.unwrap();
        assert!(
            matches!(
                warnings.as_slice(),
                [Warning::SharedPinsNotUpdated {
                    failure: SharedPinsFailure::Unopened(_),
                    ..
                }]
            ),
            "{warnings:?}"
        );
        let (pins, warnings) = store.load().await.unwrap();
        assert!(pins.servers.is_empty(), "the lock file's pins are used");
        let [warning] = warnings.as_slice() else {
            panic!("one warning: {warnings:?}");
        };
        let shown = warning.to_string();
        assert!(
            shown.starts_with("shared pins unavailable (cannot open the shared store: ")
                && shown.ends_with(&format!("; using {}", lock.display())),
            "{shown}"
        );
    }
}
