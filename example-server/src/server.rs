//! The example server: one JSON-RPC message in, at most one out. No I/O of
//! its own: what a handler sends the client on the way goes through the
//! connection's [`Peer`](crate::peer::Peer), when there is one.

use std::sync::Arc;

use mcpdisco_protocol::modern_request::is_removed_in_modern;
use mcpdisco_protocol::server;
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{
    ErrorCode, ErrorObject, ErrorResponse, Message, RawJson, Request, RequestId, Response,
};
use mcpdisco_transport::server::Router;

use crate::context::{Context, RequestInfo};
use crate::handlers;
use crate::options::{EraSupport, ServerOptions};
use crate::peer::SharedPeer;
use crate::shared::SharedState;

/// The example server: its options and the handlers of its methods. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Server {
    options: Arc<ServerOptions>,
    shared: Arc<SharedState>,
    router: Router<Context>,
}

impl Default for Server {
    fn default() -> Self {
        Self::new(ServerOptions::default())
    }
}

impl Server {
    /// A server with `options`.
    pub fn new(options: ServerOptions) -> Self {
        Self {
            router: handlers::router(&options),
            options: Arc::new(options),
            shared: Arc::new(SharedState::default()),
        }
    }

    /// The options.
    pub fn options(&self) -> &ServerOptions {
        &self.options
    }

    /// Answers one message on its own: a response for a request, nothing
    /// for anything else. Handlers that talk to the client fail (-32603).
    pub async fn handle(&self, message: &Message) -> Option<Message> {
        self.handle_on(message, None).await
    }

    /// Answers one message of the connection to `peer`.
    pub(crate) async fn handle_on(
        &self,
        message: &Message,
        peer: Option<SharedPeer>,
    ) -> Option<Message> {
        let Message::Request(request) = message else {
            return None;
        };
        Some(match self.answer(request, peer).await {
            Ok(result) => Message::Response(Response {
                id: request.id.clone(),
                result,
            }),
            Err(error) => Message::Error(ErrorResponse {
                id: Some(request.id.clone()),
                error,
            }),
        })
    }

    /// An answer to a message that could not be read as JSON-RPC.
    pub fn invalid(id: Option<RequestId>, reason: &str) -> Message {
        Message::Error(ErrorResponse {
            id,
            error: ErrorObject::new(ErrorCode::INVALID_REQUEST, reason),
        })
    }

