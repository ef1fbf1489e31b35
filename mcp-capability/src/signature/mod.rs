//! Compact signatures: `add(a: number, b: number, note?: string) -> {sum}`,
//! read from the items' JSON text without building a tree.

use std::borrow::Cow;
use std::collections::HashSet;

pub use mcpdisco_protocol::{JsonView, PromptView, ToolView};
use serde_json::Value;
use serde_json::value::RawValue;

#[cfg(test)]
mod reference_tests;
mod schema;
use schema::{Kind, Parameters, PropertyType};

/// The longest signature shown before it is cut with `…`.
const MAX_LEN: usize = 120;

/// The text of a string member, or `fallback` when it is missing or not a string.
pub fn text_or<'a>(member: Option<JsonView<'a>>, fallback: &'a str) -> Cow<'a, str> {
    member
        .and_then(JsonView::as_str)
        .unwrap_or(Cow::Borrowed(fallback))
}

/// The signature of a tool from its `inputSchema` (and `outputSchema`).
pub fn tool_signature(tool: &ToolView<'_>) -> String {
    let mut text = String::with_capacity(64);
    text.push_str(&text_or(tool.name, "?"));
    text.push('(');
    if let Some(schema) = tool.input_schema {
        write_parameters(&mut text, schema);
    }
    text.push(')');
    let fields = tool
        .output_schema
        .and_then(|schema| schema.get("properties"))
        .and_then(JsonView::members)
        .unwrap_or_default();
    if !fields.is_empty() {
        // A repeated field is shown once, where it first appears.
        let mut seen = HashSet::new();
        text.push_str(" -> {");
        write_joined(
            &mut text,
            fields
                .iter()
                .map(|(name, _)| name.as_ref())
                .filter(|name| seen.insert(*name)),
            ", ",
        );
        text.push('}');
    }
    shorten(text, MAX_LEN)
}

/// The signature of a prompt from its `arguments`.
pub fn prompt_signature(prompt: &PromptView<'_>) -> String {
    let arguments: Vec<String> = prompt
        .arguments
        .and_then(JsonView::elements)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|argument| {
            let [name, required] = argument.pick(["name", "required"]);
            let name = name?.as_str()?;
            Some(if required.and_then(JsonView::as_bool) == Some(true) {
                name.into_owned()
            } else {
                format!("{name}?")
            })
        })
        .collect();
    shorten(
        format!("{}({})", text_or(prompt.name, "?"), arguments.join(", ")),
        MAX_LEN,
    )
}

/// `name: type, other?: type` from an object schema's `properties` and `required`.
/// A schema serde_json cannot read shows as `…`.
fn write_parameters(out: &mut String, schema: JsonView<'_>) {
    let Some(parameters) = Parameters::read(schema.text()) else {
        out.push('…');
        return;
    };
    for (index, (name, property)) in parameters.properties.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
        if !parameters.required.contains(name) {
            out.push('?');
        }
        out.push_str(": ");
        write_type(out, property);
    }
}

/// `string`, `number[]`, `"a"|"b"`, `string|null`, `object`, or `any`.
fn write_type(out: &mut String, property: &PropertyType<'_>) {
    if let Some(options) = &property.options {
        write_joined(
            out,
            options.iter().take(4).map(|option| enum_text(option)),
            "|",
        );
        if options.len() > 4 {
            out.push_str("|…");
        }
        return;
    }
    match &property.kind {
        Kind::One(kind) if kind == "array" => {
            match &property.items {
                Some(items) => write_type(out, items),
                None => out.push_str("any"),
            }
            out.push_str("[]");
        }
        Kind::One(kind) => out.push_str(kind),
        Kind::Several(kinds) => write_joined(out, kinds.iter(), "|"),
        Kind::Unknown if property.reference => out.push_str("ref"),
        Kind::Unknown if property.union => out.push_str("union"),
        Kind::Unknown => out.push_str("any"),
    }
}

