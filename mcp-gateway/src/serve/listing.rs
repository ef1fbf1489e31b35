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
//!
//! A listing is built once per catalog (the catalog is shared as an `Arc`,
//! so rebuilding happens only when a server's lists change).

use std::collections::HashMap;
use std::sync::Arc;

use mcpdisco_protocol::{JsonView, ResourceView};
use serde_json::Value;

use mcpdisco::catalog::{Catalog, CatalogEntry, namespace_of};
use mcpdisco_client::session::ListKind;

/// The scheme of URIs the gateway had to qualify with their server.
pub const GATEWAY_URI_PREFIX: &str = "mcp-gateway://";

/// Where a served URI goes: the server and the URI it knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRoute {
    /// The server.
    pub server: String,
    /// The URI as the server knows it.
    pub uri: String,
}

/// The gateway's lists of one catalog.
#[derive(Debug)]
pub(crate) struct Listing {
    /// The catalog they were built from.
    pub(crate) catalog: Arc<Catalog>,
    tools: Vec<Value>,
    prompts: Vec<Value>,
    resources: Vec<Value>,
    templates: Vec<Value>,
    /// Served resource URIs, to their servers.
    uris: HashMap<String, ResourceRoute>,
    /// Served templates' literal prefixes (before the first `{`), longest first.
    template_prefixes: Vec<(String, ResourceRoute)>,
    /// Server namespaces (as in qualified URIs), to servers.
    namespaces: HashMap<String, String>,
}

impl Listing {
    /// The lists of `catalog`.
    pub(crate) fn build(catalog: Arc<Catalog>) -> Self {
        let named = |entries: &[CatalogEntry]| -> Vec<Value> {
            entries
                .iter()
                .filter_map(|entry| {
                    let mut item = entry.item.to_value().ok()?;
                    item.as_object_mut()?
                        .insert("name".into(), Value::from(entry.qualified_name.as_str()));
                    Some(item)
                })
                .collect()
        };
        let mut namespaces = HashMap::new();
        for kind in ListKind::ALL {
            for entry in catalog.entries(kind) {
                namespaces
                    .entry(namespace_of(&entry.server))
                    .or_insert_with(|| entry.server.clone());
            }
        }
        let mut uris = HashMap::new();
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
        Self {
            tools: named(&catalog.tools),
            prompts: named(&catalog.prompts),
            resources,
            templates,
            uris,
            template_prefixes,
            namespaces,
            catalog,
        }
    }

    /// The served items of `kind`.
    pub(crate) fn items(&self, kind: ListKind) -> &[Value] {
        match kind {
            ListKind::Tools => &self.tools,
            ListKind::Prompts => &self.prompts,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.templates,
        }
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

/// The served items of resources or templates: URIs offered by one server
/// stay as they are; of a URI offered by several, the first server (in
/// name order) keeps it and the others qualify it. Calls `route` with each
/// served URI and its route.
fn served_uris(
    entries: &[CatalogEntry],
    template: bool,
    mut route: impl FnMut(&str, ResourceRoute),
) -> Vec<Value> {
    let key = if template { "uriTemplate" } else { "uri" };
    let mut owner: HashMap<String, &str> = HashMap::new();
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
        items.push(item);
    }
    items
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
    fn names_are_served_qualified_and_uris_route_back() {
        let catalog = Arc::new(Catalog::build(&[
            server(
                "b",
                &["echo"],
                &["file:///same", "b://only"],
                &["b://item/{id}"],
            ),
            server("a", &["echo"], &["file:///same"], &["file:///dir/{name}"]),
        ]));
        let listing = Listing::build(catalog);
        let tools: Vec<&str> = listing
            .items(ListKind::Tools)
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(tools, ["a__echo", "b__echo"]);
        assert_eq!(
            listing.items(ListKind::Tools)[0]["inputSchema"]["type"],
            "object"
        );
        let uris: Vec<&str> = listing
            .items(ListKind::Resources)
            .iter()
            .filter_map(|r| r["uri"].as_str())
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
}
