//! Connecting: the runner of the [`Negotiator`], which settles the era (a
//! `server/discover` probe, or `initialize` + `notifications/initialized`)
//! while this file sends what it asks for. Every request goes through the
//! session's request path, so the policies (retry, rate limit) apply to the
//! handshake too. Also the modern per-request `_meta` envelope.

use std::sync::Arc;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::meta::RequestMeta;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{Discover, Initialize, Initialized};
use mcpdisco_protocol::types::{InitializeParams, MetaParams};
use mcpdisco_protocol::version::ProtocolVersion;
use serde_json::{Map, Value};
use tokio::time::Instant;
use tower::ServiceExt;

use super::engine::Engine;
use super::negotiation::{Action, Event, Negotiator, Outgoing};
use super::options::{EraPreference, SessionOptions};
use super::server_state::{LEGACY_OFFER, ServerState};
use crate::error::{ErrorKind, SessionError};
use crate::request::RequestOptions;
use crate::request::{McpRequest, RequestService};

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
pub(crate) fn with_meta(params: Option<RawJson>, meta: &Map<String, Value>) -> Option<RawJson> {
    mcpdisco_protocol::meta::edit_meta(params, |existing| keep_existing(existing, meta))
}

/// Adds the entries of `meta` that `existing` does not have.
fn keep_existing(existing: &mut Map<String, Value>, meta: &Map<String, Value>) {
    for (key, value) in meta {
        existing.entry(key.clone()).or_insert_with(|| value.clone());
    }
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
                        request.params,
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
    negotiate(engine, path, options, options.era).await
}

/// `initialize` straight to the engine, outside the policies: re-initializing
/// an expired session from inside the request path.
pub(crate) async fn initialize_direct(
    engine: &Arc<Engine>,
    options: &SessionOptions,
) -> Result<ServerState, SessionError> {
    negotiate(
        engine,
        &Path::Direct(engine),
        options,
        EraPreference::Legacy,
    )
    .await
}

/// Runs a [`Negotiator`] in the era `preference` asks for: performs its
/// actions, feeds back how they ended, until it connects or fails.
async fn negotiate(
    engine: &Arc<Engine>,
    path: &Path<'_>,
    options: &SessionOptions,
    preference: EraPreference,
) -> Result<ServerState, SessionError> {
    let mut negotiator = Negotiator::new(
        engine.server(),
        preference,
        options.probe_timeout,
        options.initialize_timeout,
    );
    let mut event = Event::Start;
    loop {
        let now = Instant::now();
        let mut next = None;
        for action in negotiator.step(event, now) {
            match action {
                Action::Send { request, deadline } => {
                    let timeout = deadline.saturating_duration_since(now);
                    let request = outgoing(engine, options, request, timeout)?;
                    next = Some(match path.send(options, request).await {
                        Ok(raw) => Event::Answered(raw),
                        Err(error) => Event::Failed(error),
                    });
                }
                Action::SendInitialized => {
                    next = Some(
                        match engine
                            .send_notification::<Initialized>(&MetaParams::default())
                            .await
                        {
                            Ok(()) => Event::Notified,
                            Err(error) => Event::Failed(error),
                        },
                    );
                }
                Action::Close => {
                    let _ = engine.close().await;
                }
                Action::Connected(state) => return Ok(*state),
                Action::Fail(error) => return Err(error),
            }
        }
        // Every step asks for something to wait on, or ends.
        event = next.ok_or_else(|| {
            SessionError::new(
                engine.server(),
                Initialize::METHOD,
                ErrorKind::ConnectionLost {
                    reason: "the handshake stopped without an outcome".into(),
                },
            )
        })?;
    }
}

/// The request the negotiator asked for, waiting at most `timeout`.
fn outgoing(
    engine: &Engine,
    options: &SessionOptions,
    request: Outgoing,
    timeout: std::time::Duration,
) -> Result<McpRequest, SessionError> {
    let request_options = RequestOptions::new().timeout(timeout);
    match request {
        Outgoing::Discover(version) => {
            let mut request = encode::<Discover>(engine, &MetaParams::default(), request_options)?;
            request.params = with_meta(request.params, &modern_meta(options, version));
            Ok(request)
        }
        Outgoing::Initialize => {
            let params = InitializeParams::new(
                LEGACY_OFFER.as_str(),
                options.capabilities.clone(),
                options.client_info.clone(),
            );
            encode::<Initialize>(engine, &params, request_options)
        }
    }
}
