//! Client and server capabilities, for both eras.

use serde_json::Value;

use super::extra::Extra;

super::extra::struct_with_extra! {
    /// A capability whose only option is `listChanged`.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ListChangedCapability {
        /// Whether the peer sends `list_changed` notifications.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub list_changed: Option<bool>,
    }
}

/// The client's `roots` capability.
pub type RootsCapability = ListChangedCapability;

super::extra::struct_with_extra! {
    /// The server's `resources` capability.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ResourcesCapability {
        /// Whether `resources/subscribe` is supported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub subscribe: Option<bool>,
        /// Whether `notifications/resources/list_changed` is sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub list_changed: Option<bool>,
    }
}

super::extra::struct_with_extra! {
    /// The form mode of elicitation.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct FormElicitationCapability {
        /// Whether the client fills in schema defaults (SEP-1034).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub apply_defaults: Option<bool>,
    }
}

super::extra::struct_with_extra! {
    /// The client's `elicitation` capability. `{}` means form mode only.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ElicitationCapability {
        /// Form mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub form: Option<FormElicitationCapability>,
        /// URL mode (2025-11-25).
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub url: Option<Value>,
    }
}

super::extra::struct_with_extra! {
    /// The client's `sampling` capability. `{}` means plain sampling.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct SamplingCapability {
        /// The client honors `includeContext` other than `none` (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub context: Option<Extra>,
        /// The client lets the model call the `tools` of a request (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// What a client supports.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ClientCapabilities {
        /// `roots/list`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub roots: Option<RootsCapability>,
        /// `sampling/createMessage`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sampling: Option<SamplingCapability>,
        /// `elicitation/create`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation: Option<ElicitationCapability>,
        /// Tasks (2025-11-25, experimental).
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub tasks: Option<Value>,
        /// Experimental capabilities.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub experimental: Option<Extra>,
        /// Extensions (2026-07-28).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub extensions: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// What a server offers.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ServerCapabilities {
        /// Tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools: Option<ListChangedCapability>,
        /// Resources.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resources: Option<ResourcesCapability>,
        /// Prompts.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prompts: Option<ListChangedCapability>,
        /// Log messages (`logging/setLevel` in the legacy era).
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub logging: Option<Value>,
        /// `completion/complete`.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub completions: Option<Value>,
        /// Tasks (2025-11-25, experimental).
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub tasks: Option<Value>,
        /// Experimental capabilities.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub experimental: Option<Extra>,
        /// Extensions (2026-07-28).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub extensions: Option<Extra>,
    }
}

impl ServerCapabilities {
    /// Whether the server declares the extension `id` (a non-null member of
    /// `extensions`), such as [`SKILLS_EXTENSION`](super::SKILLS_EXTENSION).
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions
            .as_ref()
            .and_then(|extensions| extensions.get(id))
            .is_some_and(|value| !value.is_null())
    }
}
