//! A server program from `.tools/` (Debian's Redis, HAProxy) run for a
//! test on a loopback port: found, or skipped with a note (a panic with
//! `MCP_REQUIRE_TOOLS=1`); started with its own temporary folder; waited
//! for (bounded) until it listens; and killed and reaped when dropped.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{REQUIRE_TOOLS_ENV, Tools, free_port};

/// How long a server may take to listen.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(20);

/// A program unpacked under `.tools/`, with a free port and a temporary
/// folder for it, not started yet.
pub struct ToolProgram {
    name: &'static str,
    binary: PathBuf,
    libs: PathBuf,
    port: u16,
    dir: tempfile::TempDir,
}

impl ToolProgram {
    /// `.tools/<package>/<binary>` (named `name` in notes and panics), or
    /// `None` (with a note) when it is not installed and the tools are not
    /// required.
    ///
    /// # Panics
    /// When it is missing and `MCP_REQUIRE_TOOLS=1`.
    pub fn find(package: &str, binary: &str, name: &'static str) -> Option<Self> {
        let root = Tools::locate().dir().join(package);
        let binary = root.join(binary);
        if !binary.exists() {
            let required = std::env::var(REQUIRE_TOOLS_ENV).is_ok_and(|v| v == "1");
            assert!(
                !required,
                "{REQUIRE_TOOLS_ENV}=1 but {name} is not installed in .tools/{package}; run `cargo xtask setup`"
            );
            eprintln!("note: skipping: {name} not installed (run `cargo xtask setup`)");
            return None;
        }
        Some(Self {
            name,
            binary,
            libs: root.join("usr/lib/x86_64-linux-gnu"),
            port: free_port().expect("a free port"),
            dir: tempfile::tempdir().expect("a temporary folder"),
        })
    }

    /// The port it is to listen on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its temporary folder, removed when the server is dropped.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Runs it with `args` (its libraries on `LD_LIBRARY_PATH`, no stdio)
    /// and waits (bounded) until it listens on [`port`](Self::port).
    ///
    /// # Panics
    /// When it cannot start, exits at start, or does not listen within 20 s.
    pub fn start<I, S>(self, args: I) -> ToolServer
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let child = Command::new(&self.binary)
            .env("LD_LIBRARY_PATH", &self.libs)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", self.name));
        let (name, port) = (self.name, self.port);
        let mut server = ToolServer {
            child: Some(child),
            port,
            _dir: self.dir,
        };
        let started = Instant::now();
        while TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).is_err() {
            assert!(
                started.elapsed() < LISTEN_TIMEOUT,
                "{name} did not listen on {port} within 20 s"
            );
            if let Some(child) = server.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("{name} exited at start: {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }
}

/// A running server program, killed and reaped when dropped.
pub struct ToolServer {
    child: Option<Child>,
    port: u16,
    _dir: tempfile::TempDir,
}

impl ToolServer {
    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The process id, until it is killed.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills it now (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for ToolServer {
    fn drop(&mut self) {
        self.kill();
    }
}
