//! The example server's answers: one typed handler per method, routed by
//! `mcpdisco_transport::server::Router`. Each gets the method's params and
//! the server's options, and returns the method's result.

use mcpdisco_protocol::methods::{
    CallTool, CancelTask, Discover, GetPrompt, GetTask, Initialize, ListPrompts,
    ListResourceTemplates, ListResources, ListTools, Ping, ReadResource, SubscriptionsListen,
    UpdateTask,
};
use mcpdisco_protocol::server;
use mcpdisco_protocol::types::{
    Answer, CacheScope, CallToolParams, CallToolResult, DiscoverResult, EmptyResult,
    GetPromptParams, GetPromptResult, InitializeParams, InitializeResult, ListChangedCapability,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    MetaParams, PaginatedParams, ReadResourceParams, ReadResourceResult, ResourcesCapability,
    ServerCapabilities, TASKS_EXTENSION, Tool,
};
use mcpdisco_protocol::version::ProtocolVersion;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::server::Router;

use crate::catalog;
use crate::conformance;
use crate::context::Context;
use crate::options::{EraSupport, ServerOptions};
use crate::results::{TTL_MS, cached_read, page};
use crate::slow_report;

const INSTRUCTIONS: &str = "An example server: arithmetic and text tools, two resources, a greeting template and two prompts.";

/// The handlers of a server with `options`: the handshake of each era it
/// speaks (the other's is -32601), ping, the lists, calls, reads and
/// prompts; with `conformance`, those of the suite's test catalog; with
/// `tasks`, the task methods and `subscriptions/listen` (task status
/// changes).
pub(crate) fn router(options: &ServerOptions) -> Router<Context> {
    let eras = options.eras;
    let mut router = Router::new()
        .on::<Ping>(ping)
        .on::<ListTools>(list_tools)
        .on::<ListResources>(list_resources)
        .on::<ListResourceTemplates>(list_resource_templates)
        .on::<ListPrompts>(list_prompts)
        .on::<CallTool>(call_tool)
        .on::<ReadResource>(read_resource)
        .on::<GetPrompt>(get_prompt);
    if eras != EraSupport::Modern {
        router = router.on::<Initialize>(initialize);
    }
    if eras != EraSupport::Legacy {
        router = router.on::<Discover>(discover);
    }
    if options.conformance {
        router = conformance::route(router);
    } else if options.tasks {
        router = router
            .on::<GetTask>(conformance::tasks::get)
            .on::<UpdateTask>(conformance::tasks::update)
            .on::<CancelTask>(conformance::tasks::cancel)
            .on::<SubscriptionsListen>(conformance::listen::listen);
    }
    router
}

fn capabilities(options: &ServerOptions) -> ServerCapabilities {
    if options.conformance {
        return conformance::capabilities();
    }
    let unchanging = ListChangedCapability {
        list_changed: Some(false),
        ..ListChangedCapability::default()
    };
    let extensions = options.tasks.then(|| {
        let mut extensions = mcpdisco_protocol::types::Extra::new();
        extensions.insert(
            TASKS_EXTENSION.to_owned(),
            serde_json::Value::Object(serde_json::Map::new()),
        );
        extensions
    });
    ServerCapabilities {
        extensions,
        tools: Some(unchanging.clone()),
        resources: Some(ResourcesCapability {
            list_changed: Some(false),
            ..ResourcesCapability::default()
        }),
        prompts: Some(unchanging),
        ..ServerCapabilities::default()
    }
}

async fn initialize(
    params: InitializeParams,
    context: Context,
) -> Result<InitializeResult, ErrorObject> {
    let version = server::initialize_version(Some(&params.protocol_version));
    let options = &context.options;
    Ok(InitializeResult {
        instructions: Some(INSTRUCTIONS.to_owned()),
        ..InitializeResult::new(
            version.as_str(),
            capabilities(options),
            options.server_info(),
        )
    })
}

async fn discover(_: MetaParams, context: Context) -> Result<DiscoverResult, ErrorObject> {
    let supported = vec![ProtocolVersion::V2026_07_28.as_str().to_owned()];
    Ok(DiscoverResult {
        instructions: Some(INSTRUCTIONS.to_owned()),
        ttl_ms: Some(TTL_MS),
        cache_scope: Some(CacheScope::Public),
        ..DiscoverResult::new(supported, capabilities(&context.options))
    })
}

async fn ping(_: MetaParams, _: Context) -> Result<EmptyResult, ErrorObject> {
    Ok(EmptyResult::default())
}

/// The tools a server with `options` offers.
pub(crate) fn tools(options: &ServerOptions) -> Vec<Tool> {
    if options.conformance {
        conformance::tools()
    } else if options.tasks {
        let mut tools = catalog::tools();
        tools.push(slow_report::tool());
        tools
    } else {
        catalog::tools()
    }
}

async fn list_tools(
    params: PaginatedParams,
    context: Context,
) -> Result<ListToolsResult, ErrorObject> {
    page(&tools(&context.options), &params, &context)
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
    page(&catalog::prompts(), &params, &context)
}

fn invalid_params(reason: catalog::ParamError) -> ErrorObject {
    ErrorObject::new(ErrorCode::INVALID_PARAMS, reason)
}

async fn call_tool(
    params: CallToolParams,
    context: Context,
) -> Result<Answer<CallToolResult>, ErrorObject> {
    if context.options.tasks && params.name == slow_report::NAME {
        return slow_report::call(&params, &context).await;
    }
    let arguments = params.arguments.unwrap_or_default();
    catalog::call_tool(&params.name, &arguments)
        .map(Answer::from)
        .map_err(invalid_params)
}

async fn read_resource(
    params: ReadResourceParams,
    context: Context,
) -> Result<ReadResourceResult, ErrorObject> {
    let uri = params.uri;
    let options = &context.options;
    catalog::read_resource(&uri, &options.name, &options.version)
        .map(|read| cached_read(read, &context))
        .ok_or_else(|| {
            ErrorObject::for_resource(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("no resource {uri}"),
                &uri,
            )
        })
}

async fn get_prompt(params: GetPromptParams, _: Context) -> Result<GetPromptResult, ErrorObject> {
    let arguments = params.arguments.unwrap_or_default();
    catalog::get_prompt(&params.name, &arguments).map_err(invalid_params)
}
