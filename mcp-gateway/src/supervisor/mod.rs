//! Servers kept running for hours: one task per server with explicit
//! states ([`Status`]), health pings, restarts with backoff, a circuit
//! breaker, calls routed by name, and events a host can subscribe to.
//!
//! - **States.** `Stopped → Starting → Ready`; a missed ping makes a server
//!   `Degraded`, three in a row restart it; a failed start waits in
//!   `Backoff` (1 s doubling to 60 s, jittered); five failed starts in a row
//!   make it `Inactive` until a cooldown (5 min) or [`Supervisor::reconnect`],
//!   after which one attempt is made (half-open). The diagram is in
//!   [`state`].
//! - **Health.** A ping every 30 s (5 s timeout), configurable. A process
//!   exit or a lost connection is noticed at once ([`Session::closed`]).
//! - **On demand.** A server starts at its first use (or all at once with
//!   [`Supervisor::start_all`]); concurrent first uses start it once.
//! - **Routing.** Calls go by namespaced tool name or by (server, tool). A
//!   call that was never delivered (the server was down) waits for the
//!   restart and is sent once more; a call that may have run is never sent
//!   again, and its error says so.
//! - **Events.** State changes, `list_changed`, and catalog updates, on a
//!   broadcast channel ([`Supervisor::subscribe`]). The catalog is listed
//!   again after every `list_changed` and every restart, and shared as an
//!   `Arc` indexed by name.

mod gate;
pub mod state;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcpdisco_transport::Delivery;
use mcpdisco_transport::http::HttpClient;
use mcpdisco_transport::sync::{Mutex, RwLock};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use gate::{ItemGate, hide_changed};
pub use state::{Health, Status};

use mcpdisco::catalog::{Catalog, DEFAULT_SEPARATOR};
use mcpdisco::config::ServerConfig;
use mcpdisco::connect::{ConnectContext, Connectors, StopGraces, options_for};
use mcpdisco::discovery::describe;
use mcpdisco::report::ServerReport;
use mcpdisco_client::session::{ListKind, RequestOptions, Session, SessionError, SessionOptions};

/// Makes the [`ClientHandler`](mcpdisco_client::session::ClientHandler) of each
/// server's sessions from the server's name (the gateway forwards each
/// server's requests to the client whose call it is serving).
pub type HandlerFactory =
    Arc<dyn Fn(&str) -> Arc<dyn mcpdisco_client::session::ClientHandler> + Send + Sync>;

/// How a supervisor runs its servers.
#[derive(Clone)]
pub struct SupervisorOptions {
    /// Pings, restarts, backoff, the circuit breaker.
    pub health: Health,
    /// The options of every session (policies, handler, capabilities, tracer).
    pub session: SessionOptions,
    /// What starts each server.
    pub connectors: Connectors,
    /// The deadline of one start (process, handshake, lists), unless the
    /// server's config sets its own `timeout`.
    pub start_deadline: Duration,
    /// How long a call waits for its server to become ready.
    pub ready_wait: Duration,
    /// Between server and item names in the catalog.
    pub separator: String,
    /// The HTTP client of HTTP servers; the shared one when `None`.
    pub http: Option<HttpClient>,
    /// How a stopped server's process is shut down.
    pub graces: StopGraces,
    /// The handler of each server's sessions; `session.handler` for all when `None`.
    pub handlers: Option<HandlerFactory>,
    /// Tokens for HTTP servers that need authorization. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub auth: Option<mcpdisco_client::auth::AuthContext>,
    /// A policy that hides items after the config's filters (such as
    /// [`mcpdisco::approval::pins::hide_changed`]): hidden items are neither
    /// listed nor routed.
    pub gate: Option<ItemGate>,
}

impl Default for SupervisorOptions {
    fn default() -> Self {
        Self {
            health: Health::default(),
            session: SessionOptions::default(),
            connectors: Connectors::builtin(),
            start_deadline: Duration::from_secs(30),
            ready_wait: Duration::from_secs(60),
            separator: DEFAULT_SEPARATOR.to_owned(),
            http: None,
            graces: StopGraces::default(),
            handlers: None,
            #[cfg(feature = "oauth")]
            auth: None,
            gate: None,
        }
    }
}

