//! [`LayerStack`]: the order of a session's layers, stated in one place.
//!
//! A session's request path is its core (one JSON-RPC request over the
//! connection) wrapped in layers, outermost first. Each layer is an ordinary
//! `tower::Layer`; the stack only says which wraps which:
//!
//! ```text
//! LayerStack::default(), outermost first:
//!   retry          policy::retry       one call, however many attempts
//!   rate limit     policy::rate_limit  a token per operation, per attempt
//!   your layers    LayerStack::layer   in the order you add them
//!   authorization  auth::AuthLayer     added innermost by `mcpdisco::connect`
//!     └─ the session's core
//! ```
//!
//! With [`telemetry`](LayerStack::telemetry) (feature `otel`), the request
//! spans and their metric stand outermost, and the innermost retry layer
//! that may retry gets the attempt spans just inside it:
//!
//! ```text
//!   telemetry      telemetry::layer    the INTERNAL span of a request, its duration
//!   retry          policy::retry       one call, however many attempts
//!     attempt      telemetry::layer    a CLIENT span per attempt; `_meta.traceparent`
//!   rate limit ...
//! ```
//!
//! Without such a retry layer a request is one attempt: one CLIENT span,
//! carried in `_meta.traceparent`.
//!
//! Where a layer stands decides what it sees. Outside retry it sees each
//! call once, with its whole time (backoff included); inside retry it sees
//! every attempt. To put one of your layers outside retry, build the stack
//! in that order:
//!
//! ```
//! use mcpdisco_client::policy::{LayerStack, RateLimit, RetryPolicy};
//! # let my_layer = tower::layer::util::Identity::new();
//! let stack = LayerStack::empty()
//!     .layer(my_layer) // sees every call once
//!     .retry(RetryPolicy::default())
//!     .rate_limit(RateLimit::default());
//! assert_eq!(stack.names()[1..], ["retry", "rate limit"]);
//! ```
//!
//! Retry and the rate limit are kept as policies, not as built layers:
//! a session builds them when it connects, so each session gets its own
//! rate-limit bucket, and its retries know its deadline, its name and its
//! secrets. [`trace`](LayerStack::trace) is built likewise, naming the server.

use std::sync::Arc;

use mcpdisco_protocol::RawJson;
use mcpdisco_transport::secret::Masker;
use tower::{Layer, Service};

use super::rate_limit::{RateLimit, RateLimitLayer};
use super::retry::{Deadline, RetryLayer, RetryPolicy};
use super::trace::TraceLayer;
use crate::error::SessionError;
use crate::request::{McpRequest, RequestService};

/// A `tower::Layer` that fits a session's request path: it wraps a
/// [`RequestService`] in a service of [`McpRequest`]s. Every such layer
/// implements it (you never implement it yourself); it names the bounds in
/// one place.
pub trait RequestLayer: Send + Sync + 'static {
    /// `inner`, wrapped in this layer and erased.
    fn wrap(&self, inner: RequestService) -> RequestService;
}

impl<L> RequestLayer for L
where
    L: Layer<RequestService> + Send + Sync + 'static,
    L::Service: Service<McpRequest, Response = RawJson, Error = SessionError>
        + Clone
        + Send
        + Sync
        + 'static,
    <L::Service as Service<McpRequest>>::Future: Send + 'static,
{
    fn wrap(&self, inner: RequestService) -> RequestService {
        RequestService::new(self.layer(inner))
    }
}

/// One layer of a stack.
#[derive(Clone)]
enum Entry {
    /// Built per session: [`RetryLayer`].
    Retry(RetryPolicy),
    /// Built per session, with its own bucket: [`RateLimitLayer`].
    RateLimit(RateLimit),
    /// Built per session: [`TraceLayer`].
    Trace,
    /// Built per session: the request spans, and the attempt spans inside
    /// the innermost retry layer that stands inside it.
    #[cfg(feature = "otel")]
    Telemetry(crate::telemetry::Telemetry),
    /// A layer of the caller's (authorization is one).
    Layer {
        name: &'static str,
        layer: Arc<dyn RequestLayer>,
    },
}

impl Entry {
    fn name(&self) -> &'static str {
        match self {
            Entry::Retry(_) => "retry",
            Entry::RateLimit(_) => "rate limit",
            Entry::Trace => "trace",
            #[cfg(feature = "otel")]
            Entry::Telemetry(_) => "telemetry",
            Entry::Layer { name, .. } => name,
        }
    }
}

/// The layers of a session's request path, outermost first: the one place
/// their order is stated (see [the module](self)). Cheap to clone.
#[derive(Clone)]
pub struct LayerStack {
    entries: Vec<Entry>,
}

