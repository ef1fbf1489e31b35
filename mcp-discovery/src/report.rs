//! What discovery found: one [`ServerReport`] per configured server, and the
//! [`DiscoveryReport`] of a whole run. Discovery writes them, the cache
//! stores them, the catalog and the hub read them.
//!
//! The JSON form (serde, camelCase) is what `mcp-cli discover --json` prints.
//! Items (tools, resources, templates, prompts, skills) are typed lists
//! ([`ItemList`]) that keep each item exactly as the server sent it:
//! `report.tools.valid()` reads them as [`Tool`]s, each decoded when first
//! read; [`ServerReport::items`] gives any list's items as sent, for a
//! borrowed view ([`ToolView`](mcpdisco_protocol::ToolView) and the
//! others) that reads a name without decoding. Cloning a report copies no
//! item, and writing one (to the cache, to `--json` output) writes each
//! item's text as is.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::{
    Implementation, ItemList, Prompt, Resource, ResourceTemplate, ServerCapabilities, SkillEntry,
    Tool,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::secret::Masker;
use serde::{Deserialize, Serialize};

use crate::clock::{millis, now_ms};
use mcpdisco_client::session::{ListKind, SessionError};

/// How a server came out of discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerStatus {
    /// Connected and listed.
    Ready,
    /// Could not be started, connected or listed; see the error.
    Failed,
    /// Disabled in the configuration, so not started.
    Disabled,
}

impl std::fmt::Display for ServerStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Ready => "ready",
            Self::Failed => "failed",
            Self::Disabled => "disabled",
        })
    }
}

/// Why something failed: a stable kind for machines and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// A short stable name such as `timeout`, `exited` or `spawn_failed`.
    pub kind: String,
    /// What happened, naming the server; for a crash, the exit status and the end of stderr.
    pub message: String,
}

impl Failure {
    /// The failure of a session error.
    pub fn from_session(error: &SessionError) -> Self {
        Self {
            kind: error.kind_name().to_owned(),
            message: error.to_string(),
        }
    }
}

/// Where the time of one server went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// Start (or connect) plus handshake, in milliseconds.
    pub connect_ms: u64,
    /// All the lists, in milliseconds.
    pub list_ms: u64,
    /// Closing the session and stopping the process after the last answer,
    /// in milliseconds (not part of `durationMs`; known only when the
    /// caller waited for it, as [`crate::discovery::discover`] does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_ms: Option<u64>,
}

/// Everything discovery learned about one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    /// The configured name.
    pub name: String,
    /// Ready, failed or disabled.
    pub status: ServerStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
    /// The protocol version in use, such as `2025-11-25`.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// The protocol era in use.
    #[serde(default)]
    pub era: Option<Era>,
    /// The server's `serverInfo` (unknown members kept).
    #[serde(default)]
    pub server_info: Option<Implementation>,
    /// The server's capabilities (unknown members kept).
    #[serde(default)]
    pub capabilities: Option<ServerCapabilities>,
    /// The server's instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `tools/list`, every page, kept as sent.
    #[serde(default)]
    pub tools: ItemList<Tool>,
    /// `resources/list`, every page, kept as sent.
    #[serde(default)]
    pub resources: ItemList<Resource>,
    /// `resources/templates/list`, every page, kept as sent.
    #[serde(default)]
    pub resource_templates: ItemList<ResourceTemplate>,
    /// `prompts/list`, every page, kept as sent.
    #[serde(default)]
    pub prompts: ItemList<Prompt>,
    /// `skills/list` (extension `io.modelcontextprotocol/skills`), every
    /// page, kept as sent; absent from the JSON when empty.
    #[serde(default, skip_serializing_if = "ItemList::is_empty")]
    pub skills: ItemList<SkillEntry>,
    /// Lists that failed without failing the server (a -32601, say), by method.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub list_errors: BTreeMap<String, Failure>,
    /// Whether this report was served from the cache.
    pub from_cache: bool,
    /// Whether this is the last good catalog, served because the latest
    /// attempt to refresh it failed (`error` says how). The status stays
    /// `ready`: the items are what the server offered when last asked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// When the server was actually asked, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at_ms: Option<u64>,
    /// How long discovering this server took in this run, in milliseconds.
    pub duration_ms: u64,
    /// Where the time went when the server was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
    /// Modern only: the smallest `ttlMs` the server gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Modern only: the server's `cacheScope`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
}

