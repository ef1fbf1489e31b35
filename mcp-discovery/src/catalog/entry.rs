//! [`CatalogEntry`]: one item of the catalog's flat view.

use mcpdisco_protocol::RawJson;
use serde::Serialize;

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
