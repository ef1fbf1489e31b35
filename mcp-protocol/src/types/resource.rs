//! Resources, resource templates, their lists, `resources/read` and subscriptions.

use super::annotations::Annotations;
use super::extra::Extra;
use super::implementation::Icon;
use super::item_list::ItemList;
use super::lifecycle::CacheScope;
use super::list_result::list_result;
use super::resource_contents::ResourceContents;

super::extra::struct_with_extra! {
    /// A resource a server offers.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Resource {
        /// Its URI.
        pub uri: String,
        /// Its name.
        pub name: String,
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// Its MIME type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mime_type: Option<String>,
        /// Its size in bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<u64>,
        /// Audience and priority hints.
        #[serde(
            default,
            deserialize_with = "super::present_field::present_typed",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Annotations>,
        /// Icons.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub icons: Option<Vec<Icon>>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl Resource {
    /// The resource at `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The title, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

/// A `resource_link` content block carries a resource description.
pub type ResourceLink = Resource;

super::extra::struct_with_extra! {
    /// A template of resource URIs (RFC 6570).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ResourceTemplate {
        /// The URI template.
        pub uri_template: String,
        /// Its name.
        pub name: String,
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// The MIME type of the resources.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mime_type: Option<String>,
        /// Audience and priority hints.
        #[serde(
            default,
            deserialize_with = "super::present_field::present_typed",
            skip_serializing_if = "Option::is_none"
        )]
        pub annotations: Option<Annotations>,
        /// Icons.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub icons: Option<Vec<Icon>>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl ResourceTemplate {
    /// The resources of `uri_template`, called `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The title, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

list_result!(
    /// `resources/list` result.
    ListResourcesResult, resources, "resources", Resource
);
list_result!(
    /// `resources/templates/list` result.
    ListResourceTemplatesResult, resource_templates, "resourceTemplates", ResourceTemplate
);

super::extra::struct_with_extra! {
    /// `resources/read` params.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ReadResourceParams {
        /// The resource.
        pub uri: String,
        /// Answers to the server's input requests (2026-07-28 retries).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_responses: Option<Extra>,
        /// The server's request state, echoed unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_state: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `resources/read` result.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ReadResourceResult {
        /// The contents (a resource may have several parts).
        pub contents: Vec<ResourceContents>,
        /// How long the contents stay fresh, in milliseconds (2026-07-28, SEP-2549).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttl_ms: Option<i64>,
        /// Who may share a cached copy (2026-07-28, SEP-2549).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cache_scope: Option<super::lifecycle::CacheScope>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `resources/subscribe` and `resources/unsubscribe` params.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SubscribeParams {
        /// The resource.
        pub uri: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl ReadResourceParams {
    /// A read of `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            input_responses: None,
            request_state: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ReadResourceResult {
    /// A result of `contents`.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self {
            contents,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The same contents, fresh for `ttl_ms` and shareable within `scope`.
    pub fn cached(self, ttl_ms: i64, scope: super::lifecycle::CacheScope) -> Self {
        Self {
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(scope),
            ..self
        }
    }
}

impl SubscribeParams {
    /// A subscription to (or unsubscription from) `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}
