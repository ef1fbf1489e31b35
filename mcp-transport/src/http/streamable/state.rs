//! The Streamable HTTP client as a state machine without I/O: which headers
//! a message goes out with, what a response does to the session, and how a
//! response body is classified. The I/O pump (`mod.rs`) asks it and does
//! what it says; everything here is tested without a server.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use mcpdisco_protocol::meta::RequestMeta;
use mcpdisco_protocol::method::{NotificationMethod, RequestMethod};
use mcpdisco_protocol::methods::{CallTool, Initialize, Initialized, ListTools};
use mcpdisco_protocol::{Message, RequestId};

use super::super::param_headers::{self, ParamHeader};

/// `Mcp-Session-Id`.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
/// `MCP-Protocol-Version`.
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";

/// A header name: one of ours (lowercase, static), or an `Mcp-Param-*` made at run time.
pub(crate) type HeaderKey = std::borrow::Cow<'static, str>;

/// What one outgoing message needs, decided before it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outgoing {
    /// Protocol headers (name, value), besides credentials and content negotiation.
    pub headers: Vec<(HeaderKey, String)>,
    /// The request's id, for a request.
    pub request_id: Option<RequestId>,
    /// The modern version the message carries in its `_meta`, if any.
    pub modern_version: Option<String>,
    /// The session generation the message was sent in (legacy).
    pub generation: u64,
    /// Whether it carried a session id.
    pub sent_session: bool,
    /// Whether it is `notifications/initialized` (legacy): the GET stream opens after it.
    pub is_initialized: bool,
    /// Whether it is `initialize`.
    pub is_initialize: bool,
}

/// What a response's status and headers mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResponseClass {
    /// 2xx with an SSE stream: pump it.
    EventStream,
    /// 2xx with JSON (or no body, for a notification): read and parse it.
    Json,
    /// 2xx whose content type is neither: the server is not an MCP endpoint
    /// here (a login page, a proxy's HTML). Fail at once, quoting the body.
    Unexpected {
        /// The content type it had.
        content_type: String,
    },
    /// 404 to a request that carried a session id: the session expired.
    SessionExpired,
    /// Any other status: an error (a JSON-RPC answer in its body is delivered).
    Error,
}

/// The session state of one Streamable HTTP connection.
#[derive(Debug, Default)]
pub(crate) struct StreamableState {
    /// The legacy session id the server issued.
    session_id: Option<String>,
    /// The legacy version `initialize` negotiated.
    legacy_version: Option<String>,
    /// The pending `initialize` request.
    initialize_id: Option<RequestId>,
    /// Pending `tools/list` requests, whose results teach tool headers.
    tool_list_ids: HashSet<RequestId>,
    /// The `x-mcp-header` annotations of each tool.
    tool_headers: HashMap<String, Vec<ParamHeader>>,
    /// Bumped each time a new session id is adopted.
    generation: u64,
}

impl StreamableState {
    /// Prepares `message`: its protocol headers, and what to remember about it.
    ///
    /// `initialize` goes out without a session id (it starts a new session),
    /// but the old id stays in use for everything else until the new one
    /// arrives, even after the server said it expired, so requests in flight
    /// during a re-initialization are never sent without one: at worst they
    /// meet the expired session's 404 and are sent again once the new id is
    /// there.
    pub(crate) fn prepare(&mut self, message: &Message) -> Outgoing {
        let modern_version = match message {
            Message::Request(request) => request
                .params
                .as_ref()
                .and_then(RequestMeta::protocol_version_in)
                .map(Cow::into_owned),
            Message::Notification(notification) => notification
                .params
                .as_ref()
                .and_then(RequestMeta::protocol_version_of)
                .map(str::to_owned),
            _ => None,
        };
        let mut outgoing = Outgoing {
            headers: Vec::new(),
            request_id: None,
            modern_version: modern_version.clone(),
            generation: self.generation,
            sent_session: false,
            is_initialized: matches!(message, Message::Notification(n) if n.method == Initialized::METHOD),
            is_initialize: false,
        };
        if let Message::Request(request) = message {
            outgoing.request_id = Some(request.id.clone());
            if request.method == Initialize::METHOD {
                outgoing.is_initialize = true;
                self.initialize_id = Some(request.id.clone());
            }
            // `x-mcp-header` is a modern-era rule: only modern lists are filtered.
            if request.method == ListTools::METHOD && modern_version.is_some() {
                self.tool_list_ids.insert(request.id.clone());
            }
        }
        match modern_version {
            Some(version) => {
                outgoing.headers.push((VERSION_HEADER.into(), version));
                self.modern_headers(message, &mut outgoing.headers);
            }
            None if !outgoing.is_initialize => {
                if let Some(id) = &self.session_id {
                    outgoing.headers.push((SESSION_HEADER.into(), id.clone()));
                    outgoing.sent_session = true;
                }
                if let Some(version) = &self.legacy_version {
                    outgoing
                        .headers
                        .push((VERSION_HEADER.into(), version.clone()));
                }
            }
            None => {}
        }
        outgoing
    }

