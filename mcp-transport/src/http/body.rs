//! Response bodies: bounded reads, SSE event streams, status classification,
//! and the inbound queue the HTTP transports share.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use mcpdisco_protocol::{ErrorObject, Incoming, Message};
use tokio::sync::mpsc;
use tokio_util::codec::Decoder;

use super::config::HttpConfig;
use crate::codec::sse::{SseDecoder, SseEvent};
use crate::error::{ConnectCause, TransportError};
use crate::inbound::Inbound;
use crate::secret::Masker;

/// How many inbound messages may wait for the session before senders wait.
pub(crate) const INBOUND_CAPACITY: usize = 1024;
/// How much of an error body is read and shown.
pub(crate) const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// How much of a body is quoted in an error message.
const PREVIEW_LEN: usize = 300;

/// Creates the inbound queue.
pub(crate) fn inbound_channel() -> (mpsc::Sender<Inbound>, mpsc::Receiver<Inbound>) {
    mpsc::channel(INBOUND_CAPACITY)
}

/// Turns a reqwest error into a transport error. The library's own text
/// never carries the URL (it would show credentials in the userinfo or the
/// query): the endpoint is named by our redacted form, and what remains is
/// masked like every text from outside.
pub(crate) fn request_error(
    config: &HttpConfig,
    error: reqwest::Error,
    timeout: Duration,
) -> TransportError {
    // A connect timeout is a connection that never came: the message was never sent.
    if error.is_timeout() && !error.is_connect() {
        return TransportError::Timeout {
            server: config.name.clone(),
            after: timeout,
        };
    }
    let connect = error.is_connect().then(|| connect_cause(&error));
    let server = config.name.clone();
    let url = config.display_url();
    let reason = config.masker.mask_string(error_chain(error));
    if let Some(cause) = connect {
        TransportError::Connect {
            server,
            url,
            cause,
            reason,
        }
    } else {
        TransportError::Interrupted {
            server,
            url,
            reason,
        }
    }
}

