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
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor;
use opentelemetry_sdk::{Resource, runtime};

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
    /// context entered): the exporters are tasks of it.
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
            Some(
                SdkTracerProvider::builder()
                    .with_span_processor(
                        BatchSpanProcessor::builder(exporter, runtime::Tokio).build(),
                    )
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
    /// from outside the runtime while it still runs: the export tasks do
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
/// runtime (the export tasks run there too), with the TLS of every other
/// client of ours when an endpoint is `https://` (`secure`), and without the
/// platform's roots when every endpoint is plain `http://`.
#[derive(Debug, Clone)]
struct ExportClient(reqwest::Client);

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
        builder.build().map(Self).map_err(|error| error.to_string())
    }
}

#[async_trait::async_trait]
impl HttpClient for ExportClient {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, HttpError> {
        let request = reqwest::Request::try_from(request)?;
        let mut response = self.0.execute(request).await?;
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
}
