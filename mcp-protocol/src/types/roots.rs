//! Roots: the directories (or other URIs) a client exposes to a server, and `roots/list`.

use super::extra::Extra;

super::extra::struct_with_extra! {
    /// A root the client exposes.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Root {
        /// Its URI (`file://...`).
        pub uri: String,
        /// Its name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `roots/list` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ListRootsResult {
        /// The roots.
        pub roots: Vec<Root>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl Root {
    /// A root at `uri` (`file://...`), unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ListRootsResult {
    /// A `roots/list` result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        Self {
            roots,
            meta: None,
            extra: Extra::new(),
        }
    }
}
