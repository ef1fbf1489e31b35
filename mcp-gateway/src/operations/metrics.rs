//! The gateway's metrics in the Prometheus text exposition format (0.0.4),
//! on `prometheus-client`: what `GET /metrics` answers.
//!
//! - `mcp_server_operation_duration_seconds` (histogram; OTel's
//!   `mcp.server.operation.duration`): each client request, by `server`
//!   (the server it went to; empty for what the gateway answers itself:
//!   lists, the handshake, ping) and `mcp_method_name`;
//! - `mcp_gateway_requests_total` (counter): the same requests by
//!   `server`, `mcp_method_name` and `outcome` (`ok`, `tool_error` for a
//!   tool result with `isError`, `error` for a JSON-RPC error);
//! - `mcp_gateway_server_state` (gauge): one sample per server and state
//!   (labels `server`, `state`), 1 for the server's state and 0 for the others;
//! - `mcp_gateway_connected_clients` (gauge): client connections open now
//!   (a legacy session, or one modern request while it runs);
//! - `mcp_gateway_session_store_up` (gauge, with `--session-store` only):
//!   1 while the shared store answers, 0 while it is degraded (for any
//!   feature that uses it);
//! - `mcp_gateway_session_store_feature_up` (gauge, with `--session-store`
//!   only): the same per feature (label `feature`: `rateLimit`, limits per
//!   replica while 0; `sessions`, deletion, log levels and notifications
//!   per replica while 0).

use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::{Family, MetricConstructor};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use crate::limits::StoreState;
use crate::operations::readiness::StoreFeature;
use crate::supervisor::Status;

/// The `Content-Type` of the exposition: `text/plain; version=0.0.4; charset=utf-8`.
pub const CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

/// The histogram's bucket bounds in seconds: those OTel's MCP semantic
/// conventions advise for `mcp.server.operation.duration`.
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A result.
    Ok,
    /// A tool's result marked `isError`.
    ToolError,
    /// A JSON-RPC error.
    Error,
}

impl Outcome {
    fn label(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool_error",
            Outcome::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    server: String,
    mcp_method_name: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    server: String,
    mcp_method_name: String,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    server: String,
    state: &'static str,
}

#[derive(Debug, Clone, Copy)]
struct DurationHistogram;

impl MetricConstructor<Histogram> for DurationHistogram {
    fn new_metric(&self) -> Histogram {
        Histogram::new(DURATION_BUCKETS)
    }
}

/// The gateway's metrics. Cheap to share (`Arc`); recording takes no lock
/// but the label family's.
pub struct GatewayMetrics {
    registry: Registry,
    durations: Family<OperationLabels, Histogram, DurationHistogram>,
    requests: Family<RequestLabels, Counter>,
    states: Family<StateLabels, Gauge>,
    clients: Gauge<i64, AtomicI64>,
    store: Family<StoreLabels, Gauge>,
    store_features: Family<StoreFeatureLabels, Gauge>,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StoreLabels {
    store: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StoreFeatureLabels {
    feature: &'static str,
}

impl std::fmt::Debug for GatewayMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayMetrics").finish_non_exhaustive()
    }
}

impl Default for GatewayMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl GatewayMetrics {
    /// Every family registered, none with samples yet.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let durations = Family::new_with_constructor(DurationHistogram);
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "The duration of each client request (OTel mcp.server.operation.duration)",
            Unit::Seconds,
            durations.clone(),
        );
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "mcp_gateway_requests",
            "Client requests by server, method and outcome",
            requests.clone(),
        );
        let states = Family::<StateLabels, Gauge>::default();
        registry.register(
            "mcp_gateway_server_state",
            "Each server's state: 1 for its current state, 0 for the others",
            states.clone(),
        );
        let clients = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "mcp_gateway_connected_clients",
            "Client connections open now",
            clients.clone(),
        );
        let store = Family::<StoreLabels, Gauge>::default();
        registry.register(
            "mcp_gateway_session_store_up",
            "1 while the shared session store answers, 0 while it is degraded",
            store.clone(),
        );
        let store_features = Family::<StoreFeatureLabels, Gauge>::default();
        registry.register(
            "mcp_gateway_session_store_feature_up",
            "Per feature that uses the shared session store: 1 while it answers, 0 while degraded",
            store_features.clone(),
        );
        Self {
            registry,
            durations,
            requests,
            states,
            clients,
            store,
            store_features,
        }
    }

    /// One client request to `server` (empty: answered by the gateway).
    pub fn record(&self, server: &str, method: &str, outcome: Outcome, elapsed: Duration) {
        let operation = OperationLabels {
            server: server.to_owned(),
            mcp_method_name: method.to_owned(),
        };
        self.durations
            .get_or_create(&operation)
            .observe(elapsed.as_secs_f64());
        let request = RequestLabels {
            server: operation.server,
            mcp_method_name: operation.mcp_method_name,
            outcome: outcome.label(),
        };
        self.requests.get_or_create(&request).inc();
    }

    /// A client connection opened; it counts until the guard is dropped.
    pub fn client_connected(self: &Arc<Self>) -> ConnectedClient {
        self.clients.inc();
        ConnectedClient {
            metrics: Arc::clone(self),
        }
    }

    /// The state gauge set to these states, one-hot per server; servers
    /// no longer listed lose their samples.
    pub fn set_states<'a>(&self, statuses: impl IntoIterator<Item = (&'a str, Status)>) {
        self.states.clear();
        for (server, status) in statuses {
            for state in Status::NAMES {
                let labels = StateLabels {
                    server: server.to_owned(),
                    state,
                };
                self.states
                    .get_or_create(&labels)
                    .set(i64::from(state == status.name()));
            }
        }
    }

    /// The shared store's gauges set to the state each feature that uses
    /// it sees (down when one is degraded); no sample without a store.
    pub fn set_session_store(&self, features: &[(StoreFeature, StoreState)]) {
        self.store_features.clear();
        if features.is_empty() {
            self.store.clear();
            return;
        }
        for (feature, state) in features {
            let labels = StoreFeatureLabels {
                feature: feature.name(),
            };
            self.store_features
                .get_or_create(&labels)
                .set(i64::from(*state == StoreState::Up));
        }
        let up = features.iter().all(|(_, state)| *state == StoreState::Up);
        self.store
            .get_or_create(&StoreLabels { store: "redis" })
            .set(i64::from(up));
    }

    /// The exposition text of every family.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_text::encode(&mut text, &self.registry);
        text
    }
}

