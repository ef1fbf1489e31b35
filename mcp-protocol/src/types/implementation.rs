//! `Implementation` (clientInfo / serverInfo) and `Icon`.

use super::extra::Extra;

super::extra::struct_with_extra! {
    /// An icon a client may show.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Icon {
        /// Where the icon is (a URL or a data URI).
        pub src: String,
        /// Its MIME type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mime_type: Option<String>,
        /// Its sizes, such as `48x48`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sizes: Option<Vec<String>>,
    }
}

super::extra::struct_with_extra! {
    /// The name and version of an MCP client or server.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Implementation {
        /// The programmatic name.
        pub name: String,
        /// The version (read as empty when a server leaves it out, as some do).
        #[serde(default)]
        pub version: String,
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// A description (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// A website (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub website_url: Option<String>,
        /// Icons (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub icons: Option<Vec<Icon>>,
    }
}

impl Default for Implementation {
    /// An unnamed implementation without a version.
    fn default() -> Self {
        Self::new("", "")
    }
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
            extra: Extra::new(),
        }
    }

    /// The title, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}
