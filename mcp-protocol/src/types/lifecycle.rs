//! The handshake types of both eras: `initialize` (legacy) and `server/discover` (modern),
//! plus the small params shared by many methods.

use serde::Deserialize;

use super::capabilities::{ClientCapabilities, ServerCapabilities};
use super::extra::Extra;
use super::implementation::Implementation;
use crate::meta::SERVER_INFO_KEY;

super::extra::struct_with_extra! {
    /// Params that carry nothing but `_meta` (ping, discover, list_changed notifications).
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct MetaParams {
        /// Metadata; in the modern era, the per-request envelope.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

/// A result that carries no data.
pub type EmptyResult = MetaParams;

super::extra::struct_with_extra! {
    /// Params of the list methods.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct PaginatedParams {
        /// The cursor of the page to fetch; absent for the first page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cursor: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `initialize` params (legacy era).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct InitializeParams {
        /// The version the client asks for: the newest it speaks.
        pub protocol_version: String,
        /// What the client supports.
        pub capabilities: ClientCapabilities,
        /// Who the client is.
        pub client_info: Implementation,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `initialize` result (legacy era).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct InitializeResult {
        /// The version the server chose.
        pub protocol_version: String,
        /// What the server offers (read as nothing when left out).
        #[serde(default)]
        pub capabilities: ServerCapabilities,
        /// Who the server is (read as unnamed when left out, as some servers do).
        #[serde(default)]
        pub server_info: Implementation,
        /// Guidance for the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub instructions: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::string_enum::open_string_enum!(
    /// Who may share a cached result (2026-07-28).
    CacheScope {
        /// Any client may share it.
        Public => "public",
        /// Only for the credentials that fetched it.
        Private => "private",
    }
);

super::extra::struct_with_extra! {
    /// `server/discover` result (2026-07-28).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct DiscoverResult {
        /// The versions the server speaks.
        pub supported_versions: Vec<String>,
        /// What the server offers.
        pub capabilities: ServerCapabilities,
        /// Guidance for the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub instructions: Option<String>,
        /// How long the result stays fresh, in milliseconds (absent or negative: 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttl_ms: Option<i64>,
        /// Who may share it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cache_scope: Option<CacheScope>,
        /// Metadata, with the server's `Implementation` under `io.modelcontextprotocol/serverInfo`.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl InitializeResult {
    /// The server `server_info` speaks `protocol_version` and offers `capabilities`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl DiscoverResult {
    /// The server speaks `supported_versions` and offers `capabilities`.
    pub fn new(supported_versions: Vec<String>, capabilities: ServerCapabilities) -> Self {
        Self {
            supported_versions,
            capabilities,
            instructions: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The server's `Implementation`, when it sent one that can be read.
    pub fn server_info(&self) -> Option<Implementation> {
        let info = self.meta.as_ref()?.get(SERVER_INFO_KEY)?;
        Implementation::deserialize(info).ok()
    }

    /// The freshness hint; absent or negative means 0.
    pub fn ttl_ms(&self) -> u64 {
        self.ttl_ms.map_or(0, |ttl| u64::try_from(ttl).unwrap_or(0))
    }
}

impl PaginatedParams {
    /// The page after `cursor` (the first page when `None`).
    pub fn after(cursor: Option<String>) -> Self {
        Self {
            cursor,
            ..Self::default()
        }
    }
}

impl InitializeParams {
    /// `initialize` offering `protocol_version`, with our capabilities and identity.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
            meta: None,
            extra: Extra::new(),
        }
    }
}
