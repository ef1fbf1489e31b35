//! Golden tests: every JSON-RPC message recorded from real servers (see
//! tests/fixtures/README.md) decodes from its bytes, its result decodes into
//! the typed result straight from the raw text, and both serialize again to
//! semantically equal JSON.

use std::collections::HashMap;
use std::path::PathBuf;

use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::*;
use mcpdisco_protocol::types::ItemList;
use mcpdisco_protocol::{Message, RawJson, RequestId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// A recorded message and the direction it went.
struct Recorded {
    from_client: bool,
    /// The bytes as they went over the wire.
    text: String,
    /// The same, parsed.
    raw: Value,
}

impl Recorded {
    fn new(from_client: bool, text: &str) -> Option<Self> {
        let raw = serde_json::from_str(text).ok()?;
        Some(Self {
            from_client,
            text: text.to_owned(),
            raw,
        })
    }
}

fn stdio_messages(path: &std::path::Path) -> Vec<Recorded> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            let dir = entry["dir"].as_str()?;
            if dir != "c2s" && dir != "s2c" {
                return None;
            }
            Some(Recorded::new(dir == "c2s", entry["raw"].as_str()?).unwrap())
        })
        .collect()
}

fn sse_payloads(body: &str) -> Vec<String> {
    body.split(['\n'])
        .map(|line| line.trim_end_matches('\r'))
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data).to_owned())
        .filter(|data| !data.is_empty())
        .collect()
}

fn http_messages(path: &std::path::Path) -> Vec<Recorded> {
    let exchanges: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for exchange in exchanges {
        let body = exchange["request"]["body"].as_str().unwrap_or_default();
        out.extend(Recorded::new(true, body));
        let body = exchange["response"]["body"].as_str().unwrap_or_default();
        let content_type = exchange["response"]["headers"]["content-type"]
            .as_str()
            .unwrap_or_default();
        let payloads = if content_type.starts_with("text/event-stream") {
            sse_payloads(body)
        } else {
            vec![body.to_owned()]
        };
        for payload in payloads {
            out.extend(Recorded::new(false, &payload));
        }
    }
    out
}

/// Real servers sometimes omit the id of an error response and sometimes send
/// `null`; both mean "unknown", which this crate writes as an absent id.
fn normalize(mut value: Value) -> Value {
    if let Some(object) = value.as_object_mut()
        && object.contains_key("error")
        && object.get("id") == Some(&Value::Null)
    {
        object.remove("id");
    }
    value
}

fn typed_round_trip<M: RequestMethod>(result: &RawJson, context: &str) -> M::Result {
    let typed: M::Result = result
        .decode()
        .unwrap_or_else(|e| panic!("{context}: {} result does not decode: {e}", M::METHOD));
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        result.to_value().unwrap(),
        "{context}: {} result is not lossless",
        M::METHOD
    );
    let from_value: M::Result =
        serde_json::from_value(result.to_value().unwrap()).unwrap_or_else(|e| {
            panic!(
                "{context}: {} result does not decode from a value: {e}",
                M::METHOD
            )
        });
    assert_eq!(
        serde_json::to_value(&from_value).unwrap(),
        serde_json::to_value(&typed).unwrap(),
        "{context}: {} reads differently from a value",
        M::METHOD
    );
    typed
}

/// Every item of a list reads as its type (lists keep their items' text,
/// so the result's round trip does not read them) and writes back the same.
fn items_round_trip<T: DeserializeOwned + Serialize>(items: &ItemList<T>, context: &str) {
    for (raw, item) in items.raw().iter().zip(items) {
        let item = item.unwrap_or_else(|e| panic!("{context}: {e}"));
        assert_eq!(
            serde_json::to_value(item).unwrap(),
            raw.to_value().unwrap(),
            "{context}: an item is not lossless"
        );
    }
}

#[derive(Default)]
struct Seen {
    messages: usize,
    typed_results: HashMap<&'static str, usize>,
}

fn check_result(method: &str, result: &RawJson, context: &str, seen: &mut Seen) {
    macro_rules! check {
        ($m:ty) => {{
            typed_round_trip::<$m>(result, context);
            *seen.typed_results.entry(<$m>::METHOD).or_default() += 1;
        }};
    }
    match method {
        "initialize" => check!(Initialize),
        "server/discover" => check!(Discover),
        "ping" => check!(Ping),
        "tools/list" => {
            items_round_trip(
                &typed_round_trip::<ListTools>(result, context).tools,
                context,
            );
            *seen.typed_results.entry("tools/list").or_default() += 1;
        }
        "tools/call" => check!(CallTool),
        "resources/list" => {
            let typed = typed_round_trip::<ListResources>(result, context);
            items_round_trip(&typed.resources, context);
            *seen.typed_results.entry("resources/list").or_default() += 1;
        }
        "resources/templates/list" => {
            let typed = typed_round_trip::<ListResourceTemplates>(result, context);
            items_round_trip(&typed.resource_templates, context);
            *seen
                .typed_results
                .entry("resources/templates/list")
                .or_default() += 1;
        }
        "prompts/list" => {
            let typed = typed_round_trip::<ListPrompts>(result, context);
            items_round_trip(&typed.prompts, context);
            *seen.typed_results.entry("prompts/list").or_default() += 1;
        }
        "roots/list" => check!(ListRoots),
        other => panic!("{context}: no typed check for {other}"),
    }
}

