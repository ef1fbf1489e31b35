//! The catalogs a supervisor keeps: what its ready servers offer (the
//! catalog clients list), and the last listing of every server that was
//! ever ready (the routes: a call by name to a server that is restarting
//! still finds its server, and waits for it or is told it is not ready).
//!
//! A re-listing that fails keeps the last good one: the runner offers none
//! when the listing failed as a whole, and a list the server answered with
//! an error keeps its last good items ([`keep_good_lists`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpdisco::catalog::{Catalog, NameClash, Naming};
use mcpdisco::report::ServerReport;
use mcpdisco_client::session::ListKind;
use mcpdisco_protocol::types::ServerCapabilities;
use mcpdisco_transport::sync::{Mutex, RwLock};

/// The listings of a supervisor's servers and the catalogs built of them.
pub(crate) struct Catalogs {
    /// How items are named: the separator, and which servers keep their names.
    naming: RwLock<Naming>,
    /// What every ready server listed, as it sent it.
    ready: Mutex<BTreeMap<String, ServerReport>>,
    /// What every server that was ever ready last listed, as it sent it.
    last: Mutex<BTreeMap<String, ServerReport>>,
    catalog: RwLock<Arc<Catalog>>,
    routes: RwLock<Arc<Catalog>>,
}

impl Catalogs {
    /// No server listed yet; items are named by `naming`.
    pub(crate) fn new(naming: Naming) -> Self {
        let empty = || RwLock::new(Arc::new(Catalog::build(&[], &naming)));
        Self {
            naming: RwLock::new(naming.clone()),
            ready: Mutex::new(BTreeMap::new()),
            last: Mutex::new(BTreeMap::new()),
            catalog: empty(),
            routes: empty(),
        }
    }

    /// What the ready servers offer.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog.read())
    }

    /// What every server that was ever ready offered last, down or not.
    pub(crate) fn routes(&self) -> Arc<Catalog> {
        Arc::clone(&self.routes.read())
    }

    /// What `server` listed, while it is ready.
    pub(crate) fn report(&self, server: &str) -> Option<ServerReport> {
        self.ready.lock().get(server).cloned()
    }

    /// What `server` declared when it was last ready, down or not (`None`:
    /// it never was, or declared nothing).
    pub(crate) fn last_capabilities(&self, server: &str) -> Option<ServerCapabilities> {
        self.last.lock().get(server)?.capabilities.clone()
    }

    /// Records `report` as what `server` lists now, or (`None`) that it is
    /// down, its last listing kept among the routes; rebuilds the catalogs
    /// with `offered` (what is offered of each listing) and answers the new
    /// catalog.
    pub(crate) fn record(
        &self,
        server: &str,
        report: Option<ServerReport>,
        offered: impl Fn(ServerReport) -> ServerReport,
    ) -> Arc<Catalog> {
        let build = |reports: &BTreeMap<String, ServerReport>| self.build(reports, &offered);
        if let Some(report) = &report {
            // Built and stored under the lock: a slower update never
            // replaces a newer one.
            let mut last = self.last.lock();
            last.insert(server.to_owned(), report.clone());
            *self.routes.write() = build(&last);
        }
        let mut ready = self.ready.lock();
        match report {
            Some(report) => {
                let report = match ready.get(server) {
                    Some(previous) => keep_good_lists(previous, report),
                    None => report,
                };
                ready.insert(server.to_owned(), report)
            }
            None => ready.remove(server),
        };
        let catalog = build(&ready);
        let previous = std::mem::replace(&mut *self.catalog.write(), Arc::clone(&catalog));
        report_new_clashes(&previous.clashes, &catalog.clashes);
        catalog
    }

    /// Which servers keep their items' own names from now on (a reloaded
    /// config): takes effect as each server's listing is next recorded.
    pub(crate) fn set_plain(&self, plain: impl IntoIterator<Item = String>) {
        let mut naming = self.naming.write();
        naming.plain = plain.into_iter().collect();
    }

    /// The catalog of `reports`, each as `offered`, named as configured.
    fn build(
        &self,
        reports: &BTreeMap<String, ServerReport>,
        offered: impl Fn(ServerReport) -> ServerReport,
    ) -> Arc<Catalog> {
        let reports: Vec<ServerReport> = reports.values().cloned().map(offered).collect();
        let naming = self.naming.read().clone();
        Arc::new(Catalog::build(&reports, &naming))
    }
}

/// Logs each clash of plain names in `now` that was not in `before`: an
/// item of a `"namespace": false` server left out of what is served.
fn report_new_clashes(before: &[NameClash], now: &[NameClash]) {
    for clash in now.iter().filter(|clash| !before.contains(clash)) {
        tracing::error!(server = %clash.left_out, other = %clash.held_by, "{clash}");
    }
}

