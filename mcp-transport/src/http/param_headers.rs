//! The 2026-07-28 HTTP headers derived from a request's body: `Mcp-Name`
//! values and the `Mcp-Param-*` headers of tool arguments annotated with
//! `x-mcp-header`, with the `=?base64?…?=` rule for unsafe values.

use std::collections::{HashMap, HashSet};

use base64::Engine as _;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::schema::{Schema, SchemaType, X_MCP_HEADER as ANNOTATION};
use serde_json::Value;
const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";
/// The largest integer a header may carry (IEEE 754 safe range).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Encodes a header value: as is when it is plain visible ASCII without
/// leading or trailing whitespace, else as `=?base64?<base64 of UTF-8>?=`.
pub fn encode_header_value(value: &str) -> String {
    let printable = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let looks_encoded = value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX);
    let plain = printable && !padded && !looks_encoded;
    if plain {
        value.to_owned()
    } else {
        format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            base64::engine::general_purpose::STANDARD.encode(value.as_bytes())
        )
    }
}

/// One argument mirrored into a header: where it sits in the arguments, and the header's name part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The chain of `properties` keys from the schema root.
    pub path: Vec<String>,
    /// The `{name}` of `Mcp-Param-{name}`.
    pub name: String,
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn count_annotations(value: &Value) -> usize {
    match value {
        Value::Object(object) => {
            usize::from(object.contains_key(ANNOTATION))
                + object.values().map(count_annotations).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_annotations).sum(),
        _ => 0,
    }
}

fn collect(
    schema: Schema<'_>,
    path: &mut Vec<String>,
    out: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    for (key, property) in schema.properties() {
        path.push(key.to_owned());
        if let Some(annotation) = property.keyword(ANNOTATION) {
            let name = annotation
                .as_str()
                .ok_or_else(|| format!("x-mcp-header of '{key}' is not a string"))?;
            if name.is_empty() {
                return Err(format!("x-mcp-header of '{key}' is empty"));
            }
            if !name.chars().all(is_tchar) {
                return Err(format!(
                    "x-mcp-header {name:?} of '{key}' is not an HTTP token"
                ));
            }
            match property.types() {
                SchemaType::One("string" | "integer" | "boolean") => {}
                other => {
                    let shown = match other {
                        SchemaType::One(kind) => kind,
                        SchemaType::Several(_) | SchemaType::Unstated => "unknown",
                    };
                    return Err(format!(
                        "x-mcp-header {name:?} is on '{key}' of type {shown}, not string, integer or boolean"
                    ));
                }
            }
            out.push(ParamHeader {
                path: path.clone(),
                name: name.to_owned(),
            });
        }
        collect(property, path, out)?;
        path.pop();
    }
    Ok(())
}

/// Reads and checks the `x-mcp-header` annotations of a tool's input schema.
/// An error says why the tool must be rejected.
pub fn tool_param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut headers = Vec::new();
    collect(Schema::new(input_schema), &mut Vec::new(), &mut headers)?;
    if count_annotations(input_schema) != headers.len() {
        return Err(
            "x-mcp-header is on a property that is not statically reachable through \"properties\""
                .into(),
        );
    }
    let mut seen = HashSet::new();
    for header in &headers {
        if !seen.insert(header.name.to_ascii_lowercase()) {
            return Err(format!(
                "x-mcp-header {:?} is not unique (case-insensitively)",
                header.name
            ));
        }
    }
    Ok(headers)
}

/// The `Mcp-Param-*` headers for a call's arguments; absent and null values are omitted.
pub fn param_header_values(headers: &[ParamHeader], arguments: &Value) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|header| {
            let value = header
                .path
                .iter()
                .try_fold(arguments, |value, key| value.get(key))?;
            let text = match value {
                Value::String(s) => encode_header_value(s),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => match n.as_i64() {
                    Some(i) if i.abs() <= MAX_SAFE_INTEGER => i.to_string(),
                    _ => return None,
                },
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", header.name), text))
        })
        .collect()
}

/// Removes from a `tools/list` result every tool whose `x-mcp-header`
/// annotations are invalid, or that cannot be read at all (with a warning
/// naming the tool and the reason), and returns the param headers of the
/// tools that have some.
///
/// Only tools whose text mentions `x-mcp-header` (or holds a `\u` escape,
/// which could spell it) are read. When a tool is rejected, or the result
/// repeats its `tools` member (the last one is what every reader takes, and
/// the only one kept), the result is rebuilt from the members' own text:
/// the tools that stay, and everything else, remain byte for byte as sent.
/// Otherwise the result is left untouched.
pub fn filter_tools_list(server: &str, result: &mut RawJson) -> HashMap<String, Vec<ParamHeader>> {
    let mut learned = HashMap::new();
    if !may_hold_param_headers(result.as_bytes()) {
        return learned;
    }
    // Not an object, or no tools array: the session reports that, not us.
    let Some(members) = result.members() else {
        return learned;
    };
    let Some(last) = members.iter().rposition(|(key, _)| key == "tools") else {
        return learned;
    };
    let Some(tools) = members[last].1.elements() else {
        return learned;
    };
    let listed = tools.len();
    let mut kept = Vec::with_capacity(listed);
    for tool in tools {
        if !may_hold_param_headers(tool.as_bytes()) {
            kept.push(tool);
            continue;
        }
        match read_param_headers(&tool) {
            Ok((name, headers)) => {
                if !headers.is_empty() {
                    learned.insert(name, headers);
                }
                kept.push(tool);
            }
            Err((name, reason)) => {
                tracing::warn!(server, tool = %name, %reason, "rejecting a tool definition");
            }
        }
    }
    let repeated = members.iter().filter(|(key, _)| key == "tools").count() > 1;
    if kept.len() != listed || repeated {
        *result = rebuilt(&members, last, &kept);
    }
    learned
}

