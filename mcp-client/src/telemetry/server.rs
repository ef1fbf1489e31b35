//! The server side (the gateway): a SERVER span per request, a child of the
//! caller's `traceparent`, and the server's metrics.

use std::borrow::Cow;
use std::time::Instant;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::meta::{RequestMeta, TraceContext};
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{self, CallTool};
use mcpdisco_protocol::types::CallToolResult;
use mcpdisco_protocol::{RawJson, RequestId};
use mcpdisco_transport::secret::Masker;
use opentelemetry::trace::{SpanKind, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;

use super::carrier::with_remote_parent;
use super::classify::Failure;
use super::handle::Telemetry;
use super::layer::{record_failure, span_name};
use super::names;

/// The SERVER span of one request a server answers
/// (`{mcp.method.name} {target}`), a child of the `traceparent` in the
/// request's `_meta` when it carries one; its end records
/// `mcp.server.operation.duration`.
pub struct ServerRequestSpan {
    telemetry: Telemetry,
    context: Context,
    metric: Vec<KeyValue>,
    is_call: bool,
    started: Instant,
    ended: bool,
}

impl ServerRequestSpan {
    /// Starts the span of request `id` of `method` with `params`; every
    /// text attribute masked with `masker`. `network` is the server's
    /// `network.transport` (`pipe`, `tcp`), when known.
    pub fn start(
        telemetry: &Telemetry,
        id: &RequestId,
        method: &str,
        params: Option<&RawJson>,
        network: Option<&'static str>,
        masker: &Masker,
    ) -> Self {
        let tracer = telemetry.tracer();
        let carried = TraceContext::of_params(params);
        let parent = with_remote_parent(&Context::current(), carried.as_ref());
        let target = methods::target_of(method, params);
        let method: Cow<'static, str> = Cow::Owned(masker.mask(method).into_owned());
        let mut attributes = vec![
            KeyValue::new(names::MCP_METHOD_NAME, method.clone()),
            KeyValue::new(names::JSONRPC_PROTOCOL_VERSION, "2.0"),
            KeyValue::new(
                names::JSONRPC_REQUEST_ID,
                masker.mask(&id.to_string()).into_owned(),
            ),
        ];
        if let Some(version) = params.and_then(RequestMeta::protocol_version_in) {
            attributes.push(KeyValue::new(
                names::MCP_PROTOCOL_VERSION,
                masker.mask(&version).into_owned(),
            ));
        }
        if let Some(network) = network {
            attributes.push(KeyValue::new(names::NETWORK_TRANSPORT, network));
        }
        let metric = super::layer::metric_attributes(&attributes);
        super::layer::target_attributes_of(target.as_ref(), masker, &mut attributes);
        let span = tracer
            .span_builder(span_name(method.clone(), target.as_ref(), masker))
            .with_kind(SpanKind::Server)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        Self {
            telemetry: telemetry.clone(),
            context: parent.with_span(span),
            metric,
            is_call: method == CallTool::METHOD,
            started: Instant::now(),
            ended: false,
        }
    }

    /// The span's context: run the work inside it
    /// ([`opentelemetry::trace::FutureExt::with_context`]), so the requests
    /// it makes are its children.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Ends the span with the answer: a JSON-RPC error or a tool's
    /// `isError` fails it (the error's message masked with `masker`).
    pub fn finish(mut self, outcome: Result<&Value, &ErrorObject>, masker: &Masker) {
        let failure = match outcome {
            Ok(result) if self.is_call && CallToolResult::is_error_value(result) => Some((
                Failure::kind(names::TOOL_ERROR),
                names::TOOL_ERROR.to_owned(),
            )),
            Ok(_) => None,
            Err(error) => Some((
                Failure::rpc(error.code.0),
                masker.mask(&error.message).into_owned(),
            )),
        };
        if let Some((failure, description)) = failure {
            record_failure(&self.context, &failure, description);
            self.metric
                .push(KeyValue::new(names::ERROR_TYPE, failure.error_type));
        }
        self.end();
    }

    fn end(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.context.span().end();
        self.telemetry
            .instruments()
            .server_operation_duration
            .record(self.started.elapsed().as_secs_f64(), &self.metric);
    }
}

impl Drop for ServerRequestSpan {
    /// A request dropped unanswered (cancelled) still ends its span.
    fn drop(&mut self) {
        self.end();
    }
}

/// Records a session's duration when dropped:
/// `mcp.client.session.duration` or `mcp.server.session.duration`.
pub struct SessionDuration {
    telemetry: Telemetry,
    side: Side,
    started: Instant,
    attributes: Vec<KeyValue>,
}

/// Which side's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `mcp.client.session.duration`.
    Client,
    /// `mcp.server.session.duration`.
    Server,
}

impl SessionDuration {
    /// Starts timing a session of `side`, recorded with `attributes`.
    pub fn start(telemetry: &Telemetry, side: Side, attributes: Vec<KeyValue>) -> Self {
        Self {
            telemetry: telemetry.clone(),
            side,
            started: Instant::now(),
            attributes,
        }
    }

    /// The session began at `started` (the transport's opening, before the
    /// handshake), not now.
    #[must_use]
    pub fn since(mut self, started: Instant) -> Self {
        self.started = started;
        self
    }

    /// Adds an attribute (the protocol version, once it is known).
    pub fn set(&mut self, attribute: KeyValue) {
        self.attributes.push(attribute);
    }
}

impl Drop for SessionDuration {
    fn drop(&mut self) {
        let instruments = self.telemetry.instruments();
        let histogram = match self.side {
            Side::Client => &instruments.client_session_duration,
            Side::Server => &instruments.server_session_duration,
        };
        histogram.record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}
