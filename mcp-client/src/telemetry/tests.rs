//! The telemetry layers in a stack, against an in-memory exporter of the
//! SDK, on tokio's paused clock.

use std::sync::Arc;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::meta::TraceContext;
use mcpdisco_protocol::methods::{CallTool, ListTools};
use mcpdisco_protocol::types::{CallToolParams, PaginatedParams};
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{ConnectCause, TransportError};
use opentelemetry::trace::{SpanKind, Status};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use tower::ServiceExt;

use super::*;
use crate::error::SessionError;
use crate::policy::{LayerStack, RetryPolicy};
use crate::request::{McpRequest, RequestOptions, RequestService};

struct Harness {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meters: SdkMeterProvider,
    telemetry: Telemetry,
}

fn harness() -> Harness {
    let spans = InMemorySpanExporter::default();
    let tracers = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let metrics = InMemoryMetricExporter::default();
    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    let telemetry = Telemetry::new(&tracers, &meters);
    Harness {
        spans,
        metrics,
        meters,
        telemetry,
    }
}

fn reset() -> SessionError {
    SessionError::from_send(
        "s",
        "tools/list",
        TransportError::Connect {
            server: "s".into(),
            url: "http://127.0.0.1:9/mcp".into(),
            cause: ConnectCause::Reset,
            reason: "connection reset by peer".into(),
        },
    )
}