impl ServerReport {
    /// A report with nothing in it yet.
    pub fn empty(name: impl Into<String>, status: ServerStatus) -> Self {
        Self {
            name: name.into(),
            status,
            error: None,
            protocol_version: None,
            era: None,
            server_info: None,
            capabilities: None,
            instructions: None,
            tools: ItemList::new(),
            resources: ItemList::new(),
            resource_templates: ItemList::new(),
            prompts: ItemList::new(),
            skills: ItemList::new(),
            list_errors: BTreeMap::new(),
            from_cache: false,
            stale: false,
            fetched_at_ms: None,
            duration_ms: 0,
            timings: None,
            ttl_ms: None,
            cache_scope: None,
        }
    }

    /// The report of a disabled server.
    pub fn disabled(name: impl Into<String>) -> Self {
        Self::empty(name, ServerStatus::Disabled)
    }

    /// The report of a failed server.
    pub fn failed(name: impl Into<String>, failure: Failure, duration: Duration) -> Self {
        let mut report = Self::empty(name, ServerStatus::Failed);
        report.error = Some(failure);
        report.duration_ms = millis(duration);
        report.fetched_at_ms = Some(now_ms());
        report
    }

    /// The items of one list, exactly as sent (for a view, or to pass
    /// them on); the typed lists are the fields.
    pub fn items(&self, kind: ListKind) -> &[RawJson] {
        match kind {
            ListKind::Tools => self.tools.raw(),
            ListKind::Resources => self.resources.raw(),
            ListKind::ResourceTemplates => self.resource_templates.raw(),
            ListKind::Prompts => self.prompts.raw(),
            ListKind::Skills => self.skills.raw(),
        }
    }

    /// Replaces the items of one list with `items`, as sent.
    pub fn set_items(&mut self, kind: ListKind, items: Vec<RawJson>) {
        match kind {
            ListKind::Tools => self.tools = ItemList::from_raw(items),
            ListKind::Resources => self.resources = ItemList::from_raw(items),
            ListKind::ResourceTemplates => self.resource_templates = ItemList::from_raw(items),
            ListKind::Prompts => self.prompts = ItemList::from_raw(items),
            ListKind::Skills => self.skills = ItemList::from_raw(items),
        }
    }

    /// Masks known secrets in the failure messages (the run's error and each list error).
    pub fn mask_failures(&mut self, masker: &Masker) {
        if masker.is_empty() {
            return;
        }
        for failure in self.error.iter_mut().chain(self.list_errors.values_mut()) {
            failure.message = masker.mask_string(std::mem::take(&mut failure.message));
        }
    }

    /// Keeps the items of one list for which `keep` (given each item as
    /// sent) says so.
    pub fn items_retain(&mut self, kind: ListKind, keep: impl FnMut(&RawJson) -> bool) {
        match kind {
            ListKind::Tools => self.tools.retain_raw(keep),
            ListKind::Resources => self.resources.retain_raw(keep),
            ListKind::ResourceTemplates => self.resource_templates.retain_raw(keep),
            ListKind::Prompts => self.prompts.retain_raw(keep),
            ListKind::Skills => self.skills.retain_raw(keep),
        }
    }

    /// This (good) report, kept after `failure`: the last good catalog,
    /// marked stale with the failure beside it.
    pub fn into_stale(mut self, failure: Failure) -> Self {
        self.stale = true;
        self.error = Some(failure);
        self
    }

    /// Whether the server answered in this run or its cached entry: ready
    /// and not stale.
    pub fn is_current(&self) -> bool {
        self.status == ServerStatus::Ready && !self.stale
    }

    /// The `serverInfo.name` the server reported, if any.
    pub fn server_info_name(&self) -> Option<&str> {
        self.server_info.as_ref().map(|info| info.name.as_str())
    }
}

