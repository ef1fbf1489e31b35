//! The gateway's lists: every ready server's items under the names the
//! gateway serves, and the way back from a served name or URI to its server.
//!
//! - Tools and prompts are served under their catalog names
//!   (`<server>__<name>`, made safe for models; see [`mcpdisco::catalog`]).
//! - Resources and templates keep their URIs, so clients can read them as
//!   they are. A URI that more than one server offers stays plain for the
//!   first server in name order; the others serve it as
//!   `mcp-gateway://<server>/<uri>` (templates likewise, so an expanded
//!   template still names its server).
//! - Skills (SEP-2640) keep their URIs and their frontmatter (which a
//!   client verifies against each `SKILL.md`), and every file they list
//!   routes back to its server. A skill whose `SKILL.md` URI another server
//!   (earlier in name order) also offers has all its URIs qualified as
//!   `mcp-gateway://<server>/<uri>`; digests and sizes are the server's.
//!
//! A listing is built once per catalog (the catalog is shared as an `Arc`,
//! so rebuilding happens only when a server's lists change).

use foldhash::HashMap;
use std::sync::Arc;

use mcpdisco_protocol::types::{
    ItemList, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListResult,
    ListSkillsResult, ListToolsResult, Prompt, Resource, ResourceTemplate, SkillEntry, Tool,
};
use mcpdisco_protocol::{JsonView, RawJson, ResourceView};
use serde::Serialize;
use serde_json::Value;

use mcpdisco::catalog::{Catalog, CatalogEntry, namespace_of};
use mcpdisco_client::session::ListKind;

use super::search::{ToolIndex, tools as search_tools};

/// The scheme of URIs the gateway had to qualify with their server.
pub const GATEWAY_URI_PREFIX: &str = "mcp-gateway://";

/// Where a served URI goes: the server and the URI it knows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceRoute {
    /// The server.
    pub server: String,
    /// The URI as the server knows it.
    pub uri: String,
}

/// The gateway's lists of one catalog.
#[derive(Debug)]
pub(crate) struct Listing {
    /// The tools served: every server's, or (tool search) the two tools
    /// that search and call them.
    tools: ItemList<Tool>,
    /// In tool-search mode, the index of every server's tools.
    search: Option<ToolIndex>,
    prompts: ItemList<Prompt>,
    resources: ItemList<Resource>,
    templates: ItemList<ResourceTemplate>,
    skills: ItemList<SkillEntry>,
    /// Served resource URIs (skill files included), to their servers.
    uris: HashMap<String, ResourceRoute>,
    /// Served templates' literal prefixes (before the first `{`), longest first.
    template_prefixes: Vec<(String, ResourceRoute)>,
    /// Server namespaces (as in qualified URIs), to servers.
    namespaces: HashMap<String, String>,
}

impl Listing {
    /// The lists of `catalog`; with `tool_search`, the tools served are
    /// `search_tools` and `call_tool`, and every server's tools are indexed.
    pub(crate) fn build(catalog: Arc<Catalog>, tool_search: bool) -> Self {
        fn named<T>(entries: &[CatalogEntry]) -> ItemList<T> {
            entries
                .iter()
                .filter_map(|entry| {
                    let mut item = entry.item.to_value().ok()?;
                    item.as_object_mut()?
                        .insert("name".into(), Value::from(entry.qualified_name.as_str()));
                    Some(RawJson::from_value(&item))
                })
                .collect()
        }
        let mut namespaces = HashMap::default();
        for kind in ListKind::ALL {
            for entry in catalog.entries(kind) {
                namespaces
                    .entry(namespace_of(&entry.server))
                    .or_insert_with(|| entry.server.clone());
            }
        }
        let mut uris = HashMap::default();
        let resources = served_uris(&catalog.resources, false, |served, route| {
            uris.insert(served.to_owned(), route);
        });
        let mut template_prefixes = Vec::new();
        let templates = served_uris(&catalog.resource_templates, true, |served, route| {
            let prefix = served.split('{').next().unwrap_or_default().to_owned();
            let known = match route.uri.split('{').next() {
                Some(known) => known.to_owned(),
                None => String::new(),
            };
            template_prefixes.push((
                prefix,
                ResourceRoute {
                    server: route.server,
                    uri: known,
                },
            ));
        });
        template_prefixes.sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        let tools = named(&catalog.tools);
        let (tools, search) = if tool_search {
            // A tool our types cannot read is served as it is, but cannot be searched.
            let index = ToolIndex::build(tools.into_valid());
            let served = encoded(search_tools::definitions(), "tool-search tools");
            (served, Some(index))
        } else {
            (tools, None)
        };
        let skills = served_skills(&catalog.skills, |served, route| {
            uris.entry(served.to_owned()).or_insert(route);
        });
        Self {
            tools,
            search,
            prompts: named(&catalog.prompts),
            resources,
            templates,
            skills,
            uris,
            template_prefixes,
            namespaces,
        }
    }

