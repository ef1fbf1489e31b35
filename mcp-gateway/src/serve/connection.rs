//! Serving one client connection: its messages read in order and handed to
//! the gateway's handlers, its requests in progress polled by the same task
//! beside the reading (no task is spawned per request), until the
//! connection ends; then everything the client started is stopped.

use std::sync::Arc;

use futures::future::BoxFuture;
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{Initialize, Initialized, SubscriptionsListen};
use mcpdisco_protocol::modern_request::is_removed_in_modern;
use mcpdisco_protocol::server;
use mcpdisco_protocol::types::Implementation;
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, RawJson, Request, Response,
};
use mcpdisco_transport::Transport;
use tokio::task::AbortHandle;

use super::client::{ClientLink, Running};
use super::context::RequestContext;
use super::in_flight::InFlight;
use super::routes::Routes;
use super::shared::Shared;
use super::subscriptions;
use super::{fleet_sessions, handshake, operation};

/// Serves one client, in the view of `profile` (every item when `None`),
/// until its connection ends; then everything it started is stopped.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    routes: Arc<Routes>,
    transport: Arc<dyn Transport>,
    profile: Option<Arc<str>>,
) {
    // The connection's `mcp.server.session.duration`, recorded when it ends.
    #[cfg(feature = "otel")]
    let _duration = shared.telemetry.as_ref().map(|(telemetry, _)| {
        mcpdisco_client::telemetry::SessionDuration::start(
            telemetry,
            mcpdisco_client::telemetry::Side::Server,
            Vec::new(),
        )
    });
    #[cfg(feature = "metrics")]
    let _connected = shared.metrics.client_connected();
    let resumed = transport.resumed_handshake();
    let link = Arc::new(ClientLink::new(transport));
    link.set_profile(profile.clone());
    shared.bridge.add_client(&link);
    // Also when this future is dropped (the server shutting down).
    let mut stop = StopOnDrop {
        link: Arc::clone(&link),
        announcer: None,
    };
    if let Some(handshake) = resumed {
        // A session resumed from its sealed id: restored as its
        // `initialize` and `notifications/initialized` left it.
        handshake::restore(&link, &handshake);
        fleet_sessions::restore(&shared, &link, profile.as_ref()).await;
        stop.announcer = Some(announce(&shared, &link, profile.as_ref()));
    }
    // The client's requests in progress, polled here beside the next
    // message: no task is spawned per request.
    let mut in_flight = InFlight::new();
    let mut next = next_message(&link);
    loop {
        let received = tokio::select! {
            biased;
            finished = in_flight.next_finished(), if !in_flight.is_empty() => {
                // The others finished by now go out with it, in one write
                // (this loop waits on `next_finished` again before it sleeps).
                let answers: Vec<_> = std::iter::once(finished)
                    .chain(in_flight.finished_now())
                    .flatten()
                    .collect();
                if !answers.is_empty() {
                    for operation in link.answer_all(answers).await {
                        operation.record(shared.meter());
                    }
                }
                continue;
            }
            received = &mut next => received,
        };
        next = next_message(&link);
        match received {
            Ok(Some(message)) => {
                // Started by the first message that can hear of list changes
                // (a modern connection of one other request never does).
                if stop.announcer.is_none() && hears_list_changes(&message) {
                    stop.announcer = Some(announce(&shared, &link, profile.as_ref()));
                }
                let started = on_message(&shared, &routes, &link, profile.as_ref(), message).await;
                if let Some(started) = started {
                    in_flight.push(started);
                }
            }
            Ok(None) => break,
            Err(error) => {
                tracing::debug!(%error, "the gateway's client connection failed");
                break;
            }
        }
    }
    link.end().await;
}

/// The client's next message, as a future that owns what it needs, so that
/// it can wait beside the requests in progress (and is never dropped half
/// read: the loop keeps it until it yields).
fn next_message(
    link: &Arc<ClientLink>,
) -> BoxFuture<'static, Result<Option<Message>, mcpdisco_transport::TransportError>> {
    let link = Arc::clone(link);
    Box::pin(async move { link.receive().await })
}

/// Starts telling the client of list changes in its view, until aborted.
fn announce(shared: &Shared, link: &Arc<ClientLink>, profile: Option<&Arc<str>>) -> AbortHandle {
    tokio::spawn(subscriptions::announce_changes(
        shared.supervisor.clone(),
        Arc::clone(&shared.listings),
        Arc::clone(link),
        profile.cloned(),
    ))
    .abort_handle()
}

/// Whether `message` makes its connection one that hears of list changes:
/// a legacy handshake, or a modern `subscriptions/listen`.
fn hears_list_changes(message: &Message) -> bool {
    match message {
        Message::Request(request) => {
            request.method == Initialize::METHOD || request.method == SubscriptionsListen::METHOD
        }
        Message::Notification(notification) => notification.method == Initialized::METHOD,
        Message::Response(_) | Message::Error(_) => false,
    }
}

/// Stops what a client connection started when its serving ends.
struct StopOnDrop {
    link: Arc<ClientLink>,
    announcer: Option<AbortHandle>,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(announcer) = &self.announcer {
            announcer.abort();
        }
        self.link.stop();
    }
}

