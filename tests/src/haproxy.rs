//! A real HAProxy in front of `mcp-cli serve --http` replicas: Debian's,
//! unpacked by `cargo xtask setup` into `.tools/haproxy`, run in the
//! foreground with a config derived from `deploy/haproxy.cfg` (its settings,
//! with a free loopback port, the replicas' ports and the token), and
//! killed and reaped when dropped ([`ToolServer`]).
//!
//! The derived config adds one response header, `X-Replica`, naming the
//! replica that answered, so a test can see where each request landed.

use crate::haproxy_config;
use crate::tool_server::{ToolProgram, ToolServer};
use crate::tools::workspace_root;

/// The response header naming the replica that answered.
pub const REPLICA_HEADER: &str = "x-replica";

/// A running HAProxy.
pub struct HaProxy {
    server: ToolServer,
}

/// `deploy/haproxy.cfg` with its frontend on `port`, its servers the
/// `replicas` (`127.0.0.1:PORT` each, named `replica1`, …), its health
/// check sending `token` ([`haproxy_config::derive`]), and the `X-Replica`
/// header added.
///
/// # Panics
/// When `deploy/haproxy.cfg` no longer holds what is replaced.
pub fn derived_config(port: u16, replicas: &[&str], token: &str) -> String {
    let deploy = std::fs::read_to_string(workspace_root().join("deploy/haproxy.cfg"))
        .expect("deploy/haproxy.cfg is readable");
    let mut config = haproxy_config::derive(&deploy, port, replicas, token)
        .unwrap_or_else(|missing| panic!("deploy/haproxy.cfg has no {missing:?}"));
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
        let program = ToolProgram::find("haproxy", "usr/sbin/haproxy", "haproxy")?;
        let config = program.dir().join("haproxy.cfg");
        std::fs::write(&config, derived_config(program.port(), replicas, token))
            .expect("the config is written");
        let server = program.start(["-db".as_ref(), "-f".as_ref(), config.as_os_str()]);
        Some(Self { server })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port())
    }

    /// The process id.
    pub fn pid(&self) -> Option<u32> {
        self.server.pid()
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
