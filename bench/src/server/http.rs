//! Serving a [`Responder`] over Streamable HTTP, counting TCP connections.
//!
//! `POST /mcp` answers a request with `application/json` or, in SSE mode,
//! with a `text/event-stream` body holding one `message` event; notifications
//! get 202. `initialize` hands out a session id. `GET /mcp` is 405 (no
//! server-to-client stream) and `DELETE /mcp` ends nothing and says 200. The
//! accept loop is wrapped so every TCP connection opened is counted.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{Answer, Responder};
use crate::BenchError;

/// The session id handed out on `initialize`.
pub const SESSION_ID: &str = "bench-session";
/// How long [`HttpServer::stop`] waits for open connections to finish.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// How the server answers a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseFormat {
    /// One `application/json` body.
    Json,
    /// A `text/event-stream` body with one `message` event.
    Sse,
}

#[derive(Clone)]
struct ServerState {
    responder: Arc<Responder>,
    format: ResponseFormat,
}

/// A TCP listener that counts the connections it accepts.
struct CountingListener {
    inner: TcpListener,
    accepted: Arc<AtomicU64>,
}

impl axum::serve::Listener for CountingListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (stream, address) = axum::serve::Listener::accept(&mut self.inner).await;
        self.accepted.fetch_add(1, Ordering::Relaxed);
        // Small responses written in pieces must not wait for delayed ACKs.
        let _ = stream.set_nodelay(true);
        (stream, address)
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A running HTTP bench server on 127.0.0.1.
pub struct HttpServer {
    address: SocketAddr,
    accepted: Arc<AtomicU64>,
    shutdown: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl HttpServer {
    /// Binds 127.0.0.1 on a free port and serves `responder` in `format`.
    pub async fn start(responder: Responder, format: ResponseFormat) -> Result<Self, BenchError> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| BenchError::io("cannot bind 127.0.0.1", e))?;
        let address = listener
            .local_addr()
            .map_err(|e| BenchError::io("no local address", e))?;
        let accepted = Arc::new(AtomicU64::new(0));
        let listener = CountingListener {
            inner: listener,
            accepted: Arc::clone(&accepted),
        };
        let state = ServerState {
            responder: Arc::new(responder),
            format,
        };
        let app = Router::new()
            .route(
                "/mcp",
                post(handle_post).get(refuse_get).delete(end_session),
            )
            .with_state(state);
        let (shutdown, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await
        });
        Ok(Self {
            address,
            accepted,
            shutdown,
            task,
        })
    }

    /// The MCP endpoint: `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// How many TCP connections have been accepted so far.
    pub fn connections(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Stops accepting, lets open exchanges finish (bounded) and returns the connection count.
    pub async fn stop(self) -> Result<u64, BenchError> {
        let connections = self.connections();
        let _ = self.shutdown.send(());
        let mut task = self.task;
        match tokio::time::timeout(STOP_TIMEOUT, &mut task).await {
            Ok(Ok(Ok(()))) => Ok(connections),
            Ok(Ok(Err(error))) => Err(BenchError::io("the HTTP server failed", error)),
            Ok(Err(error)) => Err(BenchError::Unexpected(format!(
                "the HTTP server task ended abnormally: {error}"
            ))),
            Err(_) => {
                // Clients still hold idle keep-alive connections: stop regardless.
                task.abort();
                Ok(connections)
            }
        }
    }
}

async fn handle_post(State(state): State<ServerState>, body: Bytes) -> Response {
    let answer = state.responder.answer(&body);
    let Answer::Reply(reply) = answer else {
        return status(StatusCode::ACCEPTED);
    };
    let mut builder = Response::builder().status(StatusCode::OK);
    if Responder::is_initialize(&body) {
        builder = builder.header("mcp-session-id", SESSION_ID);
    }
    let built = match state.format {
        ResponseFormat::Json => builder
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(reply)),
        ResponseFormat::Sse => builder
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header(header::CACHE_CONTROL, "no-cache")
            .body(Body::from(format!("event: message\ndata: {reply}\n\n"))),
    };
    built.unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR))
}

async fn refuse_get() -> Response {
    status(StatusCode::METHOD_NOT_ALLOWED)
}

async fn end_session() -> Response {
    status(StatusCode::OK)
}

fn status(code: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = code;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    async fn post_line(client: &reqwest::Client, url: &str, line: &str) -> reqwest::Response {
        client
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(line.to_owned())
            .send()
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn json_answers_reuse_one_connection() {
        let server = HttpServer::start(Responder::new("s", 5), ResponseFormat::Json)
            .await
            .unwrap();
        let url = server.url();
        let client = reqwest::Client::new();
        let response = post_line(
            &client,
            &url,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
        )
        .await;
        assert_eq!(response.headers()["mcp-session-id"], SESSION_ID);
        response.bytes().await.unwrap();
        for id in 1..=3 {
            let response = post_line(
                &client,
                &url,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
            )
            .await;
            assert_eq!(response.headers()["content-type"], "application/json");
            let value: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
            assert_eq!(value["result"]["tools"].as_array().unwrap().len(), 5);
        }
        let response = post_line(
            &client,
            &url,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        assert_eq!(client.get(&url).send().await.unwrap().status(), 405);
        assert_eq!(server.connections(), 1);
        assert_eq!(server.stop().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn sse_answers_hold_one_message_event() {
        let server = HttpServer::start(Responder::new("s", 1), ResponseFormat::Sse)
            .await
            .unwrap();
        let client = reqwest::Client::new();
        let response = post_line(
            &client,
            &server.url(),
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        )
        .await;
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let text = response.text().await.unwrap();
        let data = text
            .strip_prefix("event: message\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap();
        let value: Value = serde_json::from_str(data).unwrap();
        assert_eq!(value["id"], 4);
        drop(client);
        server.stop().await.unwrap();
    }
}
