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

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use mcpdisco_protocol::{JsonView, PromptView, RawJson, ResourceView, SkillView, ToolView};
use serde::Serialize;

use crate::report::{ServerReport, ServerStatus, StatusSummary};
use mcpdisco_client::session::ListKind;

/// The default separator of namespaced names.
pub const DEFAULT_SEPARATOR: &str = "__";

/// One item of the flat view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// The unique namespaced name.
    pub qualified_name: String,
    /// The server that offers it.
    pub server: String,
    /// Its own name on that server (for resources, the `name`, else the URI).
    pub name: String,
    /// The item exactly as the server sent it (sharing the report's bytes).
    pub item: RawJson,
}

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
    /// Where each namespaced name sits, per kind (lookups without a scan).
    #[serde(skip)]
    index: [std::collections::HashMap<String, usize>; 5],
}

impl Catalog {
    /// Builds the catalog of `reports` with the default separator.
    pub fn build(reports: &[ServerReport]) -> Self {
        Self::with_separator(reports, DEFAULT_SEPARATOR)
    }

    /// Builds the catalog of `reports` with `separator` between server and item names.
    pub fn with_separator(reports: &[ServerReport], separator: &str) -> Self {
        let mut ready: Vec<&ServerReport> = reports
            .iter()
            .filter(|report| report.status == ServerStatus::Ready)
            .collect();
        ready.sort_by(|a, b| a.name.cmp(&b.name));
        let flat = |kind| flatten(&ready, kind, separator);
        let mut catalog = Self {
            separator: separator.to_owned(),
            summary: StatusSummary::of(reports),
            tools: flat(ListKind::Tools),
            resources: flat(ListKind::Resources),
            resource_templates: flat(ListKind::ResourceTemplates),
            prompts: flat(ListKind::Prompts),
            skills: flat(ListKind::Skills),
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

/// The own name of an item: `name` (a skill's: its frontmatter's), else
/// the URI (template), else `?`.
/// Reads only those members; the rest of the item is skipped, not parsed.
pub fn item_name(kind: ListKind, item: &RawJson) -> String {
    // A member of another type counts as absent; a repeated one, the last counts.
    let name = match kind {
        ListKind::Tools => ToolView::of(item).name(),
        ListKind::Prompts => PromptView::of(item).name(),
        ListKind::Resources | ListKind::ResourceTemplates => {
            ResourceView::read(JsonView::of(item), kind == ListKind::ResourceTemplates)
                .name_or_uri()
        }
        ListKind::Skills => SkillView::of(item).name_or_uri(),
    };
    name.map_or_else(|| "?".to_owned(), Cow::into_owned)
}

/// The longest name model providers accept for a tool.
pub const MAX_NAME_LEN: usize = 64;

/// The server part of a namespaced name: characters a tool name may not hold become `_`.
pub fn namespace_of(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `name` as model providers accept it: at most [`MAX_NAME_LEN`] characters
/// from `[a-zA-Z0-9_-]`. Other characters become `_`; a longer name keeps
/// its first 55 characters and ends in `_` and 8 hex digits of a hash of
/// the whole original name (FNV-1a, stable across runs and platforms).
pub fn model_safe(name: &str) -> String {
    let safe = namespace_of(name);
    if safe.len() <= MAX_NAME_LEN {
        return safe;
    }
    let mut hash: u32 = 0x811c_9dc5;
    for byte in name.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{}_{hash:08x}", &safe[..MAX_NAME_LEN - 9])
}

fn flatten(ready: &[&ServerReport], kind: ListKind, separator: &str) -> Vec<CatalogEntry> {
    let mut taken = HashSet::new();
    let mut entries = Vec::new();
    for report in ready {
        let namespace = namespace_of(&report.name);
        for item in report.items(kind) {
            let name = item_name(kind, item);
            let base = format!("{namespace}{separator}{name}");
            // Tools and prompts are named to models; resources keep their URIs readable.
            let shape = |name: String| match kind {
                ListKind::Tools | ListKind::Prompts | ListKind::Skills => model_safe(&name),
                ListKind::Resources | ListKind::ResourceTemplates => name,
            };
            let mut qualified = shape(base.clone());
            let mut n = 2;
            // Taken by an earlier item (of this server or another): the first
            // free `base__2`, `base__3`, ….
            while taken.contains(&qualified) {
                qualified = shape(format!("{base}{separator}{n}"));
                n += 1;
            }
            taken.insert(qualified.clone());
            entries.push(CatalogEntry {
                qualified_name: qualified,
                server: report.name.clone(),
                name,
                item: item.clone(),
            });
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_what_models_accept() {
        assert_eq!(model_safe("git.hub__create issue"), "git_hub__create_issue");
        let long = format!("server__{}", "x".repeat(80));
        let safe = model_safe(&long);
        assert_eq!(safe.len(), MAX_NAME_LEN);
        assert!(safe.starts_with("server__xxx"));
        assert_eq!(safe, model_safe(&long), "stable");
        assert_ne!(safe, model_safe(&format!("server__{}y", "x".repeat(80))));
        let catalog = Catalog::build(&[ready(
            "s",
            &[&"a".repeat(70), &format!("{}b", "a".repeat(70))],
        )]);
        let names = names(&catalog);
        assert!(names.iter().all(|n| {
            n.len() <= MAX_NAME_LEN
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        }));
        assert_ne!(names[0], names[1]);
        assert_eq!(
            catalog.tool(names[1]).unwrap().name,
            format!("{}b", "a".repeat(70))
        );
    }

    #[test]
    fn a_retained_view_keeps_names_and_finds_only_what_it_kept() {
        let catalog = Catalog::build(&[ready("a", &["x", "y"]), ready("b", &["x"])]);
        let view = catalog.retain(|_, entry| entry.qualified_name != "a__y");
        assert_eq!(names(&view), ["a__x", "b__x"]);
        assert!(view.tool("a__y").is_none());
        assert_eq!(view.tool("b__x").unwrap().server, "b");
    }

    fn ready(name: &str, tools: &[&str]) -> ServerReport {
        let mut report = ServerReport::empty(name, ServerStatus::Ready);
        report.tools = tools.iter().map(|t| json!({"name": t}).into()).collect();
        report
    }

    fn names(catalog: &Catalog) -> Vec<&str> {
        catalog
            .tools
            .iter()
            .map(|e| e.qualified_name.as_str())
            .collect()
    }

    #[test]
    fn names_are_namespaced_and_items_kept_whole() {
        let mut a = ready("github", &["create_issue"]);
        a.tools[0] =
            RawJson::parse(r#"{"inputSchema": {"type": "object"}, "name": "create_issue"}"#)
                .unwrap();
        let catalog = Catalog::build(&[a, ServerReport::disabled("off")]);
        assert_eq!(names(&catalog), ["github__create_issue"]);
        assert_eq!(
            catalog.tools[0].item.as_str(),
            r#"{"inputSchema": {"type": "object"}, "name": "create_issue"}"#
        );
        assert_eq!(catalog.tools[0].name, "create_issue");
        assert_eq!(catalog.summary.disabled, 1);
        assert!(catalog.tool("github__create_issue").is_some());
    }

    #[test]
    fn collisions_resolve_the_same_way_whatever_the_input_order() {
        // "a__b" + "c" and "a" + "b__c" both want "a__b__c".
        let one = vec![ready("a__b", &["c"]), ready("a", &["b__c", "x", "x"])];
        let two = vec![one[1].clone(), one[0].clone()];
        let first = Catalog::build(&one);
        let second = Catalog::build(&two);
        assert_eq!(names(&first), names(&second));
        assert_eq!(names(&first), ["a__b__c", "a__x", "a__x__2", "a__b__c__2"]);
        let unique: HashSet<_> = names(&first).into_iter().collect();
        assert_eq!(unique.len(), 4);
    }

    #[test]
    fn separator_is_configurable_and_server_names_are_sanitized() {
        let catalog = Catalog::with_separator(&[ready("my server/1", &["t"])], ".");
        assert_eq!(names(&catalog), ["my_server_1_t"]);
    }

    #[test]
    fn resources_fall_back_to_their_uri_and_failed_servers_are_left_out() {
        let mut r = ServerReport::empty("docs", ServerStatus::Ready);
        r.resources = vec![
            json!({"uri": "file:///a"}).into(),
            json!({"uri": "file:///b", "name": "bee"}).into(),
            json!({"uri": 7, "name": ["not", "a", "name"]}).into(),
            json!(["file:///array", "named"]).into(),
            RawJson::parse(r#"{"name": "first", "uri": "file:///c", "name": "last"}"#).unwrap(),
            json!({"name": 5, "uri": "file:///d"}).into(),
        ];
        r.resource_templates = vec![json!({"uriTemplate": "file:///{p}"}).into()];
        let broken = ServerReport::empty("broken", ServerStatus::Failed);
        let catalog = Catalog::build(&[r, broken]);
        let qualified: Vec<_> = catalog
            .resources
            .iter()
            .map(|e| e.qualified_name.as_str())
            .collect();
        assert_eq!(
            qualified,
            [
                "docs__file:///a",
                "docs__bee",
                "docs__?",
                "docs__?__2",
                "docs__last",
                "docs__file:///d"
            ]
        );
        assert_eq!(catalog.resource_templates[0].name, "file:///{p}");
        assert_eq!(catalog.summary.failed, 1);
        assert_eq!(catalog.by_server(ListKind::Resources)["docs"].len(), 6);
    }
}
