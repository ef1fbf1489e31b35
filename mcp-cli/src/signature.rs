//! Compact signatures: `add(a: number, b: number, note?: string) -> {sum}`.

use serde_json::Value;

/// The longest signature shown before it is cut with `…`.
const MAX_LEN: usize = 120;

/// The signature of a tool from its `inputSchema` (and `outputSchema`).
pub fn tool_signature(tool: &Value) -> String {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
    let params = tool.get("inputSchema").map(parameters).unwrap_or_default();
    let mut text = format!("{name}({})", params.join(", "));
    if let Some(output) = tool.get("outputSchema") {
        let fields = object_keys(output);
        if !fields.is_empty() {
            text.push_str(&format!(" -> {{{}}}", fields.join(", ")));
        }
    }
    shorten(text)
}

/// The signature of a prompt from its `arguments`.
pub fn prompt_signature(prompt: &Value) -> String {
    let name = prompt.get("name").and_then(Value::as_str).unwrap_or("?");
    let arguments: Vec<String> = prompt
        .get("arguments")
        .and_then(Value::as_array)
        .map(|arguments| {
            arguments
                .iter()
                .filter_map(|argument| {
                    let name = argument.get("name")?.as_str()?;
                    let required = argument.get("required").and_then(Value::as_bool) == Some(true);
                    Some(if required {
                        name.to_owned()
                    } else {
                        format!("{name}?")
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    shorten(format!("{name}({})", arguments.join(", ")))
}

fn parameters(schema: &Value) -> Vec<String> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{optional}: {}", type_of(property))
        })
        .collect()
}

fn object_keys(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// `string`, `number[]`, `"a"|"b"`, `string|null`, `object`, or `any`.
fn type_of(property: &Value) -> String {
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        let shown: Vec<String> = options.iter().take(4).map(Value::to_string).collect();
        let more = if options.len() > 4 { "|…" } else { "" };
        return format!("{}{more}", shown.join("|"));
    }
    match property.get("type") {
        Some(Value::String(kind)) if kind == "array" => {
            let item = property
                .get("items")
                .map_or_else(|| "any".to_owned(), type_of);
            format!("{item}[]")
        }
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if property.get("$ref").is_some() => "ref".to_owned(),
        _ if property.get("anyOf").is_some() || property.get("oneOf").is_some() => {
            "union".to_owned()
        }
        _ => "any".to_owned(),
    }
}

fn shorten(text: String) -> String {
    if text.chars().count() <= MAX_LEN {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_LEN - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_signature_shows_types_optionals_and_outputs() {
        let tool = json!({
            "name": "search",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "mode": {"enum": ["fast", "deep"]},
                "maybe": {"type": ["string", "null"]}
            }, "required": ["query"]},
            "outputSchema": {"type": "object", "properties": {"hits": {}}}
        });
        assert_eq!(
            tool_signature(&tool),
            r#"search(query: string, limit?: integer, tags?: string[], mode?: "fast"|"deep", maybe?: string|null) -> {hits}"#
        );
        assert_eq!(tool_signature(&json!({"name": "now"})), "now()");
    }

    #[test]
    fn prompt_signature_marks_optional_arguments() {
        let prompt = json!({"name": "greet", "arguments": [
            {"name": "name", "required": true}, {"name": "tone"}
        ]});
        assert_eq!(prompt_signature(&prompt), "greet(name, tone?)");
    }

    #[test]
    fn long_signatures_are_cut() {
        let properties: serde_json::Map<String, Value> = (0..40)
            .map(|i| (format!("parameter_{i}"), json!({"type": "string"})))
            .collect();
        let tool = json!({"name": "wide", "inputSchema": {"properties": properties}});
        let signature = tool_signature(&tool);
        assert_eq!(signature.chars().count(), MAX_LEN);
        assert!(signature.ends_with('…'));
    }
}
