//! `mcp-cli serve --http 127.0.0.1:0` in a process of its own, as B5's
//! HTTP front and the fleet case (B9) run it: its config (a server set,
//! health pings off), its URL read from its stderr (each line bounded, the
//! rest drained so it never blocks), and on drop stopped with SIGTERM (so
//! it reaps its servers), killed after a bounded wait, and reaped.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::BenchError;
use crate::discovery::ServerSet;

/// What `serve` says on stderr once it listens, before its URL.
const LISTENING: &str = "mcp-cli serve: listening on ";
/// How long `serve` may take to listen.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(120);
/// How long `serve` may take to stop after SIGTERM before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest stderr line read whole; a longer one is read in pieces.
const MAX_LINE: u64 = 16 * 1024;

/// Writes `set` as `serve`'s config at `path`, health pings off (noise in a
/// short run).
pub fn write_config(set: &ServerSet, path: &Path) -> Result<(), BenchError> {
    let mut config = set.config();
    if let Some(servers) = config["mcpServers"].as_object_mut() {
        for server in servers.values_mut() {
            server["health"] = json!({"pingInterval": 3600});
        }
    }
    let text = serde_json::to_string(&config).map_err(|e| BenchError::json("the config", e))?;
    std::fs::write(path, text)
        .map_err(|e| BenchError::io(format!("cannot write {}", path.display()), e))
}

/// A running `mcp-cli serve --http`.
pub struct ServeHttp {
    child: Child,
    /// Its MCP endpoint, `http://ADDR/mcp`.
    url: String,
}

impl ServeHttp {
    /// Runs `cli serve --page-size 1000 --config CONFIG --http 127.0.0.1:0
    /// FLAGS…` (without `RUST_LOG` or `MCP_GATEWAY_TOKEN` from our
    /// environment) and waits (bounded) until it says where it listens.
    pub fn start<S: AsRef<OsStr>>(
        cli: &Path,
        config: &Path,
        flags: &[S],
    ) -> Result<Self, BenchError> {
        let mut child = Command::new(cli)
            .args(["serve", "--page-size", "1000", "--config"])
            .arg(config)
            .args(["--http", "127.0.0.1:0"])
            .args(flags)
            .env_remove("RUST_LOG")
            .env_remove("MCP_GATEWAY_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| BenchError::io("cannot start mcp-cli serve --http", e))?;
        let stderr = child.stderr.take();
        // Reaped on every path from here.
        let mut serve = Self {
            child,
            url: String::new(),
        };
        let stderr =
            stderr.ok_or_else(|| BenchError::Unexpected("no stderr of mcp-cli serve".into()))?;
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || watch_stderr(stderr, &sender));
        serve.url = receiver.recv_timeout(LISTEN_TIMEOUT).map_err(|_| {
            BenchError::Timeout("mcp-cli serve --http never said where it listens".into())
        })?;
        Ok(serve)
    }

    /// Its MCP endpoint, `http://ADDR/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `http://ADDR`, the URL without `/mcp`.
    pub fn base(&self) -> &str {
        self.url.strip_suffix("/mcp").unwrap_or(&self.url)
    }

    /// `ADDR` (`127.0.0.1:PORT`), as a load balancer names it.
    pub fn address(&self) -> &str {
        self.base().trim_start_matches("http://")
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ServeHttp {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGTERM,
            );
            let deadline = Instant::now() + STOP_TIMEOUT;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `serve`'s stderr to its end, each line bounded by [`MAX_LINE`],
/// and sends the URL of the line that says where it listens.
fn watch_stderr(stderr: ChildStderr, sender: &Sender<String>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if let Some(url) = listening_url(&line) {
            let _ = sender.send(url.to_owned());
        }
    }
}

/// The URL in `serve`'s line saying where it listens, if `line` is it.
fn listening_url(line: &[u8]) -> Option<&str> {
    std::str::from_utf8(line)
        .ok()?
        .trim_end()
        .strip_prefix(LISTENING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_read_from_the_listening_line_only() {
        assert_eq!(
            listening_url(b"mcp-cli serve: listening on http://127.0.0.1:4000/mcp\n"),
            Some("http://127.0.0.1:4000/mcp")
        );
        assert_eq!(listening_url(b"serve: warming up\n"), None);
        assert_eq!(listening_url(b"\xff\xfe"), None);
    }
}
