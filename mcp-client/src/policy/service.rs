//! [`Policy`]: the one way to write a layer of a session's request path. A
//! policy writes only what it does with a request, given the inner service
//! as an [`Inner`]; [`PolicyService`] is the `tower::Service` around it, the
//! same for every policy (retry, rate limit, trace, authorization), and its
//! `tower::Layer` is three lines:
//!
//! ```
//! use mcpdisco_client::policy::{Inner, Policy, PolicyService};
//! use mcpdisco_client::error::SessionError;
//! use mcpdisco_client::protocol::RawJson;
//! use mcpdisco_client::request::{McpRequest, ResponseFuture};
//!
//! /// Counts nothing, logs nothing: sends each request on once.
//! #[derive(Clone)]
//! struct PassOn;
//!
//! impl Policy for PassOn {
//!     fn send<S>(&self, mut inner: Inner<S>, request: McpRequest) -> ResponseFuture
//!     where
//!         S: tower::Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
//!         S::Future: Send,
//!     {
//!         Box::pin(async move { inner.send(request).await })
//!     }
//! }
//!
//! impl<S> tower::Layer<S> for PassOn {
//!     type Service = PolicyService<PassOn, S>;
//!     fn layer(&self, inner: S) -> Self::Service {
//!         PolicyService::new(self.clone(), inner)
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mcpdisco_client::request::{RequestOptions, RequestService};
//! use tower::{Layer, ServiceExt};
//!
//! let core = RequestService::from_fn(|_| Box::pin(async { Ok(RawJson::empty_object()) }));
//! let ping = McpRequest::untyped("ping", None, RequestOptions::new());
//! assert!(PassOn.layer(core).oneshot(ping).await.is_ok());
//! # }
//! ```
//!
//! **Readiness, as tower intends.** `poll_ready` polls the inner service,
//! which may reserve capacity for one call (a concurrency permit, a buffer
//! slot); that reservation belongs to the instance that was polled. So
//! `call` keeps a clone in its place (`std::mem::replace(&mut self.inner,
//! clone)`) and hands the very service that was polled to the policy: its
//! first [`Inner::send`] calls it without polling again. A policy that sends
//! more than once (retry, authorization) polls that same service ready again
//! before each further send, once the previous call has released what it
//! held. Inside a session's stack every inner service is a
//! [`RequestService`](crate::request::RequestService), ready at once, so the
//! swap costs one clone (an `Arc`); around a service with real back-pressure
//! it is what keeps the reservation from being lost, or from being held by
//! an instance that never calls.

use std::task::{Context, Poll};

use mcpdisco_protocol::RawJson;
use tower::Service;

use crate::error::SessionError;
use crate::request::{McpRequest, ResponseFuture};

/// What a layer of the request path does with one request: its own logic
/// and nothing else. [`PolicyService`] makes it a `tower::Service`.
pub trait Policy: Clone + Send + Sync + 'static {
    /// Sends `request` on through `inner`, this policy's way (once, again
    /// after a failure, after a wait, in a span).
    fn send<S>(&self, inner: Inner<S>, request: McpRequest) -> ResponseFuture
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
        S::Future: Send;
}

/// The inner service of one request, as a [`Policy`] gets it: reserved
/// ready for the first send.
#[derive(Debug)]
pub struct Inner<S> {
    service: S,
    ready: bool,
}

impl<S> Inner<S>
where
    S: Service<McpRequest, Response = RawJson, Error = SessionError>,
{
    /// `service`, whose `poll_ready` has just returned ready.
    fn ready(service: S) -> Self {
        Self {
            service,
            ready: true,
        }
    }

    /// Sends `request`: the first time through the readiness already
    /// reserved, every later time after polling the service ready again.
    pub async fn send(&mut self, request: McpRequest) -> Result<RawJson, SessionError> {
        if !std::mem::take(&mut self.ready) {
            std::future::poll_fn(|cx| self.service.poll_ready(cx)).await?;
        }
        self.service.call(request).await
    }
}

/// A request service made of a [`Policy`] `P` around an inner service `S`
/// (see [the module](self) for how it handles readiness).
#[derive(Debug, Clone)]
pub struct PolicyService<P, S> {
    policy: P,
    inner: S,
}

impl<P, S> PolicyService<P, S> {
    /// `inner`, wrapped in `policy`.
    pub fn new(policy: P, inner: S) -> Self {
        Self { policy, inner }
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }
}

impl<P, S> Service<McpRequest> for PolicyService<P, S>
where
    P: Policy,
    S: Service<McpRequest, Response = RawJson, Error = SessionError> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = RawJson;
    type Error = SessionError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SessionError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> ResponseFuture {
        // The polled instance goes with the request; a clone waits here
        // for the next `poll_ready`.
        let fresh = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, fresh);
        self.policy.send(Inner::ready(ready), request)
    }
}

#[cfg(test)]
pub(crate) mod tests;
