//! `--conformance`: the test catalog of the official conformance suite
//! (`@modelcontextprotocol/conformance`), served on the same typed router
//! as the example's own catalog. It has every tool, resource, template and
//! prompt the suite's server scenarios of 2025-11-25 and 2026-07-28 call,
//! with the behaviour they check: logging, progress, sampling and
//! elicitation on the connection (legacy), `input_required` rounds
//! (modern), list changes on `subscriptions/listen`, resource
//! subscriptions, completion, and the tasks of the extension
//! `io.modelcontextprotocol/tasks` (SEP-2663).

mod catalog;
mod content;
mod input;
pub(crate) mod listen;
mod mrtr;
mod schemas;
pub(crate) mod task_tools;
pub(crate) mod tasks;
mod tools;

use mcpdisco_protocol::methods::{
    CallTool, CancelTask, Complete, GetPrompt, GetTask, ListPrompts, ListResourceTemplates,
    ListResources, ListTools, ReadResource, SetLevel, Subscribe, SubscriptionsListen, Unsubscribe,
    UpdateTask,
};
use mcpdisco_protocol::types::{
    Answer, CompleteParams, CompleteResult, Completion, EmptyResult, GetPromptParams,
    GetPromptResult, ListChangedCapability, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedParams, ReadResourceParams, ReadResourceResult,
    ResourcesCapability, ServerCapabilities, SetLevelParams, SubscribeParams, TASKS_EXTENSION,
};
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::server::Router;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::results::{cached_read, page};
use crate::shared::ListChange;

/// Completion values offered for any argument.
const COMPLETIONS: &[&str] = &["paris", "park", "party"];

/// The capabilities of the test catalog: lists that change, resource
/// subscriptions, logging, completion and the tasks extension.
pub(crate) fn capabilities() -> ServerCapabilities {
    let mut extensions = mcpdisco_protocol::types::Extra::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(Map::new()));
    let changing = ListChangedCapability {
        list_changed: Some(true),
        ..ListChangedCapability::default()
    };
    ServerCapabilities {
        tools: Some(changing.clone()),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
            ..ResourcesCapability::default()
        }),
        prompts: Some(changing),
        logging: Some(Value::Object(Map::new())),
        completions: Some(Value::Object(Map::new())),
        extensions: Some(extensions),
        ..ServerCapabilities::default()
    }
}

/// The test catalog's tools, the task tools last.
pub(crate) fn tools() -> Vec<mcpdisco_protocol::types::Tool> {
    let mut tools = catalog::tools();
    tools.extend(task_tools::tools());
    tools
}

/// Adds the test catalog's handlers to `router` (replacing the example's lists, calls, reads and prompts).
pub(crate) fn route(router: Router<Context>) -> Router<Context> {
    router
        .on::<ListTools>(list_tools)
        .on::<ListResources>(list_resources)
        .on::<ListResourceTemplates>(list_resource_templates)
        .on::<ListPrompts>(list_prompts)
        .on::<CallTool>(tools::call_tool)
        .on::<ReadResource>(read_resource)
        .on::<GetPrompt>(get_prompt)
        .on::<Complete>(complete)
        .on::<SetLevel>(set_level)
        .on::<Subscribe>(subscribe)
        .on::<Unsubscribe>(unsubscribe)
        .on::<SubscriptionsListen>(listen::listen)
        .on::<GetTask>(tasks::get)
        .on::<UpdateTask>(tasks::update)
        .on::<CancelTask>(tasks::cancel)
}

async fn list_tools(
    params: PaginatedParams,
    context: Context,
) -> Result<ListToolsResult, ErrorObject> {
    let mut tools = tools();
    let revision = context.shared.revision(ListChange::Tools);
    if let Some(trigger) = tools.iter_mut().find(|tool| tool.name == TOOL_TRIGGER) {
        mark_revision(&mut trigger.meta, revision);
    }
    page(&tools, &params, &context)
}

/// The tool that changes the tool list.
pub(crate) const TOOL_TRIGGER: &str = "test_trigger_tool_change";
/// The `_meta` key of a list's revision, on one of its items: the trigger
/// tools change it, so a client listing again sees the list changed.
const REVISION_KEY: &str = "example.modelcontextprotocol.io/listRevision";

/// Marks an item's `_meta` with its list's `revision` (once it changed).
fn mark_revision(meta: &mut Option<mcpdisco_protocol::types::Extra>, revision: u64) {
    if revision > 0 {
        meta.get_or_insert_with(Default::default)
            .insert(REVISION_KEY.to_owned(), revision.into());
    }
}

async fn list_resources(
    params: PaginatedParams,
    context: Context,
) -> Result<ListResourcesResult, ErrorObject> {
    page(&catalog::resources(), &params, &context)
}

async fn list_resource_templates(
    params: PaginatedParams,
    context: Context,
) -> Result<ListResourceTemplatesResult, ErrorObject> {
    page(&catalog::resource_templates(), &params, &context)
}

async fn list_prompts(
    params: PaginatedParams,
    context: Context,
) -> Result<ListPromptsResult, ErrorObject> {
    let mut prompts = catalog::prompts();
    if let Some(first) = prompts.first_mut() {
        mark_revision(
            &mut first.meta,
            context.shared.revision(ListChange::Prompts),
        );
    }
    page(&prompts, &params, &context)
}

/// Reads a resource; an unknown URI is -32602 naming it (SEP-2164).
async fn read_resource(
    params: ReadResourceParams,
    context: Context,
) -> Result<ReadResourceResult, ErrorObject> {
    let uri = params.uri;
    content::read(&uri)
        .map(|read| cached_read(read, &context))
        .ok_or_else(|| {
            ErrorObject::for_resource(ErrorCode::INVALID_PARAMS, "Resource not found", &uri)
        })
}

async fn get_prompt(
    params: GetPromptParams,
    context: Context,
) -> Result<Answer<GetPromptResult>, ErrorObject> {
    if params.name == "test_input_required_result_prompt" {
        return mrtr::prompt(&params, &context);
    }
    let arguments = params.arguments.clone().unwrap_or_default();
    match content::prompt(&params.name, &arguments) {
        Ok(Some(prompt)) => Ok(prompt.into()),
        Ok(None) => Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("unknown prompt {:?}", params.name),
        )),
        Err(reason) => Err(ErrorObject::new(ErrorCode::INVALID_PARAMS, reason)),
    }
}

/// The completion values that start with the argument's value.
async fn complete(params: CompleteParams, _: Context) -> Result<CompleteResult, ErrorObject> {
    let typed = params.argument.value.as_str();
    let values: Vec<String> = COMPLETIONS
        .iter()
        .filter(|value| value.starts_with(typed))
        .map(|value| (*value).to_owned())
        .collect();
    let completion = Completion {
        total: Some(values.len() as u64),
        has_more: Some(false),
        ..Completion::new(values)
    };
    Ok(CompleteResult::new(completion))
}

async fn set_level(params: SetLevelParams, context: Context) -> Result<EmptyResult, ErrorObject> {
    context.peer()?.set_log_level(params.level);
    Ok(EmptyResult::default())
}

async fn subscribe(params: SubscribeParams, context: Context) -> Result<EmptyResult, ErrorObject> {
    if !context.peer()?.subscribe(params.uri) {
        return Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            "too many subscriptions on this connection",
        ));
    }
    Ok(EmptyResult::default())
}

async fn unsubscribe(
    params: SubscribeParams,
    context: Context,
) -> Result<EmptyResult, ErrorObject> {
    context.peer()?.unsubscribe(&params.uri);
    Ok(EmptyResult::default())
}

#[cfg(test)]
mod tests;
