//! The disk half of the cache: one JSON file per fingerprint, written atomically.
//!
//! A write goes to a temporary file in the same directory and is renamed into
//! place, so a reader sees the old entry or the new one, never half of one.
//! There is no `fsync`: after a power cut an entry may be empty or torn, and a
//! torn entry is a miss that the next run rewrites, so durability would buy
//! nothing but a disk flush per server (which made a discovery run of 50
//! servers twice as slow).

use std::fs;
use std::path::{Path, PathBuf};

use mcpdisco_transport::fs::{AtomicWrite, PreparedFile};
use serde::{Deserialize, Serialize};

use super::entry::CacheEntry;
use super::error::CacheError;
use super::fingerprint::Fingerprint;

/// The file layout version; a file of another version is a miss.
/// Version 2 nests the entry under `entry` (version 1 flattened it).
const FILE_FORMAT: u32 = 2;
/// The largest entry file read back; a bigger one is treated as corrupt.
const MAX_ENTRY_BYTES: u64 = 256 * 1024 * 1024;

/// The file: a format version and the entry. No `#[serde(flatten)]`, which
/// would make serde buffer the whole entry before reading it.
#[derive(Serialize, Deserialize)]
struct EntryFile<E> {
    format: u32,
    entry: E,
}

fn entries_dir(dir: &Path) -> PathBuf {
    dir.join("entries")
}

/// Which of a key's two files: the last good discovery, or the last
/// failure. A failure never overwrites a good entry: it has a file of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Record {
    /// `<key>.json`: the last good discovery.
    Good,
    /// `<key>.failed.json`: the last failed one.
    Failure,
}

impl Record {
    /// The record a report of `entry` goes to.
    pub(super) fn of(entry: &CacheEntry) -> Self {
        if entry.report.status == crate::report::ServerStatus::Ready {
            Record::Good
        } else {
            Record::Failure
        }
    }
}

fn entry_path(dir: &Path, key: &Fingerprint, record: Record) -> PathBuf {
    entries_dir(dir).join(match record {
        Record::Good => format!("{key}.json"),
        Record::Failure => format!("{key}.failed.json"),
    })
}

/// Reads the `record` of `key`. Missing, unreadable, corrupt or foreign files are misses.
pub(super) fn read(dir: &Path, key: &Fingerprint, record: Record) -> Option<CacheEntry> {
    let path = entry_path(dir, key, record);
    let metadata = fs::metadata(&path).ok()?;
    if metadata.len() > MAX_ENTRY_BYTES {
        tracing::warn!(path = %path.display(), "cache entry too large; ignoring it");
        return None;
    }
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "unreadable cache entry; ignoring it");
            return None;
        }
    };
    decode(&bytes, key, &path.display().to_string())
}

/// An entry in the stored form (the disk files and shared stores alike).
pub(super) fn encode(entry: &CacheEntry) -> Result<Vec<u8>, CacheError> {
    serde_json::to_vec(&EntryFile {
        format: FILE_FORMAT,
        entry,
    })
    .map_err(|source| CacheError::Encode {
        server: entry.report.name.clone(),
        source,
    })
}

/// The entry for `key` in its stored form; a corrupt, foreign or misfiled
/// one is a miss (`place` names where it was, for the log).
pub(super) fn decode(bytes: &[u8], key: &Fingerprint, place: &str) -> Option<CacheEntry> {
    match serde_json::from_slice::<EntryFile<CacheEntry>>(bytes) {
        Ok(file) if file.format == FILE_FORMAT && file.entry.fingerprint == key.as_str() => {
            Some(file.entry)
        }
        Ok(_) => {
            tracing::debug!(place, "cache entry of another format; ignoring it");
            None
        }
        Err(error) => {
            tracing::warn!(place, %error, "corrupt cache entry; it will be rewritten");
            None
        }
    }
}

/// Writes the entry as the `record` of `key` to a temporary file in the
/// entries directory (mode 0600), ready to be renamed into place by
/// [`commit`]. Dropped uncommitted, it is removed.
pub(super) fn prepare(
    dir: &Path,
    key: &Fingerprint,
    record: Record,
    entry: &CacheEntry,
) -> Result<PreparedFile, CacheError> {
    let entries = entries_dir(dir);
    create_private_dir(&entries).map_err(|source| CacheError::Io {
        path: entries.clone(),
        source,
    })?;
    let bytes = encode(entry)?;
    AtomicWrite::new()
        .prepare(&entry_path(dir, key, record), &bytes)
        .map_err(|source| CacheError::Io {
            path: entries,
            source,
        })
}

/// Renames a prepared entry into place: a reader sees the old entry or this
/// one, never half of one.
pub(super) fn commit(file: PreparedFile) -> Result<(), CacheError> {
    let path = file.target().to_owned();
    file.commit()
        .map_err(|source| CacheError::Io { path, source })
}

/// Removes the `record` of `key`, if any.
pub(super) fn remove(dir: &Path, key: &Fingerprint, record: Record) {
    let path = entry_path(dir, key, record);
    match fs::remove_file(&path) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "could not remove cache entry")
        }
    }
}

/// Why an existing cache directory must not be used: it (or its entries
/// directory) is writable by group or others, or belongs to another user.
/// `None` when it is private or does not exist yet (it is created 0700).
pub(super) fn unsafe_dir(dir: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let uid = nix::unistd::geteuid().as_raw();
        for path in [dir.to_owned(), entries_dir(dir)] {
            let Ok(metadata) = fs::metadata(&path) else {
                continue;
            };
            if metadata.mode() & 0o022 != 0 {
                return Some(format!(
                    "{} is writable by group or others (mode {:o})",
                    path.display(),
                    metadata.mode() & 0o777
                ));
            }
            if metadata.uid() != uid {
                return Some(format!("{} belongs to another user", path.display()));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    None
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}
