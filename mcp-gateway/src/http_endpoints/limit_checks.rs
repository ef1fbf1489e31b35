//! The fleet limits as HTTP answers: a `Host` not allowed gets 421
//! (every path), a client subject over `--client-rate-limit` gets 429
//! with `Retry-After` (the MCP routes). `--max-streams`' 503 is the
//! transport's.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::access::bearer;
use crate::limits::{AllowedHosts, ClientRateLimiter, Subject};

/// A request whose `Host` (or, over HTTP/2, URI authority) is not allowed
/// gets 421 Misdirected Request.
pub(super) async fn require_allowed_host(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        });
    if hosts.allows(host) {
        return next.run(request).await;
    }
    (
        StatusCode::MISDIRECTED_REQUEST,
        "this host is not served here\n",
    )
        .into_response()
}

/// The request's [`Subject`] for the client rate limit, when the access
/// check verified a JWT: the JWT's subject, else (a token without one) the
/// token's ([`jwt_rate_subject`](crate::limits::jwt_rate_subject)). A slot
/// of its own in the request's extensions: the session's subject beside
/// it is the JWT's `sub` alone.
#[derive(Debug, Clone, Copy)]
pub(super) struct RateSubject(pub(super) Subject);

/// The client rate limit, and whether a bearer token names the subject
/// (with `--http-token`; an open gateway counts every request as one
/// client, whatever token it sends, so none escapes by making one up).
pub(super) type RateCheck = (Arc<ClientRateLimiter>, bool);

/// A request of a subject over its rate gets 429 with `Retry-After` (whole
/// seconds, at least 1). The subject is the JWT's (put there by the access
/// check), else the bearer token's (with a token), else anonymous.
pub(super) async fn limit_client_rate(
    State((limiter, by_token)): State<RateCheck>,
    request: Request,
    next: Next,
) -> Response {
    let subject = request
        .extensions()
        .get::<RateSubject>()
        .map(|RateSubject(subject)| *subject)
        .or_else(|| {
            by_token
                .then(|| bearer(request.headers()).map(Subject::token))
                .flatten()
        })
        .unwrap_or_else(Subject::anonymous);
    match limiter.check(&subject).await {
        Ok(()) => next.run(request).await,
        Err(wait) => too_many_requests(wait),
    }
}

/// 429, retry after `wait` rounded up to whole seconds.
fn too_many_requests(wait: Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        "too many requests; try again later\n",
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_the_wait_in_whole_seconds_rounded_up() {
        let after = |wait| {
            too_many_requests(wait)
                .headers()
                .get(header::RETRY_AFTER)
                .map(|value| value.to_str().unwrap().to_owned())
        };
        assert_eq!(after(Duration::from_millis(1)).as_deref(), Some("1"));
        assert_eq!(after(Duration::from_millis(1_000)).as_deref(), Some("1"));
        assert_eq!(after(Duration::from_millis(1_001)).as_deref(), Some("2"));
        assert_eq!(after(Duration::ZERO).as_deref(), Some("1"));
    }
}
