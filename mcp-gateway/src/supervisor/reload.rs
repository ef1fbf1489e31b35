//! A supervisor's config replaced while it runs (`serve`'s hot reload).
//!
//! [`ReloadPlan::between`] is pure: the old servers and the new, compared
//! by name and launch identity, give one [`ServerChange`] per server:
//!
//! - a new name starts;
//! - a name no longer configured is stopped, its process reaped;
//! - a server whose launch changed (command, arguments, environment, working
//!   folder, URL, headers, custom settings), or whose settings the runner reads
//!   at start changed (enabled, timeout, filters, namespacing, pings, rate limit, auth), restarts;
//! - anything else keeps running, in the same process and session.
//!
//! [`Supervisor::reload`] performs a plan: the servers that stop or restart
//! end first (their runners told to quit, sessions closed, processes
//! reaped, their items out of the catalog), then the new and restarted
//! ones start, each with a runner of its own.

use std::sync::Arc;

use mcpdisco::config::{Launch, ServerConfig};
use mcpdisco_transport::http::HttpClient;
use tokio::sync::mpsc;

use super::Supervisor;
use super::runner::Runner;
use super::shared::{Command, Shared, Unit};

/// What a reload does to one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerChange {
    /// A server that was not configured: it starts.
    Start(String),
    /// A server no longer configured: it stops, its process reaped.
    Stop(String),
    /// A server whose launch or settings changed: it stops and starts again.
    Restart(String),
    /// An unchanged server: it keeps running as it is.
    Keep(String),
}

impl ServerChange {
    /// The server it is about.
    pub fn server(&self) -> &str {
        match self {
            Self::Start(name) | Self::Stop(name) | Self::Restart(name) | Self::Keep(name) => name,
        }
    }
}

/// The changes from one config's servers to another's, in name order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadPlan {
    /// One change per server of either config.
    pub changes: Vec<ServerChange>,
}

impl ReloadPlan {
    /// What turns the servers `old` into `new` (pure: compares, starts nothing).
    pub fn between(old: &[ServerConfig], new: &[ServerConfig]) -> Self {
        let mut names: Vec<&str> = old
            .iter()
            .chain(new)
            .map(|server| server.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        let find = |servers: &[ServerConfig], name: &str| -> Option<usize> {
            servers.iter().position(|server| server.name == name)
        };
        let changes = names
            .into_iter()
            .map(|name| {
                let before = find(old, name).map(|at| &old[at]);
                let after = find(new, name).map(|at| &new[at]);
                let name = name.to_owned();
                match (before, after) {
                    (None, _) => ServerChange::Start(name),
                    (Some(_), None) => ServerChange::Stop(name),
                    (Some(before), Some(after)) if same_server(before, after) => {
                        ServerChange::Keep(name)
                    }
                    (Some(_), Some(_)) => ServerChange::Restart(name),
                }
            })
            .collect();
        Self { changes }
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.changes
            .iter()
            .all(|change| matches!(change, ServerChange::Keep(_)))
    }
}

/// Whether `new` is the server `old` runs as: the same launch (secrets
/// included) and the same settings a runner reads when it starts one.
fn same_server(old: &ServerConfig, new: &ServerConfig) -> bool {
    old.fingerprint_material() == new.fingerprint_material()
        && old.enabled == new.enabled
        && old.timeout == new.timeout
        && old.filters == new.filters
        && old.namespaced == new.namespaced
        && old.ping == new.ping
        && old.rate_limit == new.rate_limit
        && same_auth(old, new)
}

/// Whether both have the same OAuth settings (compared by their `Debug`,
/// which shows every setting but no secret value; a changed secret alone
/// changes the fingerprint of an HTTP server's headers, not this).
fn same_auth(old: &ServerConfig, new: &ServerConfig) -> bool {
    #[cfg(feature = "oauth")]
    {
        format!("{:?}", old.auth) == format!("{:?}", new.auth)
    }
    #[cfg(not(feature = "oauth"))]
    {
        let _ = (old, new);
        true
    }
}

/// What a reload did, by server name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadSummary {
    /// Servers started.
    pub started: Vec<String>,
    /// Servers stopped and reaped.
    pub stopped: Vec<String>,
    /// Servers restarted with their new config.
    pub restarted: Vec<String>,
    /// Servers left running.
    pub kept: Vec<String>,
}

