//! One zero-sized type per MCP method, pairing its name with its params and result types.
//!
//! ```
//! use mcp_protocol::method::RequestMethod;
//! use mcp_protocol::methods::ListTools;
//! assert_eq!(ListTools::METHOD, "tools/list");
//! ```

use crate::method::{NotificationMethod, RequestMethod};
use crate::types::{
    CallToolParams, CallToolResult, CancelledParams, CompleteParams, CompleteResult,
    CreateMessageParams, CreateMessageResult, DiscoverResult, ElicitParams, ElicitResult,
    ElicitationCompleteParams, EmptyResult, GetPromptParams, GetPromptResult, InitializeParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListRootsResult, ListToolsResult, LoggingMessageParams, MetaParams, PaginatedParams,
    ProgressParams, ReadResourceParams, ReadResourceResult, ResourceUpdatedParams, SetLevelParams,
    SubscribeParams, SubscriptionsAcknowledgedParams, SubscriptionsListenParams,
};

macro_rules! request {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty, $result:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}

        impl RequestMethod for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }
    };
}

macro_rules! notification {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}

        impl NotificationMethod for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
}

request!(
    /// `initialize` (legacy era): the handshake.
    Initialize, "initialize", InitializeParams, InitializeResult
);
request!(
    /// `ping` (legacy era).
    Ping, "ping", MetaParams, EmptyResult
);
request!(
    /// `server/discover` (2026-07-28).
    Discover, "server/discover", MetaParams, DiscoverResult
);
request!(
    /// `tools/list`.
    ListTools, "tools/list", PaginatedParams, ListToolsResult
);
request!(
    /// `tools/call`.
    CallTool, "tools/call", CallToolParams, CallToolResult
);
request!(
    /// `resources/list`.
    ListResources, "resources/list", PaginatedParams, ListResourcesResult
);
request!(
    /// `resources/templates/list`.
    ListResourceTemplates, "resources/templates/list", PaginatedParams, ListResourceTemplatesResult
);
request!(
    /// `resources/read`.
    ReadResource, "resources/read", ReadResourceParams, ReadResourceResult
);
request!(
    /// `resources/subscribe` (legacy era).
    Subscribe, "resources/subscribe", SubscribeParams, EmptyResult
);
request!(
    /// `resources/unsubscribe` (legacy era).
    Unsubscribe, "resources/unsubscribe", SubscribeParams, EmptyResult
);
request!(
    /// `prompts/list`.
    ListPrompts, "prompts/list", PaginatedParams, ListPromptsResult
);
request!(
    /// `prompts/get`.
    GetPrompt, "prompts/get", GetPromptParams, GetPromptResult
);
request!(
    /// `completion/complete`.
    Complete, "completion/complete", CompleteParams, CompleteResult
);
request!(
    /// `logging/setLevel` (legacy era).
    SetLevel, "logging/setLevel", SetLevelParams, EmptyResult
);
request!(
    /// `subscriptions/listen` (2026-07-28).
    SubscriptionsListen, "subscriptions/listen", SubscriptionsListenParams, EmptyResult
);
request!(
    /// `roots/list`, from server to client.
    ListRoots, "roots/list", MetaParams, ListRootsResult
);
request!(
    /// `sampling/createMessage`, from server to client.
    CreateMessage, "sampling/createMessage", CreateMessageParams, CreateMessageResult
);
request!(
    /// `elicitation/create`, from server to client.
    Elicit, "elicitation/create", ElicitParams, ElicitResult
);

notification!(
    /// `notifications/initialized`, from client to server after `initialize`.
    Initialized, "notifications/initialized", MetaParams
);
notification!(
    /// `notifications/cancelled`, either way.
    Cancelled, "notifications/cancelled", CancelledParams
);
notification!(
    /// `notifications/progress`, either way.
    Progress, "notifications/progress", ProgressParams
);
notification!(
    /// `notifications/message`: a log message from the server.
    LoggingMessage, "notifications/message", LoggingMessageParams
);
notification!(
    /// `notifications/tools/list_changed`.
    ToolListChanged, "notifications/tools/list_changed", MetaParams
);
notification!(
    /// `notifications/prompts/list_changed`.
    PromptListChanged, "notifications/prompts/list_changed", MetaParams
);
notification!(
    /// `notifications/resources/list_changed`.
    ResourceListChanged, "notifications/resources/list_changed", MetaParams
);
notification!(
    /// `notifications/resources/updated`.
    ResourceUpdated, "notifications/resources/updated", ResourceUpdatedParams
);
notification!(
    /// `notifications/elicitation/complete` (2025-11-25).
    ElicitationComplete, "notifications/elicitation/complete", ElicitationCompleteParams
);
notification!(
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    SubscriptionsAcknowledged, "notifications/subscriptions/acknowledged", SubscriptionsAcknowledgedParams
);

/// The `tasks/*` methods (2025-11-25, experimental) a client must recognise and may refuse.
pub const TASK_METHODS: [&str; 4] = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];
