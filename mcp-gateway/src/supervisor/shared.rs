//! What a supervisor's clones and the runners of its servers share: each
//! server's unit (its state and its session), the channels to the runners,
//! the options, the events, the catalogs.

use foldhash::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use mcpdisco::config::ServerConfig;
use mcpdisco::report::ServerReport;
use mcpdisco_client::session::Session;
use mcpdisco_transport::http::HttpClient;
use mcpdisco_transport::sync::{Mutex, RwLock};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;

use super::catalogs::Catalogs;
use super::error::SupervisorError;
use super::events::SupervisorEvent;
use super::gate::offered;
use super::options::SupervisorOptions;
use super::state::Status;

/// What a server's runner is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    /// Start it, if it is stopped.
    Start,
    /// Restart it now.
    Reconnect,
}

/// One supervised server.
pub(crate) struct Unit {
    /// Its config.
    pub(crate) config: ServerConfig,
    /// Its state, as its runner last published it.
    pub(crate) status: watch::Sender<Status>,
    /// Its session while it is connected.
    pub(crate) session: RwLock<Option<Session>>,
    /// Its current session's incarnation (from the supervisor's count of
    /// sessions started): a caller can tell a restarted or replaced server
    /// from the one it used.
    pub(crate) generation: AtomicU64,
    /// Why it last failed, while it is down.
    pub(crate) last_failure: Mutex<Option<String>>,
    /// How many times it was started (telemetry's starts and restarts).
    #[cfg(feature = "otel")]
    pub(crate) starts: AtomicU64,
}

impl Unit {
    /// A stopped server of `config`.
    pub(crate) fn new(config: ServerConfig) -> Self {
        Self {
            config,
            status: watch::Sender::new(Status::Stopped),
            session: RwLock::new(None),
            generation: AtomicU64::new(0),
            last_failure: Mutex::new(None),
            #[cfg(feature = "otel")]
            starts: AtomicU64::new(0),
        }
    }

    /// The server's name.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }
}

/// The servers of a supervisor as of its last config: their units, and
/// the channel to and the task of each enabled one's runner.
#[derive(Default)]
pub(crate) struct Servers {
    /// Every server, by name.
    pub(crate) units: HashMap<String, Arc<Unit>>,
    /// To the runner of every enabled server, by name (dropped with the
    /// supervisor, or when the server leaves the config: the runner then
    /// closes its session and ends).
    pub(crate) commands: HashMap<String, mpsc::Sender<Command>>,
    /// The runner of each enabled server, by name.
    pub(crate) tasks: HashMap<String, JoinHandle<()>>,
}

/// The state of one supervisor.
pub(crate) struct Shared {
    /// Its servers (replaced server by server when the config is reloaded).
    pub(crate) servers: RwLock<Servers>,
    /// How it runs them.
    pub(crate) options: SupervisorOptions,
    /// What it reports.
    pub(crate) events: broadcast::Sender<SupervisorEvent>,
    /// What its servers offer.
    pub(crate) catalogs: Catalogs,
    /// The HTTP client of its HTTP servers (set when the first one is configured).
    pub(crate) http: RwLock<Option<HttpClient>>,
    /// Sessions started so far, over every server it ever ran: each new
    /// session's incarnation, unique for the supervisor's life, so that a
    /// server replaced by a reload never reuses an earlier one's.
    pub(crate) sessions_started: AtomicU64,
}

impl Shared {
    /// The enabled server `server`.
    pub(crate) fn unit(&self, server: &str) -> Result<Arc<Unit>, SupervisorError> {
        let unit = self
            .servers
            .read()
            .units
            .get(server)
            .cloned()
            .ok_or_else(|| SupervisorError::UnknownServer(server.to_owned()))?;
        if unit.config.enabled {
            Ok(unit)
        } else {
            Err(SupervisorError::Disabled(server.to_owned()))
        }
    }

    /// Whether `unit` is no longer the server `server` (a reload removed or
    /// replaced it).
    pub(crate) fn replaced(&self, server: &str, unit: &Arc<Unit>) -> bool {
        self.servers
            .read()
            .units
            .get(server)
            .is_none_or(|current| !Arc::ptr_eq(current, unit))
    }

    /// Every server's unit, in no order.
    pub(crate) fn units(&self) -> Vec<Arc<Unit>> {
        self.servers.read().units.values().cloned().collect()
    }

    /// Tells the runner of `server` to do `command`; false when it cannot
    /// be told (no runner, or too many commands waiting already).
    pub(crate) fn tell(&self, server: &str, command: Command) -> bool {
        self.servers
            .read()
            .commands
            .get(server)
            .is_some_and(|commands| commands.try_send(command).is_ok())
    }

    /// Sets the state of `unit`, and tells subscribers when it changed.
    pub(crate) fn set_status(&self, unit: &Unit, status: Status) {
        let previous = unit.status.send_replace(status);
        if previous != status {
            tracing::debug!(server = %unit.name(), %status, "state");
            #[cfg(feature = "otel")]
            self.record_state(unit, previous, status);
            let _ = self.events.send(SupervisorEvent::Status {
                server: unit.name().to_owned(),
                status,
            });
        }
    }

    /// The supervisor's metrics of a state change (feature `otel`): starts,
    /// restarts, and the state gauge (1 for the new state, 0 for the old).
    #[cfg(feature = "otel")]
    fn record_state(&self, unit: &Unit, previous: Status, status: Status) {
        use mcpdisco_client::opentelemetry::KeyValue;
        use mcpdisco_client::telemetry::names;
        let Some(telemetry) = self.options.session.stack.telemetry_handle() else {
            return;
        };
        let instruments = telemetry.instruments();
        let server = KeyValue::new(names::MCP_SERVER_NAME, unit.name().to_owned());
        if status == Status::Starting {
            instruments
                .supervisor_starts
                .add(1, std::slice::from_ref(&server));
            // Every start after the first is a restart.
            if unit
                .starts
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                > 0
            {
                instruments
                    .supervisor_restarts
                    .add(1, std::slice::from_ref(&server));
            }
        }
        let state = |status: Status, value: i64| {
            instruments.supervisor_state.record(
                value,
                &[
                    server.clone(),
                    KeyValue::new(names::SUPERVISOR_STATE_ATTRIBUTE, status.name()),
                ],
            );
        };
        state(previous, 0);
        state(status, 1);
    }

    /// Records what `server` offers (or, with `None`, that it offers nothing
    /// now) and publishes the new catalog.
    pub(crate) fn offer(&self, server: &str, report: Option<ServerReport>) {
        let catalog = self
            .catalogs
            .record(server, report, |report| self.offered(report));
        let _ = self.events.send(SupervisorEvent::Catalog(catalog));
    }

    /// Forgets `server` (it left the config) and publishes the new catalog.
    pub(crate) fn forget(&self, server: &str) {
        let catalog = self.catalogs.forget(server, |report| self.offered(report));
        let _ = self.events.send(SupervisorEvent::Catalog(catalog));
    }

    /// What is offered of `report`: its server's filters, then the gate.
    fn offered(&self, report: ServerReport) -> ServerReport {
        let unit = self.servers.read().units.get(&report.name).cloned();
        match unit {
            Some(unit) => offered(&unit.config, self.options.gate.as_ref(), report),
            None => report,
        }
    }
}
