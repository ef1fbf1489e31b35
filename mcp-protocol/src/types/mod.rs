//! MCP data types for every protocol version, forward compatible.
//!
//! Every struct keeps the fields it does not know in `extra` and writes them
//! back, so a round trip through these types loses nothing. Unknown enum
//! values and unknown content types are kept too, never an error. JSON
//! Schemas are raw JSON values, never dereferenced. The items of a list
//! result are an [`ItemList`]: kept as sent, each decoded when first read.

mod capabilities;
mod completion;
mod content;
pub(crate) mod extra;
mod implementation;
mod input;
pub(crate) mod item_list;
mod lifecycle;
mod logging;
mod notifications;
mod present_field;
mod prompt;
mod resource;
mod resource_contents;
mod sampling;
mod skill;
mod string_enum;
mod tool;

pub use capabilities::{
    ClientCapabilities, ElicitationCapability, FormElicitationCapability, ListChangedCapability,
    ResourcesCapability, RootsCapability, ServerCapabilities,
};
pub use completion::CompletionReference;
pub use content::{AudioContent, ContentBlock, EmbeddedResource, ImageContent, TextContent};
pub use extra::Extra;
pub use implementation::{Icon, Implementation};
pub use input::{Answer, InputRequest, InputRequiredResult};
pub use item_list::{IntoItems, ItemList, Items, ListResult, MalformedItem};
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
pub use resource_contents::ResourceContents;
pub use sampling::{
    CompleteParams, CompleteResult, CreateMessageParams, CreateMessageResult, ElicitAction,
    ElicitParams, ElicitResult, ElicitationCompleteParams, ListRootsResult, Root,
};
pub use skill::{
    GetSkillParams, GetSkillResult, ListSkillsResult, SKILLS_EXTENSION, SkillEntry, SkillFileSize,
    SkillResource,
};
pub use tool::{
    CallToolParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations, ToolNameWarning,
    check_tool_name,
};
