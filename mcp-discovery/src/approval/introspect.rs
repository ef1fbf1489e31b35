//! Output types by trying (opt-in, `mcp-cli export --introspect-output`): a
//! tool that says it only reads (`readOnlyHint: true`, not
//! `destructiveHint`) and declares no `outputSchema` is called once with the
//! smallest valid input, under a short timeout, and its output type is
//! inferred from `structuredContent` or from JSON text content. Any failure
//! leaves the type unknown; no other tool is ever called.

use std::time::Duration;

use serde_json::{Map, Value};

use mcpdisco_capability::types::{Field, TypeExpr};
use mcpdisco_client::protocol::types::{CallToolParams, CallToolResult};
use mcpdisco_client::session::{RequestOptions, Session};

/// How long an introspection call may take.
pub const INTROSPECTION_TIMEOUT: Duration = Duration::from_secs(5);
/// The deepest nesting of generated arguments.
const MAX_DEPTH: usize = 8;

/// Whether `tool` may be called to learn its output: it says it only reads,
/// does not say it destroys, and declares no output schema.
pub fn eligible(tool: &Value) -> bool {
    let hint = |key: &str| tool["annotations"].get(key).and_then(Value::as_bool);
    hint("readOnlyHint") == Some(true)
        && hint("destructiveHint") != Some(true)
        && tool.get("outputSchema").is_none()
}

/// The smallest arguments `schema` accepts: required members only, each its
/// default, else its first example, else its first enum value or const,
/// else an empty value of its type.
pub fn minimal_arguments(schema: &Value) -> Value {
    minimal(schema, 0)
}

fn minimal(schema: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    for key in ["default", "const"] {
        if let Some(value) = schema.get(key) {
            return value.clone();
        }
    }
    for key in ["examples", "enum"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return first.clone();
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "null",
    };
    match kind {
        "string" => Value::String(String::new()),
        "integer" | "number" => {
            Value::from(schema.get("minimum").and_then(Value::as_i64).unwrap_or(0))
        }
        "boolean" => Value::Bool(false),
        "array" => Value::Array(Vec::new()),
        "object" => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut object = Map::new();
            for name in required {
                let property = schema["properties"].get(name).unwrap_or(&Value::Null);
                object.insert(name.to_owned(), minimal(property, depth + 1));
            }
            Value::Object(object)
        }
        _ => Value::Null,
    }
}

/// The type of a value as seen: every member of an object required, an
/// array's items the alternatives seen.
pub fn type_of_value(value: &Value) -> TypeExpr {
    match value {
        Value::Null => TypeExpr::Nil,
        Value::Bool(_) => TypeExpr::Bool,
        Value::Number(number) if number.is_i64() || number.is_u64() => TypeExpr::Int,
        Value::Number(_) => TypeExpr::Float,
        Value::String(_) => TypeExpr::String,
        Value::Array(items) => {
            let mut seen: Vec<TypeExpr> = Vec::new();
            for item in items.iter().take(64) {
                let ty = type_of_value(item);
                if !seen.contains(&ty) {
                    seen.push(ty);
                }
            }
            TypeExpr::Vector(Box::new(match seen.len() {
                0 => TypeExpr::Any,
                1 => seen.pop().unwrap_or(TypeExpr::Any),
                _ => TypeExpr::Or(seen),
            }))
        }
        Value::Object(members) => TypeExpr::Map(
            members
                .iter()
                .map(|(name, value)| Field {
                    name: name.clone(),
                    optional: false,
                    ty: type_of_value(value),
                })
                .collect(),
        ),
    }
}

/// The output type a `tools/call` result shows: its `structuredContent`,
/// else its first text content when that is JSON. `None` for an error
/// result or anything else.
pub fn output_type_of_result(result: &CallToolResult) -> Option<TypeExpr> {
    if result.is_error() {
        return None;
    }
    if let Some(structured) = &result.structured_content {
        return Some(type_of_value(structured));
    }
    let text = result.content.iter().find_map(|block| block.as_text())?;
    let parsed: Value = serde_json::from_str(text.trim()).ok()?;
    matches!(parsed, Value::Object(_) | Value::Array(_)).then(|| type_of_value(&parsed))
}

/// Calls `tool` once, if [`eligible`], and infers its output type.
pub async fn introspect(session: &Session, tool: &Value) -> Option<TypeExpr> {
    if !eligible(tool) {
        return None;
    }
    let name = tool.get("name")?.as_str()?;
    let arguments = tool
        .get("inputSchema")
        .map_or_else(|| Value::Object(Map::new()), minimal_arguments);
    let result = session
        .call_tool(
            CallToolParams::new(name, Some(arguments)),
            RequestOptions::new().timeout(INTROSPECTION_TIMEOUT),
        )
        .await
        .ok()?;
    output_type_of_result(&result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_read_only_tools_without_an_output_schema_are_eligible() {
        assert!(eligible(
            &json!({"name": "a", "annotations": {"readOnlyHint": true}})
        ));
        assert!(!eligible(&json!({"name": "a"})));
        assert!(!eligible(
            &json!({"name": "a", "annotations": {"readOnlyHint": true, "destructiveHint": true}})
        ));
        assert!(!eligible(
            &json!({"name": "a", "annotations": {"readOnlyHint": true}, "outputSchema": {}})
        ));
    }

    #[test]
    fn minimal_inputs_take_required_members_from_defaults_examples_enums_or_empties() {
        let schema = json!({"type": "object", "required": ["q", "n", "mode", "tz", "deep", "flag"],
            "properties": {
                "q": {"type": "string"}, "n": {"type": "integer", "minimum": 1},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "tz": {"type": "string", "examples": ["UTC"]},
                "deep": {"type": "object", "required": ["x"], "properties": {"x": {"type": "boolean", "default": true}}},
                "flag": {"type": ["boolean", "null"]},
                "optional": {"type": "string"}}});
        assert_eq!(
            minimal_arguments(&schema),
            json!({"q": "", "n": 1, "mode": "fast", "tz": "UTC", "deep": {"x": true}, "flag": false})
        );
    }

    /// A `tools/call` result, as a server would send it.
    fn result(json: Value) -> CallToolResult {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn output_types_from_structured_content_or_json_text() {
        let structured =
            json!({"content": [], "structuredContent": {"id": 1, "tags": ["a"], "score": 0.5}});
        assert_eq!(
            output_type_of_result(&result(structured))
                .unwrap()
                .to_rtfs(),
            "[:map [:id :int] [:tags [:vector :string]] [:score :float]]"
        );
        let text = json!({"content": [{"type": "text", "text": "[{\"a\": null}]"}]});
        assert_eq!(
            output_type_of_result(&result(text)).unwrap().to_rtfs(),
            "[:vector [:map [:a :nil]]]"
        );
        assert_eq!(
            output_type_of_result(&result(
                json!({"content": [{"type": "text", "text": "hello"}]})
            )),
            None
        );
        assert_eq!(
            output_type_of_result(&result(json!({"isError": true, "structuredContent": {}}))),
            None
        );
    }
}
