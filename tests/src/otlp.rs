//! A real OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it
//! accepts `POST /v1/traces` and `POST /v1/metrics` (protobuf), decodes
//! them with the OpenTelemetry project's own messages (`opentelemetry-proto`),
//! and keeps every byte it received, so a test can search them for secrets.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use prost::Message;

/// What the receiver got.
#[derive(Default)]
struct Received {
    raw: Vec<u8>,
    requests: usize,
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

/// The receiver; stops when dropped.
pub struct OtlpReceiver {
    port: u16,
    received: Arc<Mutex<Received>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// One span, flattened for asserting.
#[derive(Debug, Clone)]
pub struct SpanView {
    /// Its name.
    pub name: String,
    /// 32 hex digits.
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// 16 hex digits, empty for a root.
    pub parent_span_id: String,
    /// 1 internal, 2 server, 3 client.
    pub kind: i32,
    /// Attributes as text.
    pub attributes: BTreeMap<String, String>,
    /// 0 unset, 1 ok, 2 error.
    pub status_code: i32,
    /// The status's description.
    pub status_message: String,
    /// Its events' names.
    pub events: Vec<String>,
    /// The resource's attributes.
    pub resource: BTreeMap<String, String>,
}

/// One data point of a metric, flattened.
#[derive(Debug, Clone)]
pub struct PointView {
    /// The metric's name.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// The point's attributes as text.
    pub attributes: BTreeMap<String, String>,
    /// A histogram's count, or a sum's or gauge's value.
    pub value: f64,
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|value| value.value.as_ref()) {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        Some(any_value::Value::IntValue(number)) => number.to_string(),
        Some(any_value::Value::BoolValue(flag)) => flag.to_string(),
        Some(any_value::Value::DoubleValue(number)) => number.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn attributes(list: &[KeyValue]) -> BTreeMap<String, String> {
    list.iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn traces(State(received): State<Arc<Mutex<Received>>>, body: Bytes) -> impl IntoResponse {
    accept(&received, &body, |received| {
        let request = ExportTraceServiceRequest::decode(body.as_ref()).ok()?;
        received.traces.push(request);
        Some(())
    })
}

async fn metrics(State(received): State<Arc<Mutex<Received>>>, body: Bytes) -> impl IntoResponse {
    accept(&received, &body, |received| {
        let request = ExportMetricsServiceRequest::decode(body.as_ref()).ok()?;
        received.metrics.push(request);
        Some(())
    })
}

fn accept(
    received: &Mutex<Received>,
    body: &Bytes,
    decode: impl FnOnce(&mut Received) -> Option<()>,
) -> axum::response::Response {
    let mut received = received.lock().unwrap();
    received.requests += 1;
    received.raw.extend_from_slice(body);
    match decode(&mut received) {
        // An empty Export*ServiceResponse is zero bytes of protobuf.
        Some(()) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/x-protobuf")],
            Vec::new(),
        )
            .into_response(),
        None => StatusCode::BAD_REQUEST.into_response(),
    }
}

impl OtlpReceiver {
    /// Listens on a free loopback port, in a thread of its own.
    pub fn start() -> Self {
        let received = Arc::new(Mutex::new(Received::default()));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = Arc::clone(&received);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let app = Router::new()
                    .route("/v1/traces", post(traces))
                    .route("/v1/metrics", post(metrics))
                    .with_state(state);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        Self {
            port,
            received,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`, the base URL for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// How many export requests arrived.
    pub fn requests(&self) -> usize {
        self.received.lock().unwrap().requests
    }

    /// Every byte received.
    pub fn raw(&self) -> Vec<u8> {
        self.received.lock().unwrap().raw.clone()
    }

    /// Every span received, in order.
    pub fn spans(&self) -> Vec<SpanView> {
        let received = self.received.lock().unwrap();
        let mut spans = Vec::new();
        for request in &received.traces {
            for resource_spans in &request.resource_spans {
                let resource = resource_spans
                    .resource
                    .as_ref()
                    .map(|resource| attributes(&resource.attributes))
                    .unwrap_or_default();
                for scope in &resource_spans.scope_spans {
                    for span in &scope.spans {
                        spans.push(SpanView {
                            name: span.name.clone(),
                            trace_id: hex(&span.trace_id),
                            span_id: hex(&span.span_id),
                            parent_span_id: hex(&span.parent_span_id),
                            kind: span.kind,
                            attributes: attributes(&span.attributes),
                            status_code: span.status.as_ref().map_or(0, |status| status.code),
                            status_message: span
                                .status
                                .as_ref()
                                .map(|status| status.message.clone())
                                .unwrap_or_default(),
                            events: span.events.iter().map(|event| event.name.clone()).collect(),
                            resource: resource.clone(),
                        });
                    }
                }
            }
        }
        spans
    }

    /// Every data point received, in order.
    pub fn points(&self) -> Vec<PointView> {
        let received = self.received.lock().unwrap();
        let mut points = Vec::new();
        for request in &received.metrics {
            for resource in &request.resource_metrics {
                for scope in &resource.scope_metrics {
                    for metric in &scope.metrics {
                        let point = |list: &[KeyValue], value: f64| PointView {
                            metric: metric.name.clone(),
                            unit: metric.unit.clone(),
                            attributes: attributes(list),
                            value,
                        };
                        let number =
                            |point: &opentelemetry_proto::tonic::metrics::v1::NumberDataPoint| {
                                use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value;
                                match point.value {
                                    Some(Value::AsDouble(value)) => value,
                                    Some(Value::AsInt(value)) => value as f64,
                                    None => 0.0,
                                }
                            };
                        match &metric.data {
                            Some(metric::Data::Histogram(histogram)) => {
                                for data in &histogram.data_points {
                                    points.push(point(&data.attributes, data.count as f64));
                                }
                            }
                            Some(metric::Data::Sum(sum)) => {
                                for data in &sum.data_points {
                                    points.push(point(&data.attributes, number(data)));
                                }
                            }
                            Some(metric::Data::Gauge(gauge)) => {
                                for data in &gauge.data_points {
                                    points.push(point(&data.attributes, number(data)));
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        points
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
