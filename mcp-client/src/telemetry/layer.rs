//! The request path's telemetry, two layers of the
//! [`LayerStack`](crate::policy::LayerStack):
//!
//! - [`RequestSpans`], outside retry: the span of each request
//!   (`{mcp.method.name} {target}`), its attributes by the MCP conventions,
//!   `error.type` and an ERROR status on failure, and the request's
//!   `mcp.client.operation.duration`;
//! - [`AttemptSpans`], just inside the innermost retry layer: one span per
//!   attempt, with the request's name and attributes and the attempt's number.
//!
//! The span that goes on the wire, whose context the request carries to the
//! server in `params._meta` (`traceparent`, `tracestate`), is a CLIENT span,
//! so a server's SERVER span hangs under a CLIENT span. Without retry (no
//! retry layer inside telemetry, or one that never retries) the request has
//! one attempt and is one CLIENT span. With retry the request's span is
//! INTERNAL, over all its attempts (the retries' events are on it), and each
//! attempt is a CLIENT span under it.
//!
//! Every attribute value passes the session's masker first.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{self, CallTool, Target};
use mcpdisco_protocol::types::CallToolResult;
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::Peer;
use mcpdisco_transport::secret::Masker;
use opentelemetry::trace::{FutureExt, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use tower::Service;

use super::carrier::to_carrier;
use super::classify::Failure;
use super::handle::Telemetry;
use super::names;
use crate::error::SessionError;
use crate::request::{McpRequest, RequestService, ResponseFuture, SentId, SessionFacts};

/// What a request's INTERNAL span lends its attempts (a context value):
/// their count, and the name and attributes each attempt's CLIENT span takes.
#[derive(Clone)]
struct Attempts(Arc<AttemptsOf>);

/// The shared part of [`Attempts`].
struct AttemptsOf {
    count: AtomicU32,
    /// The request's span name.
    name: Cow<'static, str>,
    /// The request's attributes.
    attributes: Vec<KeyValue>,
    /// Whether it is a `tools/call`.
    is_call: bool,
}

/// A request as its spans name and describe it.
struct Described {
    /// `{mcp.method.name} {target}`.
    name: Cow<'static, str>,
    /// The span's attributes.
    attributes: Vec<KeyValue>,
    /// Of them, those its duration metric carries.
    metric: Vec<KeyValue>,
    /// Whether it is a `tools/call` (whose `isError` fails it).
    is_call: bool,
}

/// The span and the duration of each request (see [the module](self)).
#[derive(Clone)]
pub(crate) struct RequestSpans {
    inner: RequestService,
    telemetry: Telemetry,
    masker: Masker,
    facts: Option<Arc<dyn SessionFacts>>,
    attempts_inside: bool,
}

impl RequestSpans {
    /// `inner`, with a span around each request: a CLIENT span carried to
    /// the server, or, when `attempts_inside` (a retry layer with
    /// [`AttemptSpans`] inside it stands in `inner`), an INTERNAL span over
    /// the attempts' CLIENT spans.
    pub(crate) fn new(
        inner: RequestService,
        telemetry: Telemetry,
        masker: Masker,
        facts: Option<Arc<dyn SessionFacts>>,
        attempts_inside: bool,
    ) -> Self {
        Self {
            inner,
            telemetry,
            masker,
            facts,
            attempts_inside,
        }
    }
}

/// A text attribute, masked.
fn masked(masker: &Masker, key: &'static str, value: &str) -> KeyValue {
    KeyValue::new(key, masker.mask(value).into_owned())
}

/// The attributes a request takes from its session: the protocol version,
/// the legacy HTTP session id, the network.
fn session_attributes(
    facts: Option<&dyn SessionFacts>,
    request: &McpRequest,
    masker: &Masker,
    into: &mut Vec<KeyValue>,
) {
    let settled = facts.and_then(SessionFacts::settled);
    // A modern request names its version itself, and `initialize` the one it offers.
    let version = methods::requested_version(&request.method, request.params.as_ref())
        .map(Cow::into_owned)
        .or_else(|| settled.map(|(_, version)| version.as_str().to_owned()));
    if let Some(version) = version {
        into.push(masked(masker, names::MCP_PROTOCOL_VERSION, &version));
    }
    let Some(facts) = facts else {
        return;
    };
    if matches!(settled, Some((Era::Legacy, _)))
        && let Some(id) = facts.http_session_id()
    {
        into.push(masked(masker, names::MCP_SESSION_ID, &id));
    }
    match facts.peer() {
        Peer::Pipe => into.push(KeyValue::new(names::NETWORK_TRANSPORT, "pipe")),
        Peer::Tcp { host, port } => {
            into.push(KeyValue::new(names::NETWORK_TRANSPORT, "tcp"));
            into.push(masked(masker, names::SERVER_ADDRESS, &host));
            into.push(KeyValue::new(names::SERVER_PORT, i64::from(port)));
        }
        Peer::Unknown => {}
    }
}

/// Of a span's attributes, those its duration metric carries: few, and of
/// few values (the method, the protocol version, the transport).
pub(crate) fn metric_attributes(span: &[KeyValue]) -> Vec<KeyValue> {
    span.iter()
        .filter(|kv| {
            matches!(
                kv.key.as_str(),
                names::MCP_METHOD_NAME | names::MCP_PROTOCOL_VERSION | names::NETWORK_TRANSPORT
            )
        })
        .cloned()
        .collect()
}

/// The attributes of a request's target.
pub(crate) fn target_attributes_of(
    target: Option<&Target<'_>>,
    masker: &Masker,
    into: &mut Vec<KeyValue>,
) {
    match target {
        Some(Target::Tool(name)) => {
            into.push(masked(masker, names::GEN_AI_TOOL_NAME, name));
            into.push(KeyValue::new(names::GEN_AI_OPERATION_NAME, "execute_tool"));
        }
        Some(Target::Prompt(name)) => into.push(masked(masker, names::GEN_AI_PROMPT_NAME, name)),
        Some(Target::Resource(uri)) => into.push(masked(masker, names::MCP_RESOURCE_URI, uri)),
        None => {}
    }
}

/// The span name of a request: `{method} {target}`, or the method alone.
pub(crate) fn span_name(
    method: Cow<'static, str>,
    target: Option<&Target<'_>>,
    masker: &Masker,
) -> Cow<'static, str> {
    match target {
        Some(target) => Cow::Owned(format!("{method} {}", masker.mask(target.text()))),
        None => method,
    }
}

