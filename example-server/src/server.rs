//! The protocol logic: one JSON-RPC message in, at most one out. No I/O.

use mcpdisco_protocol::server;
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_protocol::{ErrorCode, ErrorObject, Message, RequestId};
use serde_json::{Value, json};

use crate::catalog;

/// Which eras the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraSupport {
    /// `initialize` and `server/discover`, like current Python servers.
    #[default]
    Both,
    /// `initialize` only; `server/discover` is -32601, like the Node reference servers.
    Legacy,
    /// `server/discover` only; `initialize` is -32601.
    Modern,
}

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The eras it speaks.
    pub eras: EraSupport,
    /// Items per list page; every list is one page when `None`.
    pub page_size: Option<usize>,
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            eras: EraSupport::Both,
            page_size: None,
            name: "mcp-example-server".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

const INSTRUCTIONS: &str = "An example server: arithmetic and text tools, two resources, a greeting template and two prompts.";

/// The example server's protocol logic.
#[derive(Debug, Clone, Default)]
pub struct Server {
    options: ServerOptions,
}

impl Server {
    /// A server with `options`.
    pub fn new(options: ServerOptions) -> Self {
        Self { options }
    }

    /// The options.
    pub fn options(&self) -> &ServerOptions {
        &self.options
    }

    fn server_info(&self) -> Value {
        json!({"name": self.options.name, "version": self.options.version, "title": "MCP example server"})
    }

    fn capabilities() -> Value {
        json!({"tools": {"listChanged": false}, "resources": {"listChanged": false}, "prompts": {"listChanged": false}})
    }

    /// Answers one message: a response for a request, nothing for anything else.
    pub fn handle(&self, message: &Message) -> Option<Message> {
        let Message::Request(request) = message else {
            return None;
        };
        let params = request.params.clone().unwrap_or_else(|| json!({}));
        Some(match self.answer(&request.method, &params) {
            Ok(result) => Message::Response(mcpdisco_protocol::Response {
                id: request.id.clone(),
                result: mcpdisco_protocol::RawJson::from_value(&result),
            }),
            Err(error) => Message::Error(mcpdisco_protocol::ErrorResponse {
                id: Some(request.id.clone()),
                error,
            }),
        })
    }

    /// An answer to a message that could not be read as JSON-RPC.
    pub fn invalid(id: Option<RequestId>, reason: &str) -> Message {
        Message::Error(mcpdisco_protocol::ErrorResponse {
            id,
            error: ErrorObject::new(ErrorCode::INVALID_REQUEST, reason),
        })
    }

    fn answer(&self, method: &str, params: &Value) -> Result<Value, ErrorObject> {
        let eras = self.options.eras;
        let era = match eras {
            EraSupport::Legacy => Era::Legacy,
            _ => server::request_era(Some(params))?,
        };
        let mut result = match method {
            "initialize" if eras != EraSupport::Modern => self.initialize(params),
            "server/discover" if eras != EraSupport::Legacy => Ok(self.discover()),
            "ping" => Ok(json!({})),
            "tools/list" => self.page(params, catalog::tools(), "tools"),
            "resources/list" => self.page(params, catalog::resources(), "resources"),
            "resources/templates/list" => {
                self.page(params, catalog::resource_templates(), "resourceTemplates")
            }
            "prompts/list" => self.page(params, catalog::prompts(), "prompts"),
            "tools/call" => {
                let name = server::string_param(params, "name")?;
                catalog::call_tool(name, params.get("arguments").unwrap_or(&json!({})))
                    .map_err(|reason| ErrorObject::new(ErrorCode::INVALID_PARAMS, reason))
            }
            "resources/read" => {
                let uri = server::string_param(params, "uri")?;
                catalog::read_resource(uri, &self.options.name, &self.options.version).ok_or_else(
                    || ErrorObject {
                        code: ErrorCode::RESOURCE_NOT_FOUND,
                        message: format!("no resource {uri}"),
                        data: Some(json!({"uri": uri})),
                    },
                )
            }
            "prompts/get" => {
                let name = server::string_param(params, "name")?;
                catalog::get_prompt(name, params.get("arguments").unwrap_or(&json!({})))
                    .map_err(|reason| ErrorObject::new(ErrorCode::INVALID_PARAMS, reason))
            }
            other => Err(ErrorObject::method_not_found(other)),
        }?;
        if era == Era::Modern {
            server::complete_modern(&mut result, &self.server_info());
        }
        Ok(result)
    }

    fn initialize(&self, params: &Value) -> Result<Value, ErrorObject> {
        let version =
            server::initialize_version(params.get("protocolVersion").and_then(Value::as_str));
        Ok(json!({
            "protocolVersion": version.as_str(),
            "capabilities": Self::capabilities(),
            "serverInfo": self.server_info(),
            "instructions": INSTRUCTIONS,
        }))
    }

    fn discover(&self) -> Value {
        json!({
            "supportedVersions": [ProtocolVersion::V2026_07_28.as_str()],
            "capabilities": Self::capabilities(),
            "instructions": INSTRUCTIONS,
            "ttlMs": 3_600_000,
            "cacheScope": "public",
        })
    }

