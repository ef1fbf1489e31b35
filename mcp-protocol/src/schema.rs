//! [`Schema`]: a JSON Schema (a tool's `inputSchema` or `outputSchema`, an
//! elicitation's `requestedSchema`) read keyword by keyword, the one reader
//! every crate walks schemas with.
//!
//! A schema is whatever its sender wrote, so every reader is lenient: a
//! keyword of an unexpected type reads as absent (`"required": "a"` is no
//! required names, `"properties": [1]` no properties), a name in
//! `required` that is not a string is left out, and a schema that is not an
//! object (`true`, say) has no keywords at all. Nothing is resolved or
//! merged behind the caller's back: [`reference`](Schema::reference) says
//! where a `$ref` points and [`resolve`](Schema::resolve) follows a local
//! one when asked; what to make of `allOf`, `anyOf` and `oneOf` is each
//! user's own rule. The walk itself (how deep, in what order, what it
//! builds) stays with each user too: the type expressions of
//! `mcpdisco-capability`, the minimal arguments of `mcpdisco`'s
//! introspection, the `x-mcp-header` rules of `mcpdisco-transport`.

use serde_json::Value;

/// The keyword of a tool argument's schema that names the HTTP header its
/// value is repeated in (`Mcp-Param-<name>`, SEP-2243).
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// A JSON Schema, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schema<'a> {
    value: &'a Value,
}

/// What a schema's `type` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaType<'a> {
    /// No `type`, or one that is neither a string nor an array.
    Unstated,
    /// `"type": "string"`.
    One(&'a str),
    /// `"type": ["string", "null"]`: the names that are strings, in order,
    /// as written (repeats kept).
    Several(Vec<&'a str>),
}

impl<'a> Schema<'a> {
    /// The schema `value` (anything: a schema that is not an object has no
    /// keywords).
    pub fn new(value: &'a Value) -> Self {
        Self { value }
    }

    /// The schema as written.
    pub fn value(self) -> &'a Value {
        self.value
    }

    /// Keyword `name` as written, whatever its type.
    pub fn keyword(self, name: &str) -> Option<&'a Value> {
        self.value.get(name)
    }

    /// Whether keyword `name` is there, whatever its type.
    pub fn has(self, name: &str) -> bool {
        self.keyword(name).is_some()
    }

    /// Keyword `name` when it is an array.
    fn array(self, name: &str) -> Option<&'a [Value]> {
        self.keyword(name)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
    }

    /// `type`.
    pub fn types(self) -> SchemaType<'a> {
        match self.keyword("type") {
            Some(Value::String(name)) => SchemaType::One(name),
            Some(Value::Array(names)) => {
                SchemaType::Several(names.iter().filter_map(Value::as_str).collect())
            }
            _ => SchemaType::Unstated,
        }
    }

    /// `properties`, in the order written: each name with its schema.
    /// Empty when there are none or `properties` is not an object.
    pub fn properties(self) -> impl Iterator<Item = (&'a str, Schema<'a>)> {
        self.keyword("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, schema)| (name.as_str(), Schema::new(schema)))
    }

    /// The schema of property `name`.
    pub fn property(self, name: &str) -> Option<Schema<'a>> {
        self.keyword("properties")
            .and_then(|properties| properties.get(name))
            .map(Schema::new)
    }

    /// The names in `required` that are strings, in the order written.
    pub fn required(self) -> impl Iterator<Item = &'a str> {
        self.array("required")
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
    }

    /// `items`: the schema of an array's elements.
    pub fn items(self) -> Option<Schema<'a>> {
        self.keyword("items").map(Schema::new)
    }

    /// `enum`, when it is an array.
    pub fn enum_values(self) -> Option<&'a [Value]> {
        self.array("enum")
    }

    /// `const` (which may be `null`).
    pub fn const_value(self) -> Option<&'a Value> {
        self.keyword("const")
    }

    /// `default` (which may be `null`).
    pub fn default_value(self) -> Option<&'a Value> {
        self.keyword("default")
    }

    /// `examples`, when it is an array.
    pub fn examples(self) -> Option<&'a [Value]> {
        self.array("examples")
    }

    /// `$ref`, when it is a string.
    pub fn reference(self) -> Option<&'a str> {
        self.keyword("$ref").and_then(Value::as_str)
    }

    /// The alternatives of `anyOf`, else of `oneOf` (the first of the two
    /// that is an array).
    pub fn alternatives(self) -> Option<&'a [Value]> {
        self.array("anyOf").or_else(|| self.array("oneOf"))
    }

    /// The parts of `allOf`, when it is an array.
    pub fn all_of(self) -> Option<&'a [Value]> {
        self.array("allOf")
    }

    /// What `reference` points to when it is local to this schema, taken as
    /// the document's root (`#`, `#/$defs/Node`, `#/definitions/Old`);
    /// `None` for another document's or a pointer to nothing.
    pub fn resolve(self, reference: &str) -> Option<Schema<'a>> {
        reference
            .strip_prefix('#')
            .and_then(|pointer| self.value.pointer(pointer))
            .map(Schema::new)
    }
}