impl Default for LayerStack {
    /// Retry (by [`RetryPolicy::default`]) outermost, then the rate limit
    /// (by [`RateLimit::default`]). Layers added later go inside them.
    fn default() -> Self {
        Self::empty()
            .retry(RetryPolicy::default())
            .rate_limit(RateLimit::default())
    }
}

impl std::fmt::Debug for LayerStack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// What a session lends its stack's policies when it builds its request path.
pub(crate) struct SessionBinding {
    /// The server's name, for log lines.
    pub(crate) server: String,
    /// The secrets to keep out of log lines.
    pub(crate) masker: Masker,
    /// No retry starts past it.
    pub(crate) deadline: Deadline,
    /// What telemetry reads about the session.
    #[cfg(feature = "otel")]
    pub(crate) facts: Option<Arc<dyn crate::request::SessionFacts>>,
}

/// A built request path.
pub(crate) struct BuiltStack {
    /// The layers around the core.
    pub(crate) service: RequestService,
    /// The rate limits' buckets, for their counts of waits.
    pub(crate) rate_limits: Vec<RateLimitLayer>,
}

impl LayerStack {
    /// No layer at all: every request goes straight to the core, never
    /// retried, never limited.
    pub fn empty() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// Adds retry by `policy`, inside the layers added so far.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.entries.push(Entry::Retry(policy));
        self
    }

    /// Adds a rate limit by `limit`, inside the layers added so far. Each
    /// session has a bucket of its own.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.entries.push(Entry::RateLimit(limit));
        self
    }

    /// Adds a [`TraceLayer`] naming the session's server, inside the layers
    /// added so far.
    pub fn trace(mut self) -> Self {
        self.entries.push(Entry::Trace);
        self
    }

    /// Puts telemetry outermost (feature `otel`): the span and the duration
    /// of every request, and a CLIENT span per attempt inside the innermost
    /// retry layer (see [the module](self) and [`crate::telemetry`]). A
    /// stack has one: this replaces any it had.
    #[cfg(feature = "otel")]
    pub fn telemetry(mut self, telemetry: crate::telemetry::Telemetry) -> Self {
        self.entries
            .retain(|entry| !matches!(entry, Entry::Telemetry(_)));
        self.entries.insert(0, Entry::Telemetry(telemetry));
        self
    }

    /// The stack's telemetry, if it has one (feature `otel`): hosts open
    /// their own spans with it.
    #[cfg(feature = "otel")]
    pub fn telemetry_handle(&self) -> Option<&crate::telemetry::Telemetry> {
        self.entries.iter().find_map(|entry| match entry {
            Entry::Telemetry(telemetry) => Some(telemetry),
            _ => None,
        })
    }

    /// Where a policy goes that the default stack has outermost: after
    /// telemetry, which stays outermost.
    fn outermost(&self) -> usize {
        #[cfg(feature = "otel")]
        if matches!(self.entries.first(), Some(Entry::Telemetry(_))) {
            return 1;
        }
        0
    }

    /// Adds any `tower::Layer` over the request service (a [`RequestLayer`]),
    /// inside the layers added so far.
    pub fn layer<L: RequestLayer>(mut self, layer: L) -> Self {
        self.entries.push(Entry::Layer {
            name: std::any::type_name::<L>(),
            layer: Arc::new(layer),
        });
        self
    }

    /// Adds the layers of `inner`, in their order, inside the layers of this
    /// stack (a connection's authorization goes in so).
    pub fn append(mut self, inner: LayerStack) -> Self {
        self.entries.extend(inner.entries);
        self
    }

    /// Sets the retry policy of every retry layer, where it stands; `None`
    /// removes them. A stack without one gets one outermost, where the
    /// default stack has it.
    pub fn set_retry(&mut self, policy: Option<RetryPolicy>) {
        match policy {
            None => self
                .entries
                .retain(|entry| !matches!(entry, Entry::Retry(_))),
            Some(policy) => {
                let mut found = false;
                for entry in &mut self.entries {
                    if let Entry::Retry(existing) = entry {
                        *existing = policy.clone();
                        found = true;
                    }
                }
                if !found {
                    let at = self.outermost();
                    self.entries.insert(at, Entry::Retry(policy));
                }
            }
        }
    }

    /// Sets the limit of every rate limit, where it stands; `None` removes
    /// them. A stack without one gets one where the default stack has it:
    /// just inside the outermost retry, or outermost without one.
    pub fn set_rate_limit(&mut self, limit: Option<RateLimit>) {
        match limit {
            None => self
                .entries
                .retain(|entry| !matches!(entry, Entry::RateLimit(_))),
            Some(limit) => {
                let mut found = false;
                for entry in &mut self.entries {
                    if let Entry::RateLimit(existing) = entry {
                        *existing = limit;
                        found = true;
                    }
                }
                if !found {
                    let at = self
                        .entries
                        .iter()
                        .position(|entry| matches!(entry, Entry::Retry(_)))
                        .map_or_else(|| self.outermost(), |retry| retry + 1);
                    self.entries.insert(at, Entry::RateLimit(limit));
                }
            }
        }
    }

    /// The policy of the outermost retry layer, if there is one.
    pub fn retry_policy(&self) -> Option<&RetryPolicy> {
        self.entries.iter().find_map(|entry| match entry {
            Entry::Retry(policy) => Some(policy),
            _ => None,
        })
    }

    /// The limit of the outermost rate limit, if there is one.
    pub fn rate_limit_policy(&self) -> Option<RateLimit> {
        self.entries.iter().find_map(|entry| match entry {
            Entry::RateLimit(limit) => Some(*limit),
            _ => None,
        })
    }

    /// The layers' names, outermost first (`telemetry`, `retry`, `rate
    /// limit`, `trace`, or a layer's type name).
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(Entry::name).collect()
    }

    /// Whether the stack has no layer.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where the attempt spans go (feature `otel`): just inside the
    /// innermost retry layer that stands inside telemetry and may retry.
    /// `None` when there is none: a request is then one attempt.
    #[cfg(feature = "otel")]
    fn attempts_at(&self) -> Option<usize> {
        let telemetry_at = self
            .entries
            .iter()
            .position(|entry| matches!(entry, Entry::Telemetry(_)))?;
        self.entries
            .iter()
            .enumerate()
            .rev()
            .find(|(at, entry)| {
                *at > telemetry_at
                    && matches!(entry, Entry::Retry(policy) if policy.max_retries > 0)
            })
            .map(|(at, _)| at)
    }

    /// Wraps `inner` in the layers, outermost first, outside any session
    /// (as `tower::ServiceBuilder::service` does): no deadline, no name in
    /// log lines, a new bucket for each rate limit.
    pub fn service(&self, inner: RequestService) -> RequestService {
        let unbound = SessionBinding {
            server: String::new(),
            masker: Masker::default(),
            deadline: Deadline::default(),
            #[cfg(feature = "otel")]
            facts: None,
        };
        self.build(inner, &unbound).service
    }

    /// Wraps `core` in the layers, outermost first, for a session: its
    /// retries know its deadline, and each rate limit gets a new bucket.
    pub(crate) fn build(&self, core: RequestService, session: &SessionBinding) -> BuiltStack {
        let mut service = core;
        let mut rate_limits = Vec::new();
        // The attempt spans stand just inside the innermost retry layer
        // that telemetry wraps and that may retry at all.
        #[cfg(feature = "otel")]
        let attempts_at = self.attempts_at();
        for (_at, entry) in self.entries.iter().enumerate().rev() {
            #[cfg(feature = "otel")]
            if Some(_at) == attempts_at
                && let Some(telemetry) = self.telemetry_handle()
            {
                service = RequestService::from_ready(crate::telemetry::layer::AttemptSpans::new(
                    service,
                    telemetry.clone(),
                    session.masker.clone(),
                ));
            }
            service = match entry {
                Entry::Retry(policy) => RequestService::from_ready(
                    RetryLayer::new(policy.clone())
                        .with_deadline(session.deadline.clone())
                        .masked_with(session.masker.clone())
                        .named(session.server.clone())
                        .wrap(service),
                ),
                Entry::RateLimit(limit) => {
                    let layer = RateLimitLayer::new(*limit);
                    let limited = RequestService::from_ready(layer.wrap(service));
                    rate_limits.push(layer);
                    limited
                }
                Entry::Trace => RequestService::from_ready(
                    TraceLayer::new(session.server.clone())
                        .masked_with(session.masker.clone())
                        .wrap(service),
                ),
                #[cfg(feature = "otel")]
                Entry::Telemetry(telemetry) => {
                    RequestService::from_ready(crate::telemetry::layer::RequestSpans::new(
                        service,
                        telemetry.clone(),
                        session.masker.clone(),
                        session.facts.clone(),
                        attempts_at.is_some(),
                    ))
                }
                Entry::Layer { layer, .. } => layer.wrap(service),
            };
        }
        // Outermost first, as the stack lists them.
        rate_limits.reverse();
        BuiltStack {
            service,
            rate_limits,
        }
    }
}

/// The stack as a `tower::Layer` of its own: [`LayerStack::service`].
impl Layer<RequestService> for LayerStack {
    type Service = RequestService;

    fn layer(&self, inner: RequestService) -> RequestService {
        self.service(inner)
    }
}

#[cfg(test)]
mod tests;