    /// One page of `items`; the cursor is the offset, written as text.
    fn page(&self, params: &Value, items: Vec<Value>, key: &str) -> Result<Value, ErrorObject> {
        let (range, next) =
            server::page(items.len(), params.get("cursor"), self.options.page_size)?;
        let mut result = server::list_result(key, items[range].to_vec(), next);
        if let Some(object) = result.as_object_mut() {
            object.insert("ttlMs".into(), json!(3_600_000));
            object.insert("cacheScope".into(), json!("public"));
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::meta::{PROTOCOL_VERSION_KEY, SERVER_INFO_KEY};

    fn ask(server: &Server, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let request = Message::from_value(
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        )
        .unwrap();
        match server.handle(&request) {
            Some(Message::Response(response)) => Ok(response.result.to_value().unwrap()),
            Some(Message::Error(error)) => Err(error.error),
            other => panic!("{other:?}"),
        }
    }

    fn modern() -> Value {
        json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}})
    }

    #[test]
    fn legacy_handshake_negotiates_versions() {
        let server = Server::default();
        let result = ask(
            &server,
            "initialize",
            json!({"protocolVersion": "2024-11-05"}),
        )
        .unwrap();
        assert_eq!(result["protocolVersion"], "2024-11-05");
        assert_eq!(result["serverInfo"]["name"], "mcp-example-server");
        let unknown = ask(
            &server,
            "initialize",
            json!({"protocolVersion": "1999-01-01"}),
        )
        .unwrap();
        assert_eq!(unknown["protocolVersion"], "2025-11-25");
        let notification =
            Message::from_value(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .unwrap();
        assert!(server.handle(&notification).is_none());
    }

    #[test]
    fn modern_discover_and_results_carry_result_type_and_server_info() {
        let server = Server::default();
        let discover = ask(&server, "server/discover", modern()).unwrap();
        assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(discover["resultType"], "complete");
        assert_eq!(
            discover["_meta"][SERVER_INFO_KEY]["name"],
            "mcp-example-server"
        );
        assert_eq!(discover["ttlMs"], 3_600_000);
        let tools = ask(&server, "tools/list", modern()).unwrap();
        assert_eq!(tools["resultType"], "complete");
        let old = ask(
            &server,
            "tools/list",
            json!({"_meta": {PROTOCOL_VERSION_KEY: "2031-01-01"}}),
        )
        .unwrap_err();
        assert_eq!(old.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(old.data.unwrap()["supported"], json!(["2026-07-28"]));
    }

    #[test]
    fn era_support_refuses_the_other_era() {
        let legacy = Server::new(ServerOptions {
            eras: EraSupport::Legacy,
            ..Default::default()
        });
        assert_eq!(
            ask(&legacy, "server/discover", modern()).unwrap_err().code,
            ErrorCode::METHOD_NOT_FOUND
        );
        let modern_only = Server::new(ServerOptions {
            eras: EraSupport::Modern,
            ..Default::default()
        });
        assert_eq!(
            ask(&modern_only, "initialize", json!({})).unwrap_err().code,
            ErrorCode::METHOD_NOT_FOUND
        );
    }

    #[test]
    fn pages_cover_every_item_once() {
        let server = Server::new(ServerOptions {
            page_size: Some(3),
            ..Default::default()
        });
        let mut names = Vec::new();
        let mut params = json!({});
        loop {
            let page = ask(&server, "tools/list", params.clone()).unwrap();
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
                .unwrap_err()
                .code,
            ErrorCode::INVALID_PARAMS
        );
    }

    #[test]
    fn tools_resources_and_prompts_answer() {
        let server = Server::default();
        let sum = ask(
            &server,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .unwrap();
        assert_eq!(sum["content"][0]["text"], "5");
        let words = ask(
            &server,
            "tools/call",
            json!({"name": "word_count", "arguments": {"text": "a b  c"}}),
        )
        .unwrap();
        assert_eq!(words["structuredContent"]["words"], 3);
        let fail = ask(
            &server,
            "tools/call",
            json!({"name": "fail", "arguments": {}}),
        )
        .unwrap();
        assert_eq!(fail["isError"], true);
        let bad = ask(
            &server,
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x", "b": 1}}),
        )
        .unwrap_err();
        assert_eq!(
            (bad.code, bad.message.as_str()),
            (ErrorCode::INVALID_PARAMS, "argument 'a' must be a number")
        );
        assert_eq!(
            ask(&server, "tools/call", json!({"name": "nope"}))
                .unwrap_err()
                .code,
            ErrorCode::INVALID_PARAMS
        );
        let greeting = ask(
            &server,
            "resources/read",
            json!({"uri": "example://greeting/Ada"}),
        )
        .unwrap();
        assert_eq!(greeting["contents"][0]["text"], "Hello, Ada!");
        let readme = ask(
            &server,
            "resources/read",
            json!({"uri": "example://readme"}),
        )
        .unwrap();
        assert_eq!(readme["contents"][0]["mimeType"], "text/markdown");
        assert_eq!(
            ask(&server, "resources/read", json!({"uri": "example://nope"}))
                .unwrap_err()
                .code,
            ErrorCode::RESOURCE_NOT_FOUND
        );
        let prompt = ask(
            &server,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .unwrap();
        assert!(
            prompt["messages"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .contains("Ada")
        );
        assert_eq!(
            ask(&server, "completion/complete", json!({}))
                .unwrap_err()
                .code,
            ErrorCode::METHOD_NOT_FOUND
        );
    }
}
