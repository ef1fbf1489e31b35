//! The open-file limit: `serve` keeps a pipe or two and a child process
//! per stdio server, and a socket per client, so it raises its soft
//! `RLIMIT_NOFILE` to the hard limit at start (macOS starts processes at
//! 256, which runs out at about 85 stdio servers).

use super::LimitError;

/// The soft limit before and after [`raise_open_files_limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFilesLimit {
    /// The soft limit the process started with.
    pub before: u64,
    /// The soft limit now.
    pub after: u64,
}

/// Raises this process's soft open-file limit to its hard limit (on macOS,
/// to `OPEN_MAX` when the hard limit is unlimited, which it refuses).
#[cfg(unix)]
pub fn raise_open_files_limit() -> Result<OpenFilesLimit, LimitError> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};

    let failed = |error: nix::Error| LimitError::OpenFiles(error.to_string());
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(failed)?;
    if soft >= hard {
        return Ok(OpenFilesLimit {
            before: soft,
            after: soft,
        });
    }
    if let Err(error) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        // macOS refuses more than OPEN_MAX (10240) as a soft limit.
        const OPEN_MAX: u64 = 10_240;
        if !cfg!(target_os = "macos") || soft >= OPEN_MAX {
            return Err(failed(error));
        }
        setrlimit(Resource::RLIMIT_NOFILE, OPEN_MAX, hard).map_err(failed)?;
    }
    let (after, _) = getrlimit(Resource::RLIMIT_NOFILE).map_err(failed)?;
    Ok(OpenFilesLimit {
        before: soft,
        after,
    })
}

/// Nothing to raise off Unix.
#[cfg(not(unix))]
pub fn raise_open_files_limit() -> Result<OpenFilesLimit, LimitError> {
    Ok(OpenFilesLimit {
        before: 0,
        after: 0,
    })
}
