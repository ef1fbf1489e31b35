//! HAProxy in front of `mcp-cli serve --http` replicas (B9): the program
//! `cargo xtask setup` unpacks into `.tools/haproxy`, run in the foreground
//! with a config derived from `deploy/haproxy.cfg` (round-robin, no
//! stickiness, the `/readyz` health check) on a free loopback port, and
//! killed and reaped when dropped.
//!
//! The derivation is the fleet test's own (`tests/src/haproxy_config.rs`,
//! plain `std`), compiled here from the same file.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::BenchError;
use crate::fronts::free_port;

#[path = "../../tests/src/haproxy_config.rs"]
mod haproxy_config;

/// How long HAProxy may take to listen.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(20);

/// Where HAProxy and the config it is derived from are.
#[derive(Debug, Clone)]
pub struct HaProxyProgram {
    /// The `haproxy` binary.
    pub binary: PathBuf,
    /// The folder of the libraries it links (for `LD_LIBRARY_PATH`).
    pub libs: PathBuf,
    /// `deploy/haproxy.cfg`.
    pub deploy_config: PathBuf,
}

/// A running HAProxy.
pub struct HaProxy {
    child: Child,
    port: u16,
}

/// `program`'s deploy config with its frontend on `port`, the `replicas`
/// (`127.0.0.1:PORT` each) as its servers, its health check sending `token`.
pub fn derived_config(
    program: &HaProxyProgram,
    port: u16,
    replicas: &[&str],
    token: &str,
) -> Result<String, BenchError> {
    let path = &program.deploy_config;
    let deploy = std::fs::read_to_string(path)
        .map_err(|e| BenchError::io(format!("cannot read {}", path.display()), e))?;
    haproxy_config::derive(&deploy, port, replicas, token)
        .map_err(|missing| BenchError::Unexpected(format!("{} has no {missing:?}", path.display())))
}

impl HaProxy {
    /// Starts HAProxy in front of `replicas` with [`derived_config`]
    /// (written in `scratch`) and waits (bounded) until it listens.
    pub fn start(
        program: &HaProxyProgram,
        replicas: &[&str],
        token: &str,
        scratch: &Path,
    ) -> Result<Self, BenchError> {
        let port = free_port()?;
        let config = scratch.join(format!("haproxy-{}.cfg", replicas.len()));
        std::fs::write(&config, derived_config(program, port, replicas, token)?)
            .map_err(|e| BenchError::io(format!("cannot write {}", config.display()), e))?;
        let child = Command::new(&program.binary)
            .env("LD_LIBRARY_PATH", &program.libs)
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| BenchError::io(format!("cannot start {}", program.binary.display()), e))?;
        // Reaped on every path from here.
        let mut haproxy = Self { child, port };
        let deadline = Instant::now() + LISTEN_TIMEOUT;
        while TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).is_err() {
            if let Ok(Some(status)) = haproxy.child.try_wait() {
                return Err(BenchError::Unexpected(format!(
                    "haproxy exited at start ({status}) with {}",
                    config.display()
                )));
            }
            if Instant::now() > deadline {
                return Err(BenchError::Timeout(format!(
                    "haproxy did not listen on port {port}"
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(haproxy)
    }

    /// The MCP endpoint through it, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HaProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(deploy_config: PathBuf) -> HaProxyProgram {
        HaProxyProgram {
            binary: PathBuf::from("haproxy"),
            libs: PathBuf::new(),
            deploy_config,
        }
    }

    #[test]
    fn the_config_is_the_deploy_ones_on_loopback_with_the_replicas() {
        let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/haproxy.cfg");
        let config = derived_config(
            &program(deploy),
            4000,
            &["127.0.0.1:4001", "127.0.0.1:4002", "127.0.0.1:4003"],
            "sesame",
        )
        .unwrap();
        assert!(config.contains("    bind 127.0.0.1:4000\n"), "{config}");
        for number in 1..=3 {
            assert!(
                config.contains(&format!(
                    "    server replica{number} 127.0.0.1:400{number}\n"
                )),
                "{config}"
            );
        }
        assert!(!config.contains("gateway1") && !config.contains(":808"));
        assert!(config.contains("balance roundrobin"));
        assert!(config.contains("Bearer sesame"));
        // No stickiness: any replica serves any session.
        let settings: Vec<&str> = config
            .lines()
            .map(str::trim)
            .filter(|line| !line.starts_with('#'))
            .collect();
        assert!(
            !settings
                .iter()
                .any(|line| line.starts_with("cookie") || line.starts_with("stick")),
            "{config}"
        );
    }

    #[test]
    fn a_deploy_config_without_what_is_replaced_is_refused() {
        let dir = std::env::temp_dir().join(format!("bench-haproxy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let deploy = dir.join("haproxy.cfg");
        std::fs::write(&deploy, "frontend mcp\n    bind 127.0.0.1:9999\n").unwrap();
        let refused = derived_config(&program(deploy.clone()), 4000, &["127.0.0.1:4001"], "t");
        assert!(
            matches!(&refused, Err(BenchError::Unexpected(why)) if why.contains("bind 127.0.0.1:8080")),
            "{refused:?}"
        );
        let missing = derived_config(&program(dir.join("none.cfg")), 4000, &[], "t");
        assert!(matches!(missing, Err(BenchError::Io { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