/// Records a failure on the span of `context`: `error.type`, the JSON-RPC
/// code, and the ERROR status with a masked description.
pub(crate) fn record_failure(context: &Context, failure: &Failure, description: String) {
    let span = context.span();
    span.set_attribute(KeyValue::new(names::ERROR_TYPE, failure.error_type.clone()));
    if let Some(code) = failure.rpc_code {
        span.set_attribute(KeyValue::new(
            names::RPC_RESPONSE_STATUS_CODE,
            code.to_string(),
        ));
    }
    span.set_status(Status::error(description));
}

/// How a request ended, for its span and metric.
fn failure_of(
    outcome: &Result<RawJson, SessionError>,
    is_call: bool,
    masker: &Masker,
) -> Option<(Failure, String)> {
    match outcome {
        Ok(result) if is_call && CallToolResult::is_error_of(result) => Some((
            Failure::kind(names::TOOL_ERROR),
            names::TOOL_ERROR.to_owned(),
        )),
        Ok(_) => None,
        Err(error) => Some((Failure::of(error), masker.mask_string(error.to_string()))),
    }
}

/// How the spans of `request` are named and described.
fn describe(
    request: &McpRequest,
    facts: Option<&dyn SessionFacts>,
    telemetry: &Telemetry,
    masker: &Masker,
) -> Described {
    // A typed method's name is ours; another's is masked like any text.
    let method = match &request.method {
        Cow::Borrowed(name) => Cow::Borrowed(*name),
        Cow::Owned(name) => Cow::Owned(masker.mask(name).into_owned()),
    };
    let target = methods::target_of(&request.method, request.params.as_ref());
    let mut attributes = Vec::with_capacity(12);
    attributes.push(KeyValue::new(names::MCP_METHOD_NAME, method.clone()));
    attributes.push(KeyValue::new(names::JSONRPC_PROTOCOL_VERSION, "2.0"));
    session_attributes(facts, request, masker, &mut attributes);
    // The metric's attributes: few, and of few values.
    let metric = metric_attributes(&attributes);
    target_attributes_of(target.as_ref(), masker, &mut attributes);
    if telemetry.records_arguments()
        && let Some(arguments) = methods::call_arguments(&request.method, request.params.as_ref())
    {
        let text = masker.mask_json_text(arguments.text());
        attributes.push(KeyValue::new(names::GEN_AI_TOOL_CALL_ARGUMENTS, text));
    }
    Described {
        is_call: method == CallTool::METHOD,
        name: span_name(method, target.as_ref(), masker),
        attributes,
        metric,
    }
}

/// Ends the span of `context` with `outcome`: the JSON-RPC id it was sent
/// with, a tool's result when asked for, and the failure, which it returns.
fn finish(
    context: &Context,
    outcome: &Result<RawJson, SessionError>,
    sent: Option<mcpdisco_protocol::RequestId>,
    is_call: bool,
    telemetry: &Telemetry,
    masker: &Masker,
) -> Option<Failure> {
    let span = context.span();
    if let Some(id) = sent {
        span.set_attribute(KeyValue::new(names::JSONRPC_REQUEST_ID, id.to_string()));
    }
    if is_call
        && telemetry.records_results()
        && let Ok(result) = outcome
    {
        let text = masker.mask_json_text(result.as_str());
        span.set_attribute(KeyValue::new(names::GEN_AI_TOOL_CALL_RESULT, text));
    }
    let failure = failure_of(outcome, is_call, masker).map(|(failure, description)| {
        record_failure(context, &failure, description);
        failure
    });
    span.end();
    failure
}

