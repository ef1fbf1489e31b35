//! Connecting: detect the era, then `server/discover` (modern) or
//! `initialize` + `notifications/initialized` (legacy). Every request goes
//! through the session's request path, so the policies (retry, rate limit)
//! apply to the handshake too.

use std::sync::Arc;

use mcpdisco_protocol::meta::{self, RequestMeta};
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{Discover, Initialize, Initialized};
use mcpdisco_protocol::types::{
    DiscoverResult, Implementation, InitializeParams, InitializeResult, MetaParams,
    ServerCapabilities,
};
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_protocol::{ErrorCode, RawJson};
use mcpdisco_transport::secret::Masker;
use serde::Serialize;
use serde_json::{Map, Value};
use tower::ServiceExt;

use super::engine::Engine;
use super::options::{EraPreference, SessionOptions};
use crate::error::{ErrorKind, SessionError};
use crate::request::RequestOptions;
use crate::request::{McpRequest, RequestService};

/// The versions we offer in the legacy handshake, newest first.
pub(crate) const LEGACY_OFFER: ProtocolVersion = ProtocolVersion::V2025_11_25;
/// The modern versions we speak.
pub(crate) const MODERN_VERSIONS: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

/// What the server told us about itself when we connected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerState {
    /// The era in use.
    pub era: Era,
    /// The protocol version in use.
    pub protocol_version: ProtocolVersion,
    /// The server's `Implementation` (`serverInfo`); unknown members are kept.
    pub server_info: Implementation,
    /// The server's capabilities; unknown members are kept.
    pub capabilities: ServerCapabilities,
    /// The server's instructions, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Modern only: how long the discover result stays fresh, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Modern only: `public` or `private`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
    /// How the era and version were settled (for diagnostics).
    #[serde(skip)]
    pub negotiation: Negotiation,
}

/// How a handshake went, step by step: what `mcp-cli doctor` explains.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Negotiation {
    /// What the `server/discover` probe got, when it was sent.
    pub probe: Option<String>,
    /// Whether the probe went unanswered within the probe timeout (a slow
    /// server, or a busy machine): then a refused `initialize` means modern.
    pub probe_timed_out: bool,
    /// The versions we offered.
    pub offered: Vec<String>,
    /// What the server answered (its `protocolVersion`, or its supported versions).
    pub answered: Vec<String>,
    /// The members of the `initialize` result beyond the standard ones
    /// (`tools` there is non-standard and ignored).
    pub initialize_extras: Vec<String>,
}

impl ServerState {
    /// The state before the handshake ends.
    pub(crate) fn pending() -> Self {
        Self {
            era: Era::Legacy,
            protocol_version: LEGACY_OFFER,
            server_info: Implementation::new("", ""),
            capabilities: ServerCapabilities::default(),
            instructions: None,
            ttl_ms: None,
            cache_scope: None,
            negotiation: Negotiation::default(),
        }
    }

    /// The state with known secrets masked in what the server said about itself.
    pub fn masked(mut self, masker: &Masker) -> Self {
        if masker.is_empty() {
            return self;
        }
        self.server_info = mask_typed(masker, self.server_info);
        self.capabilities = mask_typed(masker, self.capabilities);
        self.instructions = self.instructions.map(|text| masker.mask_string(text));
        let negotiation = &mut self.negotiation;
        negotiation.probe = negotiation
            .probe
            .take()
            .map(|text| masker.mask_string(text));
        for text in negotiation
            .answered
            .iter_mut()
            .chain(negotiation.initialize_extras.iter_mut())
        {
            *text = masker.mask_string(std::mem::take(text));
        }
        self
    }

    /// Whether the server declared a capability (`tools`, `resources`,
    /// `prompts`, `logging`, `completions`, or any other by name), or an
    /// extension by its identifier (`io.modelcontextprotocol/skills`: a
    /// name with a `/`, looked up under `extensions`). One declared as
    /// `null` counts as not declared.
    pub fn has_capability(&self, name: &str) -> bool {
        let caps = &self.capabilities;
        let present = |value: &Option<Value>| value.as_ref().is_some_and(|v| !v.is_null());
        match name {
            "tools" => caps.tools.is_some(),
            "resources" => caps.resources.is_some(),
            "prompts" => caps.prompts.is_some(),
            "logging" => present(&caps.logging),
            "completions" => present(&caps.completions),
            "tasks" => present(&caps.tasks),
            extension if extension.contains('/') => caps.has_extension(extension),
            other => caps.extra.get(other).is_some_and(|v| !v.is_null()),
        }
    }
}

