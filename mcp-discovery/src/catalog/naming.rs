//! How the catalog names items: namespaced `<server><separator><name>`
//! made safe for models, or (a server with `"namespace": false`) the
//! item's own name, where a clash with another server is a [`NameClash`].

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use mcpdisco_protocol::{JsonView, RawJson, ResourceView};
use serde::Serialize;

use super::entry::CatalogEntry;
use crate::item_name::item_name;
use crate::report::ServerReport;
use mcpdisco_client::session::ListKind;

/// How a catalog names its items. The default namespaces every server's
/// items with [`DEFAULT_SEPARATOR`](super::DEFAULT_SEPARATOR).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    /// The separator between server and item names.
    pub separator: String,
    /// The servers whose items keep their own names (`"namespace": false`).
    pub plain: BTreeSet<String>,
}

impl Default for Naming {
    fn default() -> Self {
        Self::namespaced(super::DEFAULT_SEPARATOR)
    }
}

impl Naming {
    /// Every server namespaced with `separator`.
    pub fn namespaced(separator: &str) -> Self {
        Self {
            separator: separator.to_owned(),
            plain: BTreeSet::new(),
        }
    }

    /// Namespaced with `separator`, but for the `plain` servers.
    pub fn with_plain(separator: &str, plain: impl IntoIterator<Item = String>) -> Self {
        Self {
            separator: separator.to_owned(),
            plain: plain.into_iter().collect(),
        }
    }

    /// Namespaced with `separator`, but for the servers of `servers` that
    /// set `"namespace": false`.
    pub fn of_servers(separator: &str, servers: &[crate::config::ServerConfig]) -> Self {
        Self::with_plain(
            separator,
            servers
                .iter()
                .filter(|server| !server.namespaced)
                .map(|server| server.name.clone()),
        )
    }

    /// Whether `server`'s items keep their own names.
    pub fn is_plain(&self, server: &str) -> bool {
        self.plain.contains(server)
    }
}

/// An item of a server with `"namespace": false` whose name another server
/// already holds: it is left out of the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NameClash {
    /// The kind of item (`tool`, `prompt`, …).
    pub kind: &'static str,
    /// The name both servers offer.
    pub name: String,
    /// The server that holds the name (first in name order).
    pub held_by: String,
    /// The server whose item was left out.
    pub left_out: String,
}

impl fmt::Display for NameClash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} '{}' of server '{}' clashes with server '{}', which offers the same name; \
             '{}' sets \"namespace\": false, so its {} was left out",
            self.kind, self.name, self.left_out, self.held_by, self.left_out, self.kind
        )
    }
}

/// The singular name of a kind, as clashes and errors say it.
pub fn kind_noun(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tool",
        ListKind::Resources => "resource",
        ListKind::ResourceTemplates => "resource template",
        ListKind::Prompts => "prompt",
        ListKind::Skills => "skill",
    }
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
    let hash = crate::fnv::fnv1a_32(name.as_bytes());
    format!("{}_{hash:08x}", &safe[..MAX_NAME_LEN - 9])
}

/// The name a plain server's item keeps: its own name, or for resources
/// and templates (which clients address by URI) its URI.
fn plain_key(kind: ListKind, item: &RawJson) -> String {
    match kind {
        ListKind::Resources | ListKind::ResourceTemplates => {
            match ResourceView::read(JsonView::of(item), kind == ListKind::ResourceTemplates).uri()
            {
                Some(uri) => uri.into_owned(),
                None => item_name(kind, item),
            }
        }
        ListKind::Tools | ListKind::Prompts | ListKind::Skills => item_name(kind, item),
    }
}

/// Every item of `kind` of the `ready` servers (in name order), named by
/// `naming`, and the clashes of plain names. Plain servers are named first,
/// so their names are never taken by a namespaced one; a namespaced name
/// already taken gets the first free `<name><separator>2`, `…3`.
pub(super) fn flatten(
    ready: &[&ServerReport],
    kind: ListKind,
    naming: &Naming,
) -> (Vec<CatalogEntry>, Vec<NameClash>) {
    let separator = naming.separator.as_str();
    // Which server holds each name.
    let mut taken: HashMap<String, String> = HashMap::new();
    let mut entries = Vec::new();
    let mut clashes = Vec::new();
    let (plain, namespaced): (Vec<&ServerReport>, Vec<&ServerReport>) = ready
        .iter()
        .copied()
        .partition(|report| naming.is_plain(&report.name));
    for report in plain {
        for item in report.items(kind) {
            let key = plain_key(kind, item);
            match taken.get(&key) {
                Some(holder) if *holder != report.name => clashes.push(NameClash {
                    kind: kind_noun(kind),
                    name: key,
                    held_by: holder.clone(),
                    left_out: report.name.clone(),
                }),
                // A server that lists one name twice: served once.
                Some(_) => {}
                None => {
                    taken.insert(key.clone(), report.name.clone());
                    entries.push(CatalogEntry {
                        qualified_name: key,
                        server: report.name.clone(),
                        name: item_name(kind, item),
                        item: item.clone(),
                    });
                }
            }
        }
    }
    for report in namespaced {
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
            while taken.contains_key(&qualified) {
                qualified = shape(format!("{base}{separator}{n}"));
                n += 1;
            }
            taken.insert(qualified.clone(), report.name.clone());
            entries.push(CatalogEntry {
                qualified_name: qualified,
                server: report.name.clone(),
                name,
                item: item.clone(),
            });
        }
    }
    (entries, clashes)
}
