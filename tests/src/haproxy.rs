//! A real HAProxy in front of `mcp-cli serve --http` replicas: Debian's,
//! unpacked by `cargo xtask setup` into `.tools/haproxy`, run in the
//! foreground with a config derived from `deploy/haproxy.cfg` (its settings,
//! with a free loopback port, the replicas' ports and the token), and
//! killed and reaped when dropped.
//!
//! The derived config adds one response header, `X-Replica`, naming the
//! replica that answered, so a test can see where each request landed.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{REQUIRE_TOOLS_ENV, Tools, free_port, workspace_root};

/// The response header naming the replica that answered.
pub const REPLICA_HEADER: &str = "x-replica";

/// What `deploy/haproxy.cfg` names and the derived config replaces.
const DEPLOY_FRONTEND: &str = "bind 127.0.0.1:8080";
const DEPLOY_TOKEN: &str = "replace-me-with-the-token";
const DEPLOY_SERVERS: &str = "    server gateway";

/// A running HAProxy.
pub struct HaProxy {
    child: Option<Child>,
    port: u16,
    _dir: tempfile::TempDir,
}

/// The unpacked binary and its library folder, if installed.
fn installed() -> Option<(PathBuf, PathBuf)> {
    let root = Tools::locate().dir().join("haproxy");
    let binary = root.join("usr/sbin/haproxy");
    binary
        .exists()
        .then(|| (binary, root.join("usr/lib/x86_64-linux-gnu")))
}

/// `deploy/haproxy.cfg` with its frontend on `port`, its servers the
/// `replicas` (`127.0.0.1:PORT` each, named `replica1`, …), its health
/// check sending `token`, and the `X-Replica` header added.
///
/// # Panics
/// When `deploy/haproxy.cfg` no longer holds what is replaced.
pub fn derived_config(port: u16, replicas: &[&str], token: &str) -> String {
    let deploy = std::fs::read_to_string(workspace_root().join("deploy/haproxy.cfg"))
        .expect("deploy/haproxy.cfg is readable");
    for needle in [DEPLOY_FRONTEND, DEPLOY_TOKEN, DEPLOY_SERVERS] {
        assert!(
            deploy.contains(needle),
            "deploy/haproxy.cfg has no {needle:?}"
        );
    }
    let mut config: String = deploy
        .lines()
        .filter(|line| !line.starts_with(DEPLOY_SERVERS))
        .map(|line| {
            line.replace(DEPLOY_FRONTEND, &format!("bind 127.0.0.1:{port}"))
                .replace(DEPLOY_TOKEN, token)
                + "\n"
        })
        .collect();
    for (number, replica) in replicas.iter().enumerate() {
        config.push_str(&format!("    server replica{} {replica}\n", number + 1));
    }
    config.push_str("    http-response set-header X-Replica %s\n");
    config
}

impl HaProxy {
    /// Starts HAProxy with [`derived_config`] in front of `replicas`, or
    /// returns `None` (with a note) when it is not installed and the tools
    /// are not required.
    ///
    /// # Panics
    /// When it is missing and `MCP_REQUIRE_TOOLS=1`, or it does not listen within 20 s.
    pub fn start(replicas: &[&str], token: &str) -> Option<Self> {
        let Some((binary, libs)) = installed() else {
            let required = std::env::var(REQUIRE_TOOLS_ENV).is_ok_and(|v| v == "1");
            assert!(
                !required,
                "{REQUIRE_TOOLS_ENV}=1 but haproxy is not installed in .tools/haproxy; run `cargo xtask setup`"
            );
            eprintln!("note: skipping: haproxy not installed (run `cargo xtask setup`)");
            return None;
        };
        let dir = tempfile::tempdir().expect("a temporary folder");
        let port = free_port().expect("a free port");
        let config = dir.path().join("haproxy.cfg");
        std::fs::write(&config, derived_config(port, replicas, token))
            .expect("the config is written");
        let child = Command::new(binary)
            .env("LD_LIBRARY_PATH", libs)
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("haproxy starts");
        let mut haproxy = Self {
            child: Some(child),
            port,
            _dir: dir,
        };
        let started = Instant::now();
        while TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "haproxy did not listen on {port} within 20 s"
            );
            if let Some(child) = haproxy.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("haproxy exited at start: {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(haproxy)
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

impl Drop for HaProxy {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derived_config_keeps_the_deploy_settings_on_loopback_ports() {
        let config = derived_config(4000, &["127.0.0.1:4001", "127.0.0.1:4002"], "sesame");
        assert!(config.contains("bind 127.0.0.1:4000\n"), "{config}");
        assert!(config.contains("    server replica1 127.0.0.1:4001\n"));
        assert!(config.contains("    server replica2 127.0.0.1:4002\n"));
        assert!(
            !config.contains("gateway1") && !config.contains("808"),
            "{config}"
        );
        assert!(config.contains("Bearer sesame"));
        assert!(config.contains("balance roundrobin"));
        assert!(config.contains("option redispatch"));
        assert!(config.ends_with("http-response set-header X-Replica %s\n"));
    }
}
