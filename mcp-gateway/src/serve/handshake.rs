//! The gateway's handshake in either era (`initialize`, `server/discover`)
//! and `ping`: answered at once, without waiting for any server.

use mcpdisco_protocol::meta::SERVER_INFO_KEY;
use mcpdisco_protocol::server;
use mcpdisco_protocol::types::{
    CacheScope, DiscoverResult, EmptyResult, Extra, InitializeParams, InitializeResult,
    ListChangedCapability, MetaParams, ResourcesCapability, SKILLS_EXTENSION, ServerCapabilities,
};
use mcpdisco_protocol::version::ProtocolVersion;
use mcpdisco_protocol::{ErrorCode, ErrorObject};

use super::context::RequestContext;

/// What the gateway offers: its lists, which change as servers come and go,
/// and its servers' skills (the extension `io.modelcontextprotocol/skills`).
/// Resource subscriptions, completion, logging and tasks are not offered.
fn capabilities() -> ServerCapabilities {
    let list_changed = ListChangedCapability {
        list_changed: Some(true),
        ..ListChangedCapability::default()
    };
    ServerCapabilities {
        tools: Some(list_changed.clone()),
        prompts: Some(list_changed),
        resources: Some(ResourcesCapability {
            subscribe: None,
            list_changed: Some(true),
            ..ResourcesCapability::default()
        }),
        extensions: Some(Extra::from_iter([(
            SKILLS_EXTENSION.to_owned(),
            serde_json::Value::Object(Extra::new()),
        )])),
        ..ServerCapabilities::default()
    }
}

/// `initialize` (legacy): the version settled on, and what the client
/// declared, kept for the servers' questions.
pub(crate) async fn initialize(
    params: InitializeParams,
    request: RequestContext,
) -> Result<InitializeResult, ErrorObject> {
    let version = server::initialize_version(Some(&params.protocol_version));
    request.link.initialize(params.capabilities);
    let options = &request.shared.options;
    Ok(InitializeResult {
        instructions: options.instructions.clone(),
        ..InitializeResult::new(
            version.as_str(),
            capabilities(),
            options.server_info.clone(),
        )
    })
}

/// `server/discover` (modern): private to this gateway, and stale at once.
pub(crate) async fn discover(
    _: MetaParams,
    request: RequestContext,
) -> Result<DiscoverResult, ErrorObject> {
    let options = &request.shared.options;
    let server_info = serde_json::to_value(&options.server_info).map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("could not write the server's identity: {error}"),
        )
    })?;
    let mut meta = Extra::new();
    meta.insert(SERVER_INFO_KEY.into(), server_info);
    let supported = vec![ProtocolVersion::V2026_07_28.as_str().to_owned()];
    Ok(DiscoverResult {
        instructions: options.instructions.clone(),
        ttl_ms: Some(0),
        cache_scope: Some(CacheScope::Private),
        meta: Some(meta),
        ..DiscoverResult::new(supported, capabilities())
    })
}

/// `ping`.
pub(crate) async fn ping(_: MetaParams, _: RequestContext) -> Result<EmptyResult, ErrorObject> {
    Ok(EmptyResult::default())
}