    /// The index of every server's tools, in tool-search mode.
    pub(crate) fn search(&self) -> Option<&ToolIndex> {
        self.search.as_ref()
    }

    /// The server of a served URI, and the URI it knows: a listed resource,
    /// a qualified `mcp-gateway://` URI, or an expansion of a listed template.
    pub(crate) fn route(&self, uri: &str) -> Option<ResourceRoute> {
        if let Some(route) = self.uris.get(uri) {
            return Some(route.clone());
        }
        if let Some(rest) = uri.strip_prefix(GATEWAY_URI_PREFIX)
            && let Some((namespace, own)) = rest.split_once('/')
            && let Some(server) = self.namespaces.get(namespace)
        {
            return Some(ResourceRoute {
                server: server.clone(),
                uri: own.to_owned(),
            });
        }
        self.template_prefixes
            .iter()
            .find(|(prefix, _)| !prefix.is_empty() && uri.starts_with(prefix.as_str()))
            .map(|(prefix, route)| ResourceRoute {
                server: route.server.clone(),
                uri: format!("{}{}", route.uri, &uri[prefix.len()..]),
            })
    }
}

/// A list the gateway serves: which items of a listing it pages.
pub(crate) trait ServedList: ListResult {
    /// The items of `listing` this list shows.
    fn items(listing: &Listing) -> &ItemList<Self::Item>;
}

impl ServedList for ListToolsResult {
    fn items(listing: &Listing) -> &ItemList<Tool> {
        &listing.tools
    }
}

impl ServedList for ListPromptsResult {
    fn items(listing: &Listing) -> &ItemList<Prompt> {
        &listing.prompts
    }
}

impl ServedList for ListResourcesResult {
    fn items(listing: &Listing) -> &ItemList<Resource> {
        &listing.resources
    }
}

impl ServedList for ListResourceTemplatesResult {
    fn items(listing: &Listing) -> &ItemList<ResourceTemplate> {
        &listing.templates
    }
}

impl ServedList for ListSkillsResult {
    fn items(listing: &Listing) -> &ItemList<SkillEntry> {
        &listing.skills
    }
}

impl Listing {
    /// The served skill whose `SKILL.md` is at the served URI `uri`.
    pub(crate) fn skill(&self, uri: &str) -> Option<&SkillEntry> {
        self.skills.valid().find(|skill| skill.uri == uri)
    }
}

/// The list of `items`, which the gateway made itself. Writing them cannot
/// fail (no I/O; every map key is a string); if it ever did, the list is
/// served empty and the failure logged.
fn encoded<T: Serialize>(items: Vec<T>, what: &str) -> ItemList<T> {
    ItemList::encode(items).unwrap_or_else(|error| {
        tracing::error!(%error, "cannot write the gateway's {what}; serving none");
        ItemList::new()
    })
}