/// A core that fails with `failures` in turn, then answers `answer`; it
/// keeps the params of every request it saw.
fn core(
    failures: Vec<SessionError>,
    answer: RawJson,
) -> (RequestService, Arc<Mutex<Vec<Option<RawJson>>>>) {
    let seen: Arc<Mutex<Vec<Option<RawJson>>>> = Arc::default();
    let failures = Arc::new(Mutex::new(std::collections::VecDeque::from(failures)));
    let log = Arc::clone(&seen);
    let service = RequestService::from_fn(move |request: McpRequest| {
        log.lock().push(request.params.clone());
        let next = failures.lock().pop_front();
        let answer = answer.clone();
        Box::pin(async move {
            match next {
                Some(error) => Err(error),
                None => Ok(answer),
            }
        })
    });
    (service, seen)
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        initial_delay: std::time::Duration::from_millis(10),
        jitter: 0.0,
        ..RetryPolicy::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_retried_request_is_an_internal_span_over_a_client_span_per_attempt() {
    let harness = harness();
    let stack = LayerStack::empty()
        .retry(fast_retry())
        .telemetry(harness.telemetry.clone());
    assert_eq!(stack.names(), ["telemetry", "retry"]);
    let (inner, seen) = core(vec![reset()], RawJson::empty_object());
    let request =
        McpRequest::typed::<ListTools>(&PaginatedParams::default(), RequestOptions::default())
            .unwrap();
    stack.service(inner).oneshot(request).await.unwrap();

    let spans = harness.spans.get_finished_spans().unwrap();
    let request = spans
        .iter()
        .find(|span| span.name == "tools/list" && span.span_kind == SpanKind::Internal)
        .unwrap();
    assert_eq!(
        attribute(request, names::MCP_METHOD_NAME).as_deref(),
        Some("tools/list")
    );
    assert_eq!(request.status, Status::Unset);
    assert!(
        request
            .events
            .iter()
            .any(|event| event.name == names::EVENT_RETRY)
    );
    let attempts: Vec<&SpanData> = spans
        .iter()
        .filter(|span| span.parent_span_id == request.span_context.span_id())
        .collect();
    assert_eq!(attempts.len(), 2);
    for (number, attempt) in attempts.iter().enumerate() {
        // Each attempt is the CLIENT span, named and described as the request.
        assert_eq!(attempt.span_kind, SpanKind::Client);
        assert_eq!(attempt.name, "tools/list");
        assert_eq!(
            attribute(attempt, names::MCP_METHOD_NAME).as_deref(),
            Some("tools/list")
        );
        assert_eq!(
            attribute(attempt, names::JSONRPC_PROTOCOL_VERSION).as_deref(),
            Some("2.0")
        );
        assert_eq!(
            attribute(attempt, names::MCP_REQUEST_ATTEMPT),
            Some((number + 1).to_string())
        );
    }
    assert_eq!(
        attribute(attempts[0], names::ERROR_TYPE).as_deref(),
        Some("connection_reset")
    );
    assert!(matches!(attempts[0].status, Status::Error { .. }));
    assert_eq!(attempts[1].status, Status::Unset);
    // Each attempt carried its own CLIENT span's context to the server.
    let seen = seen.lock();
    assert_eq!(seen.len(), 2);
    for (params, attempt) in seen.iter().zip(&attempts) {
        let carried = TraceContext::of_params(params.as_ref()).unwrap();
        let context = from_carrier(&carried).unwrap();
        assert_eq!(context.span_id(), attempt.span_context.span_id());
        assert_eq!(context.trace_id(), request.span_context.trace_id());
    }
}

#[tokio::test(start_paused = true)]
async fn a_request_of_one_attempt_is_one_client_span_with_no_internal_parent() {
    let harness = harness();
    // A retry layer that never retries: every request has one attempt.
    let stack = LayerStack::empty()
        .retry(fast_retry().max_retries(0))
        .telemetry(harness.telemetry.clone());
    let (inner, seen) = core(Vec::new(), RawJson::empty_object());
    let request =
        McpRequest::typed::<ListTools>(&PaginatedParams::default(), RequestOptions::default())
            .unwrap();
    stack.service(inner).oneshot(request).await.unwrap();

    let spans = harness.spans.get_finished_spans().unwrap();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    let request = &spans[0];
    assert_eq!(request.span_kind, SpanKind::Client);
    assert_eq!(
        request.parent_span_id,
        opentelemetry::trace::SpanId::INVALID
    );
    let carried = TraceContext::of_params(seen.lock()[0].as_ref()).unwrap();
    assert_eq!(
        from_carrier(&carried).unwrap().span_id(),
        request.span_context.span_id()
    );
}

#[tokio::test(start_paused = true)]
async fn without_retry_the_request_span_is_carried_and_failures_are_typed() {
    let harness = harness();
    let stack = LayerStack::empty().telemetry(harness.telemetry.clone());
    let refused = SessionError::from_rpc(
        "s",
        "tools/call",
        ErrorObject::new(ErrorCode(-32602), "no such tool sk-hidden-1"),
    );
    let (inner, seen) = core(vec![refused], RawJson::empty_object());
    let call = |name: &str| {
        McpRequest::typed::<CallTool>(
            &CallToolParams::new(name, json!({"key": "sk-hidden-1"}).as_object().cloned()),
            RequestOptions::default(),
        )
        .unwrap()
    };
    let masker = Masker::new(["sk-hidden-1"]);
    let mut built = stack.clone();
    built.set_retry(None);
    let service = {
        use crate::policy::stack::SessionBinding;
        let binding = SessionBinding {
            server: "s".into(),
            masker,
            deadline: crate::policy::Deadline::default(),
            facts: None,
        };
        built.build(inner, &binding).service
    };
    assert!(service.clone().oneshot(call("missing")).await.is_err());
    let tool_failed = RawJson::parse(r#"{"content":[],"isError":true}"#).unwrap();
    let (inner, _) = core(Vec::new(), tool_failed);
    stack.service(inner).oneshot(call("fails")).await.unwrap();

    let spans = harness.spans.get_finished_spans().unwrap();
    let missing = spans
        .iter()
        .find(|span| span.name == "tools/call missing")
        .unwrap();
    assert_eq!(
        attribute(missing, names::ERROR_TYPE).as_deref(),
        Some("-32602")
    );
    assert_eq!(
        attribute(missing, names::RPC_RESPONSE_STATUS_CODE).as_deref(),
        Some("-32602")
    );
    assert_eq!(
        attribute(missing, names::GEN_AI_TOOL_NAME).as_deref(),
        Some("missing")
    );
    assert!(attribute(missing, names::GEN_AI_TOOL_CALL_ARGUMENTS).is_none());
    let Status::Error { description } = &missing.status else {
        panic!("{:?}", missing.status);
    };
    assert!(!description.contains("sk-hidden-1"), "{description}");
    // No attempt spans without retry: the request's own CLIENT span is carried.
    assert_eq!(missing.span_kind, SpanKind::Client);
    assert!(
        spans.iter().all(|span| span.span_kind == SpanKind::Client),
        "{spans:#?}"
    );
    let carried = TraceContext::of_params(seen.lock()[0].as_ref()).unwrap();
    assert_eq!(
        from_carrier(&carried).unwrap().span_id(),
        missing.span_context.span_id()
    );
    let fails = spans
        .iter()
        .find(|span| span.name == "tools/call fails")
        .unwrap();
    assert_eq!(
        attribute(fails, names::ERROR_TYPE).as_deref(),
        Some("tool_error")
    );
    assert!(attribute(fails, names::RPC_RESPONSE_STATUS_CODE).is_none());

    // The operation's duration, by method and error.type.
    harness.meters.force_flush().unwrap();
    let exported = harness.metrics.get_finished_metrics().unwrap();
    let text = format!("{exported:?}");
    assert!(text.contains(names::CLIENT_OPERATION_DURATION), "{text}");
    assert!(
        text.contains("tool_error") && text.contains("-32602"),
        "{text}"
    );
}

#[test]
fn telemetry_stays_outermost_when_policies_are_set() {
    let harness = harness();
    let mut stack = LayerStack::empty().telemetry(harness.telemetry.clone());
    stack.set_rate_limit(Some(crate::policy::RateLimit::default()));
    stack.set_retry(Some(RetryPolicy::default()));
    assert_eq!(stack.names(), ["telemetry", "retry", "rate limit"]);
    assert!(stack.telemetry_handle().is_some());
    let again = stack.clone().telemetry(harness.telemetry);
    assert_eq!(again.names(), ["telemetry", "retry", "rate limit"]);
}

#[tokio::test(start_paused = true)]
async fn a_rate_limit_wait_is_an_event_of_the_span_it_delays() {
    let harness = harness();
    let stack = LayerStack::empty()
        .telemetry(harness.telemetry.clone())
        .rate_limit(crate::policy::RateLimit {
            requests_per_second: 1.0,
            burst: 1,
        });
    let (inner, _) = core(Vec::new(), RawJson::empty_object());
    let service = stack.service(inner);
    for name in ["first", "second"] {
        let call = McpRequest::typed::<CallTool>(
            &CallToolParams::new(name, None),
            RequestOptions::default(),
        )
        .unwrap();
        service.clone().oneshot(call).await.unwrap();
    }
    let spans = harness.spans.get_finished_spans().unwrap();
    let waited = |name: &str| {
        spans
            .iter()
            .find(|span| span.name == name)
            .unwrap()
            .events
            .iter()
            .any(|event| event.name == names::EVENT_RATE_LIMIT_WAIT)
    };
    assert!(!waited("tools/call first"));
    assert!(waited("tools/call second"));
}

#[tokio::test(start_paused = true)]
async fn a_served_request_is_a_server_span_and_its_backend_request_goes_out_as_client() {
    use mcpdisco_protocol::RequestId;
    use opentelemetry::trace::FutureExt;

    let harness = harness();
    let stack = LayerStack::empty()
        .retry(fast_retry())
        .telemetry(harness.telemetry.clone());
    let (inner, seen) = core(Vec::new(), RawJson::empty_object());
    let served = ServerRequestSpan::start(
        &harness.telemetry,
        &RequestId::from(7_i64),
        "tools/list",
        None,
        Some("pipe"),
        &Masker::default(),
    );
    let request =
        McpRequest::typed::<ListTools>(&PaginatedParams::default(), RequestOptions::default())
            .unwrap();
    stack
        .service(inner)
        .oneshot(request)
        .with_context(served.context().clone())
        .await
        .unwrap();
    served.finish(Ok(&json!({"tools": []})), &Masker::default());

    let spans = harness.spans.get_finished_spans().unwrap();
    let server = spans
        .iter()
        .find(|span| span.span_kind == SpanKind::Server)
        .unwrap();
    let request = spans
        .iter()
        .find(|span| span.parent_span_id == server.span_context.span_id())
        .unwrap();
    assert_eq!(request.span_kind, SpanKind::Internal);
    let carried = TraceContext::of_params(seen.lock()[0].as_ref()).unwrap();
    let wire = spans
        .iter()
        .find(|span| span.span_context.span_id() == from_carrier(&carried).unwrap().span_id())
        .unwrap();
    assert_eq!(wire.span_kind, SpanKind::Client);
    assert_eq!(wire.parent_span_id, request.span_context.span_id());
}
