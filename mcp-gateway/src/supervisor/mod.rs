//! Servers kept running for hours: one task per server with explicit
//! states ([`Status`]), health pings, restarts with backoff, a circuit
//! breaker, calls routed by name, and events a host can subscribe to.
//!
//! - **States.** `Stopped → Starting → Ready`; a missed ping makes a server
//!   `Degraded`, three in a row restart it; a failed start waits in
//!   `Backoff` (1 s doubling to 60 s, jittered); five failed starts in a row
//!   make it `Inactive` until a cooldown (5 min) or [`Supervisor::reconnect`],
//!   after which one attempt is made (half-open). The diagram is in
//!   [`state`]. Each server's transitions are a pure state machine (the
//!   `lifecycle` module: events in, actions out, times as values); a thin
//!   runner per server performs its actions on tokio.
//! - **Health.** A ping every 30 s (5 s timeout), configurable. A process
//!   exit or a lost connection is noticed at once ([`Session::closed`]).
//! - **On demand.** A server starts at its first use (or all at once with
//!   [`Supervisor::start_all`]); concurrent first uses start it once.
//! - **Routing.** Calls go by namespaced tool name or by (server, tool). A
//!   server that is restarting keeps its routes: a call to one of its items
//!   waits for it, or is told the server is not ready. A call that was never
//!   delivered (the server was down) waits for the restart and is sent once
//!   more; a call that may have run is never sent again, and its error says so.
//! - **Results.** [`Supervisor::call_tool`], [`call_tool_on`](Supervisor::call_tool_on),
//!   [`read_resource`](Supervisor::read_resource), [`get_prompt`](Supervisor::get_prompt)
//!   and [`complete`](Supervisor::complete) take the protocol's params (tool
//!   arguments as a JSON object, prompt arguments as strings) and
//!   [`RequestOptions`] (progress, timeout, `_meta`), and return the
//!   protocol's results, read straight from the server's text with every
//!   member kept (`_meta`, `structuredContent`, unknown content types). A
//!   modern server's `input_required`, when the options asked to relay it,
//!   is [`SupervisorError::InputRequired`]; a task it runs a call as is
//!   [`SupervisorError::RunsAsTask`], followed with
//!   [`Supervisor::get_task`] and the others, which refuse a task of an
//!   earlier incarnation of the server ([`SupervisorError::Restarted`]).
//! - **Events.** State changes, `list_changed`, and catalog updates, on a
//!   broadcast channel ([`Supervisor::subscribe`]). The catalog is listed
//!   again after every `list_changed` and every restart (a listing that
//!   fails keeps the last good one), and shared as an `Arc` indexed by name.
//!
//! [`Session::closed`]: mcpdisco_client::session::Session::closed
//! [`RequestOptions`]: mcpdisco_client::session::RequestOptions

mod backoff;
mod calls;
mod catalogs;
mod error;
mod events;
mod forwarding;
mod gate;
mod lifecycle;
mod listen;
mod opening;
mod options;
mod relayed_call;
mod reload;
mod routing;
mod runner;
mod shared;
pub mod state;
mod tasks;

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpdisco::catalog::{Catalog, Naming};
use mcpdisco::config::ServerConfig;
use mcpdisco::report::ServerReport;
use mcpdisco_client::session::Session;
use mcpdisco_transport::sync::RwLock;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

pub use error::SupervisorError;
pub use events::SupervisorEvent;
pub use gate::{ItemGate, hide_changed};
pub use options::{HandlerFactory, SupervisorOptions};
pub(crate) use relayed_call::{RelayCallTool, RelayedCall, object_text};
pub use reload::{ReloadPlan, ReloadSummary, ServerChange};
pub use state::{Health, Status};

use catalogs::Catalogs;
use shared::{Command, Servers, Shared};

