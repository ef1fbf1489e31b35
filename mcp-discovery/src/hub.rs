//! The [`Hub`]: long-lived sessions for a host that calls tools.
//!
//! The hub holds the configured servers, starts a session on demand, keeps
//! it open, and routes a call by namespaced tool name (`github__create_issue`)
//! or by server and tool. It keeps the [`Catalog`] current: a `list_changed`
//! notification invalidates that server's cache entry and re-lists it on the
//! next [`catalog`](Hub::catalog) call. A session whose server died is
//! dropped and started again by the next call that needs it.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_transport::sync::{Mutex, MutexGuard};

use serde_json::Value;
use tokio::task::JoinHandle;

use crate::catalog::{Catalog, DEFAULT_SEPARATOR};
use crate::config::ServerConfig;
use crate::connect::ConnectContext;
use crate::discovery::{DiscoveryOptions, describe};
use crate::report::{DiscoveryReport, ServerReport};
use crate::session::{ErrorKind, Session, SessionError};

/// Why a hub call failed.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// No server of that name is configured.
    #[error("no server named '{0}' is configured")]
    UnknownServer(String),
    /// The server is disabled in the configuration.
    #[error("server '{0}' is disabled in the configuration")]
    Disabled(String),
    /// No tool has that namespaced name.
    #[error("no tool named '{0}' in the catalog")]
    UnknownTool(String),
    /// The session failed.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// Sessions kept open for a host, with routing by namespaced name.
pub struct Hub {
    servers: Vec<ServerConfig>,
    options: DiscoveryOptions,
    separator: String,
    sessions: tokio::sync::Mutex<HashMap<String, Session>>,
    state: Arc<Mutex<HubState>>,
    watchers: Mutex<Vec<JoinHandle<()>>>,
}

#[derive(Default)]
struct HubState {
    reports: Vec<ServerReport>,
    catalog: Option<Catalog>,
    /// Servers whose lists changed since the catalog was built.
    stale: Vec<String>,
}

impl Hub {
    /// A hub over `servers`; nothing starts until it is needed.
    pub fn new(servers: Vec<ServerConfig>, options: DiscoveryOptions) -> Self {
        Self {
            servers,
            options,
            separator: DEFAULT_SEPARATOR.to_owned(),
            sessions: tokio::sync::Mutex::new(HashMap::new()),
            state: Arc::default(),
            watchers: Mutex::new(Vec::new()),
        }
    }

