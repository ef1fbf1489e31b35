//! The aggregated [`Catalog`]: everything every server offers, grouped by
//! server and as one flat list with unique namespaced names.
//!
//! A namespaced name is `<server><separator><name>`, with `__` as the default
//! separator (`github__create_issue`), made into a name every model provider
//! accepts ([`model_safe`]): at most 64 characters from `[a-zA-Z0-9_-]`.
//! Other characters become `_`; a longer name keeps its first 55 characters
//! and ends in `_` and 8 hex digits of a stable hash of the whole name.
//! Collisions are resolved deterministically: servers are taken in name
//! order and items in the order the server listed them; the first holder
//! keeps the name, later ones get `<separator>2`, `<separator>3`, … (made
//! safe the same way). `mcp-cli tools` and the gateway show the same names.
//!
//! A server with `"namespace": false` keeps its items' own names (and its
//! resources' URIs); its names are taken before any namespaced one, and an
//! item whose name another such server holds is left out and recorded as
//! a [`NameClash`] naming both (`catalog::Naming`, in `naming.rs`).

mod entry;
mod naming;

pub use entry::CatalogEntry;

pub use crate::item_name::item_name;
use naming::flatten;
pub use naming::{MAX_NAME_LEN, NameClash, Naming, kind_noun, model_safe, namespace_of};

use std::collections::BTreeMap;

use serde::Serialize;

use crate::report::{ServerReport, ServerStatus, StatusSummary};
use mcpdisco_client::session::ListKind;

/// The default separator of namespaced names.
pub const DEFAULT_SEPARATOR: &str = "__";

/// Everything every ready server offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// The separator in use.
    pub separator: String,
    /// How many servers ended in each state.
    pub summary: StatusSummary,
    /// The tools of every ready server.
    pub tools: Vec<CatalogEntry>,
    /// The resources.
    pub resources: Vec<CatalogEntry>,
    /// The resource templates.
    pub resource_templates: Vec<CatalogEntry>,
    /// The prompts.
    pub prompts: Vec<CatalogEntry>,
    /// The skills (named by their frontmatter's `name`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<CatalogEntry>,
    /// Items of `"namespace": false` servers left out because another
    /// server holds their names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clashes: Vec<NameClash>,
    /// Where each namespaced name sits, per kind (lookups without a scan).
    #[serde(skip)]
    index: [foldhash::HashMap<String, usize>; 5],
}

impl Catalog {
    /// Builds the catalog of `reports`, naming items by `naming`
    /// (`&Naming::default()`: `<server>__<name>` for every server).
    pub fn build(reports: &[ServerReport], naming: &Naming) -> Self {
        let mut ready: Vec<&ServerReport> = reports
            .iter()
            .filter(|report| report.status == ServerStatus::Ready)
            .collect();
        ready.sort_by(|a, b| a.name.cmp(&b.name));
        let mut clashes = Vec::new();
        let mut flat = |kind| {
            let (entries, clashed) = flatten(&ready, kind, naming);
            clashes.extend(clashed);
            entries
        };
        let (tools, resources, resource_templates, prompts, skills) = (
            flat(ListKind::Tools),
            flat(ListKind::Resources),
            flat(ListKind::ResourceTemplates),
            flat(ListKind::Prompts),
            flat(ListKind::Skills),
        );
        let mut catalog = Self {
            separator: naming.separator.clone(),
            summary: StatusSummary::of(reports),
            tools,
            resources,
            resource_templates,
            prompts,
            skills,
            clashes,
            index: Default::default(),
        };
        catalog.reindex();
        catalog
    }

    /// The entries `keep` keeps, under the same names: a view of this
    /// catalog (such as a gateway profile's). Items share their bytes.
    pub fn retain(&self, keep: impl Fn(ListKind, &CatalogEntry) -> bool) -> Self {
        let mut view = self.clone();
        for kind in ListKind::ALL {
            let entries = match kind {
                ListKind::Tools => &mut view.tools,
                ListKind::Resources => &mut view.resources,
                ListKind::ResourceTemplates => &mut view.resource_templates,
                ListKind::Prompts => &mut view.prompts,
                ListKind::Skills => &mut view.skills,
            };
            entries.retain(|entry| keep(kind, entry));
        }
        view.reindex();
        view
    }

    /// Indexes every kind's entries by namespaced name.
    fn reindex(&mut self) {
        for (slot, kind) in ListKind::ALL.into_iter().enumerate() {
            self.index[slot] = self
                .entries(kind)
                .iter()
                .enumerate()
                .map(|(at, entry)| (entry.qualified_name.clone(), at))
                .collect();
        }
    }

    /// The entry of `kind` with this namespaced name.
    pub fn find(&self, kind: ListKind, qualified_name: &str) -> Option<&CatalogEntry> {
        let slot = ListKind::ALL.iter().position(|k| *k == kind)?;
        let at = *self.index[slot].get(qualified_name)?;
        self.entries(kind).get(at)
    }

    /// The entries of one kind.
    pub fn entries(&self, kind: ListKind) -> &[CatalogEntry] {
        match kind {
            ListKind::Tools => &self.tools,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
            ListKind::Prompts => &self.prompts,
            ListKind::Skills => &self.skills,
        }
    }

    /// The tool with this namespaced name.
    pub fn tool(&self, qualified_name: &str) -> Option<&CatalogEntry> {
        self.find(ListKind::Tools, qualified_name)
    }

    /// The entries of one kind, grouped by server (servers in name order).
    pub fn by_server(&self, kind: ListKind) -> BTreeMap<&str, Vec<&CatalogEntry>> {
        let mut groups: BTreeMap<&str, Vec<&CatalogEntry>> = BTreeMap::new();
        for entry in self.entries(kind) {
            groups.entry(entry.server.as_str()).or_default().push(entry);
        }
        groups
    }
}

#[cfg(test)]
mod tests;