/// What a supervisor reports as it runs.
#[derive(Debug, Clone)]
pub enum SupervisorEvent {
    /// A server changed state.
    Status {
        /// The server.
        server: String,
        /// Its new state.
        status: Status,
    },
    /// A server said one of its lists changed (it is being listed again).
    ListChanged {
        /// The server.
        server: String,
    },
    /// The catalog changed (a server became ready or went away, or listed again).
    Catalog(Arc<Catalog>),
}

/// Why a supervisor could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum SupervisorError {
    /// No server has this name.
    #[error("no server named '{0}'")]
    UnknownServer(String),
    /// No server offers an item of this kind by this namespaced name.
    #[error("no {kind} named '{name}' (it may belong to a server that never became ready)")]
    UnknownItem {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The namespaced name asked for.
        name: String,
    },
    /// The server is disabled in its config.
    #[error("server '{0}' is disabled in its config")]
    Disabled(String),
    /// A filter in the server's config hides the item.
    #[error("server '{server}': {kind} '{name}' is hidden by the server's filter in the config")]
    Hidden {
        /// The server.
        server: String,
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The item's own name.
        name: String,
    },
    /// The server did not become ready in time.
    #[error("server '{server}' is not ready ({status}){}", cause.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    NotReady {
        /// The server.
        server: String,
        /// Its state.
        status: Status,
        /// Why its last start failed, if it did.
        cause: Option<String>,
    },
    /// The server answered with an error, or the connection failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The supervisor was shut down.
    #[error("the supervisor is shut down")]
    ShutDown,
}

/// What a server's task is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Start,
    Reconnect,
}

/// One supervised server.
struct Unit {
    config: ServerConfig,
    status: watch::Sender<Status>,
    session: RwLock<Option<Session>>,
    /// Counts sessions: a caller can tell a restarted server from the one it used.
    generation: AtomicU64,
    commands: mpsc::Sender<Command>,
    last_failure: Mutex<Option<String>>,
}

struct Inner {
    units: HashMap<String, Arc<Unit>>,
    options: SupervisorOptions,
    events: broadcast::Sender<SupervisorEvent>,
    reports: Mutex<BTreeMap<String, ServerReport>>,
    catalog: RwLock<Arc<Catalog>>,
    /// The last lists of every server that was ever ready, down or not: a
    /// call by name to a server that is restarting still finds its server.
    routes: RwLock<Arc<Catalog>>,
    known: Mutex<BTreeMap<String, ServerReport>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    http: Option<HttpClient>,
}

/// Supervised servers. Cheap to clone; clones share them.
#[derive(Clone)]
pub struct Supervisor {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervisor")
            .field("servers", &self.inner.units.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Supervisor {
    /// Supervises `servers`; nothing starts until it is used or [`start_all`](Self::start_all).
    pub fn new(servers: Vec<ServerConfig>, options: SupervisorOptions) -> Self {
        let (events, _) = broadcast::channel(1024);
        let needs_http = servers
            .iter()
            .any(|s| matches!(s.launch, mcpdisco::config::Launch::Http { .. }));
        let http = match &options.http {
            Some(client) => Some(client.clone()),
            None if needs_http => HttpClient::shared().ok(),
            None => None,
        };
        let mut units = HashMap::new();
        let mut receivers = Vec::new();
        for config in servers {
            let (commands, receiver) = mpsc::channel(8);
            let unit = Arc::new(Unit {
                status: watch::Sender::new(Status::Stopped),
                session: RwLock::new(None),
                generation: AtomicU64::new(0),
                commands,
                last_failure: Mutex::new(None),
                config,
            });
            receivers.push((Arc::clone(&unit), receiver));
            units.insert(unit.config.name.clone(), unit);
        }
        let separator = options.separator.clone();
        let inner = Arc::new(Inner {
            units,
            options,
            events,
            reports: Mutex::new(BTreeMap::new()),
            catalog: RwLock::new(Arc::new(Catalog::with_separator(&[], &separator))),
            routes: RwLock::new(Arc::new(Catalog::with_separator(&[], &separator))),
            known: Mutex::new(BTreeMap::new()),
            tasks: Mutex::new(Vec::new()),
            http,
        });
        let mut tasks = Vec::new();
        for (unit, receiver) in receivers {
            if unit.config.enabled {
                let runner = Runner {
                    inner: Arc::downgrade(&inner),
                    unit,
                };
                tasks.push(tokio::spawn(runner.run(receiver)));
            }
        }
        *inner.tasks.lock() = tasks;
        Self { inner }
    }

    /// Starts every enabled server now (each in its own task, all at once).
    pub fn start_all(&self) {
        for unit in self.inner.units.values() {
            let _ = unit.commands.try_send(Command::Start);
        }
    }

    /// The servers' names, in name order.
    pub fn servers(&self) -> Vec<String> {
        let mut names: Vec<String> = self.inner.units.keys().cloned().collect();
        names.sort();
        names
    }

    /// The state of `server`.
    pub fn status(&self, server: &str) -> Option<Status> {
        self.inner
            .units
            .get(server)
            .map(|unit| *unit.status.borrow())
    }

    /// Every server's state, in name order.
    pub fn statuses(&self) -> BTreeMap<String, Status> {
        self.inner
            .units
            .iter()
            .map(|(name, unit)| (name.clone(), *unit.status.borrow()))
            .collect()
    }

    /// Events from now on: state changes, list changes, catalog updates.
    pub fn subscribe(&self) -> broadcast::Receiver<SupervisorEvent> {
        self.inner.events.subscribe()
    }

    /// The catalog of every ready server, filters applied (shared, not copied).
    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.inner.catalog.read())
    }

