//! [`Responder`]: one request line in, at most one response line out.
//!
//! The server is legacy-only (it answers `server/discover` with -32601, so
//! clients that probe fall back to `initialize`), stateless, and lenient: it
//! answers `ping` and `tools/list` whether or not `initialize` came first, so
//! the raw baseline can send requests with no handshake at all.

use serde::Deserialize;
use serde_json::Value;

/// The protocol versions the server accepts in `initialize`, newest last.
const VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// JSON-RPC: method not found.
const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: parse error.
const PARSE_ERROR: i64 = -32700;

/// What the server does with one incoming line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Write this response (one line, without its newline).
    Reply(String),
    /// A notification or a response: nothing to write.
    Silent,
}

/// The fields of an incoming message the server looks at.
#[derive(Deserialize)]
struct Incoming {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
}

/// Answers `initialize`, `ping` and `tools/list`; everything else is -32601.
#[derive(Debug, Clone)]
pub struct Responder {
    name: String,
    tools_result: String,
    /// With a page size: the tools in pages of that many, and how many in all.
    pages: Option<(usize, usize)>,
}

impl Responder {
    /// A server called `name` that lists `tools` tools.
    pub fn new(name: impl Into<String>, tools: usize) -> Self {
        Self {
            name: name.into(),
            tools_result: crate::workload::tools_list_result(tools),
            pages: None,
        }
    }

    /// The same server listing its tools in pages of `size`, the cursor
    /// being the offset of the next page.
    pub fn paged(mut self, tools: usize, size: usize) -> Self {
        self.pages = Some((tools, size.max(1)));
        self
    }

    /// One page of the tools, from the request's cursor.
    fn page(&self, params: Option<&Value>, tools: usize, size: usize) -> String {
        let start = params
            .and_then(|params| params.get("cursor"))
            .and_then(Value::as_str)
            .and_then(|cursor| cursor.parse::<usize>().ok())
            .unwrap_or(0)
            .min(tools);
        let end = (start + size).min(tools);
        let items: Vec<String> = (start..end).map(crate::workload::tool).collect();
        let next = if end < tools {
            format!(r#","nextCursor":"{end}""#)
        } else {
            String::new()
        };
        format!(r#"{{"tools":[{}]{next}}}"#, items.join(","))
    }

    /// Whether this message (a request or a notification) starts a session: `initialize`.
    pub fn is_initialize(line: &[u8]) -> bool {
        serde_json::from_slice::<Incoming>(line)
            .is_ok_and(|incoming| incoming.method.as_deref() == Some("initialize"))
    }

    /// The answer to one line.
    pub fn answer(&self, line: &[u8]) -> Answer {
        let Ok(incoming) = serde_json::from_slice::<Incoming>(line) else {
            return Answer::Reply(error_line("null", PARSE_ERROR, "Parse error"));
        };
        let (Some(id), Some(method)) = (incoming.id, incoming.method) else {
            return Answer::Silent;
        };
        let id = id.to_string();
        let result = match method.as_str() {
            "ping" => "{}".to_owned(),
            "tools/list" => match self.pages {
                Some((tools, size)) => self.page(incoming.params.as_ref(), tools, size),
                None => return Answer::Reply(result_line(&id, &self.tools_result)),
            },
            "tools/call" => r#"{"content":[{"type":"text","text":"done"}]}"#.to_owned(),
            "initialize" => self.initialize_result(incoming.params.as_ref()),
            _ => {
                return Answer::Reply(error_line(&id, METHOD_NOT_FOUND, "Method not found"));
            }
        };
        Answer::Reply(result_line(&id, &result))
    }

    fn initialize_result(&self, params: Option<&Value>) -> String {
        let requested = params
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = match requested {
            Some(version) if VERSIONS.contains(&version) => version,
            _ => VERSIONS[VERSIONS.len() - 1],
        };
        serde_json::json!({
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": self.name, "version": "1.0.0"},
        })
        .to_string()
    }
}

fn result_line(id: &str, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

fn error_line(id: &str, code: i64, message: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(responder: &Responder, line: &str) -> Value {
        match responder.answer(line.as_bytes()) {
            Answer::Reply(text) => serde_json::from_str(&text).unwrap(),
            Answer::Silent => panic!("no reply to {line}"),
        }
    }

    #[test]
    fn initialize_echoes_a_known_version_and_names_the_server() {
        let responder = Responder::new("s01", 3);
        let value = reply(
            &responder,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
        );
        assert_eq!(value["id"], 0);
        assert_eq!(value["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(value["result"]["serverInfo"]["name"], "s01");
        let value = reply(
            &responder,
            r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2030-01-01"}}"#,
        );
        assert_eq!(value["id"], "a");
        assert_eq!(value["result"]["protocolVersion"], "2025-11-25");
    }

    #[test]
    fn a_paged_list_follows_its_cursor_to_the_end() {
        let responder = Responder::new("s", 0).paged(25, 10);
        let mut cursor: Option<String> = None;
        let mut names = Vec::new();
        loop {
            let params = match &cursor {
                Some(c) => format!(r#","params":{{"cursor":"{c}"}}"#),
                None => String::new(),
            };
            let value = reply(
                &responder,
                &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list"{params}}}"#),
            );
            for tool in value["result"]["tools"].as_array().unwrap() {
                names.push(tool["name"].as_str().unwrap().to_owned());
            }
            match value["result"]["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        assert_eq!(names.len(), 25);
        assert_eq!(names[24], "tool_24");
    }

    #[test]
    fn ping_and_tools_list_need_no_handshake() {
        let responder = Responder::new("s", 50);
        let value = reply(&responder, r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        assert_eq!(value["result"], serde_json::json!({}));
        let value = reply(
            &responder,
            r#"{"id":8,"method":"tools/list","jsonrpc":"2.0","params":{}}"#,
        );
        assert_eq!(value["id"], 8);
        assert_eq!(value["result"]["tools"].as_array().unwrap().len(), 50);
    }

    #[test]
    fn legacy_only_and_silent_on_notifications() {
        let responder = Responder::new("s", 1);
        let value = reply(
            &responder,
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
        );
        assert_eq!(value["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(
            responder.answer(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Answer::Silent
        );
        assert_eq!(
            responder.answer(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Answer::Silent
        );
        let value = reply(&responder, "not json");
        assert_eq!(value["error"]["code"], PARSE_ERROR);
        assert!(value["id"].is_null());
    }

    #[test]
    fn recognises_initialize() {
        assert!(Responder::is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        ));
        assert!(!Responder::is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        ));
    }
}
