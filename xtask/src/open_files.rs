//! The open-file limit the steps run under. The conformance suite runs
//! every scenario of a requirement set at once (two HTTP servers, their
//! connections and a client process with three pipes each), and the tests
//! spawn servers side by side: a machine that starts processes at a soft
//! limit of 1024 (or 256, as macOS does) must not fail them for want of a
//! file descriptor. So the soft limit is raised to the hard one at start,
//! and every child inherits it.

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; says why not on
/// stderr when it cannot (the steps then run under the limit as it is).
#[cfg(unix)]
pub fn raise() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};

    let raised = getrlimit(Resource::RLIMIT_NOFILE).and_then(|(soft, hard)| {
        if soft < hard {
            setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
        } else {
            Ok(())
        }
    });
    if let Err(error) = raised {
        eprintln!("xtask: cannot raise the open-file limit: {error}");
    }
}

/// Nothing to raise off Unix.
#[cfg(not(unix))]
pub fn raise() {}

#[cfg(all(test, unix))]
mod tests {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};

    #[test]
    fn the_soft_limit_ends_at_the_hard_one() {
        // Started low, as on a machine with a soft limit under its hard
        // one (nextest runs each test in a process of its own).
        let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).expect("the limit");
        setrlimit(Resource::RLIMIT_NOFILE, 256.min(hard), hard).expect("lowered");
        super::raise();
        let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).expect("the limit");
        assert_eq!(soft, hard);
    }
}
