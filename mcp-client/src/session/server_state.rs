//! What the server told us about itself when we connected ([`ServerState`]),
//! and how the era and version were settled ([`Negotiation`]).

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::meta;
use mcpdisco_protocol::types::{
    DiscoverResult, Implementation, InitializeResult, ServerCapabilities,
};
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_transport::secret::Masker;
use serde::Serialize;
use serde_json::Value;

/// The versions we offer in the legacy handshake, newest first.
pub(crate) const LEGACY_OFFER: ProtocolVersion = ProtocolVersion::V2025_11_25;
/// The modern versions we speak.
pub(crate) const MODERN_VERSIONS: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

/// What the server told us about itself when we connected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerState {
    /// The era in use.
    pub era: Era,
    /// The protocol version in use.
    pub protocol_version: ProtocolVersion,
    /// The server's `Implementation` (`serverInfo`); unknown members are kept.
    pub server_info: Implementation,
    /// The server's capabilities; unknown members are kept.
    pub capabilities: ServerCapabilities,
    /// The server's instructions, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Modern only: how long the discover result stays fresh, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Modern only: `public` or `private`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
    /// How the era and version were settled (for diagnostics).
    #[serde(skip)]
    pub negotiation: Negotiation,
}

/// How a handshake went, step by step: what `mcp-cli doctor` explains.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Negotiation {
    /// What the `server/discover` probe got, when it was sent.
    pub probe: Option<String>,
    /// Whether the probe went unanswered within the probe timeout (a slow
    /// server, or a busy machine): then a refused `initialize` means modern.
    pub probe_timed_out: bool,
    /// The versions we offered.
    pub offered: Vec<String>,
    /// What the server answered (its `protocolVersion`, or its supported versions).
    pub answered: Vec<String>,
    /// The members of the `initialize` result beyond the standard ones
    /// (`tools` there is non-standard and ignored).
    pub initialize_extras: Vec<String>,
}

impl ServerState {
    /// The state before the handshake ends.
    pub(crate) fn pending() -> Self {
        Self {
            era: Era::Legacy,
            protocol_version: LEGACY_OFFER,
            server_info: Implementation::new("", ""),
            capabilities: ServerCapabilities::default(),
            instructions: None,
            ttl_ms: None,
            cache_scope: None,
            negotiation: Negotiation::default(),
        }
    }

    /// A modern server speaking `version`, from its `server/discover`
    /// result (`raw`, read as `result`): `serverInfo`, `ttlMs` and
    /// `cacheScope` come from there.
    pub(crate) fn modern(
        version: ProtocolVersion,
        raw: &RawJson,
        result: DiscoverResult,
        negotiation: Negotiation,
    ) -> Self {
        let server_info = meta::server_info_of(raw)
            .and_then(|info| serde_json::from_value(info).ok())
            .unwrap_or_else(|| Implementation::new("", ""));
        Self {
            era: Era::Modern,
            protocol_version: version,
            server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
            ttl_ms: Some(meta::ttl_ms_of(raw)),
            cache_scope: result.cache_scope.map(|scope| scope.as_str().to_owned()),
            negotiation,
        }
    }

    /// A legacy server speaking `version`, from its `initialize` result.
    pub(crate) fn legacy(
        version: ProtocolVersion,
        result: InitializeResult,
        negotiation: Negotiation,
    ) -> Self {
        Self {
            era: Era::Legacy,
            protocol_version: version,
            server_info: result.server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
            ttl_ms: None,
            cache_scope: None,
            negotiation,
        }
    }

    /// The state with known secrets masked in what the server said about itself.
    pub fn masked(mut self, masker: &Masker) -> Self {
        if masker.is_empty() {
            return self;
        }
        self.server_info = mask_typed(masker, self.server_info);
        self.capabilities = mask_typed(masker, self.capabilities);
        self.instructions = self.instructions.map(|text| masker.mask_string(text));
        let negotiation = &mut self.negotiation;
        negotiation.probe = negotiation
            .probe
            .take()
            .map(|text| masker.mask_string(text));
        for text in negotiation
            .answered
            .iter_mut()
            .chain(negotiation.initialize_extras.iter_mut())
        {
            *text = masker.mask_string(std::mem::take(text));
        }
        self
    }

    /// Whether the server declared a capability (`tools`, `resources`,
    /// `prompts`, `logging`, `completions`, or any other by name), or an
    /// extension by its identifier (`io.modelcontextprotocol/skills`: a
    /// name with a `/`, looked up under `extensions`). One declared as
    /// `null` counts as not declared.
    pub fn has_capability(&self, name: &str) -> bool {
        let caps = &self.capabilities;
        let present = |value: &Option<Value>| value.as_ref().is_some_and(|v| !v.is_null());
        match name {
            "tools" => caps.tools.is_some(),
            "resources" => caps.resources.is_some(),
            "prompts" => caps.prompts.is_some(),
            "logging" => present(&caps.logging),
            "completions" => present(&caps.completions),
            "tasks" => present(&caps.tasks),
            extension if extension.contains('/') => caps.has_extension(extension),
            other => caps.extra.get(other).is_some_and(|v| !v.is_null()),
        }
    }
}

/// A typed value with its strings masked (through JSON; the value was read from JSON).
fn mask_typed<T: Serialize + serde::de::DeserializeOwned>(masker: &Masker, value: T) -> T {
    let Ok(mut json) = serde_json::to_value(&value) else {
        return value;
    };
    masker.mask_value(&mut json);
    serde_json::from_value(json).unwrap_or(value)
}