    /// The modern per-message headers: `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`.
    fn modern_headers(&self, message: &Message, headers: &mut Vec<(HeaderKey, String)>) {
        let Some(method) = message.method() else {
            return;
        };
        headers.push(("mcp-method".into(), method.to_owned()));
        // Only requests name what they act on.
        let Message::Request(request) = message else {
            return;
        };
        let params = request.params.as_ref();
        // The tool or prompt name, the resource URI, or a task's id.
        let name = mcpdisco_protocol::modern_request::name_of(method, params);
        if let Some(name) = &name {
            headers.push(("mcp-name".into(), param_headers::encode_header_value(name)));
        }
        if method == CallTool::METHOD
            && let Some(tool) = &name
            && let Some(annotated) = self.tool_headers.get(tool.as_ref())
        {
            let arguments = params
                .and_then(|p| p.member::<serde_json::Value>("arguments").ok().flatten())
                .unwrap_or(serde_json::Value::Null);
            headers.extend(
                param_headers::param_header_values(annotated, &arguments)
                    .into_iter()
                    .map(|(name, value)| (HeaderKey::Owned(name), value)),
            );
        }
    }

    /// Classifies a response to `outgoing` by its status and content type.
    pub(crate) fn classify(
        &self,
        outgoing: &Outgoing,
        status: u16,
        content_type: Option<&str>,
    ) -> ResponseClass {
        if (200..300).contains(&status) {
            let media = content_type
                .map(|value| value.split(';').next().unwrap_or_default().trim())
                .unwrap_or_default();
            let is = |name: &str| media.eq_ignore_ascii_case(name);
            let json_suffix = media.len() > 5
                && media
                    .get(media.len() - 5..)
                    .is_some_and(|end| end.eq_ignore_ascii_case("+json"));
            return if is("text/event-stream") {
                ResponseClass::EventStream
            } else if media.is_empty() || is("application/json") || json_suffix {
                // 202 to a notification has no body, and often no content type.
                ResponseClass::Json
            } else {
                ResponseClass::Unexpected {
                    content_type: media.to_ascii_lowercase(),
                }
            };
        }
        if status == 404 && outgoing.sent_session {
            return ResponseClass::SessionExpired;
        }
        ResponseClass::Error
    }

    /// Takes the session id a successful `initialize` response carries.
    /// An id that is not visible ASCII cannot be sent back: that is the
    /// server's violation, reported at once.
    pub(crate) fn adopt_session(
        &mut self,
        outgoing: &Outgoing,
        session_header: Option<&[u8]>,
    ) -> Result<(), String> {
        if !outgoing.is_initialize || outgoing.request_id != self.initialize_id {
            return Ok(());
        }
        let Some(raw) = session_header else {
            // A server without sessions: requests go out without an id.
            self.session_id = None;
            self.generation += 1;
            return Ok(());
        };
        if raw.is_empty() || !raw.iter().all(|byte| (0x21..=0x7e).contains(byte)) {
            return Err(
                "the server issued an Mcp-Session-Id that is not visible ASCII (0x21 to 0x7E), \
                 so it cannot be sent back; the specification requires visible ASCII"
                    .into(),
            );
        }
        self.session_id = Some(String::from_utf8_lossy(raw).into_owned());
        self.generation += 1;
        Ok(())
    }

