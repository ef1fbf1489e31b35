//! The gateway's handshake in either era (`initialize`, `server/discover`)
//! and `ping`: answered at once, without waiting for any server.

use mcpdisco_protocol::meta::SERVER_INFO_KEY;
use mcpdisco_protocol::server;
use mcpdisco_protocol::types::{
    CacheScope, DiscoverResult, EmptyResult, Extra, InitializeParams, InitializeResult,
    ListChangedCapability, MetaParams, ResourcesCapability, SKILLS_EXTENSION, ServerCapabilities,
    TASKS_EXTENSION,
};
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_protocol::{ErrorCode, ErrorObject};

use mcpdisco_transport::ResumedHandshake;

use super::client::ClientLink;
use super::context::RequestContext;
use super::offered::Offered;

/// What the gateway offers a client of `era` seeing `profile`'s servers:
/// its lists, which change as servers come and go, its servers' skills
/// (the extension `io.modelcontextprotocol/skills`), and what its servers
/// declare of completion, logging and resource subscriptions (the last two
/// for legacy clients; see the `offered` module) and, to modern clients,
/// of tasks (the extension `io.modelcontextprotocol/tasks`).
fn capabilities(request: &RequestContext, era: Era) -> ServerCapabilities {
    let supervisor = &request.shared.supervisor;
    let view = request.shared.listings.view(request.profile.as_deref());
    let offered = Offered::of(
        supervisor
            .servers()
            .iter()
            .filter(|server| view.shows_server(server))
            .filter(|server| {
                supervisor
                    .config(server)
                    .is_some_and(|config| config.enabled)
            })
            .map(|server| supervisor.last_capabilities(server)),
    );
    let legacy = era == Era::Legacy;
    let declared = |on: bool| on.then(|| serde_json::Value::Object(Extra::new()));
    let list_changed = ListChangedCapability {
        list_changed: Some(true),
        ..ListChangedCapability::default()
    };
    ServerCapabilities {
        tools: Some(list_changed.clone()),
        prompts: Some(list_changed),
        resources: Some(ResourcesCapability {
            subscribe: (legacy && offered.subscribe).then_some(true),
            list_changed: Some(true),
            ..ResourcesCapability::default()
        }),
        extensions: Some(Extra::from_iter(
            std::iter::once(SKILLS_EXTENSION)
                .chain((!legacy && offered.tasks).then_some(TASKS_EXTENSION))
                .map(|extension| {
                    (
                        extension.to_owned(),
                        serde_json::Value::Object(Extra::new()),
                    )
                }),
        )),
        logging: declared(legacy && offered.logging),
        completions: declared(offered.completions),
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
            capabilities(&request, Era::Legacy),
            options.server_info.clone(),
        )
    })
}

/// Restores what a legacy session's handshake left on its connection,
/// from the handshake a resumed connection carries (a sealed session id
/// opened here): the client's capabilities, and that it is initialized.
pub(crate) fn restore(link: &ClientLink, handshake: &ResumedHandshake) {
    link.initialize(handshake.client_capabilities.clone());
    link.initialized();
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
        ..DiscoverResult::new(supported, capabilities(&request, Era::Modern))
    })
}

/// `ping`.
pub(crate) async fn ping(_: MetaParams, _: RequestContext) -> Result<EmptyResult, ErrorObject> {
    Ok(EmptyResult::default())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use mcpdisco_transport::MemoryTransport;

    use super::*;

    #[test]
    fn a_resumed_handshake_restores_the_client_s_capabilities_as_initialize_did() {
        let (_client, server) = MemoryTransport::pair();
        let link = ClientLink::new(Arc::new(server));
        assert!(!link.is_legacy());
        let capabilities =
            serde_json::from_str(r#"{"roots": {"listChanged": true}, "sampling": {}}"#).unwrap();
        let info = Some(mcpdisco_protocol::types::Implementation::new("client", "1"));
        restore(
            &link,
            &ResumedHandshake::new("2025-11-25", capabilities, info),
        );
        assert!(link.is_legacy());
        let restored = link.capabilities();
        assert!(restored.roots.is_some() && restored.sampling.is_some());
        assert!(restored.elicitation.is_none());
    }
}
