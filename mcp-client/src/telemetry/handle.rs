//! [`Telemetry`]: the tracer and the instruments a host hands the library.

use std::sync::Arc;

use opentelemetry::InstrumentationScope;
use opentelemetry::global::{BoxedTracer, ObjectSafeTracerProvider};
use opentelemetry::metrics::{Counter, Gauge, Histogram, Meter, MeterProvider};

use super::names;

/// The instrumentation scope of every span and metric of this crate.
pub const SCOPE_NAME: &str = "mcpdisco";

/// The tracer and instruments of a host, for the library's spans and metrics.
/// Cheap to clone.
///
/// The host builds its providers (with whatever exporter it wants) and hands
/// them over; nothing here installs a global provider. A session uses it
/// when its [`LayerStack`](crate::policy::LayerStack) has it
/// ([`LayerStack::telemetry`](crate::policy::LayerStack::telemetry)).
///
/// ```
/// use mcpdisco_client::policy::LayerStack;
/// use mcpdisco_client::telemetry::Telemetry;
/// let tracer_provider = opentelemetry::trace::noop::NoopTracerProvider::new();
/// let meter_provider = opentelemetry::metrics::noop::NoopMeterProvider::new();
/// let telemetry = Telemetry::new(&tracer_provider, &meter_provider);
/// let stack = LayerStack::default().telemetry(telemetry);
/// assert_eq!(stack.names(), ["telemetry", "retry", "rate limit"]);
/// ```
#[derive(Clone)]
pub struct Telemetry {
    shared: Arc<Shared>,
    record_arguments: bool,
    record_results: bool,
}

struct Shared {
    tracer: BoxedTracer,
    instruments: Instruments,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("record_arguments", &self.record_arguments)
            .field("record_results", &self.record_results)
            .finish_non_exhaustive()
    }
}

/// The instruments of [`names`]: histograms in seconds, counters, a gauge.
#[derive(Clone)]
pub struct Instruments {
    /// [`names::CLIENT_OPERATION_DURATION`].
    pub client_operation_duration: Histogram<f64>,
    /// [`names::CLIENT_SESSION_DURATION`].
    pub client_session_duration: Histogram<f64>,
    /// [`names::SERVER_OPERATION_DURATION`].
    pub server_operation_duration: Histogram<f64>,
    /// [`names::SERVER_SESSION_DURATION`].
    pub server_session_duration: Histogram<f64>,
    /// [`names::SUPERVISOR_STARTS`].
    pub supervisor_starts: Counter<u64>,
    /// [`names::SUPERVISOR_RESTARTS`].
    pub supervisor_restarts: Counter<u64>,
    /// [`names::SUPERVISOR_STATE`].
    pub supervisor_state: Gauge<i64>,
}

impl Instruments {
    fn new(meter: &Meter) -> Self {
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(names::DURATION_BOUNDARIES.to_vec())
                .build()
        };
        Self {
            client_operation_duration: histogram(
                names::CLIENT_OPERATION_DURATION,
                "The duration of an MCP request as the client sees it.",
            ),
            client_session_duration: histogram(
                names::CLIENT_SESSION_DURATION,
                "The duration of an MCP client session.",
            ),
            server_operation_duration: histogram(
                names::SERVER_OPERATION_DURATION,
                "The duration of an MCP request as the server sees it.",
            ),
            server_session_duration: histogram(
                names::SERVER_SESSION_DURATION,
                "The duration of an MCP server session (one client connection).",
            ),
            supervisor_starts: meter
                .u64_counter(names::SUPERVISOR_STARTS)
                .with_unit("{start}")
                .with_description("Starts of a supervised MCP server.")
                .build(),
            supervisor_restarts: meter
                .u64_counter(names::SUPERVISOR_RESTARTS)
                .with_unit("{restart}")
                .with_description("Starts of a supervised MCP server after its first.")
                .build(),
            supervisor_state: meter
                .i64_gauge(names::SUPERVISOR_STATE)
                .with_unit("{state}")
                .with_description(
                    "1 for a supervised MCP server's current state, 0 for the state it left.",
                )
                .build(),
        }
    }
}

impl Telemetry {
    /// Telemetry through the host's providers: a tracer and a meter of
    /// scope [`SCOPE_NAME`] (with this crate's version).
    pub fn new<T, M>(tracer_provider: &T, meter_provider: &M) -> Self
    where
        T: ObjectSafeTracerProvider + ?Sized,
        M: MeterProvider + ?Sized,
    {
        let scope = InstrumentationScope::builder(SCOPE_NAME)
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let tracer = BoxedTracer::new(tracer_provider.boxed_tracer(scope.clone()));
        let meter = meter_provider.meter_with_scope(scope);
        Self {
            shared: Arc::new(Shared {
                tracer,
                instruments: Instruments::new(&meter),
            }),
            record_arguments: false,
            record_results: false,
        }
    }

    /// Whether `tools/call` spans carry the call's arguments, masked
    /// (`gen_ai.tool.call.arguments`; off unless asked).
    pub fn record_arguments(mut self, on: bool) -> Self {
        self.record_arguments = on;
        self
    }

    /// Whether `tools/call` spans carry the call's result, masked
    /// (`gen_ai.tool.call.result`; off unless asked).
    pub fn record_results(mut self, on: bool) -> Self {
        self.record_results = on;
        self
    }

    /// The tracer.
    pub fn tracer(&self) -> &BoxedTracer {
        &self.shared.tracer
    }

    /// The instruments.
    pub fn instruments(&self) -> &Instruments {
        &self.shared.instruments
    }

    /// Whether tool call arguments are recorded.
    pub fn records_arguments(&self) -> bool {
        self.record_arguments
    }

    /// Whether tool call results are recorded.
    pub fn records_results(&self) -> bool {
        self.record_results
    }
}