    /// Whether a new session was adopted since `outgoing` was prepared.
    pub(crate) fn renewed_since(&self, outgoing: &Outgoing) -> bool {
        self.generation != outgoing.generation
    }

    /// Watches a delivered message: the negotiated version, and tool headers.
    /// Returns whether the message may be delivered.
    pub(crate) fn observe(&mut self, server: &str, message: &mut Message) {
        let Message::Response(response) = message else {
            return;
        };
        if self.initialize_id.as_ref() == Some(&response.id)
            && let Ok(Some(version)) = response.result.member::<String>("protocolVersion")
        {
            self.legacy_version = Some(version);
        }
        if self.tool_list_ids.remove(&response.id) {
            let learned = param_headers::filter_tools_list(server, &mut response.result);
            self.tool_headers.extend(learned);
        }
    }

    /// The session to end with a DELETE on close, if any; forgets it.
    pub(crate) fn end_session(&mut self) -> Option<String> {
        self.session_id.take()
    }

    /// The session id in use.
    pub(crate) fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The headers of a GET (the standalone stream, or a resumption).
    pub(crate) fn get_headers(&self) -> Vec<(HeaderKey, String)> {
        let mut headers = Vec::new();
        if let Some(id) = &self.session_id {
            headers.push((SESSION_HEADER.into(), id.clone()));
        }
        if let Some(version) = &self.legacy_version {
            headers.push((VERSION_HEADER.into(), version.clone()));
        }
        headers
    }
}

#[cfg(test)]
mod tests {
    use mcpdisco_protocol::{Notification, Request, Response};
    use serde_json::json;

    use super::*;

    fn request(id: i64, method: &str, params: serde_json::Value) -> Message {
        Message::Request(Request {
            id: RequestId::from(id),
            method: method.into(),
            params: Some(params.into()),
        })
    }