/// Counts one open client connection while it lives.
#[derive(Debug)]
pub struct ConnectedClient {
    metrics: Arc<GatewayMetrics>,
}

impl Drop for ConnectedClient {
    fn drop(&mut self) {
        self.metrics.clients.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_every_family_with_its_labels() {
        let metrics = Arc::new(GatewayMetrics::new());
        metrics.record("time", "tools/call", Outcome::Ok, Duration::from_millis(30));
        metrics.record("", "tools/list", Outcome::Error, Duration::from_millis(1));
        let _client = metrics.client_connected();
        metrics.set_states([("time", Status::Ready)]);
        let text = metrics.encode();
        assert!(text.contains("# TYPE mcp_server_operation_duration_seconds histogram"));
        assert!(text.contains(
            r#"mcp_server_operation_duration_seconds_bucket{server="time",mcp_method_name="tools/call",le="0.05"} 1"#
        ), "{text}");
        assert!(text.contains(
            r#"mcp_gateway_requests_total{server="",mcp_method_name="tools/list",outcome="error"} 1"#
        ), "{text}");
        assert!(text.contains("mcp_gateway_connected_clients 1"), "{text}");
    }

    #[test]
    fn the_state_gauge_is_one_hot_and_follows_the_state() {
        let metrics = GatewayMetrics::new();
        metrics.set_states([("a", Status::Starting), ("b", Status::Ready)]);
        metrics.set_states([("a", Status::Ready)]);
        let text = metrics.encode();
        let samples: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("mcp_gateway_server_state{"))
            .collect();
        assert_eq!(samples.len(), Status::NAMES.len(), "{text}");
        let on: Vec<&&str> = samples.iter().filter(|line| line.ends_with(" 1")).collect();
        assert_eq!(
            on,
            [&r#"mcp_gateway_server_state{server="a",state="ready"} 1"#]
        );
    }

    #[test]
    fn the_store_gauge_has_a_sample_only_with_a_store() {
        let metrics = GatewayMetrics::new();
        metrics.set_session_store(&[]);
        assert!(!metrics.encode().contains("mcp_gateway_session_store_up{"));
        metrics.set_session_store(&[
            (StoreFeature::RateLimit, StoreState::Up),
            (StoreFeature::Sessions, StoreState::Degraded),
        ]);
        let text = metrics.encode();
        assert!(
            text.contains(r#"mcp_gateway_session_store_up{store="redis"} 0"#),
            "{text}"
        );
        assert!(text.contains(r#"mcp_gateway_session_store_feature_up{feature="sessions"} 0"#));
        assert!(text.contains(r#"mcp_gateway_session_store_feature_up{feature="rateLimit"} 1"#));
        metrics.set_session_store(&[(StoreFeature::Sessions, StoreState::Up)]);
        let text = metrics.encode();
        assert!(text.contains(r#"mcp_gateway_session_store_up{store="redis"} 1"#));
        assert!(!text.contains(r#"feature="rateLimit""#));
    }

    #[test]
    fn a_closed_connection_no_longer_counts() {
        let metrics = Arc::new(GatewayMetrics::new());
        let first = metrics.client_connected();
        let second = metrics.client_connected();
        drop(first);
        assert!(metrics.encode().contains("mcp_gateway_connected_clients 1"));
        drop(second);
        assert!(metrics.encode().contains("mcp_gateway_connected_clients 0"));
    }
}