impl<'a> SchemaType<'a> {
    /// The names, in order.
    pub fn names(&self) -> &[&'a str] {
        match self {
            SchemaType::Unstated => &[],
            SchemaType::One(name) => std::slice::from_ref(name),
            SchemaType::Several(names) => names,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keywords_of_an_unexpected_type_read_as_absent() {
        let value = json!({"type": 7, "properties": [1], "required": "a", "enum": "x",
            "anyOf": {"a": 1}, "oneOf": [{"type": "string"}], "$ref": 3, "items": true});
        let schema = Schema::new(&value);
        assert_eq!(schema.types(), SchemaType::Unstated);
        assert_eq!(schema.properties().count(), 0);
        assert!(schema.has("properties"));
        assert!(schema.property("0").is_none());
        assert_eq!(schema.required().count(), 0);
        assert!(schema.enum_values().is_none());
        assert_eq!(
            schema.alternatives(),
            Some(&[json!({"type": "string"})][..]),
            "oneOf, since anyOf is not an array"
        );
        assert!(schema.reference().is_none());
        assert_eq!(schema.items().unwrap().value(), &json!(true));
        let not_an_object = json!(true);
        let schema = Schema::new(&not_an_object);
        assert!(schema.keyword("type").is_none() && schema.properties().count() == 0);
    }

    #[test]
    fn properties_keep_their_order_and_required_keeps_its_strings() {
        let value = json!({"type": ["string", 1, "null", "string"],
            "properties": {"z": {"type": "string"}, "a": {}},
            "required": ["a", 7, "z"]});
        let schema = Schema::new(&value);
        let names: Vec<&str> = schema.properties().map(|(name, _)| name).collect();
        assert_eq!(names, ["z", "a"]);
        assert_eq!(schema.required().collect::<Vec<_>>(), ["a", "z"]);
        assert_eq!(
            schema.types().names(),
            ["string", "null", "string"],
            "strings only, repeats kept"
        );
        assert_eq!(
            schema.property("z").unwrap().types(),
            SchemaType::One("string")
        );
    }

    #[test]
    fn local_references_resolve_from_the_root() {
        let value = json!({"$defs": {"Node": {"type": "object"}}, "definitions": {"Old": true}});
        let root = Schema::new(&value);
        assert_eq!(
            root.resolve("#/$defs/Node").unwrap().types(),
            SchemaType::One("object")
        );
        assert_eq!(
            root.resolve("#/definitions/Old").unwrap().value(),
            &json!(true)
        );
        assert_eq!(root.resolve("#").unwrap(), root);
        assert!(root.resolve("#/$defs/Missing").is_none());
        assert!(root.resolve("https://example.com/schema").is_none());
    }
}
