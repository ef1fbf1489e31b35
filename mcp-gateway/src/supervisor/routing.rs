//! Routing by name: which server offers a namespaced item
//! (`<server><separator><name>`), looked up among the ready servers, then
//! among the last listings of servers that are down (a server that is
//! restarting keeps its routes), then after a first start of the servers
//! that never started; and which items a server's filters hide.

use std::sync::Arc;

use mcpdisco::catalog::{Catalog, namespace_of};
use mcpdisco_client::session::ListKind;
use tokio::time::Instant;

use super::Supervisor;
use super::error::{SupervisorError, kind_name};
use super::shared::Command;
use super::state::Status;

impl Supervisor {
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

    /// The last lists of every server that was ever ready, down or not (filters applied).
    pub fn routes(&self) -> Arc<Catalog> {
        self.inner.catalogs.routes()
    }

    /// Starts every server that never started and waits (up to `ready_wait`)
    /// until none is starting.
    pub async fn start_stopped(&self) {
        let deadline = Instant::now() + self.inner.options.ready_wait;
        let units = self.inner.units();
        let waits = units.iter().filter(|unit| unit.config.enabled).map(|unit| {
            let mut status = unit.status.subscribe();
            if *status.borrow() == Status::Stopped {
                self.inner.tell(unit.name(), Command::Start);
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

    /// The error for a namespaced name whose item a server's filter hides.
    fn hidden(&self, kind: ListKind, qualified_name: &str) -> Option<SupervisorError> {
        let separator = &self.inner.options.separator;
        self.inner.units().iter().find_map(|unit| {
            let own = if unit.config.namespaced {
                qualified_name
                    .strip_prefix(&namespace_of(unit.name()))?
                    .strip_prefix(separator.as_str())?
            } else {
                qualified_name
            };
            let filter = unit.config.filters.of(kind);
            (!filter.allows(own)).then(|| SupervisorError::Hidden {
                server: unit.name().to_owned(),
                kind: kind_name(kind),
                name: own.to_owned(),
            })
        })
    }

    /// Whether `server`'s filters let its item `name` of `kind` through.
    pub(crate) fn check_visible(
        &self,
        server: &str,
        kind: ListKind,
        name: &str,
    ) -> Result<(), SupervisorError> {
        let unit = self.inner.unit(server)?;
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
}
