//! OpenTelemetry export, configured by the standard environment (the only
//! place that reads `OTEL_*`): the SDK's tracer and meter providers with
//! OTLP over HTTP/protobuf, handed to the library as a
//! [`Telemetry`]; flushed before `mcp-cli` exits.
//!
//! - `OTEL_EXPORTER_OTLP_ENDPOINT`: the base URL (signals go to `/v1/traces`
//!   and `/v1/metrics`); `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and
//!   `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` are full URLs and win. Without
//!   any of them nothing is built, nothing is sent.
//! - `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` (the default); `grpc`
//!   is not built in (a warning says so, and nothing is exported).
//! - `OTEL_EXPORTER_OTLP_HEADERS` (and the per-signal ones), `OTEL_SERVICE_NAME`
//!   (default `mcp-cli`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_TIMEOUT`,
//!   `OTEL_METRIC_EXPORT_INTERVAL`: as the SDK reads them.
//! - `OTEL_SDK_DISABLED=true`: off.

use std::time::Duration;

use mcpdisco_client::opentelemetry::metrics::noop::NoopMeterProvider;
use mcpdisco_client::opentelemetry::trace::noop::NoopTracerProvider;
use mcpdisco_client::telemetry::Telemetry;
use opentelemetry_http::{HttpClient, HttpError};
use opentelemetry_otlp::{
    MetricExporter, Protocol, SpanExporter, WithExportConfig, WithHttpConfig,
};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::metrics::periodic_reader_with_async_runtime::PeriodicReader;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider};
use opentelemetry_sdk::{Resource, runtime};
use tokio::runtime::Handle;

use crate::cli::GlobalOptions;

/// The base endpoint.
const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// The traces' full URL.
const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
/// The metrics' full URL.
const METRICS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
/// `http/protobuf` or `grpc`.
const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
/// `true` turns everything off.
const SDK_DISABLED: &str = "OTEL_SDK_DISABLED";
/// The service's name.
const SERVICE_NAME: &str = "OTEL_SERVICE_NAME";
/// More resource attributes (`key=value,...`).
const RESOURCE_ATTRIBUTES: &str = "OTEL_RESOURCE_ATTRIBUTES";

