//! [`AuthLayer`]: the credentials policy on a session's request service.
//! A request the server refuses (401, or 403 `insufficient_scope`) is
//! handed to the [`OAuthClient`], and sent once more with the new token;
//! a request that was refused was not acted on, so resending it is safe
//! whatever its method.

use std::sync::Arc;

use mcpdisco_protocol::RawJson;
use mcpdisco_transport::TransportError;
use tower::{Layer, Service};

use super::client::OAuthClient;
use crate::error::{AuthError, ErrorKind, SessionError};
use crate::policy::{Inner, Policy, PolicyService};
use crate::request::{McpRequest, ResponseFuture};

/// Rounds of "refused, new token, again" for one request (a refresh, a
/// full authorization, a step-up or two).
const MAX_ROUNDS: u32 = 4;

/// Wraps a request service in an authorizing one (`Authorized`): an
/// ordinary `tower::Layer`, innermost in a session's
/// [`LayerStack`](crate::policy::LayerStack) (`mcpdisco::connect` adds it
/// there for an HTTP server that needs authorization).
#[derive(Debug, Clone)]
pub struct AuthLayer {
    client: Arc<OAuthClient>,
}

impl AuthLayer {
    /// A layer authorizing with `client`.
    pub fn new(client: Arc<OAuthClient>) -> Self {
        Self { client }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Authorized<S>;

    fn layer(&self, inner: S) -> Authorized<S> {
        PolicyService::new(self.clone(), inner)
    }
}

/// A request service whose refused requests get a new token and go again.
pub type Authorized<S> = PolicyService<AuthLayer, S>;

impl Policy for AuthLayer {
    fn send<S>(&self, inner: Inner<S>, request: McpRequest) -> ResponseFuture
    where
        S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
        S::Future: Send,
    {
        Box::pin(send(Arc::clone(&self.client), inner, request))
    }
}

/// The refusal in a session error: its status and challenge.
fn refusal(error: &SessionError) -> Option<(u16, Option<String>, Option<String>)> {
    match error.kind() {
        ErrorKind::Transport(TransportError::Unauthorized {
            status,
            challenge,
            dpop_nonce,
            ..
        }) => Some((*status, challenge.clone(), dpop_nonce.clone())),
        _ => None,
    }
}

async fn send<S>(
    client: Arc<OAuthClient>,
    mut inner: Inner<S>,
    request: McpRequest,
) -> Result<RawJson, SessionError>
where
    S: Service<McpRequest, Response = RawJson, Error = SessionError> + Send + 'static,
    S::Future: Send,
{
    client.refresh_if_expiring().await;
    let mut rounds = 0;
    let mut step_ups = 0;
    loop {
        let seen = client.generation();
        let result = inner.send(request.clone()).await;
        let error = match result {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        let Some((status, challenge, dpop_nonce)) = refusal(&error) else {
            return Err(error);
        };
        if rounds >= MAX_ROUNDS {
            return Err(auth_error(
                &error,
                AuthError::Refused {
                    server: client.server().to_owned(),
                    reason: format!(
                        "the server still refuses (HTTP {status}) after {MAX_ROUNDS} new tokens"
                    ),
                },
            ));
        }
        rounds += 1;
        #[cfg(feature = "otel")]
        crate::telemetry::layer::add_event(
            crate::telemetry::names::EVENT_AUTH_REFRESH,
            vec![opentelemetry::KeyValue::new(
                "http.response.status_code",
                i64::from(status),
            )],
        );
        let refused = client
            .handle_refusal(
                seen,
                status,
                challenge.as_deref(),
                dpop_nonce.as_deref(),
                step_ups,
            )
            .await;
        if status == 403 {
            step_ups += 1;
        }
        if let Err(auth) = refused {
            return Err(auth_error(&error, auth));
        }
    }
}

/// The session error for a failed authorization of `refused`'s request.
fn auth_error(refused: &SessionError, auth: AuthError) -> SessionError {
    SessionError::new(refused.server(), refused.operation(), ErrorKind::Auth(auth))
        .with_delivery(mcpdisco_transport::Delivery::Answered)
}