    /// The last report of `server` (as of its last start or listing).
    pub fn report(&self, server: &str) -> Option<ServerReport> {
        self.inner.reports.lock().get(server).cloned()
    }

    /// The config of `server`.
    pub fn config(&self, server: &str) -> Option<&ServerConfig> {
        self.inner.units.get(server).map(|unit| &unit.config)
    }

    fn unit(&self, server: &str) -> Result<&Arc<Unit>, SupervisorError> {
        let unit = self
            .inner
            .units
            .get(server)
            .ok_or_else(|| SupervisorError::UnknownServer(server.to_owned()))?;
        if unit.config.enabled {
            Ok(unit)
        } else {
            Err(SupervisorError::Disabled(server.to_owned()))
        }
    }

    /// Restarts `server` now (also out of `Backoff` and `Inactive`).
    pub fn reconnect(&self, server: &str) -> Result<(), SupervisorError> {
        let unit = self.unit(server)?;
        unit.commands
            .try_send(Command::Reconnect)
            .map_err(|_| SupervisorError::ShutDown)
    }

    /// The connected session of `server`, starting it if need be and waiting
    /// (up to the options' `ready_wait`) until it is ready.
    pub async fn session(&self, server: &str) -> Result<Session, SupervisorError> {
        self.session_after(server, None).await
    }

    /// Like [`session`](Self::session), but not the session of generation
    /// `stale` (one whose server is known to be gone).
    async fn session_after(
        &self,
        server: &str,
        stale: Option<u64>,
    ) -> Result<Session, SupervisorError> {
        let unit = self.unit(server)?;
        let mut status = unit.status.subscribe();
        if *status.borrow() == Status::Stopped {
            let _ = unit.commands.try_send(Command::Start);
        }
        let deadline = Instant::now() + self.inner.options.ready_wait;
        loop {
            let current = *status.borrow_and_update();
            // The circuit is open: waiting would only run into the deadline.
            if matches!(current, Status::Inactive { .. }) {
                return Err(SupervisorError::NotReady {
                    server: server.to_owned(),
                    status: current,
                    cause: unit.last_failure.lock().clone(),
                });
            }
            if current.is_connected() {
                let generation = unit.generation.load(Ordering::Acquire);
                if stale != Some(generation)
                    && let Some(session) = unit.session.read().clone()
                {
                    return Ok(session);
                }
            }
            match tokio::time::timeout_at(deadline, status.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(SupervisorError::ShutDown),
                Err(_) => {
                    return Err(SupervisorError::NotReady {
                        server: server.to_owned(),
                        status: current,
                        cause: unit.last_failure.lock().clone(),
                    });
                }
            }
        }
    }

    /// The server and own name of a namespaced tool name: from the catalog,
    /// else from the last lists of servers that are down, else after
    /// starting the servers that never started (a first use).
    pub async fn resolve_tool(
        &self,
        qualified_name: &str,
    ) -> Result<(String, String), SupervisorError> {
        self.resolve(ListKind::Tools, qualified_name).await
    }