/// The served skills: a skill keeps its URIs unless an earlier server (in
/// name order) offers the same `SKILL.md` URI, when every URI of it is
/// qualified. Calls `route` with each served URI (the skill's and each
/// file's) and its route.
fn served_skills(
    entries: &[CatalogEntry],
    mut route: impl FnMut(&str, ResourceRoute),
) -> ItemList<SkillEntry> {
    let mut owner: HashMap<String, &str> = HashMap::default();
    let mut items = Vec::with_capacity(entries.len());
    for entry in entries {
        let Ok(mut skill) = entry.item.decode::<SkillEntry>() else {
            continue;
        };
        let first = *owner
            .entry(skill.uri.clone())
            .or_insert(entry.server.as_str());
        let namespace = namespace_of(&entry.server);
        let mut serve = |uri: &mut String| {
            let own = uri.clone();
            if first != entry.server {
                *uri = format!("{GATEWAY_URI_PREFIX}{namespace}/{own}");
            }
            route(
                uri,
                ResourceRoute {
                    server: entry.server.clone(),
                    uri: own,
                },
            );
        };
        serve(&mut skill.uri);
        for file in skill.resources.iter_mut().flatten() {
            serve(&mut file.uri);
        }
        items.push(skill);
    }
    encoded(items, "skills")
}

