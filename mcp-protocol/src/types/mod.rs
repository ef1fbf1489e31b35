//! MCP data types for every protocol version, forward compatible.
//!
//! Every struct keeps the fields it does not know in `extra` and writes them
//! back, so a round trip through these types loses nothing. Unknown enum
//! values, unknown content types and unknown completion references are kept
//! too, never an error. JSON Schemas are raw JSON values, never
//! dereferenced; tool arguments, `structuredContent`, sampling `metadata` and
//! log `data` are free JSON, as the specification has them. Every other
//! structure the specification defines is a type here: sampling messages
//! ([`SamplingMessage`], [`SamplingContent`]) and their tools
//! ([`ToolUseContent`], [`ToolResultContent`], [`ToolChoice`]), model
//! preferences, completion references and results, [`Annotations`],
//! [`ToolExecution`]. The items of a list result are an [`ItemList`]: kept
//! as sent, each decoded when first read.
//!
//! A member the specification types as an object (`annotations`,
//! `execution`) that comes as `null` is not read as absent: the content
//! block holding it is kept as sent ([`ContentBlock::Unknown`]), the list
//! item holding it is reported malformed and kept raw.

mod annotations;
mod capabilities;
mod completion;
mod content;
mod elicitation;
pub(crate) mod extra;
mod implementation;
mod input;
pub(crate) mod item_list;
mod lifecycle;
mod list_result;
mod logging;
mod notifications;
mod present_field;
mod prompt;
mod resource;
mod resource_contents;
mod role;
mod roots;
mod sampling;
mod skill;
mod string_enum;
mod task;
mod tool;
mod tool_choice;

pub use annotations::Annotations;
pub use capabilities::{
    ClientCapabilities, ElicitationCapability, FormElicitationCapability, ListChangedCapability,
    ResourcesCapability, RootsCapability, SamplingCapability, ServerCapabilities,
};
pub use completion::{
    CompleteParams, CompleteResult, Completion, CompletionArgument, CompletionContext,
    CompletionReference,
};
pub use content::{
    AudioContent, ContentBlock, EmbeddedResource, ImageContent, TextContent, ToolResultContent,
    ToolUseContent,
};
pub use elicitation::{ElicitAction, ElicitParams, ElicitResult, ElicitationCompleteParams};
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
    SubscriptionsAcknowledgedParams, SubscriptionsListenParams, TASK_IDS_KEY,
};
pub use prompt::{
    GetPromptParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage,
};
pub use resource::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceParams, ReadResourceResult,
    Resource, ResourceLink, ResourceTemplate, SubscribeParams,
};
pub use resource_contents::ResourceContents;
pub use role::Role;
pub use roots::{ListRootsResult, Root};
pub use sampling::{
    CreateMessageParams, CreateMessageResult, IncludeContext, ModelHint, ModelPreferences,
    SamplingContent, SamplingMessage, StopReason,
};
pub use skill::{
    GetSkillParams, GetSkillResult, ListSkillsResult, SKILLS_EXTENSION, SkillEntry, SkillFileSize,
    SkillResource,
};
pub use task::{
    CreateTaskResult, DetailedTask, TASKS_EXTENSION, Task, TaskIdParams, TaskResultType,
    TaskStatus, UpdateTaskParams,
};
pub use tool::{
    CallToolParams, CallToolResult, ListToolsResult, TaskSupport, Tool, ToolAnnotations,
    ToolExecution, ToolNameWarning, check_tool_name,
};
pub use tool_choice::{ToolChoice, ToolChoiceMode};