async fn on_message(
    shared: &Arc<Shared>,
    routes: &Routes,
    link: &Arc<ClientLink>,
    profile: Option<&Arc<str>>,
    message: Message,
) -> Option<Running> {
    match message {
        Message::Request(request) => {
            return on_request(shared, routes, link, profile, request).await;
        }
        Message::Notification(Notification { method, params }) => {
            let handled = routes
                .notifications
                .notification(&method, params, Arc::clone(link))
                .await;
            if let Err(error) = handled {
                tracing::debug!(%error, method, "ignoring a notification from the client");
            }
        }
        Message::Response(Response { id, result }) => link.settle(&id, Ok(result)),
        Message::Error(ErrorResponse {
            id: Some(id),
            error,
        }) => link.settle(&id, Err(error)),
        Message::Error(ErrorResponse { id: None, error }) => {
            tracing::debug!(%error, "the client sent an error without an id");
        }
    }
    None
}

/// Answers a request in the era its `_meta` names: the handshake and ping
/// at once, in order; anything else is returned as its work in progress,
/// for the connection to poll beside its others. A modern request
/// for a method the modern era removed is -32601 (HTTP 404).
async fn on_request(
    shared: &Arc<Shared>,
    routes: &Routes,
    link: &Arc<ClientLink>,
    profile: Option<&Arc<str>>,
    request: Request,
) -> Option<Running> {
    let Request { id, method, params } = request;
    let era = match server::request_era(params.as_ref()) {
        Ok(era) => era,
        Err(error) => {
            link.answer(id, Err(error)).await;
            return None;
        }
    };
    // A dual-era server: `initialize`, `ping`, … are for legacy clients only.
    if era == Era::Modern && is_removed_in_modern(&method) {
        let error = ErrorObject::method_not_found(&method);
        link.answer(id, Err(error)).await;
        return None;
    }
    let context = RequestContext {
        shared: Arc::clone(shared),
        link: Arc::clone(link),
        id: id.clone(),
        era,
        profile: profile.cloned(),
    };
    #[cfg(feature = "otel")]
    let span = telemetry::start(shared, &id, &method, params.as_ref());
    if routes.immediate.handles(&method) {
        let outcome = routes.immediate.answer(&method, params, context);
        #[cfg(feature = "otel")]
        let outcome = telemetry::within(span.as_ref(), outcome);
        let (outcome, operation) = operation::measured(method, outcome).await;
        let answer = in_era(outcome, era, &shared.options.server_info);
        #[cfg(feature = "otel")]
        telemetry::finish(span, &answer);
        link.answer(id, answer).await;
        operation.record(shared.meter());
        return None;
    }
    let work = routes.concurrent.answer(&method, params, context);
    #[cfg(feature = "otel")]
    let work = telemetry::within(span.as_ref(), work);
    let measuring = method.clone();
    // The gateway's own info, for a modern result: borrowed when it is
    // needed, not copied for every request.
    let answering = Arc::clone(shared);
    let answer = async move {
        let (outcome, operation) = operation::measured(measuring, work).await;
        let answer = in_era(outcome, era, &answering.options.server_info);
        #[cfg(feature = "otel")]
        telemetry::finish(span, &answer);
        (answer, operation)
    };
    link.run(id, &method, answer).await
}

/// The SERVER span of each client request (feature `otel`).
#[cfg(feature = "otel")]
mod telemetry {
    use std::future::Future;

    use futures::future::Either;
    use mcpdisco_client::opentelemetry::trace::FutureExt;
    use mcpdisco_client::telemetry::ServerRequestSpan;
    use mcpdisco_protocol::{ErrorObject, RawJson, RequestId};
    use serde_json::Value;

    use super::super::shared::Shared;

    /// The span of request `id`, a child of its `_meta.traceparent`.
    pub(super) fn start(
        shared: &Shared,
        id: &RequestId,
        method: &str,
        params: Option<&RawJson>,
    ) -> Option<(ServerRequestSpan, mcpdisco_transport::secret::Masker)> {
        let (telemetry, masker) = shared.telemetry.as_ref()?;
        let masker = masker.read().clone();
        Some((
            ServerRequestSpan::start(telemetry, id, method, params, None, &masker),
            masker,
        ))
    }

    /// `work` inside the span: the requests it makes to servers are its children.
    pub(super) fn within<F: Future>(
        span: Option<&(ServerRequestSpan, mcpdisco_transport::secret::Masker)>,
        work: F,
    ) -> impl Future<Output = F::Output> + use<F> {
        match span {
            Some((span, _)) => Either::Left(work.with_context(span.context().clone())),
            None => Either::Right(work),
        }
    }

    /// Ends the span with the answer (its text read as a value only here).
    pub(super) fn finish(
        span: Option<(ServerRequestSpan, mcpdisco_transport::secret::Masker)>,
        answer: &Result<RawJson, ErrorObject>,
    ) {
        if let Some((span, masker)) = span {
            let result = match answer {
                Ok(text) => Ok(text.to_value().unwrap_or(Value::Null)),
                Err(error) => Err(error),
            };
            span.finish(result.as_ref().map_err(|error| *error), &masker);
        }
    }
}

/// A result as a client of `era` gets it: a legacy one as it is; a modern
/// one marked complete (unless it asks for input) and signed with the
/// gateway's identity.
fn in_era(
    outcome: Result<RawJson, ErrorObject>,
    era: Era,
    server_info: &Implementation,
) -> Result<RawJson, ErrorObject> {
    let result = outcome?;
    if era == Era::Legacy {
        return Ok(result);
    }
    let mut result = result.to_value().map_err(|error| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("could not read the result back: {error}"),
        )
    })?;
    server::complete_modern(&mut result, server_info);
    Ok(RawJson::from_value(&result))
}
