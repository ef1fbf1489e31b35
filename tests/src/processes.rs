//! Processes of a test: a child waited for within a bound, and the server
//! processes a gateway test started, found by the marker in their
//! environment (`GATEWAY_TEST_MARKER`), so none may outlive the gateway.

use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// The environment variable that marks a test's server processes.
pub const MARKER_VARIABLE: &str = "GATEWAY_TEST_MARKER";

/// `child`'s output once it exits; killed and a panic after `timeout`.
pub fn wait_with_timeout(mut child: Child, timeout: Duration) -> Output {
    let deadline = Instant::now() + timeout;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "timed out after {timeout:?}:\n{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Processes still running with `marker` in their environment.
pub fn marked_processes(marker: &str) -> Vec<u32> {
    let needle = format!("{MARKER_VARIABLE}={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|b| *b == 0)
                    .any(|var| var == needle.as_bytes())
            })
        })
        .collect()
}

/// Waits (15 s at most) until no process marked `marker` runs; panics
/// naming the ones left.
pub fn assert_none_marked(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = marked_processes(marker);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "server processes outlived the gateway: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
