//! `mcp-cli serve --http 127.0.0.1:0` as the gateway tests run it: its URL
//! read from its stderr (bounded), every stderr line kept for the test to
//! look for, stopped with SIGTERM and a bounded wait, and killed and
//! reaped when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

/// What `serve` says on stderr once it listens, before its URL.
const LISTENING: &str = "mcp-cli serve: listening on ";
/// How long `serve` may take to listen, to stop, or to say a line.
const WAIT: Duration = Duration::from_secs(30);

/// A running `mcp-cli serve --http`.
pub struct ServeHttp {
    child: Child,
    /// Its MCP endpoint, `http://ADDR/mcp`.
    pub url: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl ServeHttp {
    /// Runs `command` (`mcp-cli … serve … --http 127.0.0.1:0`), without
    /// `RUST_LOG` or `MCP_GATEWAY_TOKEN` from our environment, and waits
    /// (bounded) until it says where it listens.
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .env_remove("RUST_LOG")
            .env_remove("MCP_GATEWAY_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-cli serve starts");
        let stderr = child.stderr.take().expect("serve's stderr is piped");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&lines);
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix(LISTENING) {
                    let _ = sender.send(url.to_owned());
                }
                kept.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            }
        });
        let mut serve = Self {
            child,
            url: String::new(),
            stderr: lines,
        };
        match receiver.recv_timeout(WAIT) {
            Ok(url) => serve.url = url,
            Err(_) => panic!(
                "mcp-cli serve never said where it listens:\n{}",
                serve.stderr_text()
            ),
        }
        serve
    }

    /// `http://ADDR`, the URL without `/mcp`.
    pub fn base(&self) -> &str {
        self.url.strip_suffix("/mcp").unwrap_or(&self.url)
    }

    /// The MCP endpoint of profile `name`.
    pub fn profile_url(&self, name: &str) -> String {
        format!("{}/profiles/{name}/mcp", self.base())
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` to `serve`.
    pub fn signal(&self, signal: Signal) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        nix::sys::signal::kill(pid, signal).unwrap();
    }

    /// Every stderr line so far, joined.
    pub fn stderr_text(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .join("\n")
    }

    /// Waits (bounded) for a stderr line containing `needle`.
    pub fn wait_for_line(&self, needle: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(line) = self
                .stderr
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .find(|line| line.contains(needle))
            {
                return line.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no line with {needle:?} in:\n{}",
                self.stderr_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The peak resident set of `serve` so far, in KiB (`VmHWM`).
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/PID/status")
    }

    /// SIGTERM, then the exit status (bounded).
    pub fn stop(mut self) -> ExitStatus {
        self.signal(Signal::SIGTERM);
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "mcp-cli serve ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for ServeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
