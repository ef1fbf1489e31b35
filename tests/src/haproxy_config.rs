//! The HAProxy config of a fleet on loopback, derived from
//! `deploy/haproxy.cfg`: its settings (round-robin, no stickiness, the
//! `/readyz` health check), with the frontend on a free loopback port, the
//! replicas' addresses as its servers and the gateways' token in the check.
//!
//! Plain `std`, no item of this crate: the bench crate (`bench/`, outside
//! the workspace, which must not depend on this crate) compiles this same
//! file (`#[path]`) for its fleet case.

/// The frontend's bind in `deploy/haproxy.cfg`.
const DEPLOY_FRONTEND: &str = "bind 127.0.0.1:8080";
/// The token placeholder of `deploy/haproxy.cfg`'s health check.
const DEPLOY_TOKEN: &str = "replace-me-with-the-token";
/// How `deploy/haproxy.cfg`'s server lines start.
const DEPLOY_SERVERS: &str = "    server gateway";

/// `deploy` (the text of `deploy/haproxy.cfg`) with its frontend on
/// `127.0.0.1:port`, its servers the `replicas` (`127.0.0.1:PORT` each,
/// named `replica1`, …), and its health check sending `token`.
///
/// # Errors
/// The line `deploy` no longer holds that the derivation replaces.
pub fn derive(
    deploy: &str,
    port: u16,
    replicas: &[&str],
    token: &str,
) -> Result<String, &'static str> {
    if let Some(missing) = [DEPLOY_FRONTEND, DEPLOY_TOKEN, DEPLOY_SERVERS]
        .into_iter()
        .find(|needle| !deploy.contains(needle))
    {
        return Err(missing);
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
    Ok(config)
}