    /// The server and own name of a namespaced item of `kind` (tools and
    /// prompts by name, resources and templates by their namespaced name),
    /// like [`resolve_tool`](Self::resolve_tool). A name that a server's
    /// filter hides is [`SupervisorError::Hidden`].
    pub async fn resolve(
        &self,
        kind: ListKind,
        qualified_name: &str,
    ) -> Result<(String, String), SupervisorError> {
        let find = |catalog: &Catalog| {
            catalog
                .find(kind, qualified_name)
                .map(|entry| (entry.server.clone(), entry.name.clone()))
        };
        if let Some(found) = find(&self.catalog()).or_else(|| find(&self.routes())) {
            return Ok(found);
        }
        self.start_stopped().await;
        if let Some(found) = find(&self.catalog()).or_else(|| find(&self.routes())) {
            return Ok(found);
        }
        Err(self
            .hidden(kind, qualified_name)
            .unwrap_or_else(|| SupervisorError::UnknownItem {
                kind: kind_name(kind),
                name: qualified_name.to_owned(),
            }))
    }

    /// The error for a namespaced name whose item a server's filter hides.
    fn hidden(&self, kind: ListKind, qualified_name: &str) -> Option<SupervisorError> {
        let separator = &self.inner.options.separator;
        self.inner.units.values().find_map(|unit| {
            let own = qualified_name
                .strip_prefix(&mcpdisco::catalog::namespace_of(&unit.config.name))?
                .strip_prefix(separator.as_str())?;
            let filter = unit.config.filters.of(kind);
            (!filter.allows(own)).then(|| SupervisorError::Hidden {
                server: unit.config.name.clone(),
                kind: kind_name(kind),
                name: own.to_owned(),
            })
        })
    }

    /// The last lists of every server that was ever ready, down or not (filters applied).
    pub fn routes(&self) -> Arc<Catalog> {
        Arc::clone(&self.inner.routes.read())
    }

    /// Starts every server that never started and waits (up to `ready_wait`)
    /// until none is starting.
    pub async fn start_stopped(&self) {
        let deadline = Instant::now() + self.inner.options.ready_wait;
        let waits = self
            .inner
            .units
            .values()
            .filter(|unit| unit.config.enabled)
            .map(|unit| {
                let mut status = unit.status.subscribe();
                if *status.borrow() == Status::Stopped {
                    let _ = unit.commands.try_send(Command::Start);
                }
                async move {
                    let _ = tokio::time::timeout_at(
                        deadline,
                        status.wait_for(|s| !matches!(s, Status::Stopped | Status::Starting)),
                    )
                    .await;
                }
            });
        futures::future::join_all(waits).await;
    }

    /// Calls a tool by its namespaced name, as the catalog lists it.
    pub async fn call_tool(
        &self,
        qualified_name: &str,
        arguments: Value,
    ) -> Result<Value, SupervisorError> {
        let (server, tool) = self.resolve_tool(qualified_name).await?;
        self.call_tool_on(&server, &tool, arguments).await
    }

    /// Calls `tool` on `server`. A call that was never delivered because the
    /// server was down waits for the restart and is sent once more; one that
    /// may have run is never sent again.
    pub async fn call_tool_on(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<Value, SupervisorError> {
        self.call_tool_with(server, tool, arguments, RequestOptions::default())
            .await
    }

    /// [`call_tool_on`](Self::call_tool_on) with request options (progress, timeout).
    pub async fn call_tool_with(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<Value, SupervisorError> {
        self.check_visible(server, ListKind::Tools, tool)?;
        self.deliver(server, |session| {
            let (arguments, options) = (arguments.clone(), options.clone());
            async move {
                // Never sent again once it may have run; the error says so.
                session
                    .call_tool_with(tool, arguments, options)
                    .await
                    .map_err(|error| {
                        if error.may_have_run() {
                            error.not_repeated()
                        } else {
                            error
                        }
                    })
            }
        })
        .await
    }

    /// `resources/read` on `server`.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<Value, SupervisorError> {
        self.read_resource_with(server, uri, RequestOptions::default())
            .await
    }

    /// [`read_resource`](Self::read_resource) with request options.
    pub async fn read_resource_with(
        &self,
        server: &str,
        uri: &str,
        options: RequestOptions,
    ) -> Result<Value, SupervisorError> {
        self.check_visible(server, ListKind::Resources, uri)?;
        self.deliver(server, |session| {
            let options = options.clone();
            async move { session.read_resource_with(uri, options).await }
        })
        .await
    }

    /// `prompts/get` on `server`.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
    ) -> Result<Value, SupervisorError> {
        self.get_prompt_with(server, name, arguments, RequestOptions::default())
            .await
    }