fn check_file(path: &std::path::Path, messages: Vec<Recorded>, seen: &mut Seen) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut methods: HashMap<(bool, RequestId), String> = HashMap::new();
    for (index, recorded) in messages.into_iter().enumerate() {
        let context = format!("{name} message {index}");
        let message = Message::from_slice(recorded.text.as_bytes())
            .unwrap_or_else(|e| panic!("{context}: {e}: {}", recorded.text));
        assert_eq!(
            message.to_value(),
            normalize(recorded.raw.clone()),
            "{context}: not lossless"
        );
        let from_value: Message = serde_json::from_value(recorded.raw.clone())
            .unwrap_or_else(|e| panic!("{context}: {e}: {}", recorded.raw));
        assert_eq!(
            from_value.to_value(),
            message.to_value(),
            "{context}: reads differently from a value"
        );
        seen.messages += 1;
        match &message {
            Message::Request(request) => {
                methods.insert(
                    (recorded.from_client, request.id.clone()),
                    request.method.clone(),
                );
            }
            Message::Response(response) => {
                if let Some(method) = methods.get(&(!recorded.from_client, response.id.clone())) {
                    check_result(method, &response.result, &context, seen);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_recorded_message_round_trips_losslessly() {
    let mut seen = Seen::default();
    for path in fixtures("stdio") {
        check_file(&path, stdio_messages(&path), &mut seen);
    }
    for path in fixtures("http") {
        check_file(&path, http_messages(&path), &mut seen);
    }
    assert_eq!(seen.messages, 298, "every recorded message is checked");
    for method in [
        "initialize",
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "roots/list",
    ] {
        assert!(
            seen.typed_results.get(method).copied().unwrap_or(0) > 0,
            "no {method} result was checked"
        );
    }
}

fn result_of(path: &str, method: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    let messages = stdio_messages(&path);
    let ids: Vec<Value> = messages
        .iter()
        .filter(|m| m.from_client && m.raw["method"] == method)
        .map(|m| m.raw["id"].clone())
        .collect();
    messages
        .into_iter()
        .filter(|m| !m.from_client && m.raw.get("result").is_some() && ids.contains(&m.raw["id"]))
        .map(|m| m.raw["result"].clone())
        .collect()
}

#[test]
fn real_values_from_the_transcripts() {
    let tools = |file: &str| -> usize {
        result_of(file, "tools/list")
            .into_iter()
            .map(|r| {
                serde_json::from_value::<<ListTools as RequestMethod>::Result>(r)
                    .unwrap()
                    .tools
                    .valid()
                    .count()
            })
            .sum()
    };
    assert_eq!(tools("stdio/everything-legacy.jsonl"), 13);
    assert_eq!(tools("stdio/everything-legacy-clientcaps.jsonl"), 16);
    assert_eq!(tools("stdio/filesystem-legacy.jsonl"), 14);
    assert_eq!(tools("stdio/time-modern.jsonl"), 2);

    let pages = result_of("stdio/fastmcp-paged-legacy.jsonl", "tools/list");
    assert_eq!(pages.len(), 3);
    let first: <ListTools as RequestMethod>::Result =
        serde_json::from_value(pages[0].clone()).unwrap();
    assert_eq!(first.next_cursor.as_deref(), Some("eyJvIjogMn0="));

    let discover: <Discover as RequestMethod>::Result =
        serde_json::from_value(result_of("stdio/time-modern.jsonl", "server/discover").remove(0))
            .unwrap();
    assert_eq!(discover.supported_versions, ["2026-07-28"]);
    assert_eq!(
        discover.cache_scope.as_ref().map(|s| s.as_str()),
        Some("private")
    );
    assert_eq!(discover.server_info().unwrap().name, "mcp-time");

    let init: <Initialize as RequestMethod>::Result =
        serde_json::from_value(result_of("stdio/everything-legacy.jsonl", "initialize").remove(0))
            .unwrap();
    assert_eq!(init.protocol_version, "2025-11-25");
    assert_eq!(init.server_info.name, "mcp-servers/everything");
    assert!(init.capabilities.tools.is_some() && init.capabilities.tasks.is_some());

    let everything: <ListTools as RequestMethod>::Result =
        serde_json::from_value(result_of("stdio/everything-legacy.jsonl", "tools/list").remove(0))
            .unwrap();
    assert!(
        everything.tools.valid().any(|t| t.execution.is_some()),
        "execution.taskSupport is kept"
    );
}
