//! A real `redis-server` for the shared-cache tests: Debian's, unpacked by
//! `cargo xtask test` into `.tools/redis`, started on a free loopback port
//! with no persistence, and killed and reaped when dropped
//! ([`ToolServer`]).

use std::ffi::OsString;

use crate::tool_server::{ToolProgram, ToolServer};

/// A running Redis.
pub struct RedisServer {
    server: ToolServer,
}

impl RedisServer {
    /// Starts a Redis, or returns `None` (with a note) when it is not
    /// installed and the tools are not required.
    ///
    /// # Panics
    /// When it is missing and `MCP_REQUIRE_TOOLS=1`, or it does not start within 20 s.
    pub fn start() -> Option<Self> {
        let program = ToolProgram::find("redis", "usr/bin/redis-server", "redis-server")?;
        let port = program.port().to_string();
        let mut args: Vec<OsString> = [
            "--bind",
            "127.0.0.1",
            "--port",
            &port,
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "yes",
            "--dir",
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        args.push(program.dir().into());
        let server = program.start(args);
        Some(Self { server })
    }

    /// `redis://127.0.0.1:<port>/<db>`.
    pub fn url(&self, db: u8) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.server.port())
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// Kills it now (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        self.server.kill();
    }
}
