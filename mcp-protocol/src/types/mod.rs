//! MCP data types for every protocol version, forward compatible.
//!
//! Every struct keeps the fields it does not know in `extra` and writes them
//! back, so a round trip through these types loses nothing. Unknown enum
//! values and unknown content types are kept too, never an error. JSON
//! Schemas are raw JSON values, never dereferenced.

/// Defines an enum over known wire strings plus `Other(String)` for unknown
/// values, with `as_str`, `Display` and string serde.
macro_rules! open_string_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A value this crate does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Other(other) => other,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::from(text.as_str()))
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                match text {
                    $($wire => $name::$variant,)+
                    _ => $name::Other(text.to_owned()),
                }
            }
        }
    };
}
pub(crate) use open_string_enum;

pub(crate) use extra::struct_with_extra;

mod capabilities;
mod content;
pub(crate) mod extra;
mod implementation;
mod input;
pub(crate) mod item_list;
mod lifecycle;
mod logging;
mod notifications;
mod prompt;
mod resource;
mod sampling;
mod tool;

pub use capabilities::{
    ClientCapabilities, ElicitationCapability, FormElicitationCapability, ListChangedCapability,
    ResourcesCapability, RootsCapability, ServerCapabilities,
};
pub use content::{
    AudioContent, ContentBlock, EmbeddedResource, ImageContent, ResourceContents, TextContent,
};
pub use implementation::{Icon, Implementation};
pub use input::{Answer, InputRequest, InputRequiredResult};
pub use item_list::{ItemList, ListItem, ListResult};
pub use lifecycle::{
    CacheScope, DiscoverResult, EmptyResult, InitializeParams, InitializeResult, MetaParams,
    PaginatedParams,
};
pub use logging::{LoggingLevel, LoggingMessageParams, SetLevelParams};
pub use notifications::{
    CancelledParams, ProgressParams, ResourceUpdatedParams, SubscriptionFilter,
    SubscriptionsAcknowledgedParams, SubscriptionsListenParams,
};
pub use prompt::{
    GetPromptParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage,
    Role,
};
pub use resource::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceParams, ReadResourceResult,
    Resource, ResourceLink, ResourceTemplate, SubscribeParams,
};
pub use sampling::{
    CompleteParams, CompleteResult, CreateMessageParams, CreateMessageResult, ElicitAction,
    ElicitParams, ElicitResult, ElicitationCompleteParams, ListRootsResult, Root,
};
pub use tool::{
    CallToolParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations, ToolNameWarning,
    check_tool_name,
};

/// Fields a type does not know, kept in order and written back.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// Reads a field that is present as `Some`, even when it is `null`, so an
/// explicit `null` survives a round trip.
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    <serde_json::Value as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// Like [`present`], keeping the value raw.
pub(crate) fn present_raw<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<crate::raw::RawJson>, D::Error> {
    <crate::raw::RawJson as serde::Deserialize>::deserialize(deserializer).map(Some)
}