/// What kind of connect failure a reqwest error is, read from its chain
/// of sources: the OS error's kind where there is one, else the words of
/// the connector (`dns error`) or of TLS.
pub(crate) fn connect_cause(error: &reqwest::Error) -> ConnectCause {
    use std::io::ErrorKind;
    if error.is_timeout() {
        return ConnectCause::TimedOut;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut cause = ConnectCause::Other;
    while let Some(inner) = source {
        #[cfg(unix)]
        if inner.downcast_ref::<rustls::Error>().is_some() {
            return ConnectCause::Tls;
        }
        let text = inner.to_string().to_ascii_lowercase();
        if text.starts_with("dns error") || text.contains("failed to lookup address") {
            return ConnectCause::Dns;
        }
        if text.contains("certificate") || text.contains("tls") || text.contains("ssl") {
            cause = ConnectCause::Tls;
        }
        source = match inner.downcast_ref::<std::io::Error>() {
            Some(io) => {
                match io.kind() {
                    ErrorKind::ConnectionRefused => return ConnectCause::Refused,
                    ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof => return ConnectCause::Reset,
                    ErrorKind::TimedOut => return ConnectCause::TimedOut,
                    _ => {}
                }
                // An I/O error's `source` skips the error it wraps (rustls's, say).
                match io.get_ref() {
                    Some(wrapped) => Some(wrapped as &(dyn std::error::Error + 'static)),
                    None => inner.source(),
                }
            }
            None => inner.source(),
        };
    }
    cause
}

/// A reqwest error and its sources as one line, without the URL reqwest
/// adds (which may carry credentials). Also used by other HTTP clients of
/// the workspace (the OAuth flow's).
pub fn error_chain(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut reason = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(inner) = source {
        let text = inner.to_string();
        if !reason.ends_with(&text) {
            reason = format!("{reason}: {text}");
        }
        source = inner.source();
    }
    reason
}

/// Reads a whole body, up to `limit` bytes; the rest is an error.
/// A body that breaks off is `Interrupted`: the server may have acted on
/// the request it answers.
pub(crate) async fn read_bounded(
    config: &HttpConfig,
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Bytes, TransportError> {
    // A body that stalls (headers sent, then nothing) ends with the request timeout.
    let timeout = config.request_timeout;
    tokio::time::timeout(timeout, read_body(config, response, limit))
        .await
        .map_err(|_| TransportError::Timeout {
            server: config.name.clone(),
            after: timeout,
        })?
}

/// The most a body's declared length reserves before its bytes arrive.
const RESERVE_AHEAD: usize = 1024 * 1024;

async fn read_body(
    config: &HttpConfig,
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Bytes, TransportError> {
    let too_large = || TransportError::Protocol {
        server: config.name.clone(),
        reason: format!("response body is larger than {limit} bytes"),
    };
    // A body that comes in one piece is kept as it is: no copy.
    let Some(first) = next_chunk(config, response).await? else {
        return Ok(Bytes::new());
    };
    if first.len() > limit {
        return Err(too_large());
    }
    let Some(second) = next_chunk(config, response).await? else {
        return Ok(first);
    };
    let declared = response
        .content_length()
        .and_then(|length| usize::try_from(length).ok())
        .unwrap_or(0);
    let mut body = BytesMut::with_capacity(declared.min(limit).min(RESERVE_AHEAD));
    let mut next = Some(second);
    body.extend_from_slice(&first);
    while let Some(chunk) = next {
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
        next = next_chunk(config, response).await?;
    }
    // Results slice the body: keep no spare capacity for them to pin.
    if body.capacity() - body.len() > body.len() / 4 {
        return Ok(Bytes::copy_from_slice(&body));
    }
    Ok(body.freeze())
}

/// The next piece of a body; `None` at its end.
async fn next_chunk(
    config: &HttpConfig,
    response: &mut reqwest::Response,
) -> Result<Option<Bytes>, TransportError> {
    response
        .chunk()
        .await
        .map_err(|error| TransportError::Interrupted {
            server: config.name.clone(),
            url: config.display_url(),
            reason: config.masker.mask_string(format!(
                "the response body broke off: {}",
                error_chain(error)
            )),
        })
}

/// Decodes a JSON body into messages (a single message or a batch). Invalid
/// parts are logged and skipped. Results are slices of `body`, which the
/// caller owns whole (a body read to its end, or one event's data), so a kept
/// result pins nothing but its own body.
pub(crate) fn parse_messages(config: &HttpConfig, body: Bytes) -> Vec<Message> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Vec::new();
    }
    match Incoming::from_bytes(&body) {
        Ok(incoming) => incoming.into_messages(),
        Err(error) => {
            let server = config.name.as_str();
            let error = config.masker.mask_string(error.to_string());
            tracing::debug!(server, %error, body = %preview(&body, &config.masker), "ignoring a body that is not JSON-RPC");
            Vec::new()
        }
    }
}

/// The start of a body, as masked text, for messages.
pub(crate) fn preview(body: &[u8], masker: &Masker) -> String {
    // Mask the whole body's text first, so a secret cut by the preview's end is still found.
    let text = String::from_utf8_lossy(&body[..body.len().min(PREVIEW_LEN + 1024)]);
    let masked = masker.mask(text.trim());
    let mut end = masked.len().min(PREVIEW_LEN);
    while !masked.is_char_boundary(end) {
        end -= 1;
    }
    masked[..end].to_owned()
}

/// The error for a non-success status whose body carried no deliverable JSON-RPC answer.
pub(crate) fn status_error(
    config: &HttpConfig,
    status: reqwest::StatusCode,
    headers: &reqwest::header::HeaderMap,
    body: &[u8],
) -> TransportError {
    if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
        let retry_after = headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            // A day at most: the number is the server's.
            .map(|seconds| Duration::from_secs(seconds.min(86_400)));
        return TransportError::RateLimited {
            server: config.name.clone(),
            retry_after,
        };
    }
    if let Some(unauthorized) = unauthorized(config, status, headers) {
        return unauthorized;
    }
    let rpc_error = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("error").cloned())
        .and_then(|mut e| {
            config.masker.mask_value(&mut e);
            ErrorObject::from_value(e).ok()
        })
        .map(Box::new);
    TransportError::Http {
        server: config.name.clone(),
        status: status.as_u16(),
        body: if rpc_error.is_some() {
            String::new()
        } else {
            preview(body, &config.masker)
        },
        rpc_error,
    }
}

/// A 401, or a 403 that carries a `Bearer` challenge, as
/// [`TransportError::Unauthorized`]: the credentials were refused, whatever
/// the body says.
pub(crate) fn unauthorized(
    config: &HttpConfig,
    status: reqwest::StatusCode,
    headers: &reqwest::header::HeaderMap,
) -> Option<TransportError> {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.chars().take(MAX_CHALLENGE_LEN).collect::<String>())
    };
    let challenge = header(reqwest::header::WWW_AUTHENTICATE);
    let bearer_challenge = challenge.as_deref().is_some_and(|c| {
        let c = c.trim_start().to_ascii_lowercase();
        c.starts_with("bearer") || c.starts_with("dpop")
    });
    let refused = status == reqwest::StatusCode::UNAUTHORIZED
        || (status == reqwest::StatusCode::FORBIDDEN && bearer_challenge);
    refused.then(|| TransportError::Unauthorized {
        server: config.name.clone(),
        status: status.as_u16(),
        challenge: challenge.map(|c| config.masker.mask_string(c)),
        dpop_nonce: header(reqwest::header::HeaderName::from_static("dpop-nonce")),
    })
}

