//! The schemas the test catalog's elicitations ask with, as JSON text.

use serde_json::{Map, Value};

/// `test_elicitation`: a username and an email.
pub(crate) const USER_INFO: &str = r#"{
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}
    },
    "required": ["username", "email"]
}"#;

/// SEP-1034: a default of every primitive type.
pub(crate) const DEFAULTS: &str = r#"{
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true}
    }
}"#;

/// SEP-1330: the five kinds of enum.
pub(crate) const ENUMS: &str = r#"{
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": [
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}
        ]},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": [
            {"const": "value1", "title": "First Choice"},
            {"const": "value2", "title": "Second Choice"},
            {"const": "value3", "title": "Third Choice"}
        ]}}
    }
}"#;

/// One required string property `name`.
pub(crate) const NAME: &str =
    r#"{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}"#;
/// One required string property `color`.
pub(crate) const COLOR: &str =
    r#"{"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}"#;
/// One required string property `context`.
pub(crate) const CONTEXT: &str =
    r#"{"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}"#;
/// One required boolean property `ok`.
pub(crate) const CONFIRM: &str =
    r#"{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}"#;
/// One required boolean property `confirm` (the task tools' questions).
pub(crate) const DELETE_CONFIRM: &str = r#"{"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}"#;

/// A schema of this file as a value (each is checked by a test).
pub(crate) fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::Object(Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_an_object() {
        for text in [
            USER_INFO,
            DEFAULTS,
            ENUMS,
            NAME,
            COLOR,
            CONTEXT,
            CONFIRM,
            DELETE_CONFIRM,
        ] {
            let parsed: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parsed["type"], "object");
        }
    }
}