    fn header<'a>(outgoing: &'a Outgoing, name: &str) -> Option<&'a str> {
        outgoing
            .headers
            .iter()
            .find(|(n, _)| n.as_ref() == name)
            .map(|(_, v)| v.as_str())
    }

    fn initialized(state: &mut StreamableState, id: &[u8]) -> Outgoing {
        let init = state.prepare(&request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25"}),
        ));
        state.adopt_session(&init, Some(id)).unwrap();
        let mut answer = Message::Response(Response {
            id: RequestId::from(1),
            result: json!({"protocolVersion": "2025-06-18"}).into(),
        });
        state.observe("s", &mut answer);
        init
    }

    #[test]
    fn legacy_messages_carry_the_session_and_the_negotiated_version() {
        let mut state = StreamableState::default();
        let init = initialized(&mut state, b"abc-123");
        assert!(
            header(&init, SESSION_HEADER).is_none(),
            "initialize starts a new session"
        );
        let list = state.prepare(&request(2, "tools/list", json!({})));
        assert_eq!(header(&list, SESSION_HEADER), Some("abc-123"));
        assert_eq!(header(&list, VERSION_HEADER), Some("2025-06-18"));
        assert!(list.sent_session);
        let note = state.prepare(&Message::Notification(Notification {
            method: "notifications/initialized".into(),
            params: None,
        }));
        assert!(note.is_initialized);
        assert_eq!(state.end_session().as_deref(), Some("abc-123"));
        assert!(state.end_session().is_none());
    }

    #[test]
    fn modern_messages_carry_method_name_and_version_but_no_session() {
        let mut state = StreamableState::default();
        initialized(&mut state, b"abc");
        let call = state.prepare(&request(
            3,
            "tools/call",
            json!({"name": "echo", "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        ));
        assert_eq!(header(&call, VERSION_HEADER), Some("2026-07-28"));
        assert_eq!(header(&call, "mcp-method"), Some("tools/call"));
        assert_eq!(header(&call, "mcp-name"), Some("echo"));
        assert!(header(&call, SESSION_HEADER).is_none());
        let poll = state.prepare(&request(
            4,
            "tasks/get",
            json!({"taskId": "t-7", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        ));
        assert_eq!(
            header(&poll, "mcp-name"),
            Some("t-7"),
            "a task method names its task"
        );
    }

    #[test]
    fn only_modern_tool_lists_are_filtered_for_x_mcp_header() {
        let bad_tool = json!({"tools": [
            {"name": "good", "inputSchema": {"type": "object"}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "object", "x-mcp-header": "Region"}}}}
        ]});
        let modern = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let mut state = StreamableState::default();
        let listed = |state: &mut StreamableState, id: i64, params: serde_json::Value| {
            state.prepare(&request(id, "tools/list", params));
            let mut answer = Message::Response(Response {
                id: RequestId::from(id),
                result: bad_tool.clone().into(),
            });
            state.observe("s", &mut answer);
            let Message::Response(response) = answer else {
                panic!("not a response")
            };
            response
                .result
                .list_page("tools")
                .map(|page| page.items.len())
        };
        assert_eq!(listed(&mut state, 5, json!({})), Some(2), "legacy: as sent");
        assert_eq!(
            listed(&mut state, 6, modern),
            Some(1),
            "modern: the bad tool is left out"
        );
    }

    #[test]
    fn a_reinitialization_keeps_the_old_id_until_the_new_one_arrives() {
        let mut state = StreamableState::default();
        initialized(&mut state, b"old");
        let before = state.prepare(&request(2, "tools/list", json!({})));
        // The server expired the session: a 404 to a request that carried it.
        assert_eq!(
            state.classify(&before, 404, None),
            ResponseClass::SessionExpired
        );
        let again = state.prepare(&request(5, "initialize", json!({})));
        let during = state.prepare(&request(6, "prompts/list", json!({})));
        assert_eq!(
            header(&during, SESSION_HEADER),
            Some("old"),
            "a request during re-initialization is never sent without an id"
        );
        // More 404s of the old session change nothing: the id stays until a new one comes.
        let still = state.prepare(&request(8, "resources/list", json!({})));
        assert_eq!(header(&still, SESSION_HEADER), Some("old"));
        state.adopt_session(&again, Some(b"new")).unwrap();
        assert!(state.renewed_since(&during));
        let after = state.prepare(&request(7, "tools/list", json!({})));
        assert_eq!(header(&after, SESSION_HEADER), Some("new"));
        assert!(after.generation > during.generation);
        assert!(!state.renewed_since(&after));
    }

    #[test]
    fn a_session_id_that_cannot_be_sent_back_is_the_servers_violation() {
        let mut state = StreamableState::default();
        let init = state.prepare(&request(1, "initialize", json!({})));
        let error = state.adopt_session(&init, Some(b"bad\x01id")).unwrap_err();
        assert!(error.contains("not visible ASCII"), "{error}");
        let init = state.prepare(&request(2, "initialize", json!({})));
        assert!(state.adopt_session(&init, Some(b"caf\xc3\xa9")).is_err());
    }

    #[test]
    fn responses_are_classified_by_status_and_content_type() {
        let mut state = StreamableState::default();
        let plain = state.prepare(&request(1, "ping", json!({})));
        assert_eq!(
            state.classify(&plain, 200, Some("text/event-stream; charset=utf-8")),
            ResponseClass::EventStream
        );
        assert_eq!(
            state.classify(&plain, 200, Some("Application/JSON")),
            ResponseClass::Json
        );
        assert_eq!(state.classify(&plain, 202, None), ResponseClass::Json);
        assert_eq!(
            state.classify(&plain, 200, Some("text/html; charset=utf-8")),
            ResponseClass::Unexpected {
                content_type: "text/html".into()
            }
        );
        assert_eq!(
            state.classify(&plain, 404, None),
            ResponseClass::Error,
            "a 404 without a session is not an expiry"
        );
        assert_eq!(state.classify(&plain, 500, None), ResponseClass::Error);
    }
}