impl std::fmt::Display for ReloadSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |names: &[String]| {
            if names.is_empty() {
                "-".to_owned()
            } else {
                names.join(", ")
            }
        };
        write!(
            f,
            "started: {}; restarted: {}; stopped: {}; unchanged: {}",
            list(&self.started),
            list(&self.restarted),
            list(&self.stopped),
            list(&self.kept)
        )
    }
}

impl Supervisor {
    /// Replaces the supervised servers with `servers`: new ones start,
    /// removed ones stop (processes reaped), changed ones restart, and
    /// unchanged ones keep running in the same process. Returns once every
    /// stopped server is gone and every new one is starting.
    pub async fn reload(&self, servers: Vec<ServerConfig>) -> ReloadSummary {
        let old: Vec<ServerConfig> = self
            .inner
            .units()
            .iter()
            .map(|unit| unit.config.clone())
            .collect();
        let plan = ReloadPlan::between(&old, &servers);
        let mut summary = ReloadSummary::default();
        let mut ending = Vec::new();
        for change in &plan.changes {
            match change {
                ServerChange::Stop(name) => {
                    ending.push(name.clone());
                    summary.stopped.push(name.clone());
                }
                ServerChange::Restart(name) => {
                    ending.push(name.clone());
                    summary.restarted.push(name.clone());
                }
                ServerChange::Start(name) => summary.started.push(name.clone()),
                ServerChange::Keep(name) => summary.kept.push(name.clone()),
            }
        }
        futures::future::join_all(ending.iter().map(|name| self.inner.remove(name))).await;
        self.inner.catalogs.set_plain(
            servers
                .iter()
                .filter(|config| !config.namespaced)
                .map(|config| config.name.clone()),
        );
        for config in servers {
            let starts =
                summary.started.contains(&config.name) || summary.restarted.contains(&config.name);
            if starts {
                let name = config.name.clone();
                self.inner.add(config);
                self.inner.tell(&name, Command::Start);
            }
        }
        summary
    }

    /// Publishes the current catalog again, as if it changed (subscribers
    /// whose view of it changed, such as a profile's, then tell their clients).
    pub fn republish(&self) {
        let catalog = self.catalog();
        let _ = self
            .inner
            .events
            .send(super::events::SupervisorEvent::Catalog(catalog));
    }
}

impl Shared {
    /// Supervises `config` (its runner spawned when it is enabled; nothing
    /// starts until told).
    pub(crate) fn add(self: &Arc<Self>, config: ServerConfig) {
        if matches!(config.launch, Launch::Http { .. }) {
            let mut http = self.http.write();
            if http.is_none() {
                *http = HttpClient::shared().ok();
            }
        }
        let unit = Arc::new(Unit::new(config));
        let name = unit.name().to_owned();
        let mut servers = self.servers.write();
        if unit.config.enabled {
            let (sender, receiver) = mpsc::channel(8);
            servers.commands.insert(name.clone(), sender);
            let runner = Runner::new(self, Arc::clone(&unit));
            servers
                .tasks
                .insert(name.clone(), tokio::spawn(runner.run(receiver)));
        }
        servers.units.insert(name, unit);
    }

    /// Stops supervising `server`: its runner is told to quit (its session
    /// closed, its process reaped) and awaited, and its items leave the
    /// catalog and the routes.
    pub(crate) async fn remove(&self, server: &str) {
        let (commands, task) = {
            let mut servers = self.servers.write();
            servers.units.remove(server);
            (
                servers.commands.remove(server),
                servers.tasks.remove(server),
            )
        };
        // Without its sender the runner's next wait ends in a shutdown.
        drop(commands);
        if let Some(task) = task {
            let _ = task.await;
        }
        self.forget(server);
    }
}

#[cfg(test)]
mod tests;