    /// Uses `separator` between server and item names in the catalog.
    pub fn with_separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }

    /// The configured servers.
    pub fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    fn server(&self, name: &str) -> Result<&ServerConfig, HubError> {
        let server = self
            .servers
            .iter()
            .find(|server| server.name == name)
            .ok_or_else(|| HubError::UnknownServer(name.to_owned()))?;
        if server.enabled {
            Ok(server)
        } else {
            Err(HubError::Disabled(name.to_owned()))
        }
    }

    /// Discovers every server (the cache answers where it may), keeps the
    /// sessions it opened, and rebuilds the catalog.
    pub async fn discover(&self) -> DiscoveryReport {
        let runner = crate::discovery::Runner::new(&self.servers, &self.options);
        let results = futures::future::join_all(
            self.servers
                .iter()
                .map(|server| runner.discover_one(server, true)),
        )
        .await;
        let mut reports = Vec::with_capacity(results.len());
        for (report, session) in results {
            if let Some(session) = session {
                self.adopt(session).await;
            }
            reports.push(report);
        }
        let report = DiscoveryReport { servers: reports };
        let mut state = self.lock_state();
        state.catalog = Some(Catalog::with_separator(&report.servers, &self.separator));
        state.reports = report.servers.clone();
        state.stale.clear();
        report
    }

    /// The catalog: built by a first [`discover`](Self::discover), and
    /// brought up to date for servers whose lists changed since.
    pub async fn catalog(&self) -> Catalog {
        let stale = {
            let state = self.lock_state();
            match &state.catalog {
                None => None,
                Some(catalog) if state.stale.is_empty() => return catalog.clone(),
                Some(_) => Some(state.stale.clone()),
            }
        };
        let Some(stale) = stale else {
            self.discover().await;
            return self
                .lock_state()
                .catalog
                .clone()
                .unwrap_or_else(|| Catalog::build(&[]));
        };
        for name in stale {
            if let Some(report) = self.relist(&name).await {
                let mut state = self.lock_state();
                if let Some(slot) = state.reports.iter_mut().find(|r| r.name == name) {
                    *slot = report;
                }
            }
        }
        let mut state = self.lock_state();
        state.stale.clear();
        let catalog = Catalog::with_separator(&state.reports, &self.separator);
        state.catalog = Some(catalog.clone());
        catalog
    }

    /// Lists one server again through its open session (or a new one).
    async fn relist(&self, name: &str) -> Option<ServerReport> {
        let server = self.server(name).ok()?;
        let session = self.session(name).await.ok()?;
        let deadline = self.options.deadline_of(server);
        match tokio::time::timeout(deadline, describe(&session)).await {
            Ok(Ok((report, _))) => {
                if let Some(cache) = &self.options.cache {
                    let key = self.options.fingerprint(server);
                    if let Err(error) = cache.store(&key, &report).await {
                        tracing::warn!(server = name, %error, "could not store the new lists");
                    }
                }
                Some(report)
            }
            Ok(Err(error)) => {
                tracing::warn!(server = name, %error, "re-listing after list_changed failed");
                None
            }
            Err(_) => {
                tracing::warn!(server = name, "re-listing after list_changed timed out");
                None
            }
        }
    }

    /// The open session of `server`, started now if there is none.
    pub async fn session(&self, server: &str) -> Result<Session, HubError> {
        let config = self.server(server)?;
        if let Some(session) = self.sessions.lock().await.get(server) {
            return Ok(session.clone());
        }
        let context = ConnectContext {
            http: self.options.http.clone(),
            graces: self.options.graces,
            tracer: self.options.session.tracer.clone(),
            masker: self.options.session.masker.clone(),
        };
        let transport = self.options.connectors.open(config, &context).await?;
        let deadline = self.options.deadline_of(config);
        let connecting = Session::connect_shared(
            &config.name,
            transport.transport(),
            crate::connect::options_for(config, &self.options.session),
        );
        let session = match tokio::time::timeout(deadline, connecting).await {
            Ok(result) => result?,
            Err(_) => {
                transport.close().await;
                return Err(SessionError::new(
                    server,
                    "connect",
                    ErrorKind::Timeout { after: deadline },
                )
                .into());
            }
        };
        Ok(self.adopt(session).await)
    }

    /// Keeps `session` (unless one is already open for its server) and watches its notifications.
    async fn adopt(&self, session: Session) -> Session {
        let name = session.name().to_owned();
        let mut sessions = self.sessions.lock().await;
        if let Some(existing) = sessions.get(&name) {
            let _ = session.close().await;
            return existing.clone();
        }
        sessions.insert(name.clone(), session.clone());
        drop(sessions);
        let mut notifications = session.notifications();
        let state = Arc::clone(&self.state);
        let invalidate = self
            .servers
            .iter()
            .find(|s| s.name == name)
            .and_then(|server| {
                let cache = self.options.cache.clone()?;
                Some((cache, self.options.fingerprint(server)))
            });
        let watcher = tokio::spawn(async move {
            loop {
                match notifications.recv().await {
                    Ok(notification) if notification.invalidates_lists() => {
                        tracing::debug!(server = %name, "list changed");
                        if let Some((cache, key)) = &invalidate {
                            cache.invalidate(key);
                        }
                        let mut state = state.lock();
                        if !state.stale.contains(&name) {
                            state.stale.push(name.clone());
                        }
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        self.watchers.lock().push(watcher);
        session
    }

    /// Calls a tool by its namespaced name, as the catalog lists it.
    pub async fn call_tool(
        &self,
        qualified_name: &str,
        arguments: Value,
    ) -> Result<Value, HubError> {
        let (server, tool) = self.resolve(qualified_name).await?;
        self.call_tool_on(&server, &tool, arguments).await
    }

    /// The server and the tool's own name behind a namespaced name.
    pub async fn resolve(&self, qualified_name: &str) -> Result<(String, String), HubError> {
        let catalog = self.catalog().await;
        catalog
            .tool(qualified_name)
            .map(|entry| (entry.server.clone(), entry.name.clone()))
            .ok_or_else(|| HubError::UnknownTool(qualified_name.to_owned()))
    }

    /// Calls `tool` on `server`. A session whose server is gone is dropped, so
    /// the next call starts it again; the call itself is not retried (a tool
    /// call may not be safe to repeat).
    pub async fn call_tool_on(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<Value, HubError> {
        let session = self.session(server).await?;
        match session.call_tool(tool, arguments).await {
            Ok(result) => Ok(result),
            Err(error) => {
                if is_connection_gone(&error) {
                    self.sessions.lock().await.remove(server);
                    let _ = session.close().await;
                }
                Err(error.into())
            }
        }
    }

    /// Closes every session (processes stopped and reaped).
    pub async fn close(&self) {
        let sessions: Vec<Session> = self.sessions.lock().await.drain().map(|(_, s)| s).collect();
        futures::future::join_all(sessions.iter().map(Session::close)).await;
        for watcher in self.watchers.lock().drain(..) {
            watcher.abort();
        }
    }

    fn lock_state(&self) -> MutexGuard<'_, HubState> {
        self.state.lock()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        for watcher in self.watchers.get_mut().drain(..) {
            watcher.abort();
        }
    }
}

fn is_connection_gone(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Exited { .. } | ErrorKind::ConnectionLost { .. } | ErrorKind::Closed => true,
        ErrorKind::Transport(transport) => transport.is_fatal(),
        _ => false,
    }
}
