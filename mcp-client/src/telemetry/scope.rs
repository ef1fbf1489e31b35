//! [`SpanScope`]: a span a host opens around work of its own (the root span
//! of a command, the span of one server), ended when dropped.

use std::future::Future;

use futures::future::Either;
use mcpdisco_transport::secret::Masker;
use opentelemetry::trace::{FutureExt, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use super::handle::Telemetry;
use super::names;

/// An INTERNAL span around a host's work; the requests made inside
/// [`run`](Self::run) are its children. Ends when dropped. Without
/// telemetry it is nothing at all.
#[derive(Debug, Default)]
pub struct SpanScope {
    context: Option<Context>,
}

impl SpanScope {
    /// No span.
    pub fn none() -> Self {
        Self::default()
    }

    /// The root span of a new trace, named `name` (a command: `discover`,
    /// `call`, ...).
    pub fn root(telemetry: Option<&Telemetry>, name: &'static str) -> Self {
        let Some(telemetry) = telemetry else {
            return Self::none();
        };
        let tracer = telemetry.tracer();
        let span = tracer
            .span_builder(name)
            .with_kind(SpanKind::Internal)
            .start_with_context(tracer, &Context::new());
        Self {
            context: Some(Context::new().with_span(span)),
        }
    }

    /// The span of one configured server (`server {name}`, with
    /// `mcp.server.name`), a child of the current context.
    pub fn server(telemetry: Option<&Telemetry>, server: &str, masker: &Masker) -> Self {
        let Some(telemetry) = telemetry else {
            return Self::none();
        };
        let tracer = telemetry.tracer();
        let name = masker.mask(server).into_owned();
        let parent = Context::current();
        let span = tracer
            .span_builder(format!("server {name}"))
            .with_kind(SpanKind::Internal)
            .with_attributes([KeyValue::new(names::MCP_SERVER_NAME, name)])
            .start_with_context(tracer, &parent);
        Self {
            context: Some(parent.with_span(span)),
        }
    }

    /// The span's context, when there is a span.
    pub fn context(&self) -> Option<&Context> {
        self.context.as_ref()
    }

    /// `future`, run inside the span (its requests become its children).
    pub fn run<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        match &self.context {
            Some(context) => Either::Left(future.with_context(context.clone())),
            None => Either::Right(future),
        }
    }

    /// Marks the span failed: `error.type` and an ERROR status. The
    /// description is masked with `masker`.
    pub fn fail(&self, error_type: &str, description: &str, masker: &Masker) {
        if let Some(context) = &self.context {
            let span = context.span();
            span.set_attribute(KeyValue::new(names::ERROR_TYPE, error_type.to_owned()));
            span.set_status(Status::error(masker.mask(description).into_owned()));
        }
    }
}

impl Drop for SpanScope {
    fn drop(&mut self) {
        if let Some(context) = &self.context {
            context.span().end();
        }
    }
}
