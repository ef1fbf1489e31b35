//! Serving Streamable HTTP at `/mcp` with axum: JSON responses, session ids
//! for the legacy era, 202 for notifications.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;

use mcp_transport::sync::Mutex;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use mcp_protocol::Message;
use tokio::net::TcpListener;

use crate::Server;

/// The largest request body accepted.
const MAX_BODY: usize = 4 * 1024 * 1024;
/// The session id header.
const SESSION_HEADER: &str = "mcp-session-id";

#[derive(Clone)]
struct Shared {
    server: Server,
    sessions: Arc<Mutex<HashSet<String>>>,
    ids: RandomState,
}

impl Shared {
    fn new_session(&self) -> String {
        let mut sessions = self.sessions.lock();
        let id = format!(
            "{:016x}{:08x}",
            self.ids.hash_one(sessions.len()),
            sessions.len()
        );
        sessions.insert(id.clone());
        id
    }

    fn knows(&self, id: &str) -> bool {
        self.sessions.lock().contains(id)
    }

    fn end(&self, id: &str) -> bool {
        self.sessions.lock().remove(id)
    }
}

/// The axum router of the MCP endpoint, for embedding in another app.
pub fn router(server: Server) -> Router {
    let shared = Shared {
        server,
        sessions: Arc::default(),
        ids: RandomState::new(),
    };
    Router::new()
        .route("/mcp", post(on_post).delete(on_delete).get(on_get))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared)
}

/// Serves `server` on `listener` until `shutdown` completes.
pub async fn serve_http(
    listener: TcpListener,
    server: Server,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(server))
        .with_graceful_shutdown(shutdown)
        .await
}

fn session_of(headers: &HeaderMap) -> Option<&str> {
    headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok())
}

async fn on_post(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(id) = session_of(&headers) {
        if !shared.knows(id) {
            return (StatusCode::NOT_FOUND, "unknown session").into_response();
        }
    }
    let message = match Message::from_slice(&body) {
        Ok(message) => message,
        Err(error) => {
            let answer = Server::invalid(None, &error.to_string());
            return json_response(StatusCode::BAD_REQUEST, &answer, None);
        }
    };
    let is_initialize = message.method() == Some("initialize");
    match shared.server.handle(&message) {
        None => StatusCode::ACCEPTED.into_response(),
        Some(answer) => {
            let session = (is_initialize && matches!(answer, Message::Response(_)))
                .then(|| shared.new_session());
            json_response(StatusCode::OK, &answer, session)
        }
    }
}

fn json_response(status: StatusCode, message: &Message, session: Option<String>) -> Response {
    let mut response = (status, message.to_vec()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(session) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
        headers.insert(SESSION_HEADER, session);
    }
    response
}

async fn on_delete(State(shared): State<Shared>, headers: HeaderMap) -> StatusCode {
    match session_of(&headers) {
        Some(id) if shared.end(id) => StatusCode::OK,
        Some(_) => StatusCode::NOT_FOUND,
        None => StatusCode::BAD_REQUEST,
    }
}

/// No server-initiated stream: this server never sends requests or notifications.
async fn on_get() -> StatusCode {
    StatusCode::METHOD_NOT_ALLOWED
}