/// The service name when the environment names none.
const DEFAULT_SERVICE_NAME: &str = "mcp-cli";
/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the flush before exiting may take, per signal.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// The providers of a run that exports, and the library's handle on them.
pub struct Otel {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
    telemetry: Telemetry,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

impl Otel {
    /// The export the environment asks for; `None` when it asks for none
    /// (no endpoint, `OTEL_SDK_DISABLED=true`) or it cannot be built (a
    /// warning on stderr says why). Call it inside the CLI's runtime (its
    /// context entered): the metrics reader and every export's HTTP
    /// exchange are tasks of it (the span processor has its own thread).
    pub fn from_env(global: &GlobalOptions) -> Option<Self> {
        if var(SDK_DISABLED).is_some_and(|value| value.trim().eq_ignore_ascii_case("true")) {
            return None;
        }
        let traces = var(TRACES_ENDPOINT).is_some() || var(ENDPOINT).is_some();
        let metrics = var(METRICS_ENDPOINT).is_some() || var(ENDPOINT).is_some();
        if !traces && !metrics {
            return None;
        }
        match var(PROTOCOL).as_deref().map(str::trim) {
            None | Some("http/protobuf") => {}
            Some(other) => {
                eprintln!(
                    "warning: {PROTOCOL}={other} is not built into mcp-cli; nothing is exported \
                     (use http/protobuf, usually port 4318)"
                );
                return None;
            }
        }
        // Roots are loaded only for an `https://` endpoint: a collector on
        // the same host costs no certificate parsing at every start.
        let secure = [TRACES_ENDPOINT, METRICS_ENDPOINT, ENDPOINT]
            .into_iter()
            .filter_map(var)
            .any(|url| url.trim().to_ascii_lowercase().starts_with("https:"));
        match Self::build(traces, metrics, secure) {
            Ok((tracer_provider, meter_provider)) => {
                let telemetry = match (&tracer_provider, &meter_provider) {
                    (Some(tracers), Some(meters)) => Telemetry::new(tracers, meters),
                    (Some(tracers), None) => Telemetry::new(tracers, &NoopMeterProvider::new()),
                    (None, Some(meters)) => Telemetry::new(&NoopTracerProvider::new(), meters),
                    (None, None) => return None,
                }
                .record_arguments(global.otel_record_arguments)
                .record_results(global.otel_record_results);
                Some(Self {
                    tracer_provider,
                    meter_provider,
                    telemetry,
                })
            }
            Err(error) => {
                eprintln!("warning: OpenTelemetry export is off: {error}");
                None
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn build(
        traces: bool,
        metrics: bool,
        secure: bool,
    ) -> Result<(Option<SdkTracerProvider>, Option<SdkMeterProvider>), String> {
        let client = ExportClient::new(secure)?;
        let resource = resource();
        let tracer_provider = if traces {
            let exporter = SpanExporter::builder()
                .with_http()
                .with_http_client(client.clone())
                .with_protocol(Protocol::HttpBinary)
                .with_timeout(EXPORT_TIMEOUT)
                .build()
                .map_err(|error| error.to_string())?;
            // The SDK's own batch processor: its thread is woken when a
            // batch is full or its delay has passed, never per span (the
            // async-runtime processor wakes its task at every span's end).
            Some(
                SdkTracerProvider::builder()
                    .with_span_processor(BatchSpanProcessor::builder(exporter).build())
                    .with_resource(resource.clone())
                    .build(),
            )
        } else {
            None
        };
        let meter_provider = if metrics {
            let exporter = MetricExporter::builder()
                .with_http()
                .with_http_client(client)
                .with_protocol(Protocol::HttpBinary)
                .with_timeout(EXPORT_TIMEOUT)
                .build()
                .map_err(|error| error.to_string())?;
            Some(
                SdkMeterProvider::builder()
                    .with_reader(PeriodicReader::builder(exporter, runtime::Tokio).build())
                    .with_resource(resource)
                    .build(),
            )
        } else {
            None
        };
        Ok((tracer_provider, meter_provider))
    }

    /// The library's handle.
    pub fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }

    /// Sends everything still buffered (every span, the metrics' last
    /// collection) and stops the exporters; each signal within a bound, the
    /// two side by side (each is a round trip to the collector). Call it
    /// from outside the runtime while it still runs: the runtime's tasks do
    /// the sending, this thread waits for them.
    pub fn shutdown(self) {
        std::thread::scope(|scope| {
            if let Some(provider) = &self.meter_provider {
                scope.spawn(move || {
                    if let Err(error) = provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT) {
                        eprintln!("warning: could not send the metrics: {error}");
                    }
                });
            }
            if let Some(provider) = &self.tracer_provider
                && let Err(error) = provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT)
            {
                eprintln!("warning: could not send every span: {error}");
            }
        });
    }
}

/// The service name and the environment's resource attributes.
fn resource() -> Resource {
    let builder = Resource::builder();
    let named_in_attributes = var(RESOURCE_ATTRIBUTES).is_some_and(|attributes| {
        attributes
            .split(',')
            .any(|pair| pair.split('=').next().map(str::trim) == Some("service.name"))
    });
    match var(SERVICE_NAME) {
        // The SDK reads it too; named here, it also wins over the attributes.
        Some(name) => builder.with_service_name(name),
        None if named_in_attributes => builder,
        None => builder.with_service_name(DEFAULT_SERVICE_NAME),
    }
    .build()
}

/// The exporters' HTTP client: the async reqwest client of the CLI's
/// runtime, each exchange a task of that runtime (the span processor's
/// thread and the metrics' task wait for it), with the TLS of every other
/// client of ours when an endpoint is `https://` (`secure`), and without the
/// platform's roots when every endpoint is plain `http://`.
#[derive(Debug, Clone)]
struct ExportClient {
    client: reqwest::Client,
    runtime: Handle,
}

/// The largest collector answer read (an OTLP answer is a few bytes, a
/// partial-success message at most).
const MAX_ANSWER: usize = 64 * 1024;

impl ExportClient {
    #[cfg_attr(not(unix), allow(unused_variables))]
    fn new(secure: bool) -> Result<Self, String> {
        let builder = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .connect_timeout(EXPORT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none());
        #[cfg(unix)]
        let builder = {
            use mcpdisco_client::transport::http::tls;
            let config = if secure {
                tls::client_config()
            } else {
                tls::plain_http_only_config()
            };
            builder.tls_backend_preconfigured(config.map_err(|error| format!("TLS: {error}"))?)
        };
        let runtime =
            Handle::try_current().map_err(|_| "the exporters need the CLI's runtime".to_owned())?;
        let client = builder.build().map_err(|error| error.to_string())?;
        Ok(Self { client, runtime })
    }
}

#[async_trait::async_trait]
impl HttpClient for ExportClient {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, HttpError> {
        let request = reqwest::Request::try_from(request)?;
        // On the runtime, whoever awaits: the span processor awaits on its
        // own thread, outside any runtime.
        self.runtime
            .spawn(exchange(self.client.clone(), request))
            .await?
    }
}

/// Sends `request`; the collector's answer, read up to [`MAX_ANSWER`] bytes.
async fn exchange(
    client: reqwest::Client,
    request: reqwest::Request,
) -> Result<http::Response<bytes::Bytes>, HttpError> {
    let mut response = client.execute(request).await?;
    let mut answer = http::Response::builder().status(response.status());
    if let Some(headers) = answer.headers_mut() {
        headers.extend(
            response
                .headers()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
    }
    let mut body = bytes::BytesMut::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(format!("the collector's answer is over {MAX_ANSWER} bytes").into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(answer.body(body.freeze())?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    /// Wakes a parked thread.
    struct Unpark(std::thread::Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    /// Runs `future` on this thread, outside any runtime, as the SDK's span
    /// processor runs an export on its own thread.
    fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut context = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return output;
            }
            std::thread::park();
        }
    }

    #[test]
    fn an_export_awaited_outside_the_runtime_is_sent_by_the_runtime() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        let collector = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut seen = Vec::new();
            let mut buffer = [0u8; 1024];
            while !seen.ends_with(b"spans") {
                let read = stream.read(&mut buffer).unwrap();
                assert!(read > 0, "the request ended early");
                seen.extend_from_slice(&buffer[..read]);
            }
            stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .unwrap();
            seen
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let client = {
            let _entered = runtime.enter();
            ExportClient::new(false).unwrap()
        };
        let request = http::Request::post(url)
            .body(bytes::Bytes::from_static(b"spans"))
            .unwrap();
        let answer = std::thread::spawn(move || block_on(client.send_bytes(request)))
            .join()
            .expect("the export thread did not panic")
            .unwrap();
        assert_eq!(answer.status(), 200);
        assert_eq!(answer.body().as_ref(), b"ok");
        assert!(collector.join().unwrap().ends_with(b"spans"));
    }
}