/// How many servers ended in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusSummary {
    /// Every configured server.
    pub configured: usize,
    /// The enabled ones.
    pub enabled: usize,
    /// Ready (fresh or from the cache), stale ones included.
    pub ready: usize,
    /// Of the ready ones, how many are stale: the last good catalog, kept
    /// after a failed refresh.
    #[serde(default)]
    pub stale: usize,
    /// Failed.
    pub failed: usize,
    /// Disabled.
    pub disabled: usize,
}

impl StatusSummary {
    /// Counts the reports.
    pub fn of(reports: &[ServerReport]) -> Self {
        let count = |status| reports.iter().filter(|r| r.status == status).count();
        let disabled = count(ServerStatus::Disabled);
        Self {
            configured: reports.len(),
            enabled: reports.len() - disabled,
            ready: count(ServerStatus::Ready),
            stale: reports.iter().filter(|r| r.stale).count(),
            failed: count(ServerStatus::Failed),
            disabled,
        }
    }

    /// Whether every enabled server is ready.
    pub fn all_ready(&self) -> bool {
        self.failed == 0 && self.ready == self.enabled
    }
}

/// The result of one discovery run, servers in configuration order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoveryReport {
    /// One report per configured server.
    pub servers: Vec<ServerReport>,
}

impl DiscoveryReport {
    /// How many servers ended in each state.
    pub fn summary(&self) -> StatusSummary {
        StatusSummary::of(&self.servers)
    }

    /// The report of the server named `name`.
    pub fn server(&self, name: &str) -> Option<&ServerReport> {
        self.servers.iter().find(|report| report.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_shape_matches_the_cli_contract() {
        let mut report = ServerReport::empty("time", ServerStatus::Ready);
        report.protocol_version = Some("2026-07-28".into());
        report.era = Some(Era::Modern);
        report.server_info =
            Some(serde_json::from_value(json!({"name": "mcp-time", "version": "1"})).unwrap());
        report.capabilities = Some(serde_json::from_value(json!({"tools": {}})).unwrap());
        let tool = r#"{"name": "get_current_time","inputSchema":{}, "x-extra": [1, 2]}"#;
        report.tools = ItemList::from_raw(vec![RawJson::parse(tool).unwrap()]);
        report.duration_ms = 12;
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(value["status"], "ready");
        assert_eq!(value["era"], "modern");
        assert_eq!(value["protocolVersion"], "2026-07-28");
        assert_eq!(value["serverInfo"]["name"], "mcp-time");
        assert_eq!(value["tools"][0]["x-extra"], json!([1, 2]));
        assert_eq!(value["resourceTemplates"], json!([]));
        assert_eq!(value["fromCache"], false);
        assert_eq!(value["durationMs"], 12);
        assert!(value.get("error").is_none());
        let back: ServerReport = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), value);
        // Written and read as text (the cache, `--json`): each item byte for byte.
        let text = serde_json::to_string(&report).unwrap();
        assert!(text.contains(&format!(r#""tools":[{tool}]"#)), "{text}");
        let back: ServerReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, report);
        assert_eq!(back.tools.raw()[0].as_str(), tool);
        assert_eq!(back.tools.get(0).unwrap().unwrap().name, "get_current_time");
    }

    #[test]
    fn failed_report_carries_kind_and_message() {
        let failure = Failure {
            kind: "exited".into(),
            message: "server 'x' exited with status 3 during initialize: boom".into(),
        };
        let report = ServerReport::failed("x", failure, Duration::from_millis(40));
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(value["status"], "failed");
        assert_eq!(value["error"]["kind"], "exited");
        assert_eq!(value["protocolVersion"], serde_json::Value::Null);
        assert_eq!(value["durationMs"], 40);
    }

    #[test]
    fn summary_counts_each_state() {
        let reports = vec![
            ServerReport::empty("a", ServerStatus::Ready),
            ServerReport::empty("b", ServerStatus::Failed),
            ServerReport::disabled("c"),
        ];
        let summary = StatusSummary::of(&reports);
        assert_eq!(
            summary,
            StatusSummary {
                configured: 3,
                enabled: 2,
                ready: 1,
                stale: 0,
                failed: 1,
                disabled: 1
            }
        );
        assert!(!summary.all_ready());
    }
}