/// The served items of resources or templates: URIs offered by one server
/// stay as they are; of a URI offered by several, the first server (in
/// name order) keeps it and the others qualify it. Calls `route` with each
/// served URI and its route.
fn served_uris<T>(
    entries: &[CatalogEntry],
    template: bool,
    mut route: impl FnMut(&str, ResourceRoute),
) -> ItemList<T> {
    let key = if template { "uriTemplate" } else { "uri" };
    let mut owner: HashMap<String, &str> = HashMap::default();
    let mut items = Vec::with_capacity(entries.len());
    for entry in entries {
        let Some(uri) = ResourceView::read(JsonView::of(&entry.item), template)
            .uri()
            .map(|uri| uri.into_owned())
        else {
            continue;
        };
        let Ok(mut item) = entry.item.to_value() else {
            continue;
        };
        let first = *owner.entry(uri.clone()).or_insert(entry.server.as_str());
        let served = if first == entry.server {
            uri.clone()
        } else {
            format!("{GATEWAY_URI_PREFIX}{}/{uri}", namespace_of(&entry.server))
        };
        if let Some(object) = item.as_object_mut() {
            object.insert(key.into(), Value::from(served.as_str()));
        }
        route(
            &served,
            ResourceRoute {
                server: entry.server.clone(),
                uri,
            },
        );
        items.push(RawJson::from_value(&item));
    }
    ItemList::from_raw(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco::report::{ServerReport, ServerStatus};
    use serde_json::json;

    fn server(name: &str, tools: &[&str], resources: &[&str], templates: &[&str]) -> ServerReport {
        let mut report = ServerReport::empty(name, ServerStatus::Ready);
        report.tools = tools
            .iter()
            .map(|t| json!({"name": t, "inputSchema": {"type": "object"}}).into())
            .collect();
        report.resources = resources
            .iter()
            .map(|uri| json!({"uri": uri, "name": uri}).into())
            .collect();
        report.resource_templates = templates
            .iter()
            .map(|t| json!({"uriTemplate": t, "name": t}).into())
            .collect();
        report
    }

    #[test]
    fn skills_keep_their_uris_and_frontmatter_and_every_file_routes_back() {
        let skill = json!({"uri": "skill://pdf/SKILL.md",
        "frontmatter": {"name": "pdf", "description": "PDFs"},
        "resources": [
            {"uri": "skill://pdf/SKILL.md", "digest": "sha256:aa", "size": 1},
            {"uri": "skill://pdf/FORMS.md", "digest": "sha256:bb", "size": 2}
        ]});
        let mut a = server("a", &[], &[], &[]);
        a.skills = vec![skill.clone().into()].into();
        let mut b = server("b", &[], &[], &[]);
        b.skills = vec![skill.into()].into();
        let listing = Listing::build(
            Arc::new(Catalog::build(&[b, a], &Default::default())),
            false,
        );
        let skills: Vec<&SkillEntry> = ListSkillsResult::items(&listing).valid().collect();
        assert_eq!(skills.len(), 2);
        assert_eq!(skills[0].uri, "skill://pdf/SKILL.md");
        assert_eq!(skills[0].name(), Some("pdf"));
        assert_eq!(skills[1].uri, "mcp-gateway://b/skill://pdf/SKILL.md");
        assert_eq!(skills[1].name(), Some("pdf"), "frontmatter unchanged");
        let files = skills[1].resources.as_ref().unwrap();
        assert_eq!(files[1].uri, "mcp-gateway://b/skill://pdf/FORMS.md");
        assert_eq!(files[1].digest.as_deref(), Some("sha256:bb"));
        let route = |uri: &str| listing.route(uri).map(|r| (r.server, r.uri));
        assert_eq!(
            route("skill://pdf/FORMS.md"),
            Some(("a".into(), "skill://pdf/FORMS.md".into()))
        );
        assert_eq!(
            route("mcp-gateway://b/skill://pdf/FORMS.md"),
            Some(("b".into(), "skill://pdf/FORMS.md".into()))
        );
        assert!(
            listing
                .skill("mcp-gateway://b/skill://pdf/SKILL.md")
                .is_some()
        );
        assert!(listing.skill("skill://nope/SKILL.md").is_none());
    }

    #[test]
    fn names_are_served_qualified_and_uris_route_back() {
        let catalog = Arc::new(Catalog::build(
            &[
                server(
                    "b",
                    &["echo"],
                    &["file:///same", "b://only"],
                    &["b://item/{id}"],
                ),
                server("a", &["echo"], &["file:///same"], &["file:///dir/{name}"]),
            ],
            &Default::default(),
        ));
        let listing = Listing::build(catalog, false);
        let tools: Vec<&Tool> = ListToolsResult::items(&listing).valid().collect();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a__echo", "b__echo"]);
        assert_eq!(tools[0].input_schema.to_value().unwrap()["type"], "object");
        let uris: Vec<&str> = ListResourcesResult::items(&listing)
            .valid()
            .map(|resource| resource.uri.as_str())
            .collect();
        assert_eq!(
            uris,
            ["file:///same", "mcp-gateway://b/file:///same", "b://only"]
        );
        let route = |uri: &str| listing.route(uri).map(|r| (r.server, r.uri));
        assert_eq!(
            route("file:///same"),
            Some(("a".into(), "file:///same".into()))
        );
        assert_eq!(
            route("mcp-gateway://b/file:///same"),
            Some(("b".into(), "file:///same".into()))
        );
        assert_eq!(route("b://only"), Some(("b".into(), "b://only".into())));
        assert_eq!(route("b://item/7"), Some(("b".into(), "b://item/7".into())));
        assert_eq!(
            route("file:///dir/x.txt"),
            Some(("a".into(), "file:///dir/x.txt".into()))
        );
        assert_eq!(route("nothing://here"), None);
    }

    #[test]
    fn an_item_our_types_cannot_read_is_still_served_under_its_served_name() {
        let mut report = server("a", &["good"], &[], &[]);
        report.tools.push_raw(
            json!({"name": "odd", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}})
                .into(),
        );
        let listing = Listing::build(
            Arc::new(Catalog::build(&[report], &Default::default())),
            false,
        );
        let served = ListToolsResult::items(&listing);
        assert_eq!(served.len(), 2);
        let odd = served.get(1).unwrap().unwrap_err();
        assert_eq!(odd.index(), 1);
        let odd = odd.raw().to_value().unwrap();
        assert_eq!(
            (&odd["name"], &odd["annotations"]["readOnlyHint"]),
            (&json!("a__odd"), &json!("yes"))
        );
    }
}