/// An `enum` option as compact JSON: a plain string's own text, anything
/// else written anew.
fn enum_text(option: &RawValue) -> Cow<'_, str> {
    let text = option.get();
    if text.starts_with('"') && !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    serde_json::from_str::<Value>(text)
        .map_or(Cow::Borrowed(text), |value| Cow::Owned(value.to_string()))
}

fn write_joined<T: AsRef<str>>(out: &mut String, parts: impl Iterator<Item = T>, separator: &str) {
    for (index, part) in parts.enumerate() {
        if index > 0 {
            out.push_str(separator);
        }
        out.push_str(part.as_ref());
    }
}

/// `text` when it has at most `max_chars` characters; else its first
/// `max_chars - 1` and `…`.
pub fn shorten(mut text: String, max_chars: usize) -> String {
    if text.len() <= max_chars {
        return text;
    }
    let mut starts = text.char_indices().map(|(start, _)| start);
    if let (Some(cut), Some(_)) = (starts.nth(max_chars.saturating_sub(1)), starts.next()) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::RawJson;
    use serde_json::json;

    fn tool(tool: &Value) -> String {
        let raw = RawJson::from_value(tool);
        tool_signature(&ToolView::read(JsonView::of(&raw)))
    }

    fn prompt(prompt: &Value) -> String {
        let raw = RawJson::from_value(prompt);
        prompt_signature(&PromptView::read(JsonView::of(&raw)))
    }

    #[test]
    fn tool_signature_shows_types_optionals_and_outputs() {
        let search = json!({
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
            tool(&search),
            r#"search(query: string, limit?: integer, tags?: string[], mode?: "fast"|"deep", maybe?: string|null) -> {hits}"#
        );
        assert_eq!(tool(&json!({"name": "now"})), "now()");
        assert_eq!(tool(&json!(["not", "a", "tool"])), "?()");
    }

    #[test]
    fn unusual_schemas_read_as_their_kind_or_any() {
        let odd = json!({"name": "odd", "inputSchema": {"properties": {
            "a": {"$ref": "#/defs/a"},
            "b": {"anyOf": [{"type": "string"}]},
            "c": true,
            "d": {"type": 7},
            "e": {"type": "array"},
            "f": {"enum": [1, "x\ny", null, 2.5, "more"]}
        }, "required": ["a", 3]}});
        assert_eq!(
            tool(&odd),
            r#"odd(a: ref, b?: union, c?: any, d?: any, e?: any[], f?: 1|"x\ny"|null|2.5|…)"#
        );
    }

    #[test]
    fn repeated_members_show_once() {
        let raw = RawJson::parse(
            r#"{"name": "twice", "inputSchema": {"properties": {"a": {"type": "string"}, "b": {}, "a": {"type": "number"}}, "required": ["a"]},
                "outputSchema": {"properties": {"x": {}, "y": {}, "x": {}}}}"#,
        )
        .unwrap();
        assert_eq!(
            tool_signature(&ToolView::read(JsonView::of(&raw))),
            "twice(a: number, b?: any) -> {x, y}"
        );
        let raw =
            RawJson::parse(r#"{"name": "odd", "inputSchema": {"properties": {"\ud800": {}}}}"#)
                .unwrap();
        assert_eq!(
            tool_signature(&ToolView::read(JsonView::of(&raw))),
            "odd(…)"
        );
    }

    #[test]
    fn prompt_signature_marks_optional_arguments() {
        let greet = json!({"name": "greet", "arguments": [
            {"name": "name", "required": true}, {"name": "tone"}, {"required": true}
        ]});
        assert_eq!(prompt(&greet), "greet(name, tone?)");
    }

    #[test]
    fn long_signatures_are_cut() {
        let properties: serde_json::Map<String, Value> = (0..40)
            .map(|i| (format!("parameter_{i}"), json!({"type": "string"})))
            .collect();
        let signature = tool(&json!({"name": "wide", "inputSchema": {"properties": properties}}));
        assert_eq!(signature.chars().count(), MAX_LEN);
        assert!(signature.ends_with('…'));
    }
}