    /// [`get_prompt`](Self::get_prompt) with request options.
    pub async fn get_prompt_with(
        &self,
        server: &str,
        name: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<Value, SupervisorError> {
        self.check_visible(server, ListKind::Prompts, name)?;
        self.deliver(server, |session| {
            let (arguments, options) = (arguments.clone(), options.clone());
            async move { session.get_prompt_with(name, arguments, options).await }
        })
        .await
    }

    /// Sends one request to `server` through `send`: once, and once more
    /// after a restart when it was never delivered because the server was down.
    async fn deliver<F, Fut>(&self, server: &str, send: F) -> Result<Value, SupervisorError>
    where
        F: Fn(Session) -> Fut,
        Fut: std::future::Future<Output = Result<Value, SessionError>>,
    {
        let unit = self.unit(server)?;
        let session = self.session(server).await?;
        let generation = unit.generation.load(Ordering::Acquire);
        match send(session.clone()).await {
            Err(error) if error.delivery() == Delivery::NotSent && session.gone().is_some() => {
                tracing::info!(
                    server,
                    "the server was down; sending again once it restarts"
                );
                let restarted = self.session_after(server, Some(generation)).await?;
                Ok(send(restarted).await?)
            }
            other => Ok(other?),
        }
    }

    fn check_visible(
        &self,
        server: &str,
        kind: ListKind,
        name: &str,
    ) -> Result<(), SupervisorError> {
        let unit = self.unit(server)?;
        if unit.config.filters.of(kind).allows(name) {
            Ok(())
        } else {
            Err(SupervisorError::Hidden {
                server: server.to_owned(),
                kind: kind_name(kind),
                name: name.to_owned(),
            })
        }
    }

    /// Stops every server: sessions closed, processes stopped and reaped.
    pub async fn shutdown(&self) {
        let tasks: Vec<JoinHandle<()>> = self.inner.tasks.lock().drain(..).collect();
        for task in &tasks {
            task.abort();
        }
        for task in tasks {
            let _ = task.await;
        }
        let sessions: Vec<Session> = self
            .inner
            .units
            .values()
            .filter_map(|unit| unit.session.write().take())
            .collect();
        futures::future::join_all(sessions.iter().map(Session::close)).await;
        for unit in self.inner.units.values() {
            unit.status.send_replace(Status::Stopped);
        }
    }
}

impl Inner {
    fn set_status(&self, unit: &Unit, status: Status) {
        let changed = *unit.status.borrow() != status;
        unit.status.send_replace(status);
        if changed {
            tracing::debug!(server = %unit.config.name, %status, "state");
            let _ = self.events.send(SupervisorEvent::Status {
                server: unit.config.name.clone(),
                status,
            });
        }
    }