/// A typed value with its strings masked (through JSON; the value was read from JSON).
fn mask_typed<T: Serialize + serde::de::DeserializeOwned>(masker: &Masker, value: T) -> T {
    let Ok(mut json) = serde_json::to_value(&value) else {
        return value;
    };
    masker.mask_value(&mut json);
    serde_json::from_value(json).unwrap_or(value)
}

/// Builds the modern per-request `_meta` for a version.
pub(crate) fn modern_meta(
    options: &SessionOptions,
    version: ProtocolVersion,
) -> Map<String, Value> {
    let to_json = |value: Result<Value, serde_json::Error>| value.unwrap_or(Value::Null);
    let meta = RequestMeta::new(
        version.as_str(),
        to_json(serde_json::to_value(&options.capabilities)),
    )
    .client_info(to_json(serde_json::to_value(&options.client_info)));
    match &options.log_level {
        Some(level) => meta.log_level(level),
        None => meta,
    }
    .into_map()
}

/// `params` with the answers of `retry`: `inputResponses` and, when there
/// is one, `requestState` (replacing any the params had).
pub(crate) fn with_input_retry(mut params: Value, retry: &crate::request::InputRetry) -> Value {
    if let Some(object) = params.as_object_mut() {
        object.insert(
            "inputResponses".into(),
            Value::Object(retry.responses.clone()),
        );
        match &retry.request_state {
            Some(state) => {
                object.insert("requestState".into(), Value::String(state.clone()));
            }
            None => {
                object.remove("requestState");
            }
        }
    }
    params
}

