//! Output types by trying (opt-in, `mcp-cli export --introspect-output`): a
//! tool that says it only reads (`readOnlyHint: true`, not
//! `destructiveHint`) and declares no `outputSchema` is called once with the
//! smallest valid input, under a short timeout, and its output type is
//! inferred from `structuredContent` or from JSON text content. Any failure
//! leaves the type unknown; no other tool is ever called.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Map, Value};

use mcpdisco_capability::types::{Field, TypeExpr};
use mcpdisco_client::protocol::types::{CallToolParams, CallToolResult, Tool};
use mcpdisco_client::session::{ListKind, RequestOptions, Session, SessionError};
use mcpdisco_protocol::schema::{Schema, SchemaType};

use super::warning::Warning;
use crate::config::ServerConfig;
use crate::report::{DiscoveryReport, ServerStatus};

/// How long an introspection call may take.
pub const INTROSPECTION_TIMEOUT: Duration = Duration::from_secs(5);
/// The deepest nesting of generated arguments.
const MAX_DEPTH: usize = 8;

/// Whether `tool` may be called to learn its output: it says it only reads,
/// does not say it destroys, and declares no output schema.
pub fn eligible(tool: &Tool) -> bool {
    let hints = tool.annotations.as_ref();
    hints.and_then(|h| h.read_only_hint) == Some(true)
        && hints.and_then(|h| h.destructive_hint) != Some(true)
        && tool.output_schema.is_none()
}

/// The smallest arguments `schema` accepts: required members only, each its
/// default, else its first example, else its first enum value or const,
/// else an empty value of its type.
pub fn minimal_arguments(schema: &Value) -> Value {
    minimal(Schema::new(schema), 0)
}

fn minimal(schema: Schema<'_>, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(value) = schema.default_value().or_else(|| schema.const_value()) {
        return value.clone();
    }
    let first = |values: Option<&[Value]>| values.and_then(<[Value]>::first).cloned();
    if let Some(value) = first(schema.examples()).or_else(|| first(schema.enum_values())) {
        return value;
    }
    let kind = match schema.types() {
        SchemaType::One(kind) => kind,
        SchemaType::Several(kinds) => kinds.into_iter().find(|k| *k != "null").unwrap_or("null"),
        SchemaType::Unstated if schema.has("properties") => "object",
        SchemaType::Unstated => "null",
    };
    match kind {
        "string" => Value::String(String::new()),
        "integer" | "number" => Value::from(
            schema
                .keyword("minimum")
                .and_then(Value::as_i64)
                .unwrap_or(0),
        ),
        "boolean" => Value::Bool(false),
        "array" => Value::Array(Vec::new()),
        "object" => {
            let mut object = Map::new();
            for name in schema.required() {
                let property = schema
                    .property(name)
                    .map_or(Value::Null, |property| minimal(property, depth + 1));
                object.insert(name.to_owned(), property);
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
pub async fn introspect(session: &Session, tool: &Tool) -> Option<TypeExpr> {
    if !eligible(tool) {
        return None;
    }
    let arguments = match tool
        .input_schema
        .to_value()
        .map(|schema| minimal_arguments(&schema))
    {
        Ok(Value::Object(arguments)) => arguments,
        _ => Map::new(),
    };
    let result = session
        .call_tool(
            CallToolParams::new(&tool.name, Some(arguments)),
            RequestOptions::new().timeout(INTROSPECTION_TIMEOUT),
        )
        .await
        .ok()?;
    output_type_of_result(&result)
}

/// Output types learnt by calling tools, by server and tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputTypes {
    types: HashMap<(String, String), TypeExpr>,
}

impl OutputTypes {
    /// The output type learnt for `server`'s tool `tool`.
    pub fn get(&self, server: &str, tool: &str) -> Option<&TypeExpr> {
        self.types.get(&(server.to_owned(), tool.to_owned()))
    }

    /// Records `ty` as the output type of `server`'s tool `tool`.
    pub fn insert(&mut self, server: &str, tool: &str, ty: TypeExpr) {
        self.types.insert((server.to_owned(), tool.to_owned()), ty);
    }

    /// How many were learnt.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }
}

/// What [`output_types`] learnt, and what it passed over.
#[derive(Debug, Clone, Default)]
pub struct Introspection {
    /// The output types learnt.
    pub types: OutputTypes,
    /// A server that could not be connected to, a tool whose type stays unknown.
    pub warnings: Vec<Warning>,
}

/// The output types of the [`eligible`] tools of every ready server of
/// `report` (configured in `servers`): each such tool called once, over a
/// session `connect` opens (within whatever deadline the host gives it)
/// and that is closed afterwards. A server with no eligible tool is not
/// connected to; failures leave types unknown, each with a warning.
pub async fn output_types(
    servers: &[ServerConfig],
    report: &DiscoveryReport,
    connect: impl AsyncFn(&ServerConfig) -> Result<Session, SessionError>,
) -> Introspection {
    let mut learnt = Introspection::default();
    for server_report in report
        .servers
        .iter()
        .filter(|r| r.status == ServerStatus::Ready)
    {
        let tools: Vec<Tool> = server_report
            .items(ListKind::Tools)
            .iter()
            .filter_map(|tool| tool.decode::<Tool>().ok())
            .filter(eligible)
            .collect();
        let Some(server) = servers.iter().find(|s| s.name == server_report.name) else {
            continue;
        };
        if tools.is_empty() {
            continue;
        }
        let session = match connect(server).await {
            Ok(session) => session,
            Err(error) => {
                learnt.warnings.push(Warning::NoOutputTypes {
                    server: server.name.clone(),
                    error: error.to_string(),
                });
                continue;
            }
        };
        for tool in &tools {
            match introspect(&session, tool).await {
                Some(ty) => learnt.types.insert(&server.name, &tool.name, ty),
                None => learnt.warnings.push(Warning::OutputTypeUnknown {
                    server: server.name.clone(),
                    tool: tool.name.clone(),
                }),
            }
        }
        if let Err(error) = session.close().await {
            tracing::debug!(server = %server.name, %error, "closing after introspection");
        }
    }
    learnt
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_read_only_tools_without_an_output_schema_are_eligible() {
        let eligible = |tool: Value| {
            let mut tool = tool;
            tool["inputSchema"] = json!({});
            eligible(&serde_json::from_value(tool).unwrap())
        };
        assert!(eligible(
            json!({"name": "a", "annotations": {"readOnlyHint": true}})
        ));
        assert!(!eligible(json!({"name": "a"})));
        assert!(!eligible(
            json!({"name": "a", "annotations": {"readOnlyHint": true, "destructiveHint": true}})
        ));
        assert!(!eligible(
            json!({"name": "a", "annotations": {"readOnlyHint": true}, "outputSchema": {}})
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
