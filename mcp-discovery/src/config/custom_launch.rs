//! A custom transport's launch: the entry's own fields are its settings,
//! every string in them expanded.

use serde_json::{Map, Value};

use super::expand::Expander;
use super::launch::{Launch, ReadLaunch};
use super::problems::ServerProblems;
use super::redact;

/// Fields every server has whatever its transport (not part of a custom transport's settings).
const COMMON_FIELDS: &[&str] = &[
    "type",
    "transport",
    "description",
    "enabled",
    "disabled",
    "timeout",
    "timeoutMs",
    "name",
    "rateLimit",
    "staleMaxAgeMs",
    "health",
    "tools",
    "prompts",
    "resources",
    "skills",
    "namespace",
];

/// A custom transport's settings: the entry but for the common fields,
/// every string expanded.
pub(crate) fn custom_launch(
    expander: &Expander<'_>,
    raw: &Map<String, Value>,
    transport: &str,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<ReadLaunch> {
    let before = problems.error_count();
    let mut settings = Map::new();
    for (key, value) in raw {
        if COMMON_FIELDS.contains(&key.as_str()) {
            continue;
        }
        if let Some(value) = expand_value(expander, key, value, problems) {
            settings.insert(key.clone(), value);
        }
    }
    if problems.error_count() > before {
        return None;
    }
    let shown_url = match (settings.get("url"), raw.get("url")) {
        (Some(Value::String(_)), Some(Value::String(written))) => {
            Some(redact::url_for_display(written))
        }
        (Some(Value::String(_)), _) => Some(String::new()),
        _ => None,
    };
    Some(ReadLaunch {
        launch: Launch::Custom {
            transport: transport.to_owned(),
            settings,
        },
        shown_args: Vec::new(),
        shown_url,
    })
}

/// Every string inside `value`, expanded.
fn expand_value(
    expander: &Expander<'_>,
    field: &str,
    value: &Value,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<Value> {
    Some(match value {
        Value::String(text) => Value::String(problems.expand(expander, field, text)?.text),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                out.push(expand_value(
                    expander,
                    &format!("{field}[{index}]"),
                    item,
                    problems,
                )?);
            }
            Value::Array(out)
        }
        Value::Object(members) => {
            let mut out = Map::new();
            for (key, item) in members {
                out.insert(
                    key.clone(),
                    expand_value(expander, &format!("{field}.{key}"), item, problems)?,
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}
