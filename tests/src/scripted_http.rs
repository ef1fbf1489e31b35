//! A scripted MCP server over HTTP/1.1, written at the socket level so it can
//! misbehave the way real deployments do: statuses and bodies of any kind,
//! headers with any bytes, event streams cut short, connections dropped
//! after a request arrives. Each request goes to a script that decides the
//! reply; everything it saw is recorded.
//!
//! Bound to 127.0.0.1 only.

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_transport::sync::Mutex;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct SeenRequest {
    /// `POST`, `GET`, `DELETE`.
    pub method: String,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// The body, parsed when it is JSON.
    pub body: Value,
}

impl SeenRequest {
    /// The JSON-RPC method of a POST, if any.
    pub fn rpc_method(&self) -> Option<&str> {
        self.body.get("method").and_then(Value::as_str)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A response: status, extra headers (raw bytes allowed), body.
    Respond {
        /// The status code.
        status: u16,
        /// Headers besides `Content-Length` (`Content-Type` included).
        headers: Vec<(String, Vec<u8>)>,
        /// The body.
        body: Vec<u8>,
    },
    /// Close the connection without answering.
    Drop,
    /// Wait, then act.
    After(Duration, Box<Reply>),
}

impl Reply {
    /// `200 application/json` with `body`.
    pub fn json(body: &Value) -> Self {
        Self::Respond {
            status: 200,
            headers: vec![("content-type".into(), b"application/json".to_vec())],
            body: body.to_string().into_bytes(),
        }
    }

    /// A status with no body.
    pub fn status(status: u16) -> Self {
        Self::Respond {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Adds a header.
    pub fn with_header(self, name: &str, value: impl Into<Vec<u8>>) -> Self {
        match self {
            Self::Respond {
                status,
                mut headers,
                body,
            } => {
                headers.push((name.to_owned(), value.into()));
                Self::Respond {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        }
    }
}

/// Decides the reply to each request; `n` counts requests of the same
/// JSON-RPC method (or HTTP method, for GET and DELETE) from 0.
pub type Script = dyn Fn(&SeenRequest, usize) -> Reply + Send + Sync;

/// A running scripted server.
pub struct ScriptedServer {
    /// Its endpoint, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    seen: Arc<Mutex<Vec<SeenRequest>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedServer {
    /// Starts a server on a free port of 127.0.0.1.
    pub async fn start(
        script: impl Fn(&SeenRequest, usize) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port on 127.0.0.1");
        let port = listener.local_addr().expect("a bound port").port();
        Self::serve(listener, port, Arc::new(script))
    }

    /// Serves on `listener` (bound by the caller, maybe late).
    pub fn serve(listener: TcpListener, port: u16, script: Arc<Script>) -> Self {
        let seen: Arc<Mutex<Vec<SeenRequest>>> = Arc::default();
        let task = {
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    let seen = Arc::clone(&seen);
                    let script = Arc::clone(&script);
                    tokio::spawn(async move { connection(stream, seen, script).await });
                }
            })
        };
        Self {
            url: format!("http://127.0.0.1:{port}/mcp"),
            seen,
            task,
        }
    }

    /// Every request so far, in order.
    pub fn seen(&self) -> Vec<SeenRequest> {
        self.seen.lock().clone()
    }

    /// How many requests of JSON-RPC method `method` arrived.
    pub fn count(&self, method: &str) -> usize {
        self.seen()
            .iter()
            .filter(|r| r.rpc_method() == Some(method))
            .count()
    }
}

async fn connection(
    mut stream: TcpStream,
    seen: Arc<Mutex<Vec<SeenRequest>>>,
    script: Arc<Script>,
) {
    let mut buffer = Vec::new();
    loop {
        let Some(request) = read_request(&mut stream, &mut buffer).await else {
            return;
        };
        let key = request
            .rpc_method()
            .map_or_else(|| request.method.clone(), str::to_owned);
        let n = {
            let mut seen = seen.lock();
            let n = seen
                .iter()
                .filter(|r| {
                    r.rpc_method()
                        .map_or_else(|| r.method.clone(), str::to_owned)
                        == key
                })
                .count();
            seen.push(request.clone());
            n
        };
        let mut reply = script(&request, n);
        loop {
            match reply {
                Reply::After(wait, then) => {
                    tokio::time::sleep(wait).await;
                    reply = *then;
                }
                Reply::Drop => return,
                Reply::Respond {
                    status,
                    headers,
                    body,
                } => {
                    let mut head = format!(
                        "HTTP/1.1 {status} Scripted\r\ncontent-length: {}\r\n",
                        body.len()
                    )
                    .into_bytes();
                    for (name, value) in headers {
                        head.extend_from_slice(name.as_bytes());
                        head.extend_from_slice(b": ");
                        head.extend_from_slice(&value);
                        head.extend_from_slice(b"\r\n");
                    }
                    head.extend_from_slice(b"\r\n");
                    head.extend_from_slice(&body);
                    if stream.write_all(&head).await.is_err() {
                        return;
                    }
                    break;
                }
            }
        }
    }
}

/// Reads one request (headers and a `Content-Length` body); `None` at the end.
async fn read_request(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<SeenRequest> {
    let header_end = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let mut chunk = [0u8; 8192];
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let method = lines.next()?.split(' ').next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let body_start = header_end + 4;
    while buffer.len() < body_start + length {
        let mut chunk = [0u8; 8192];
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let body =
        serde_json::from_slice(&buffer[body_start..body_start + length]).unwrap_or(Value::Null);
    buffer.drain(..body_start + length);
    Some(SeenRequest {
        method,
        headers,
        body,
    })
}

/// The answers of a well-behaved legacy server with one tool, `echo`:
/// `initialize` (session `session`), `tools/list`, `tools/call`, `ping`;
/// `server/discover` is -32601 and notifications get 202.
pub fn legacy_answer(request: &SeenRequest, session: &str) -> Reply {
    let id = request.body.get("id").cloned().unwrap_or(Value::Null);
    let result =
        |result: Value| Reply::json(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    match request.rpc_method() {
        Some("initialize") => result(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"},
        }))
        .with_header("mcp-session-id", session.as_bytes()),
        Some("tools/list") => result(json!({"tools": [
            {"name": "echo", "inputSchema": {"type": "object"}}
        ]})),
        Some("tools/call") => result(json!({"content": [{"type": "text", "text": "done"}]})),
        Some("ping") => result(json!({})),
        Some(method) if method.starts_with("notifications/") => Reply::status(202),
        Some(method) => Reply::json(
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("no {method}")}}),
        ),
        None => Reply::status(405),
    }
}
