//! `cargo xtask deploy` (and the `deploy` step of `test`): the files an
//! operator applies are checked offline. Every manifest of
//! `deploy/kubernetes/` against the Kubernetes 1.37.0 schemas
//! (`kubernetes-validate --strict`, which ships them), and
//! `deploy/haproxy.cfg` by `haproxy -c` and for stickiness (no `cookie`, no
//! `stick`, no `balance source`/`hdr`: any replica serves any session).

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::tools::Tools;
use crate::workspace::Workspace;

/// The Kubernetes release the manifests are checked against.
pub const KUBERNETES_VERSION: &str = "1.37.0";
const CHECK_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Checks the manifests and the HAProxy config.
pub fn run(ws: &Workspace, tools: &Tools) -> Result<()> {
    let deploy = ws.root().join("deploy");
    let manifests = manifests(&deploy.join("kubernetes"))?;
    let mut validate = Command::new(tools.venv_bin("kubernetes-validate"));
    validate
        .args(["--strict", "--kubernetes-version", KUBERNETES_VERSION])
        .args(&manifests);
    println!("deploy: {}", process::describe(&validate));
    process::run_checked(&mut validate, CHECK_TIMEOUT)
        .context("the Kubernetes manifests do not validate")?;
    let haproxy_cfg = deploy.join("haproxy.cfg");
    let text = fs::read_to_string(&haproxy_cfg)
        .with_context(|| format!("cannot read {}", haproxy_cfg.display()))?;
    let sticky = stickiness(&text);
    if !sticky.is_empty() {
        bail!(
            "{} makes sessions sticky (any replica must serve any session): {}",
            haproxy_cfg.display(),
            sticky.join("; ")
        );
    }
    let mut check = Command::new(tools.haproxy());
    check
        .arg("-c")
        .arg("-f")
        .arg(&haproxy_cfg)
        .env("LD_LIBRARY_PATH", tools.haproxy_lib_dir());
    println!("deploy: {}", process::describe(&check));
    process::run_checked(&mut check, CHECK_TIMEOUT)
        .with_context(|| format!("haproxy -c refuses {}", haproxy_cfg.display()))?;
    println!(
        "deploy: {} manifests and haproxy.cfg are valid",
        manifests.len()
    );
    Ok(())
}

/// Every `*.yaml` of `dir`, sorted; an empty folder is an error.
fn manifests(dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    found.sort();
    if found.is_empty() {
        bail!("no manifest in {}", dir.display());
    }
    Ok(found)
}

/// The lines of an HAProxy config that make a session stick to one
/// server: `cookie`, `stick …`, `stick-table`, `balance source` or
/// `balance hdr(…)` (comments ignored).
fn stickiness(config: &str) -> Vec<String> {
    config
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("cookie" | "stick" | "stick-table") => true,
                Some("balance") => words
                    .next()
                    .is_some_and(|how| how == "source" || how.starts_with("hdr")),
                Some("server" | "default-server") => {
                    line.split_whitespace().any(|word| word == "cookie")
                }
                _ => false,
            }
        })
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_without_cookies_is_not_sticky() {
        let config =
            "backend b\n    balance roundrobin # not source\n    server a 127.0.0.1:1 check\n";
        assert!(stickiness(config).is_empty());
    }

    #[test]
    fn cookies_stick_tables_and_hashing_balances_are_sticky() {
        let config = "backend b\n  cookie SRV insert\n  stick-table type ip size 1m\n  stick on src\n  balance source\n  balance hdr(Mcp-Session-Id)\n  server a 127.0.0.1:1 cookie a\n";
        assert_eq!(stickiness(config).len(), 6, "{:?}", stickiness(config));
    }

    #[test]
    fn the_shipped_config_is_not_sticky() {
        let ws = Workspace::locate().unwrap();
        let text = fs::read_to_string(ws.root().join("deploy/haproxy.cfg")).unwrap();
        assert_eq!(stickiness(&text), Vec::<String>::new());
        assert!(text.contains("balance roundrobin"));
    }
}