impl Catalogs {
    /// Forgets `server` (it left the config): its items leave the catalog
    /// and the routes. Answers the new catalog.
    pub(crate) fn forget(
        &self,
        server: &str,
        offered: impl Fn(ServerReport) -> ServerReport,
    ) -> Arc<Catalog> {
        let build = |reports: &BTreeMap<String, ServerReport>| self.build(reports, &offered);
        {
            let mut last = self.last.lock();
            if last.remove(server).is_some() {
                *self.routes.write() = build(&last);
            }
        }
        let mut ready = self.ready.lock();
        if ready.remove(server).is_some() {
            *self.catalog.write() = build(&ready);
        }
        Arc::clone(&self.catalog.read())
    }
}

/// `fresh`, a ready server's new listing, with the items of each list it
/// failed to get (the server answered that list with an error) taken from
/// `previous`, its last listing.
fn keep_good_lists(previous: &ServerReport, mut fresh: ServerReport) -> ServerReport {
    for kind in ListKind::ALL {
        if fresh.list_errors.contains_key(kind.method()) {
            fresh.set_items(kind, previous.items(kind).to_vec());
        }
    }
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    use mcpdisco::report::{Failure, ServerStatus};
    use mcpdisco_protocol::RawJson;

    fn listing(server: &str, tools: &[&str]) -> ServerReport {
        let mut report = ServerReport::empty(server, ServerStatus::Ready);
        report.tools = tools
            .iter()
            .map(|tool| {
                RawJson::parse(format!(
                    r#"{{"name":"{tool}","inputSchema":{{"type":"object"}}}}"#
                ))
                .unwrap()
            })
            .collect();
        report
    }

    #[test]
    fn a_server_that_goes_down_leaves_the_catalog_but_not_the_routes() {
        let catalogs = Catalogs::new(Naming::namespaced("__"));
        catalogs.record("alpha", Some(listing("alpha", &["echo"])), |r| r);
        catalogs.record("beta", Some(listing("beta", &["add"])), |r| r);
        assert_eq!(catalogs.catalog().tools.len(), 2);
        let catalog = catalogs.record("alpha", None, |r| r);
        assert!(catalog.tool("alpha__echo").is_none());
        assert!(catalogs.catalog().tool("beta__add").is_some());
        assert!(catalogs.routes().tool("alpha__echo").is_some());
        assert!(catalogs.report("alpha").is_none());
        assert!(catalogs.report("beta").is_some());
    }

    #[test]
    fn what_is_offered_of_each_listing_is_applied_to_both_catalogs() {
        let catalogs = Catalogs::new(Naming::namespaced("__"));
        let hide_danger = |mut report: ServerReport| {
            report.items_retain(ListKind::Tools, |tool| {
                mcpdisco_protocol::raw::ToolView::of(tool).name().as_deref() != Some("danger")
            });
            report
        };
        catalogs.record(
            "alpha",
            Some(listing("alpha", &["echo", "danger"])),
            hide_danger,
        );
        assert!(catalogs.catalog().tool("alpha__danger").is_none());
        assert!(catalogs.routes().tool("alpha__danger").is_none());
        assert!(catalogs.catalog().tool("alpha__echo").is_some());
        // The report is kept as the server sent it.
        assert_eq!(
            catalogs
                .report("alpha")
                .map(|r| r.items(ListKind::Tools).len()),
            Some(2)
        );
    }

    #[test]
    fn a_list_that_fails_when_listed_again_keeps_its_last_good_items() {
        let catalogs = Catalogs::new(Naming::namespaced("__"));
        catalogs.record("alpha", Some(listing("alpha", &["echo"])), |r| r);
        let mut refused = listing("alpha", &[]);
        refused.list_errors.insert(
            ListKind::Tools.method().to_owned(),
            Failure {
                kind: "server_error".into(),
                message: "internal error".into(),
            },
        );
        catalogs.record("alpha", Some(refused.clone()), |r| r);
        assert!(catalogs.catalog().tool("alpha__echo").is_some());
        let kept = catalogs.report("alpha").unwrap();
        assert_eq!(kept.items(ListKind::Tools).len(), 1);
        assert!(kept.list_errors.contains_key(ListKind::Tools.method()));
        // A list that succeeds replaces the last one, even with nothing.
        catalogs.record("alpha", Some(listing("alpha", &[])), |r| r);
        assert!(catalogs.catalog().tools.is_empty());
        // A server that went down and starts again starts afresh.
        catalogs.record("alpha", Some(listing("alpha", &["echo"])), |r| r);
        catalogs.record("alpha", None, |r| r);
        catalogs.record("alpha", Some(refused), |r| r);
        assert!(catalogs.catalog().tools.is_empty());
    }
}
