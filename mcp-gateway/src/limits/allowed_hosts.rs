//! Which `Host` a request may name (`serve --allowed-host`): a guard
//! against DNS rebinding, where a page on another site reaches a gateway
//! through a name that resolves to it. Pure: a list and a match.

use std::net::SocketAddr;
use std::str::FromStr;

use super::LimitError;

/// One allowed host: a name or address, with or without a port (any
/// port when none). Names match whatever their case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    /// The name or address, lower-case, IPv6 without its brackets.
    name: String,
    /// The port it must name, if any.
    port: Option<u16>,
}

impl HostPattern {
    /// `name` on any port.
    fn any_port(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            port: None,
        }
    }

    fn matches(&self, name: &str, port: Option<u16>) -> bool {
        self.name == name && self.port.is_none_or(|wanted| port == Some(wanted))
    }
}

impl FromStr for HostPattern {
    type Err = LimitError;

    /// `HOST`, `HOST:PORT`, `[IPV6]`, `[IPV6]:PORT` or a bare IPv6 address.
    fn from_str(text: &str) -> Result<Self, LimitError> {
        let invalid = || LimitError::Host(text.to_owned());
        let (name, port) = split_host(text).ok_or_else(invalid)?;
        if name.is_empty() {
            return Err(invalid());
        }
        Ok(Self { name, port })
    }
}

/// The hosts requests may name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AllowedHosts {
    /// Any `Host` (a non-loopback bind without `--allowed-host`).
    #[default]
    Any,
    /// Only these.
    Only(Vec<HostPattern>),
}

impl AllowedHosts {
    /// `localhost`, `127.0.0.1` and `::1`, on any port.
    pub fn loopback() -> Self {
        Self::Only(vec![
            HostPattern::any_port("localhost"),
            HostPattern::any_port("127.0.0.1"),
            HostPattern::any_port("::1"),
        ])
    }

    /// What `serve --http ADDR` allows: the `listed` hosts; without any,
    /// loopback names on a loopback bind, and any host on another.
    pub fn for_bind(addr: SocketAddr, listed: Vec<HostPattern>) -> Self {
        if !listed.is_empty() {
            Self::Only(listed)
        } else if addr.ip().is_loopback() {
            Self::loopback()
        } else {
            Self::Any
        }
    }

    /// Whether a request naming `host` (its `Host` header or URI
    /// authority; `None` when it names none) may go on.
    pub fn allows(&self, host: Option<&str>) -> bool {
        let Self::Only(patterns) = self else {
            return true;
        };
        let Some((name, port)) = host.and_then(split_host) else {
            return false;
        };
        patterns.iter().any(|pattern| pattern.matches(&name, port))
    }
}

/// A host and its port: `name`, `name:port`, `[v6]`, `[v6]:port`, or a
/// bare IPv6 address (more than one colon); `None` when the port is not a
/// number or the brackets do not close.
fn split_host(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim();
    let (name, port) = if let Some(rest) = text.strip_prefix('[') {
        let (name, after) = rest.split_once(']')?;
        match after {
            "" => (name, None),
            _ => (name, Some(after.strip_prefix(':')?)),
        }
    } else if text.matches(':').count() > 1 {
        (text, None)
    } else {
        match text.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (text, None),
        }
    };
    let port = match port {
        Some(port) => Some(port.parse::<u16>().ok()?),
        None => None,
    };
    Some((name.to_ascii_lowercase(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(patterns: &[&str]) -> AllowedHosts {
        AllowedHosts::Only(patterns.iter().map(|p| p.parse().unwrap()).collect())
    }

    #[test]
    fn a_host_without_a_port_allows_every_port_and_one_with_a_port_only_that_one() {
        let hosts = only(&["mcp.example.com", "gw.internal:8080"]);
        assert!(hosts.allows(Some("mcp.example.com")));
        assert!(hosts.allows(Some("MCP.Example.com:443")));
        assert!(hosts.allows(Some("gw.internal:8080")));
        assert!(!hosts.allows(Some("gw.internal:8081")));
        assert!(!hosts.allows(Some("gw.internal")));
        assert!(!hosts.allows(Some("evil.example.com")));
        assert!(!hosts.allows(Some("mcp.example.com.evil.example:80")));
        assert!(!hosts.allows(None));
        assert!(!hosts.allows(Some("mcp.example.com:notaport")));
    }

    #[test]
    fn a_loopback_bind_allows_loopback_names_only_and_another_bind_any() {
        let loopback = AllowedHosts::for_bind("127.0.0.1:8080".parse().unwrap(), vec![]);
        assert!(loopback.allows(Some("127.0.0.1:8080")));
        assert!(loopback.allows(Some("localhost:8080")));
        assert!(loopback.allows(Some("[::1]:8080")));
        assert!(loopback.allows(Some("::1")));
        assert!(!loopback.allows(Some("attacker.example:8080")));
        assert!(!loopback.allows(Some("10.0.0.1:8080")));
        let open = AllowedHosts::for_bind("0.0.0.0:8080".parse().unwrap(), vec![]);
        assert_eq!(open, AllowedHosts::Any);
        assert!(open.allows(Some("anything.example")));
        assert!(open.allows(None));
        let listed = AllowedHosts::for_bind(
            "127.0.0.1:8080".parse().unwrap(),
            vec!["gw.test".parse().unwrap()],
        );
        assert!(listed.allows(Some("gw.test:8080")));
        assert!(
            !listed.allows(Some("127.0.0.1:8080")),
            "the list replaces the default"
        );
    }

    #[test]
    fn ipv6_hosts_are_read_with_and_without_brackets() {
        let hosts = only(&["[fd00::1]:8080", "fd00::2"]);
        assert!(hosts.allows(Some("[fd00::1]:8080")));
        assert!(!hosts.allows(Some("[fd00::1]:9090")));
        assert!(hosts.allows(Some("[fd00::2]:1")));
        assert!(!hosts.allows(Some("[fd00::1")));
    }

    #[test]
    fn a_pattern_that_is_not_a_host_is_refused() {
        assert!("".parse::<HostPattern>().is_err());
        assert!("host:port".parse::<HostPattern>().is_err());
        assert!(":8080".parse::<HostPattern>().is_err());
        assert!("[::1".parse::<HostPattern>().is_err());
    }
}
