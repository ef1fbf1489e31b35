//! Which of a server's items the gateway offers: the filters of the
//! server's config, then an item gate ([`ItemGate`]), a policy applied to
//! every listing.

use std::path::PathBuf;

use mcpdisco::approval::PinStore;
use mcpdisco::approval::pins::tools_not_as_approved;
use mcpdisco::config::ServerConfig;
use mcpdisco::report::ServerReport;

/// Hides items of a server's report (applied after its filters, at every
/// re-listing).
pub type ItemGate =
    std::sync::Arc<dyn Fn(&ServerConfig, ServerReport) -> ServerReport + Send + Sync>;

/// What the gateway offers of `report`, the listing of the server of
/// `config`: its config's filters applied, then `gate`.
pub(crate) fn offered(
    config: &ServerConfig,
    gate: Option<&ItemGate>,
    report: ServerReport,
) -> ServerReport {
    let report = config.filters.apply(report);
    match gate {
        Some(gate) => gate(config, report),
        None => report,
    }
}

/// The supervisor policy that hides the tools of a pinned server that
/// changed since approval, or that were never approved (a new tool, or a
/// renamed one), until they are approved: the lock file at `lock` is read
/// at every re-listing, so a re-approval takes effect at the server's next
/// listing (a `list_changed` or a restart). A server without pins, or a
/// lock file that cannot be read, hides nothing (a warning is logged for
/// the latter).
pub fn hide_changed(lock: PathBuf) -> ItemGate {
    let store = PinStore::new(lock);
    std::sync::Arc::new(move |server: &ServerConfig, mut report: ServerReport| {
        let pins = match store.load_lock_file() {
            Ok(pins) => pins,
            Err(error) => {
                tracing::warn!(%error, "cannot read the pins; nothing is hidden");
                return report;
            }
        };
        let changed = tools_not_as_approved(&pins, server, &report);
        if !changed.is_empty() {
            tracing::warn!(server = %server.name, tools = ?changed, "hiding tools not as approved");
            report.items_retain(mcpdisco_client::session::ListKind::Tools, |tool| {
                mcpdisco_protocol::raw::ToolView::of(tool)
                    .name()
                    .is_none_or(|name| !changed.iter().any(|c| *c == name))
            });
        }
        report
    })
}
