//! A real `redis-server` for the shared-cache tests: Debian's, unpacked by
//! `cargo xtask test` into `.tools/redis`, started on a free loopback port
//! with no persistence, and killed and reaped when dropped.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{REQUIRE_TOOLS_ENV, Tools, free_port};

/// A running Redis.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    _dir: tempfile::TempDir,
}

/// The unpacked server and its library folder, if installed.
fn installed() -> Option<(PathBuf, PathBuf)> {
    let root = Tools::locate().dir().join("redis");
    let server = root.join("usr/bin/redis-server");
    server
        .exists()
        .then(|| (server, root.join("usr/lib/x86_64-linux-gnu")))
}

impl RedisServer {
    /// Starts a Redis, or returns `None` (with a note) when it is not
    /// installed and the tools are not required.
    ///
    /// # Panics
    /// When it is missing and `MCP_REQUIRE_TOOLS=1`, or it does not start within 20 s.
    pub fn start() -> Option<Self> {
        let Some((server, libs)) = installed() else {
            let required = std::env::var(REQUIRE_TOOLS_ENV).is_ok_and(|v| v == "1");
            assert!(
                !required,
                "{REQUIRE_TOOLS_ENV}=1 but redis-server is not installed in .tools/redis; run `cargo xtask setup`"
            );
            eprintln!("note: skipping: redis-server not installed (run `cargo xtask setup`)");
            return None;
        };
        let dir = tempfile::tempdir().expect("a temporary folder");
        let port = free_port().expect("a free port");
        let child = Command::new(server)
            .env("LD_LIBRARY_PATH", libs)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let mut redis = Self {
            child: Some(child),
            port,
            _dir: dir,
        };
        let started = Instant::now();
        while TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "redis-server did not listen on {port} within 20 s"
            );
            if let Some(child) = redis.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("redis-server exited at start: {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(redis)
    }

    /// `redis://127.0.0.1:<port>/<db>`.
    pub fn url(&self, db: u8) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills it now (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