/// Supervised servers. Cheap to clone; clones share them.
///
/// ```no_run
/// # async fn run(servers: Vec<mcpdisco::config::ServerConfig>) -> Result<(), Box<dyn std::error::Error>> {
/// use mcpdisco_client::session::RequestOptions;
/// use mcpdisco_gateway::supervisor::{Supervisor, SupervisorOptions};
///
/// let supervisor = Supervisor::new(servers, SupervisorOptions::default());
/// let mut arguments = serde_json::Map::new();
/// arguments.insert("path".into(), "/etc/hosts".into());
/// let result = supervisor
///     .call_tool("files__read", Some(arguments), RequestOptions::default())
///     .await?;
/// for block in &result.content {
///     println!("{}", block.as_text().unwrap_or("(not text)"));
/// }
/// supervisor.shutdown().await;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Supervisor {
    inner: Arc<Shared>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervisor")
            .field("servers", &self.servers())
            .finish_non_exhaustive()
    }
}

impl Supervisor {
    /// Supervises `servers`; nothing starts until it is used or [`start_all`](Self::start_all).
    pub fn new(servers: Vec<ServerConfig>, options: SupervisorOptions) -> Self {
        let (events, _) = broadcast::channel(1024);
        let catalogs = Catalogs::new(Naming::of_servers(&options.separator, &servers));
        let http = options.http.clone();
        let inner = Arc::new(Shared {
            servers: RwLock::new(Servers::default()),
            options,
            events,
            catalogs,
            http: RwLock::new(http),
            sessions_started: std::sync::atomic::AtomicU64::new(0),
        });
        for config in servers {
            inner.add(config);
        }
        Self { inner }
    }

    /// Starts every enabled server now (each in its own task, all at once).
    pub fn start_all(&self) {
        let names: Vec<String> = self.inner.servers.read().commands.keys().cloned().collect();
        for server in names {
            self.inner.tell(&server, Command::Start);
        }
    }

    /// The servers' names, in name order.
    pub fn servers(&self) -> Vec<String> {
        let mut names: Vec<String> = self.inner.servers.read().units.keys().cloned().collect();
        names.sort();
        names
    }

    /// The state of `server`.
    pub fn status(&self, server: &str) -> Option<Status> {
        self.inner
            .servers
            .read()
            .units
            .get(server)
            .map(|unit| *unit.status.borrow())
    }

    /// Every server's state, in name order.
    pub fn statuses(&self) -> BTreeMap<String, Status> {
        self.inner
            .servers
            .read()
            .units
            .iter()
            .map(|(name, unit)| (name.clone(), *unit.status.borrow()))
            .collect()
    }

    /// Events from now on: state changes, list changes, catalog updates.
    pub fn subscribe(&self) -> broadcast::Receiver<SupervisorEvent> {
        self.inner.events.subscribe()
    }

    /// The sessions' telemetry (feature `otel`), if they have it.
    #[cfg(feature = "otel")]
    pub fn telemetry(&self) -> Option<&mcpdisco_client::telemetry::Telemetry> {
        self.inner.options.session.stack.telemetry_handle()
    }

    /// The catalog of every ready server, filters applied (shared, not copied).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.inner.catalogs.catalog()
    }

    /// The last report of `server` (as of its last start or listing), while it is ready.
    pub fn report(&self, server: &str) -> Option<ServerReport> {
        self.inner.catalogs.report(server)
    }

    /// The config of `server` (a copy: a reload may replace it).
    pub fn config(&self, server: &str) -> Option<ServerConfig> {
        self.inner
            .servers
            .read()
            .units
            .get(server)
            .map(|unit| unit.config.clone())
    }

    /// Restarts `server` now (also out of `Backoff` and `Inactive`).
    pub fn reconnect(&self, server: &str) -> Result<(), SupervisorError> {
        self.inner.unit(server)?;
        if self.inner.tell(server, Command::Reconnect) {
            Ok(())
        } else {
            Err(SupervisorError::ShutDown)
        }
    }

    /// Stops every server: sessions closed, processes stopped and reaped.
    pub async fn shutdown(&self) {
        let tasks: Vec<JoinHandle<()>> = {
            let mut servers = self.inner.servers.write();
            servers.tasks.drain().map(|(_, task)| task).collect()
        };
        for task in &tasks {
            task.abort();
        }
        for task in tasks {
            let _ = task.await;
        }
        let units = self.inner.units();
        let sessions: Vec<Session> = units
            .iter()
            .filter_map(|unit| unit.session.write().take())
            .collect();
        futures::future::join_all(sessions.iter().map(Session::close)).await;
        for unit in &units {
            unit.status.send_replace(Status::Stopped);
        }
    }
}

#[cfg(test)]
mod tests;
