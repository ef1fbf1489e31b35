//! `serve --session-keys FILE`: the keys that seal session ids, read from
//! a file only its owner may read (one standard base64 key of 32 bytes per
//! line, the first sealing; see
//! `mcpdisco_transport::server::http::session_seal`). Read at start, and
//! again on each reload.

use std::path::{Path, PathBuf};

use mcpdisco_transport::server::http::session_seal::{SessionKeyError, SessionKeys};

/// Why a session key file cannot be used; each names the file, none a key.
#[derive(Debug, thiserror::Error)]
pub enum SessionKeyFileError {
    /// The file cannot be read.
    #[error("session key file {}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its group or others may read it (mode & 0o077 != 0).
    #[error(
        "session key file {} can be read by others than its owner (mode {mode:o}): chmod 600 it",
        path.display()
    )]
    Exposed {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A line is not a key, or there is none.
    #[error("session key file {}: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Which line, or that there is no key.
        source: SessionKeyError,
    },
}

/// The keys of the file at `path`, refused when others than its owner may
/// read it (on Unix).
pub fn read_session_keys(path: &Path) -> Result<SessionKeys, SessionKeyFileError> {
    let unreadable = |source| SessionKeyFileError::Unreadable {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = file.metadata().map_err(unreadable)?.permissions().mode() & 0o7777;
        if is_exposed(mode) {
            return Err(SessionKeyFileError::Exposed {
                path: path.to_owned(),
                mode,
            });
        }
    }
    let mut text = String::new();
    // A key file is a few lines: read at most 64 KiB of it.
    std::io::Read::read_to_string(&mut std::io::Read::take(file, 64 * 1024), &mut text)
        .map_err(unreadable)?;
    SessionKeys::parse(&text).map_err(|source| SessionKeyFileError::Invalid {
        path: path.to_owned(),
        source,
    })
}

/// Whether permission bits `mode` let the group or others read or write.
fn is_exposed(mode: u32) -> bool {
    mode & 0o077 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_file_of_its_owner_alone_is_not_exposed() {
        for mode in [0o600, 0o400, 0o700] {
            assert!(!is_exposed(mode), "{mode:o}");
        }
        for mode in [0o640, 0o604, 0o644, 0o660, 0o601, 0o610] {
            assert!(is_exposed(mode), "{mode:o}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_is_read_when_private_and_refused_naming_it_otherwise() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys");
        let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
        std::fs::write(&path, format!("# sealing\n{key}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_session_keys(&path).unwrap().len(), 1);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = read_session_keys(&path).unwrap_err();
        assert!(matches!(
            refused,
            SessionKeyFileError::Exposed { mode: 0o644, .. }
        ));
        assert!(refused.to_string().contains(&path.display().to_string()));
        std::fs::write(&path, "not a key\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let invalid = read_session_keys(&path).unwrap_err().to_string();
        assert!(
            invalid.contains("line 1") && !invalid.contains("not a key"),
            "{invalid}"
        );
        let missing = read_session_keys(&dir.path().join("none")).unwrap_err();
        assert!(matches!(missing, SessionKeyFileError::Unreadable { .. }));
    }
}
