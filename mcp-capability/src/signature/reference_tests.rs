//! The signatures read from text must match those the earlier `Value`-tree
//! code wrote (kept here as the reference) on any tool a server could send.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{JsonView, MAX_LEN, ToolView, tool_signature};
use mcpdisco_protocol::RawJson;

fn reference_signature(tool: &Value) -> String {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
    let params = tool.get("inputSchema").map(parameters).unwrap_or_default();
    let mut text = format!("{name}({})", params.join(", "));
    if let Some(output) = tool.get("outputSchema") {
        let fields: Vec<String> = output
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
        if !fields.is_empty() {
            text.push_str(&format!(" -> {{{}}}", fields.join(", ")));
        }
    }
    if text.chars().count() <= MAX_LEN {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_LEN - 1).collect();
    cut.push('…');
    cut
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

/// Short strings with the characters that need escaping, and wide ones.
fn text() -> impl Strategy<Value = String> {
    prop::string::string_regex("[a-z\"\\\\\n/é日]{0,6}").unwrap()
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A property schema: mostly the shapes signatures read, sometimes anything.
fn property() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        Just(json!("string")),
        Just(json!("array")),
        Just(json!(["integer", "null", 3])),
        any_json(),
    ];
    let shaped = (
        prop::option::of(kind),
        prop::option::of(prop::collection::vec(any_json(), 0..7)),
        prop::option::of(any_json()),
        any::<[bool; 3]>(),
    )
        .prop_map(|(kind, options, items, [reference, any_of, one_of])| {
            let mut schema = Map::new();
            if let Some(kind) = kind {
                schema.insert("type".into(), kind);
            }
            if let Some(options) = options {
                schema.insert("enum".into(), Value::Array(options));
            }
            if let Some(items) = items {
                schema.insert("items".into(), items);
            }
            for (present, key) in [(reference, "$ref"), (any_of, "anyOf"), (one_of, "oneOf")] {
                if present {
                    schema.insert(key.into(), json!([]));
                }
            }
            schema.insert("description".into(), json!("skipped"));
            Value::Object(schema)
        });
    prop_oneof![4 => shaped, 1 => any_json()]
}

/// An object schema with properties and required names.
fn object_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((text(), property()), 0..6),
        prop::collection::vec(
            prop_oneof![text().prop_map(Value::String), any_json()],
            0..4,
        ),
    )
        .prop_map(|(properties, required)| {
            let properties: Map<String, Value> = properties.into_iter().collect();
            json!({"type": "object", "properties": properties, "required": required})
        })
}

fn tool() -> impl Strategy<Value = Value> {
    (
        prop_oneof![text().prop_map(Value::String), any_json()],
        prop_oneof![4 => object_schema(), 1 => any_json()],
        prop::option::of(object_schema()),
    )
        .prop_map(|(name, input, output)| {
            let mut tool = json!({"name": name, "inputSchema": input});
            if let Some(output) = output {
                tool["outputSchema"] = output;
            }
            tool
        })
}

proptest! {
    #[test]
    fn signatures_read_from_text_match_the_value_tree_reference(tool in tool()) {
        // Pretty-printed, so the text has whitespace everywhere it may.
        let raw = RawJson::parse(serde_json::to_string_pretty(&tool).unwrap()).unwrap();
        let ours = tool_signature(&ToolView::read(JsonView::of(&raw)));
        // The earlier code read the same text into a tree.
        prop_assert_eq!(ours, reference_signature(&raw.to_value().unwrap()));
    }
}
