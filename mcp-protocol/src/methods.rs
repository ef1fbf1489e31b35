//! One zero-sized type per MCP method, pairing its name with its params and result types.
//!
//! ```
//! use mcpdisco_protocol::method::RequestMethod;
//! use mcpdisco_protocol::methods::{CallTool, ListTools, is_idempotent};
//! assert_eq!(ListTools::METHOD, "tools/list");
//! assert!(ListTools::IDEMPOTENT && !CallTool::IDEMPOTENT);
//! assert!(is_idempotent("resources/read") && !is_idempotent("tools/call"));
//! ```

use std::borrow::Cow;

use crate::raw::{JsonView, RawJson};

use crate::method::{NotificationMethod, RequestKind, RequestMethod};
use crate::types::{
    CallToolParams, CallToolResult, CancelledParams, ClientCapabilities, CompleteParams,
    CompleteResult, CreateMessageParams, CreateMessageResult, DetailedTask, DiscoverResult,
    ElicitParams, ElicitResult, ElicitationCompleteParams, EmptyResult, GetPromptParams,
    GetPromptResult, GetSkillParams, GetSkillResult, InitializeParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListRootsResult,
    ListSkillsResult, ListToolsResult, LoggingMessageParams, MetaParams, PaginatedParams,
    ProgressParams, ReadResourceParams, ReadResourceResult, ResourceUpdatedParams, SetLevelParams,
    SubscribeParams, SubscriptionsAcknowledgedParams, SubscriptionsListenParams, TaskIdParams,
    UpdateTaskParams,
};

macro_rules! request {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty, $result:ty) => {
        request!($(#[$doc])* $name, $method, $params, $result, idempotent = true, kind = Operation);
    };
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty, $result:ty, kind = $kind:ident) => {
        request!($(#[$doc])* $name, $method, $params, $result, idempotent = true, kind = $kind);
    };
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty, $result:ty, idempotent = $idempotent:literal) => {
        request!($(#[$doc])* $name, $method, $params, $result, idempotent = $idempotent, kind = Operation);
    };
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty, $result:ty, idempotent = $idempotent:literal, kind = $kind:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}

        impl RequestMethod for $name {
            const METHOD: &'static str = $method;
            const IDEMPOTENT: bool = $idempotent;
            const KIND: RequestKind = RequestKind::$kind;
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
    Initialize, "initialize", InitializeParams, InitializeResult, kind = Handshake
);
request!(
    /// `ping` (legacy era).
    Ping, "ping", MetaParams, EmptyResult
);
request!(
    /// `server/discover` (2026-07-28).
    Discover, "server/discover", MetaParams, DiscoverResult, kind = Handshake
);
request!(
    /// `tools/list`.
    ListTools, "tools/list", PaginatedParams, ListToolsResult, kind = Listing
);
request!(
    /// `tools/call`. Not idempotent: a tool may act, so a call that may have
    /// reached the server is never sent again.
    CallTool, "tools/call", CallToolParams, CallToolResult, idempotent = false
);
request!(
    /// `resources/list`.
    ListResources, "resources/list", PaginatedParams, ListResourcesResult, kind = Listing
);
request!(
    /// `resources/templates/list`.
    ListResourceTemplates, "resources/templates/list", PaginatedParams, ListResourceTemplatesResult, kind = Listing
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
    ListPrompts, "prompts/list", PaginatedParams, ListPromptsResult, kind = Listing
);
request!(
    /// `prompts/get`.
    GetPrompt, "prompts/get", GetPromptParams, GetPromptResult
);
request!(
    /// `skills/list` (extension `io.modelcontextprotocol/skills`, both eras).
    ListSkills, "skills/list", PaginatedParams, ListSkillsResult, kind = Listing
);
request!(
    /// `skills/get` (extension `io.modelcontextprotocol/skills`, both eras).
    GetSkill, "skills/get", GetSkillParams, GetSkillResult
);
request!(
    /// `tasks/get` (extension `io.modelcontextprotocol/tasks`): the task,
    /// with its result, error or open questions inlined.
    GetTask, "tasks/get", TaskIdParams, DetailedTask
);
request!(
    /// `tasks/update` (extension `io.modelcontextprotocol/tasks`): answers
    /// to a task's open questions; the answer is an empty ack.
    UpdateTask, "tasks/update", UpdateTaskParams, EmptyResult, idempotent = false
);
request!(
    /// `tasks/cancel` (extension `io.modelcontextprotocol/tasks`): an empty
    /// ack, the same for a task that already ended.
    CancelTask, "tasks/cancel", TaskIdParams, EmptyResult
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
    CreateMessage, "sampling/createMessage", CreateMessageParams, CreateMessageResult, idempotent = false
);
request!(
    /// `elicitation/create`, from server to client.
    Elicit, "elicitation/create", ElicitParams, ElicitResult, idempotent = false
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
    /// `notifications/tasks` (extension `io.modelcontextprotocol/tasks`): a
    /// task's new status, on the `subscriptions/listen` stream.
    TaskStatusChanged, "notifications/tasks", DetailedTask
);
notification!(
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    SubscriptionsAcknowledged, "notifications/subscriptions/acknowledged", SubscriptionsAcknowledgedParams
);

/// Whether the request method named `method` is idempotent; unknown methods are not.
pub fn is_idempotent(method: &str) -> bool {
    matches!(
        method,
        Initialize::METHOD
            | Ping::METHOD
            | Discover::METHOD
            | ListTools::METHOD
            | ListResources::METHOD
            | ListResourceTemplates::METHOD
            | ReadResource::METHOD
            | Subscribe::METHOD
            | Unsubscribe::METHOD
            | ListPrompts::METHOD
            | GetPrompt::METHOD
            | ListSkills::METHOD
            | GetSkill::METHOD
            | GetTask::METHOD
            | CancelTask::METHOD
            | Complete::METHOD
            | SetLevel::METHOD
            | SubscriptionsListen::METHOD
            | ListRoots::METHOD
    )
}

/// What the request method named `method` is to its client; unknown
/// methods are operations.
pub fn kind_of(method: &str) -> RequestKind {
    match method {
        Initialize::METHOD | Discover::METHOD => RequestKind::Handshake,
        ListTools::METHOD
        | ListResources::METHOD
        | ListResourceTemplates::METHOD
        | ListPrompts::METHOD
        | ListSkills::METHOD => RequestKind::Listing,
        _ => RequestKind::Operation,
    }
}

/// What a request acts on, as the OpenTelemetry MCP conventions name its
/// span (`{method} {target}`) and its attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target<'a> {
    /// `tools/call`: the tool's name.
    Tool(Cow<'a, str>),
    /// `prompts/get`: the prompt's name.
    Prompt(Cow<'a, str>),
    /// `resources/read`: the resource's URI.
    Resource(Cow<'a, str>),
}

impl Target<'_> {
    /// The tool's or prompt's name, or the resource's URI.
    pub fn text(&self) -> &str {
        match self {
            Target::Tool(text) | Target::Prompt(text) | Target::Resource(text) => text,
        }
    }
}

/// The target of a request of `method` with `params`: the tool's name for
/// `tools/call`, the prompt's name for `prompts/get`, the resource's URI for
/// `resources/read`; other methods (and params without it) have none.
pub fn target_of<'a>(method: &str, params: Option<&'a RawJson>) -> Option<Target<'a>> {
    let member = |name: &str| JsonView::of(params?).get(name)?.as_str();
    match method {
        CallTool::METHOD => member("name").map(Target::Tool),
        GetPrompt::METHOD => member("name").map(Target::Prompt),
        ReadResource::METHOD => member("uri").map(Target::Resource),
        _ => None,
    }
}

/// The protocol version a request names: the one `initialize` offers, or a
/// modern request's `_meta` version.
pub fn requested_version<'a>(method: &str, params: Option<&'a RawJson>) -> Option<Cow<'a, str>> {
    match method {
        Initialize::METHOD => JsonView::of(params?).get("protocolVersion")?.as_str(),
        _ => crate::meta::RequestMeta::protocol_version_in(params?),
    }
}

