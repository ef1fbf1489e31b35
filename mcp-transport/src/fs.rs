//! Writing a file atomically, the one way every crate of the workspace does
//! it: the bytes go to a temporary file in the target's own directory,
//! which `tempfile`'s `persist` then renames over the target. A reader sees
//! the old file or the new one, never half of one, and a write that fails
//! at any step leaves no temporary file behind.
//!
//! [`AtomicWrite::write`] does it in one step. [`AtomicWrite::prepare`] and
//! [`PreparedFile::commit`] split it in two, for a writer that decides only
//! once the bytes are on disk whether they should land (the discovery cache
//! checks between the two that no newer write overtook this one); a
//! prepared file dropped uncommitted is removed.
//!
//! The temporary file is named after its target (`.<name>.<random>.tmp`)
//! and is created readable and writable by its owner only (mode 0600 on
//! Unix); so is the target then, unless [`AtomicWrite::keep_permissions`]
//! asks for the permissions of the file it replaces.
//!
//! ```
//! use mcpdisco_transport::fs::{AtomicWrite, write_atomically};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("settings.json");
//! write_atomically(&path, b"{}")?;
//! let prepared = AtomicWrite::new().prepare(&path, b"{\"a\": 1}")?;
//! assert_eq!(std::fs::read(&path)?, b"{}");
//! prepared.commit()?;
//! assert_eq!(std::fs::read(&path)?, b"{\"a\": 1}");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// The suffix of every temporary file, so leftovers are easy to tell.
pub const TEMPORARY_SUFFIX: &str = ".tmp";

/// Writes `bytes` to `path` atomically, with the defaults of [`AtomicWrite`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    AtomicWrite::new().write(path, bytes)
}

/// How a file is written atomically. By default the target's directory must
/// exist, the file ends up private (0600 on Unix), and nothing is flushed
/// to the disk before the rename.
#[derive(Debug, Clone, Copy, Default)]
pub struct AtomicWrite {
    create_dirs: bool,
    keep_permissions: bool,
    sync: bool,
}

impl AtomicWrite {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates the target's missing directories first (with the default
    /// mode; a caller that wants them private creates them itself).
    pub fn create_dirs(mut self) -> Self {
        self.create_dirs = true;
        self
    }

    /// Gives the new file the permissions of the file it replaces, if any
    /// (a config file may be shared with a group, or hold secrets).
    pub fn keep_permissions(mut self) -> Self {
        self.keep_permissions = true;
        self
    }

    /// Flushes the bytes to the disk before the rename, so a power cut
    /// leaves the old file or the whole new one (one disk flush per write).
    pub fn sync(mut self) -> Self {
        self.sync = true;
        self
    }

    /// Writes `bytes` to `path`: the old file until the rename, the new
    /// one after it.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.prepare(path, bytes)?.commit()
    }

    /// Writes `bytes` to a temporary file beside `path`, ready to replace it
    /// by [`PreparedFile::commit`]. `path` is untouched until then.
    pub fn prepare(&self, path: &Path, bytes: &[u8]) -> io::Result<PreparedFile> {
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if self.create_dirs {
            std::fs::create_dir_all(dir)?;
        }
        let mut prefix = OsString::from(".");
        if let Some(name) = path.file_name() {
            prefix.push(name);
            prefix.push(".");
        }
        // Created 0600 on Unix; removed when dropped, so on every error below.
        let mut temporary = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(TEMPORARY_SUFFIX)
            .tempfile_in(dir)?;
        temporary.write_all(bytes)?;
        if self.keep_permissions
            && let Ok(metadata) = std::fs::metadata(path)
        {
            temporary
                .as_file()
                .set_permissions(metadata.permissions())?;
        }
        if self.sync {
            temporary.as_file().sync_all()?;
        }
        Ok(PreparedFile {
            temporary,
            target: path.to_owned(),
        })
    }
}

/// The whole new text of a file, on disk beside it, not yet in its place.
/// Dropped uncommitted, it is removed.
#[derive(Debug)]
pub struct PreparedFile {
    temporary: NamedTempFile,
    target: PathBuf,
}

impl PreparedFile {
    /// The file it will replace.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames it over its target; on failure the temporary file is removed.
    pub fn commit(self) -> io::Result<()> {
        self.temporary
            .persist(&self.target)
            .map(drop)
            .map_err(|error| error.error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temporary_files(dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.to_string_lossy().ends_with(TEMPORARY_SUFFIX))
            .collect()
    }

    #[test]
    fn a_reader_sees_the_old_file_until_the_commit_and_the_new_one_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomically(&path, b"old text").unwrap();
        let prepared = AtomicWrite::new()
            .prepare(&path, b"the new, longer text")
            .unwrap();
        assert_eq!(prepared.target(), path);
        assert_eq!(std::fs::read(&path).unwrap(), b"old text");
        assert_eq!(temporary_files(dir.path()).len(), 1);
        prepared.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"the new, longer text");
        assert!(temporary_files(dir.path()).is_empty());
    }

    #[test]
    fn a_prepared_file_dropped_uncommitted_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let prepared = AtomicWrite::new().prepare(&path, b"text").unwrap();
        drop(prepared);
        assert!(!path.exists());
        assert!(temporary_files(dir.path()).is_empty());
    }

    #[test]
    fn a_failed_rename_leaves_the_target_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // A non-empty directory cannot be replaced by a file.
        let target = dir.path().join("taken");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), b"kept").unwrap();
        assert!(write_atomically(&target, b"text").is_err());
        assert!(target.is_dir());
        assert_eq!(std::fs::read(target.join("inside")).unwrap(), b"kept");
        assert!(temporary_files(dir.path()).is_empty());
    }

    #[test]
    fn a_missing_directory_is_an_error_unless_asked_to_create_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new").join("deeper").join("a.json");
        assert!(write_atomically(&path, b"text").is_err());
        AtomicWrite::new()
            .create_dirs()
            .sync()
            .write(&path, b"text")
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"text");
    }

    #[cfg(unix)]
    #[test]
    fn files_are_private_unless_the_replaced_files_permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomically(&path, b"one").unwrap();
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        AtomicWrite::new()
            .keep_permissions()
            .write(&path, b"three")
            .unwrap();
        assert_eq!(mode(&path), 0o640);
        assert_eq!(std::fs::read(&path).unwrap(), b"three");
    }
}