    /// The result of one request: in the era its `_meta` names (a server
    /// of the legacy era only reads none), modern results marked complete
    /// and signed with the server's identity. A modern request for a method
    /// the modern era removed (`initialize`, `ping`, …) is -32601.
    async fn answer(
        &self,
        request: &Request,
        peer: Option<SharedPeer>,
    ) -> Result<RawJson, ErrorObject> {
        let era = match self.options.eras {
            EraSupport::Legacy => Era::Legacy,
            _ => server::request_era(request.params.as_ref())?,
        };
        if era == Era::Modern && is_removed_in_modern(&request.method) {
            return Err(ErrorObject::method_not_found(&request.method));
        }
        let context = Context {
            options: Arc::clone(&self.options),
            shared: Arc::clone(&self.shared),
            peer,
            request: Arc::new(RequestInfo {
                id: request.id.clone(),
                era,
                meta: request
                    .params
                    .as_ref()
                    .and_then(|params| params.member::<serde_json::Value>("_meta").ok().flatten()),
            }),
        };
        let result = self
            .router
            .answer(&request.method, request.params.clone(), context)
            .await?;
        if era == Era::Legacy {
            return Ok(result);
        }
        let mut result = result.to_value().map_err(|error| {
            ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("could not read the result back: {error}"),
            )
        })?;
        server::complete_modern(&mut result, &self.options.server_info());
        Ok(RawJson::from_value(&result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::meta::{PROTOCOL_VERSION_KEY, SERVER_INFO_KEY};
    use serde_json::{Value, json};

    async fn ask(server: &Server, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let request = Message::from_value(
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        )
        .unwrap();
        match server.handle(&request).await {
            Some(Message::Response(response)) => Ok(response.result.to_value().unwrap()),
            Some(Message::Error(error)) => Err(error.error),
            other => panic!("{other:?}"),
        }
    }

    fn modern() -> Value {
        json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}})
    }

    #[tokio::test]
    async fn legacy_handshake_negotiates_versions() {
        let server = Server::default();
        let result = ask(
            &server,
            "initialize",
            json!({"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        )
        .await
        .unwrap();
        assert_eq!(result["protocolVersion"], "2024-11-05");
        assert_eq!(result["serverInfo"]["name"], "mcp-example-server");
        let unknown = ask(
            &server,
            "initialize",
            json!({"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        )
        .await
        .unwrap();
        assert_eq!(unknown["protocolVersion"], "2025-11-25");
        let notification =
            Message::from_value(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .unwrap();
        assert!(server.handle(&notification).await.is_none());
    }

    #[tokio::test]
    async fn modern_discover_and_results_carry_result_type_and_server_info() {
        let server = Server::default();
        let discover = ask(&server, "server/discover", modern()).await.unwrap();
        assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(discover["resultType"], "complete");
        assert_eq!(
            discover["_meta"][SERVER_INFO_KEY]["name"],
            "mcp-example-server"
        );
        assert_eq!(discover["ttlMs"], 3_600_000);
        let tools = ask(&server, "tools/list", modern()).await.unwrap();
        assert_eq!(tools["resultType"], "complete");
        let old = ask(
            &server,
            "tools/list",
            json!({"_meta": {PROTOCOL_VERSION_KEY: "2031-01-01"}}),
        )
        .await
        .unwrap_err();
        assert_eq!(old.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(old.data.unwrap()["supported"], json!(["2026-07-28"]));
    }

    #[tokio::test]
    async fn era_support_refuses_the_other_era() {
        let legacy = Server::new(ServerOptions {
            eras: EraSupport::Legacy,
            ..Default::default()
        });
        assert_eq!(
            ask(&legacy, "server/discover", modern())
                .await
                .unwrap_err()
                .code,
            ErrorCode::METHOD_NOT_FOUND
        );
        let modern_only = Server::new(ServerOptions {
            eras: EraSupport::Modern,
            ..Default::default()
        });
        assert_eq!(
            ask(&modern_only, "initialize", json!({}))
                .await
                .unwrap_err()
                .code,
            ErrorCode::METHOD_NOT_FOUND
        );
    }

    #[tokio::test]
    async fn pages_cover_every_item_once() {
        let server = Server::new(ServerOptions {
            page_size: Some(3),
            ..Default::default()
        });
        let mut names = Vec::new();
        let mut params = json!({});
        loop {
            let page = ask(&server, "tools/list", params.clone()).await.unwrap();
            names.extend(
                page["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_owned()),
            );
            match page.get("nextCursor") {
                Some(cursor) => params = json!({"cursor": cursor}),
                None => break,
            }
        }
        assert_eq!(names, ["add", "echo", "word_count", "fail"]);
        assert_eq!(
            ask(&server, "tools/list", json!({"cursor": "bogus"}))
                .await
                .unwrap_err()
                .code,
            ErrorCode::INVALID_PARAMS
        );
    }

    #[tokio::test]
    async fn tools_resources_and_prompts_answer() {
        let server = Server::default();
        let sum = ask(
            &server,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await
        .unwrap();
        assert_eq!(sum["content"][0]["text"], "5");
        let words = ask(
            &server,
            "tools/call",
            json!({"name": "word_count", "arguments": {"text": "a b  c"}}),
        )
        .await
        .unwrap();
        assert_eq!(words["structuredContent"]["words"], 3);
        let fail = ask(
            &server,
            "tools/call",
            json!({"name": "fail", "arguments": {}}),
        )
        .await
        .unwrap();
        assert_eq!(fail["isError"], true);
        let bad = ask(
            &server,
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x", "b": 1}}),
        )
        .await
        .unwrap_err();
        assert_eq!(
            (bad.code, bad.message.as_str()),
            (ErrorCode::INVALID_PARAMS, "argument 'a' must be a number")
        );
        assert_eq!(
            ask(&server, "tools/call", json!({"name": "nope"}))
                .await
                .unwrap_err()
                .code,
            ErrorCode::INVALID_PARAMS
        );
        let greeting = ask(
            &server,
            "resources/read",
            json!({"uri": "example://greeting/Ada"}),
        )
        .await
        .unwrap();
        assert_eq!(greeting["contents"][0]["text"], "Hello, Ada!");
        let readme = ask(
            &server,
            "resources/read",
            json!({"uri": "example://readme"}),
        )
        .await
        .unwrap();
        assert_eq!(readme["contents"][0]["mimeType"], "text/markdown");
        assert_eq!(
            ask(&server, "resources/read", json!({"uri": "example://nope"}))
                .await
                .unwrap_err()
                .code,
            ErrorCode::RESOURCE_NOT_FOUND
        );
        let prompt = ask(
            &server,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await
        .unwrap();
        assert!(
            prompt["messages"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .contains("Ada")
        );
        assert_eq!(
            ask(&server, "completion/complete", json!({}))
                .await
                .unwrap_err()
                .code,
            ErrorCode::METHOD_NOT_FOUND
        );
    }
}
