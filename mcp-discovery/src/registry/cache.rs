//! Registry answers on disk for [`CACHE_TTL`]: one JSON
//! file per request URL (named by its SHA-256), replaced atomically.

use std::path::PathBuf;
use std::time::Duration;

use hmac_sha256::Hash as Sha256;
use mcpdisco_transport::fs::AtomicWrite;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::now_ms;

/// How long an answer is reused.
pub const CACHE_TTL: Duration = Duration::from_secs(60 * 60);

/// The largest cached answer read back.
const MAX_CACHED: u64 = 16 * 1024 * 1024;

/// A cached answer, and whether it is still fresh.
pub(super) struct Cached {
    pub(super) body: Value,
    pub(super) fresh: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    url: String,
    fetched_at_ms: u64,
    body: Value,
}

/// The cache folder.
#[derive(Debug, Clone)]
pub(super) struct ResponseCache {
    dir: PathBuf,
}

impl ResponseCache {
    pub(super) fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    fn path(&self, url: &str) -> PathBuf {
        let name = hex::encode(Sha256::hash(url.as_bytes()));
        self.dir.join(format!("{name}.json"))
    }

    /// The answer cached for `url`, if any can be read.
    pub(super) fn get(&self, url: &str) -> Option<Cached> {
        let path = self.path(url);
        if std::fs::metadata(&path).ok()?.len() > MAX_CACHED {
            return None;
        }
        let file: File = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        if file.url != url {
            return None;
        }
        let age = now_ms().saturating_sub(file.fetched_at_ms);
        Some(Cached {
            body: file.body,
            fresh: age < CACHE_TTL.as_millis() as u64,
        })
    }

    /// Stores the answer for `url`; a failure is logged, never fatal.
    pub(super) fn put(&self, url: &str, body: &Value) {
        let file = File {
            url: url.to_owned(),
            fetched_at_ms: now_ms(),
            body: body.clone(),
        };
        let written = serde_json::to_vec(&file)
            .map_err(std::io::Error::from)
            .and_then(|bytes| {
                AtomicWrite::new()
                    .create_dirs()
                    .write(&self.path(url), &bytes)
            });
        if let Err(error) = written {
            tracing::warn!(dir = %self.dir.display(), %error, "cannot cache the registry's answer");
        }
    }
}