/// The longest `WWW-Authenticate` value kept.
const MAX_CHALLENGE_LEN: usize = 4096;

/// Whether a response is an SSE stream.
pub(crate) fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
        })
}

/// Reads server-sent events from a response body.
pub(crate) struct SseStream {
    response: reqwest::Response,
    decoder: SseDecoder,
    buffer: BytesMut,
    done: bool,
    /// What [`ended_now`](Self::ended_now) read, for the next [`next`](Self::next).
    peeked: Option<Result<Option<SseEvent>, reqwest::Error>>,
}

impl SseStream {
    pub(crate) fn new(response: reqwest::Response, max_event_len: usize) -> Self {
        Self {
            response,
            decoder: SseDecoder::with_max_event_len(max_event_len),
            buffer: BytesMut::new(),
            done: false,
            peeked: None,
        }
    }

    /// Whether the stream has ended by now, without waiting: `false` when
    /// more may come (or came: it is kept for [`next`](Self::next)).
    pub(crate) fn ended_now(&mut self) -> bool {
        use futures::FutureExt;
        if self.peeked.is_none() {
            self.peeked = self.read().now_or_never();
        }
        matches!(self.peeked, Some(Ok(None)))
    }

    /// Puts an event back: the next [`next`](Self::next) returns it.
    pub(crate) fn put_back(&mut self, event: SseEvent) {
        self.peeked = Some(Ok(Some(event)));
    }

    /// The next event; `Ok(None)` when the stream ended, `Err` when it broke.
    pub(crate) async fn next(&mut self) -> Result<Option<SseEvent>, reqwest::Error> {
        match self.peeked.take() {
            Some(peeked) => peeked,
            None => self.read().await,
        }
    }

    async fn read(&mut self) -> Result<Option<SseEvent>, reqwest::Error> {
        loop {
            if let Ok(Some(event)) = self.decoder.decode(&mut self.buffer) {
                return Ok(Some(event));
            }
            if self.done {
                return Ok(self.decoder.decode_eof(&mut self.buffer).ok().flatten());
            }
            match self
                .response
                .chunk()
                .await
                .map_err(reqwest::Error::without_url)?
            {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => self.done = true,
            }
        }
    }
}