impl Service<McpRequest> for RequestSpans {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), SessionError>> {
        // The inner service is a `RequestService`, ready at once.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: McpRequest) -> ResponseFuture {
        let telemetry = self.telemetry.clone();
        let masker = self.masker.clone();
        let tracer = telemetry.tracer();
        let parent = Context::current();
        let Described {
            name,
            attributes,
            mut metric,
            is_call,
        } = describe(&request, self.facts.as_deref(), &telemetry, &masker);
        let builder = tracer.span_builder(name.clone());
        let context = if self.attempts_inside {
            // INTERNAL, over the attempts: their CLIENT spans go on the wire.
            let span = builder
                .with_kind(SpanKind::Internal)
                .with_attributes(attributes.clone())
                .start_with_context(tracer, &parent);
            parent
                .with_span(span)
                .with_value(Attempts(Arc::new(AttemptsOf {
                    count: AtomicU32::new(0),
                    name,
                    attributes,
                    is_call,
                })))
        } else {
            // One attempt: this CLIENT span goes on the wire.
            let span = builder
                .with_kind(SpanKind::Client)
                .with_attributes(attributes)
                .start_with_context(tracer, &parent);
            let context = parent.with_span(span);
            if let Some(carried) = to_carrier(context.span().span_context()) {
                request.params = carried.apply(request.params.take());
            }
            context
        };
        let sent = request
            .options
            .sent_id
            .get_or_insert_with(SentId::new)
            .clone();
        let started = Instant::now();
        let future = {
            let _attached = context.clone().attach();
            self.inner.call(request)
        };
        Box::pin(async move {
            let outcome = future.with_context(context.clone()).await;
            if let Some(failure) =
                finish(&context, &outcome, sent.get(), is_call, &telemetry, &masker)
            {
                metric.push(KeyValue::new(names::ERROR_TYPE, failure.error_type));
            }
            telemetry
                .instruments()
                .client_operation_duration
                .record(started.elapsed().as_secs_f64(), &metric);
            outcome
        })
    }
}

/// A CLIENT span per attempt, just inside retry (see [the module](self)).
#[derive(Clone)]
pub(crate) struct AttemptSpans {
    inner: RequestService,
    telemetry: Telemetry,
    masker: Masker,
}

impl AttemptSpans {
    /// `inner`, with a span around each attempt.
    pub(crate) fn new(inner: RequestService, telemetry: Telemetry, masker: Masker) -> Self {
        Self {
            inner,
            telemetry,
            masker,
        }
    }
}

impl Service<McpRequest> for AttemptSpans {
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), SessionError>> {
        // The inner service is a `RequestService`, ready at once.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: McpRequest) -> ResponseFuture {
        let parent = Context::current();
        // Attempts only of a request that has its span.
        let Some(attempts) = parent.get::<Attempts>().cloned() else {
            return self.inner.call(request);
        };
        let number = attempts.0.count.fetch_add(1, Ordering::Relaxed) + 1;
        let request_of = &attempts.0;
        let mut attributes = request_of.attributes.clone();
        attributes.push(KeyValue::new(names::MCP_REQUEST_ATTEMPT, i64::from(number)));
        let tracer = self.telemetry.tracer();
        let span = tracer
            .span_builder(request_of.name.clone())
            .with_kind(SpanKind::Client)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        let context = parent.with_span(span);
        if let Some(carried) = to_carrier(context.span().span_context()) {
            request.params = carried.apply(request.params.take());
        }
        let sent = SentId::new();
        let outer = request.options.sent_id.replace(sent.clone());
        let telemetry = self.telemetry.clone();
        let masker = self.masker.clone();
        let is_call = request_of.is_call;
        let future = {
            let _attached = context.clone().attach();
            self.inner.call(request)
        };
        Box::pin(async move {
            let outcome = future.with_context(context.clone()).await;
            let id = sent.get();
            if let (Some(id), Some(outer)) = (&id, &outer) {
                outer.set(id.clone());
            }
            finish(&context, &outcome, id, is_call, &telemetry, &masker);
            outcome
        })
    }
}

/// `params` with the current span's context in `_meta` (for the requests
/// that go past the stack: a re-initialization, `subscriptions/listen`);
/// unchanged without a current span.
pub(crate) fn carry_current(params: Option<RawJson>) -> Option<RawJson> {
    let context = Context::current();
    match to_carrier(context.span().span_context()) {
        Some(carried) => carried.apply(params),
        None => params,
    }
}

/// Adds an event to the span of the current context (a no-op without one).
pub(crate) fn add_event(name: &'static str, attributes: Vec<KeyValue>) {
    opentelemetry::trace::get_active_span(|span| span.add_event(name, attributes));
}