    /// Records what `server` offers (or that it offers nothing now) and
    /// publishes the new catalog.
    fn update(&self, server: &str, report: Option<ServerReport>) {
        let filter = |reports: Vec<ServerReport>| -> Vec<ServerReport> {
            reports
                .into_iter()
                .map(|report| match self.units.get(&report.name) {
                    Some(unit) => {
                        let report = unit.config.filters.apply(report);
                        match &self.options.gate {
                            Some(gate) => gate(&unit.config, report),
                            None => report,
                        }
                    }
                    None => report,
                })
                .collect()
        };
        if let Some(report) = &report {
            let known: Vec<ServerReport> = {
                let mut known = self.known.lock();
                known.insert(server.to_owned(), report.clone());
                known.values().cloned().collect()
            };
            *self.routes.write() = Arc::new(Catalog::with_separator(
                &filter(known),
                &self.options.separator,
            ));
        }
        let reports: Vec<ServerReport> = {
            let mut reports = self.reports.lock();
            match report {
                Some(report) => {
                    reports.insert(server.to_owned(), report);
                }
                None => {
                    reports.remove(server);
                }
            }
            reports.values().cloned().collect()
        };
        let catalog = Arc::new(Catalog::with_separator(
            &filter(reports),
            &self.options.separator,
        ));
        *self.catalog.write() = Arc::clone(&catalog);
        let _ = self.events.send(SupervisorEvent::Catalog(catalog));
    }
}

/// The task of one server.
struct Runner {
    inner: std::sync::Weak<Inner>,
    unit: Arc<Unit>,
}

/// What ended a connected server's watch.
enum Watch {
    /// It is gone, or stopped answering: restart it.
    Lost(String),
    /// Asked to restart.
    Reconnect,
    /// The supervisor is gone.
    Quit,
}

impl Runner {
    async fn run(self, mut commands: mpsc::Receiver<Command>) {
        let mut failures: u32 = 0;
        let mut next = Status::Stopped;
        loop {
            let Some(inner) = self.inner.upgrade() else {
                return;
            };
            inner.set_status(&self.unit, next);
            next = match next {
                Status::Stopped => match commands.recv().await {
                    Some(_) => Status::Starting,
                    None => return,
                },
                Status::Starting => match self.start(&inner).await {
                    Ok(()) => {
                        failures = 0;
                        Status::Ready
                    }
                    Err(cause) => {
                        failures += 1;
                        tracing::info!(server = %self.unit.config.name, failures, %cause, "start failed");
                        *self.unit.last_failure.lock() = Some(cause);
                        inner.health_after_failure(failures)
                    }
                },
                Status::Ready | Status::Degraded { .. } => {
                    drop(inner);
                    match self.watch(&mut commands).await {
                        Watch::Quit => return,
                        Watch::Reconnect => {
                            self.stop().await;
                            failures = 0;
                            Status::Starting
                        }
                        Watch::Lost(cause) => {
                            *self.unit.last_failure.lock() = Some(cause);
                            self.stop().await;
                            let Some(inner) = self.inner.upgrade() else {
                                return;
                            };
                            // A server that ran and then died gets the first backoff.
                            failures = 1;
                            inner.health_after_failure(failures)
                        }
                    }
                }
                Status::Backoff { until, .. } | Status::Inactive { until } => {
                    let inactive = matches!(next, Status::Inactive { .. });
                    drop(inner);
                    tokio::select! {
                        () = tokio::time::sleep_until(until) => {
                            if inactive {
                                // Half-open: one more failure and it is inactive again.
                                failures = failures.saturating_sub(1);
                            }
                            Status::Starting
                        }
                        command = commands.recv() => match command {
                            Some(Command::Reconnect) => {
                                failures = 0;
                                Status::Starting
                            }
                            Some(Command::Start) => next,
                            None => return,
                        },
                    }
                }
            };
        }
    }

    /// Starts the server: connection, handshake, lists; publishes them.
    async fn start(&self, inner: &Inner) -> Result<(), String> {
        let config = &self.unit.config;
        let deadline = config.timeout.unwrap_or(inner.options.start_deadline);
        let mut options = options_for(config, &inner.options.session);
        options.deadline = Some(Instant::now() + deadline);
        if let Some(handlers) = &inner.options.handlers {
            options.handler = handlers(&config.name);
        }
        let context = ConnectContext {
            http: inner.http.clone(),
            graces: inner.options.graces,
            tracer: options.tracer.clone(),
            masker: options.masker.clone(),
            #[cfg(feature = "oauth")]
            auth: inner.options.auth.clone(),
        };
        let connectors = inner.options.connectors.clone();
        let name = config.name.clone();
        let work = async {
            let connection = connectors
                .open(config, &context)
                .await
                .map_err(|e| e.to_string())?;
            let options = connection.session_options(options);
            let session = Session::connect_shared(&name, connection.transport(), options)
                .await
                .map_err(|e| e.to_string())?;
            match describe(&session).await {
                Ok((report, _)) => Ok((session, report)),
                Err(error) => {
                    let _ = session.close().await;
                    Err(error.to_string())
                }
            }
        };
        let (session, report) = match tokio::time::timeout(deadline, work).await {
            Ok(result) => result?,
            Err(_) => {
                return Err(format!(
                    "server '{name}': not ready within the {deadline:?} deadline"
                ));
            }
        };
        session.set_deadline(None);
        *self.unit.session.write() = Some(session);
        self.unit.generation.fetch_add(1, Ordering::AcqRel);
        *self.unit.last_failure.lock() = None;
        inner.update(&name, Some(report));
        Ok(())
    }

