//! One HTTP/1.1 exchange over a plain TCP stream, for the tests that must
//! see exactly what a `serve --http` replica (or HAProxy in front of
//! several) answers: the status, every header, the body as sent.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::Value;

/// How long an exchange may wait for its answer.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// An HTTP answer: its status, its head, its body (de-chunked).
pub struct RawAnswer {
    /// The status code.
    pub status: u16,
    /// The status line and the headers, as sent.
    pub head: String,
    /// The body, without chunked framing.
    pub body: String,
}

impl RawAnswer {
    /// The value of header `wanted` (names compared without case).
    pub fn header(&self, wanted: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case(wanted)
                .then(|| value.trim().to_owned())
        })
    }

    /// The `Mcp-Session-Id` header.
    pub fn session(&self) -> Option<String> {
        self.header("mcp-session-id")
    }
}

/// `METHOD url` (HTTP/1.1, `Connection: close`, bounded read), with the
/// bearer `token`, the session id and a JSON body when given.
pub fn send(
    method: &str,
    url: &str,
    token: &str,
    session: Option<&str>,
    body: Option<&Value>,
) -> RawAnswer {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n{session}\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut answer = RawAnswer {
        status,
        head: head.to_owned(),
        body: String::new(),
    };
    let chunked = answer
        .header("transfer-encoding")
        .is_some_and(|value| value.eq_ignore_ascii_case("chunked"));
    answer.body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    answer
}

/// The body of a chunked transfer.
fn dechunk(mut body: &str) -> String {
    let mut whole = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || size > rest.len() {
            break;
        }
        whole.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    whole
}