/// A tool's name and param headers, or its name and why it is rejected.
fn read_param_headers(tool: &RawJson) -> Result<(String, Vec<ParamHeader>), (String, String)> {
    let tool = tool.to_value().map_err(|error| {
        (
            "<unreadable>".to_owned(),
            format!("not readable JSON: {error}"),
        )
    })?;
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>")
        .to_owned();
    let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
    match tool_param_headers(schema) {
        Ok(headers) => Ok((name, headers)),
        Err(reason) => Err((name, reason)),
    }
}

/// The result object again: its members' text as sent, in order, with the
/// `tools` member at `last` holding only `kept`, and no other `tools` member.
fn rebuilt(members: &[(String, RawJson)], last: usize, kept: &[RawJson]) -> RawJson {
    let mut text = String::from("{");
    for (index, (key, value)) in members.iter().enumerate() {
        if key == "tools" && index != last {
            continue;
        }
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(&Value::from(key.as_str()).to_string());
        text.push(':');
        if index == last {
            text.push('[');
            for (position, tool) in kept.iter().enumerate() {
                if position > 0 {
                    text.push(',');
                }
                text.push_str(tool.as_str());
            }
            text.push(']');
        } else {
            text.push_str(value.as_str());
        }
    }
    text.push('}');
    // Every part is valid JSON, so this always parses; if it somehow did not,
    // offering no tools is the safe answer.
    RawJson::parse(text).unwrap_or_else(|_| RawJson::from_value(&serde_json::json!({"tools": []})))
}

/// Whether JSON text could hold an `x-mcp-header` member.
fn may_hold_param_headers(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"x-mcp-header").is_some()
        || memchr::memmem::find(text, b"\\u").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_follow_the_spec_examples() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(
            encode_header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            encode_header_value("line1\nline2"),
            "=?base64?bGluZTEKbGluZTI=?="
        );
        assert_eq!(
            encode_header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode_header_value("us west 1"), "us west 1");
        assert_eq!(encode_header_value("\tindented"), "=?base64?CWluZGVudGVk?=");
    }

    #[test]
    fn headers_are_extracted_encoded_and_omitted_for_null() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "nested": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}},
            "query": {"type": "string"}
        }});
        let headers = tool_param_headers(&schema).unwrap();
        let values = param_header_values(
            &headers,
            &json!({"region": "Hello, 世界", "priority": 42, "verbose": null, "nested": {"zone": "a"}, "query": "x"}),
        );
        assert_eq!(
            values,
            vec![
                (
                    "Mcp-Param-Region".to_owned(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
                ),
                ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
                ("Mcp-Param-Zone".to_owned(), "a".to_owned()),
            ]
        );
    }

    #[test]
    fn invalid_annotations_reject_the_tool() {
        let bad = [
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "has space"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "co:lon"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "tab\t"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "ümlaut"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
        ];
        for schema in bad {
            assert!(tool_param_headers(&schema).is_err(), "{schema}");
        }
        let mut result = RawJson::from_value(&json!({"tools": [
            {"name": "good", "inputSchema": {"properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}},
            {"name": "bad", "inputSchema": {"properties": {"r": {"type": "number", "x-mcp-header": "N"}}}},
            {"name": "plain", "inputSchema": {"type": "object"}}
        ], "nextCursor": "c"}));
        let learned = filter_tools_list("s", &mut result);
        let result = result.to_value().unwrap();
        let names: Vec<_> = result["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["good", "plain"]);
        assert_eq!(result["nextCursor"], "c");
        assert_eq!(learned["good"][0].name, "Region");
    }

    #[test]
    fn a_list_without_param_headers_is_left_byte_for_byte() {
        let text = r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}] , "ttlMs": 0}"#;
        let mut result = RawJson::parse(text).unwrap();
        assert!(filter_tools_list("s", &mut result).is_empty());
        assert_eq!(result.as_str(), text);
    }

    #[test]
    fn unreadable_or_repeated_tools_are_not_let_through() {
        // A lone surrogate is valid JSON syntax, but no tool can be read from it.
        let text = r#"{"tools":[{"name":"ok","inputSchema":{"type":"object"}} , {"name":"odd\ud800","inputSchema":{"properties":{"r":{"type":"number","x-mcp-header":"N"}}}}],"nextCursor":"c",  "x":"\ud800"}"#;
        let mut result = RawJson::parse(text).unwrap();
        assert!(filter_tools_list("s", &mut result).is_empty());
        assert_eq!(
            result.as_str(),
            r#"{"tools":[{"name":"ok","inputSchema":{"type":"object"}}],"nextCursor":"c","x":"\ud800"}"#,
            "kept tools and other members stay as sent"
        );
        let text = r#"{"tools":[{"name":"first","inputSchema":{}}],"tools":[{"name":"t","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}"#;
        let mut result = RawJson::parse(text).unwrap();
        let learned = filter_tools_list("s", &mut result);
        assert_eq!(learned["t"][0].name, "Region");
        let tools = result.members().unwrap();
        assert_eq!(tools.len(), 1, "one tools member is left: {result}");
        assert_eq!(result.list_page("tools").unwrap().items.len(), 1);
    }

    #[test]
    fn an_escaped_member_name_is_still_seen() {
        let mut result = RawJson::parse(
            r#"{"tools":[{"name":"e","inputSchema":{"properties":{"r":{"type":"string","x-mcp-h\u0065ader":"Zone"}}}}]}"#,
        )
        .unwrap();
        let learned = filter_tools_list("s", &mut result);
        assert_eq!(learned["e"][0].name, "Zone");
    }
}