/// Merges `meta` into `params._meta`, keeping keys already there (a progress token).
pub(crate) fn with_meta(params: Option<Value>, meta: &Map<String, Value>) -> Option<Value> {
    let mut params = params.unwrap_or_else(|| Value::Object(Map::new()));
    if let Some(object) = params.as_object_mut() {
        let entry = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(existing) = entry.as_object_mut() {
            for (key, value) in meta {
                existing.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
    Some(params)
}

/// How a handshake request travels: through the session's policies, or (to
/// re-initialize from inside them) straight to the engine.
pub(crate) enum Path<'a> {
    Policies(&'a RequestService),
    Direct(&'a Arc<Engine>),
}

impl Path<'_> {
    async fn send(
        &self,
        options: &SessionOptions,
        request: McpRequest,
    ) -> Result<RawJson, SessionError> {
        match self {
            Path::Policies(service) => (*service).clone().oneshot(request).await,
            Path::Direct(engine) => {
                // Past the stack: the context of the request it serves goes along.
                #[cfg(feature = "otel")]
                let request = McpRequest {
                    params: crate::telemetry::layer::carry_current(request.params),
                    ..request
                };
                engine
                    .request(
                        &request.method,
                        request.params.as_ref(),
                        &request.options,
                        options.request_timeout,
                        options.max_request_timeout,
                    )
                    .await
            }
        }
        .map_err(|error| error.masked(&options.masker))
    }
}

fn encode<M: RequestMethod>(
    engine: &Engine,
    params: &M::Params,
    options: RequestOptions,
) -> Result<McpRequest, SessionError> {
    McpRequest::typed::<M>(params, options).map_err(|error| {
        SessionError::new(
            engine.server(),
            M::METHOD,
            ErrorKind::ProtocolViolation {
                reason: format!("cannot encode params: {error}"),
            },
        )
    })
}

/// Connects: returns what the server said about itself.
pub(crate) async fn handshake(
    engine: &Arc<Engine>,
    path: &Path<'_>,
    options: &SessionOptions,
) -> Result<ServerState, SessionError> {
    let mut negotiation = Negotiation::default();
    match options.era {
        EraPreference::Legacy => initialize(engine, path, options, negotiation).await,
        EraPreference::Modern => {
            match discover(engine, path, options, true, &mut negotiation).await? {
                Some(state) => Ok(state),
                None => Err(SessionError::new(
                    engine.server(),
                    Discover::METHOD,
                    ErrorKind::VersionMismatch {
                        server: "no modern protocol version".into(),
                        offered: MODERN_VERSIONS[0].to_string(),
                    },
                )),
            }
        }
        EraPreference::Auto => {
            match discover(engine, path, options, false, &mut negotiation).await? {
                Some(state) => Ok(state),
                None => match initialize(engine, path, options, negotiation.clone()).await {
                    // A slow modern server may answer the probe after it timed out, and then
                    // refuse `initialize`: naming the modern versions, or, when the probe
                    // timed out, as a method it does not know (a legacy server never
                    // answers `initialize` so). It is modern after all: probe again, strictly.
                    Err(error)
                        if speaks_modern(&error)
                            || (negotiation.probe_timed_out && refuses_initialize(&error)) =>
                    {
                        tracing::debug!(server = %engine.server(), "initialize refused in favour of 2026-07-28; discovering again");
                        discover(engine, path, options, true, &mut negotiation)
                            .await?
                            .ok_or(error)
                    }
                    other => other,
                },
            }
        }
    }
}

/// Whether an error means "this server is not modern", so a legacy handshake is worth trying.
/// A connection that cannot be made at all is not such an error: `initialize` would meet it too.
fn means_legacy(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Timeout { .. }
        | ErrorKind::Server { .. }
        | ErrorKind::ProtocolViolation { .. } => true,
        ErrorKind::Transport(transport) => {
            !transport.is_fatal()
                && !matches!(
                    transport,
                    mcpdisco_transport::TransportError::Connect { .. }
                )
        }
        _ => false,
    }
}

/// The versions listed in a -32022 error's `data.supported`.
fn supported_from_error(error: &SessionError) -> Option<Vec<String>> {
    match error.kind() {
        ErrorKind::Server {
            code,
            data: Some(data),
            ..
        } if *code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Some(
            data.get("supported")?
                .as_array()?
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ),
        _ => None,
    }
}

/// Probes with `server/discover`. `Ok(None)` means "not modern" (only when not `strict`).
async fn discover(
    engine: &Arc<Engine>,
    path: &Path<'_>,
    options: &SessionOptions,
    strict: bool,
    negotiation: &mut Negotiation,
) -> Result<Option<ServerState>, SessionError> {
    let timeout = if strict {
        options.initialize_timeout
    } else {
        options.probe_timeout
    };
    let mut version = MODERN_VERSIONS[0];
    // One retry: a -32022 answer names the versions the server supports.
    for attempt in 0..2 {
        negotiation.offered = vec![version.to_string()];
        let mut request = encode::<Discover>(
            engine,
            &MetaParams::default(),
            RequestOptions::new().timeout(timeout),
        )?;
        request.params = with_meta(request.params, &modern_meta(options, version));
        match path.send(options, request).await {
            Ok(raw) => {
                let result: DiscoverResult = read_result::<Discover>(engine, &raw)?;
                negotiation.probe = Some("answered".into());
                negotiation.answered = result.supported_versions.clone();
                return match mcpdisco_protocol::version::choose_version(
                    &MODERN_VERSIONS,
                    &result.supported_versions,
                ) {
                    Ok(chosen) => Ok(Some(modern_state(chosen, &raw, result, negotiation))),
                    Err(_) if !strict => Ok(None),
                    Err(_) => Err(mismatch(
                        engine,
                        Discover::METHOD,
                        &result.supported_versions,
                    )),
                };
            }
            Err(error) => {
                negotiation.probe = Some(match error.kind() {
                    ErrorKind::Server { code, message, .. } => {
                        format!("answered with error {code}: {message}")
                    }
                    ErrorKind::Timeout { after } => {
                        negotiation.probe_timed_out = true;
                        format!("no answer within {after:?}")
                    }
                    _ => error.to_string(),
                });
                if let Some(supported) = supported_from_error(&error) {
                    negotiation.answered = supported.clone();
                    match mcpdisco_protocol::version::choose_version(&MODERN_VERSIONS, &supported) {
                        Ok(chosen) if attempt == 0 => {
                            version = chosen;
                            continue;
                        }
                        _ if !strict && supported.iter().any(|v| is_legacy(v)) => return Ok(None),
                        _ => return Err(mismatch(engine, Discover::METHOD, &supported)),
                    }
                }
                if !strict && means_legacy(&error) {
                    tracing::debug!(server = %engine.server(), %error, "not a modern server; trying initialize");
                    return Ok(None);
                }
                return Err(error);
            }
        }
    }
    Err(mismatch(engine, Discover::METHOD, &[]))
}

/// Whether `initialize` was refused as a method the server does not have:
/// -32601, or HTTP 404 or 405 on the modern wire.
fn refuses_initialize(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Server { code, .. } => *code == ErrorCode::METHOD_NOT_FOUND,
        ErrorKind::Transport(mcpdisco_transport::TransportError::Http { status, .. }) => {
            matches!(status, 404 | 405)
        }
        _ => false,
    }
}

/// Whether an error is a -32022 that lists a modern version we speak.
fn speaks_modern(error: &SessionError) -> bool {
    supported_from_error(error).is_some_and(|supported| {
        mcpdisco_protocol::version::choose_version(&MODERN_VERSIONS, &supported).is_ok()
    })
}

fn is_legacy(version: &str) -> bool {
    version
        .parse::<ProtocolVersion>()
        .is_ok_and(|v| v.era() == Era::Legacy)
}

fn mismatch(engine: &Engine, operation: &str, theirs: &[String]) -> SessionError {
    SessionError::new(
        engine.server(),
        operation,
        ErrorKind::VersionMismatch {
            server: if theirs.is_empty() {
                "none listed".into()
            } else {
                theirs.join(", ")
            },
            offered: MODERN_VERSIONS
                .iter()
                .map(|v| v.as_str())
                .chain([LEGACY_OFFER.as_str()])
                .collect::<Vec<_>>()
                .join(", "),
        },
    )
}

/// A handshake result, typed (they are small and read whole).
fn read_result<M: RequestMethod>(
    engine: &Engine,
    result: &RawJson,
) -> Result<M::Result, SessionError> {
    result.decode().map_err(|error| {
        SessionError::new(
            engine.server(),
            M::METHOD,
            ErrorKind::ProtocolViolation {
                reason: format!("malformed result: {error}"),
            },
        )
    })
}

fn modern_state(
    version: ProtocolVersion,
    raw: &RawJson,
    result: DiscoverResult,
    negotiation: &Negotiation,
) -> ServerState {
    let server_info = meta::server_info_of(raw)
        .and_then(|info| serde_json::from_value(info).ok())
        .unwrap_or_else(|| Implementation::new("", ""));
    ServerState {
        era: Era::Modern,
        protocol_version: version,
        server_info,
        capabilities: result.capabilities,
        instructions: result.instructions,
        ttl_ms: Some(meta::ttl_ms_of(raw)),
        cache_scope: result.cache_scope.map(|scope| scope.as_str().to_owned()),
        negotiation: negotiation.clone(),
    }
}

/// `initialize` straight to the engine, outside the policies: re-initializing
/// an expired session from inside the request path.
pub(crate) async fn initialize_direct(
    engine: &Arc<Engine>,
    options: &SessionOptions,
) -> Result<ServerState, SessionError> {
    initialize(
        engine,
        &Path::Direct(engine),
        options,
        Negotiation::default(),
    )
    .await
}

/// The legacy handshake: `initialize`, check the version, `notifications/initialized`.
async fn initialize(
    engine: &Arc<Engine>,
    path: &Path<'_>,
    options: &SessionOptions,
    mut negotiation: Negotiation,
) -> Result<ServerState, SessionError> {
    let params = InitializeParams::new(
        LEGACY_OFFER.as_str(),
        options.capabilities.clone(),
        options.client_info.clone(),
    );
    let request = encode::<Initialize>(
        engine,
        &params,
        RequestOptions::new().timeout(options.initialize_timeout),
    )?;
    let raw = path.send(options, request).await?;
    let result: InitializeResult = read_result::<Initialize>(engine, &raw)?;
    let offered = ProtocolVersion::ALL
        .iter()
        .copied()
        .filter(|v| v.era() == Era::Legacy)
        .collect::<Vec<_>>();
    negotiation.offered = offered.iter().map(ToString::to_string).collect();
    negotiation.answered = vec![result.protocol_version.clone()];
    negotiation.initialize_extras = result.extra.keys().cloned().collect();
    let version =
        match mcpdisco_protocol::version::negotiate_legacy(&offered, &result.protocol_version) {
            Ok(version) => version,
            Err(_) => {
                let error = SessionError::new(
                    engine.server(),
                    Initialize::METHOD,
                    ErrorKind::VersionMismatch {
                        server: result.protocol_version.clone(),
                        offered: negotiation.offered.join(", "),
                    },
                );
                let _ = engine.close().await;
                return Err(error);
            }
        };
    engine
        .send_notification::<Initialized>(&MetaParams::default())
        .await?;
    Ok(ServerState {
        era: Era::Legacy,
        protocol_version: version,
        server_info: result.server_info,
        capabilities: result.capabilities,
        instructions: result.instructions,
        ttl_ms: None,
        cache_scope: None,
        negotiation,
    })
}