    /// Closes the session and takes the server out of the catalog.
    async fn stop(&self) {
        let session = self.unit.session.write().take();
        if let Some(inner) = self.inner.upgrade() {
            inner.update(&self.unit.config.name, None);
        }
        if let Some(session) = session {
            let _ = session.close().await;
        }
    }

    /// Watches a connected server until it is lost or asked to restart.
    async fn watch(&self, commands: &mut mpsc::Receiver<Command>) -> Watch {
        let Some(session) = self.unit.session.read().clone() else {
            return Watch::Lost("no session".into());
        };
        let Some(mut health) = self
            .inner
            .upgrade()
            .map(|inner| inner.options.health.clone())
        else {
            return Watch::Quit;
        };
        let own = self.unit.config.ping;
        health.ping_interval = own.interval.unwrap_or(health.ping_interval);
        health.ping_timeout = own.timeout.unwrap_or(health.ping_timeout);
        let mut notifications = session.notifications();
        let closed = session.closed();
        tokio::pin!(closed);
        let mut missed: u32 = 0;
        let mut next_ping = Instant::now() + health.ping_interval;
        loop {
            tokio::select! {
                () = &mut closed => {
                    let cause = session
                        .gone()
                        .map_or_else(|| "the connection ended".to_owned(), |error| error.to_string());
                    return Watch::Lost(cause);
                }
                () = tokio::time::sleep_until(next_ping) => {
                    next_ping = Instant::now() + health.ping_interval;
                    let pinged = tokio::time::timeout(health.ping_timeout, session.ping()).await;
                    let Some(inner) = self.inner.upgrade() else {
                        return Watch::Quit;
                    };
                    match pinged {
                        Ok(Ok(())) => {
                            missed = 0;
                            inner.set_status(&self.unit, Status::Ready);
                        }
                        _ => {
                            missed += 1;
                            if missed >= health.missed_pings {
                                return Watch::Lost(format!(
                                    "server '{}': {missed} pings in a row went unanswered",
                                    self.unit.config.name
                                ));
                            }
                            inner.set_status(&self.unit, Status::Degraded { missed });
                        }
                    }
                }
                notification = notifications.recv() => {
                    let changed = match notification {
                        Ok(notification) => notification.invalidates_lists(),
                        Err(broadcast::error::RecvError::Lagged(_)) => true,
                        Err(broadcast::error::RecvError::Closed) => continue,
                    };
                    if changed {
                        self.relist(&session).await;
                    }
                }
                command = commands.recv() => match command {
                    Some(Command::Reconnect) => return Watch::Reconnect,
                    Some(Command::Start) => {}
                    None => return Watch::Quit,
                },
            }
        }
    }

    /// Lists a server again after it said its lists changed.
    async fn relist(&self, session: &Session) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let name = self.unit.config.name.clone();
        let _ = inner.events.send(SupervisorEvent::ListChanged {
            server: name.clone(),
        });
        let deadline = self
            .unit
            .config
            .timeout
            .unwrap_or(inner.options.start_deadline);
        match tokio::time::timeout(deadline, describe(session)).await {
            Ok(Ok((report, _))) => inner.update(&name, Some(report)),
            Ok(Err(error)) => {
                tracing::warn!(server = %name, %error, "listing again after list_changed failed")
            }
            Err(_) => tracing::warn!(server = %name, "listing again after list_changed timed out"),
        }
    }
}

/// How errors name an item kind.
fn kind_name(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tool",
        ListKind::Prompts => "prompt",
        ListKind::Resources => "resource",
        ListKind::ResourceTemplates => "resource template",
    }
}

impl Inner {
    fn health_after_failure(&self, failures: u32) -> Status {
        self.options.health.after_failure(failures, Instant::now())
    }
}

#[cfg(test)]
mod tests;