/// The `arguments` of a `tools/call` request's params, if any.
pub fn call_arguments<'a>(method: &str, params: Option<&'a RawJson>) -> Option<JsonView<'a>> {
    match method {
        CallTool::METHOD => JsonView::of(params?).get("arguments"),
        _ => None,
    }
}

impl ClientCapabilities {
    /// Whether these capabilities allow a server to send the request named
    /// `method` to the client: `roots/list` needs `roots`,
    /// `sampling/createMessage` needs `sampling`, `elicitation/create` needs
    /// `elicitation`; no other server request is covered. (Here, beside the
    /// method names, so the types never import the methods.)
    pub fn allow_request(&self, method: &str) -> bool {
        match method {
            ListRoots::METHOD => self.roots.is_some(),
            CreateMessage::METHOD => self.sampling.is_some(),
            Elicit::METHOD => self.elicitation.is_some(),
            _ => false,
        }
    }
}

/// The `tasks/*` methods (2025-11-25, experimental) a client must recognise and may refuse.
pub const TASK_METHODS: [&str; 4] = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

#[cfg(test)]
mod tests {
    use super::*;

    fn agrees<M: RequestMethod>() {
        assert_eq!(is_idempotent(M::METHOD), M::IDEMPOTENT, "{}", M::METHOD);
        assert_eq!(kind_of(M::METHOD), M::KIND, "{}", M::METHOD);
    }

    #[test]
    fn idempotency_and_kind_by_name_agree_with_the_types() {
        agrees::<Initialize>();
        agrees::<Ping>();
        agrees::<Discover>();
        agrees::<ListTools>();
        agrees::<CallTool>();
        agrees::<ListResources>();
        agrees::<ListResourceTemplates>();
        agrees::<ReadResource>();
        agrees::<Subscribe>();
        agrees::<Unsubscribe>();
        agrees::<ListPrompts>();
        agrees::<GetPrompt>();
        agrees::<ListSkills>();
        agrees::<GetTask>();
        agrees::<UpdateTask>();
        agrees::<CancelTask>();
        agrees::<GetSkill>();
        agrees::<Complete>();
        agrees::<SetLevel>();
        agrees::<SubscriptionsListen>();
        agrees::<ListRoots>();
        agrees::<CreateMessage>();
        agrees::<Elicit>();
        assert!(!is_idempotent("x-vendor/do-something"));
        assert_eq!(kind_of("x-vendor/list"), RequestKind::Operation);
    }
}
