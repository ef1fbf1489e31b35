//! Type expressions: a tool's JSON Schema as one compact tree, rendered as
//! RTFS (`[:map [:owner :string] …]`) or as a short type name. Lenient: what
//! cannot be understood is `:any`, never an error; local `$ref`s are
//! followed and cycles cut; `allOf` is merged; the tree is bounded in depth
//! and size whatever the schema. The schema's keywords are read through
//! [`Schema`], the protocol crate's one reader of JSON Schemas; the walk
//! and its rules are this module's.

use mcpdisco_protocol::schema::{Schema, SchemaType};
use serde_json::{Map, Value};

/// The deepest nesting converted; deeper parts are `:any`.
const MAX_DEPTH: usize = 32;
/// The most nodes one schema converts to; the rest are `:any`.
const MAX_NODES: usize = 4096;

/// One type.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeExpr {
    /// `:string`.
    String,
    /// `:int`.
    Int,
    /// `:float`.
    Float,
    /// `:bool`.
    Bool,
    /// `:nil` (only inside `[:or …]`, from a type list with `"null"`).
    Nil,
    /// `:any`: anything, or a schema not understood.
    Any,
    /// `[:vector <item>]`.
    Vector(Box<TypeExpr>),
    /// `[:map [:key <type>] …]`.
    Map(Vec<Field>),
    /// `[:enum "a" "b"]`.
    Enum(Vec<Value>),
    /// `[:or <a> <b> …]`.
    Or(Vec<TypeExpr>),
}

/// One key of a map.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name.
    pub name: String,
    /// Whether it may be left out (not in `required`).
    pub optional: bool,
    /// Its type.
    pub ty: TypeExpr,
}

/// What a conversion carries along: the root (for `$ref`s), the references
/// being followed (to cut cycles), and the node budget.
struct Converter<'a> {
    root: Schema<'a>,
    following: Vec<String>,
    nodes: usize,
}

impl TypeExpr {
    /// The type of `schema` (a JSON Schema; anything else is `:any`).
    pub fn from_schema(schema: &Value) -> TypeExpr {
        let schema = Schema::new(schema);
        Converter {
            root: schema,
            following: Vec::new(),
            nodes: 0,
        }
        .convert(schema, 0)
    }

    /// RTFS on one line: `[:map [:a :string] [:b {:optional true} :int]]`.
    pub fn to_rtfs(&self) -> String {
        let mut out = String::new();
        self.write_rtfs(&mut out, None);
        out
    }

    /// RTFS with each map key on its own line, indented by two spaces per
    /// level.
    pub fn to_rtfs_pretty(&self) -> String {
        let mut out = String::new();
        self.write_rtfs(&mut out, Some(0));
        out
    }

    /// A short name for signatures: `string`, `integer`, `number`,
    /// `boolean`, `array`, `object`, `null`, `any`, an enum's values joined
    /// by `|`, or alternatives joined by `|`.
    pub fn short_name(&self) -> String {
        match self {
            TypeExpr::String => "string".into(),
            TypeExpr::Int => "integer".into(),
            TypeExpr::Float => "number".into(),
            TypeExpr::Bool => "boolean".into(),
            TypeExpr::Nil => "null".into(),
            TypeExpr::Any => "any".into(),
            TypeExpr::Vector(_) => "array".into(),
            TypeExpr::Map(_) => "object".into(),
            TypeExpr::Enum(values) => values
                .iter()
                .map(|v| match v {
                    Value::String(s) => format!("{s:?}"),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join("|"),
            TypeExpr::Or(alternatives) => alternatives
                .iter()
                .map(TypeExpr::short_name)
                .collect::<Vec<_>>()
                .join("|"),
        }
    }

    fn write_rtfs(&self, out: &mut String, indent: Option<usize>) {
        match self {
            TypeExpr::String => out.push_str(":string"),
            TypeExpr::Int => out.push_str(":int"),
            TypeExpr::Float => out.push_str(":float"),
            TypeExpr::Bool => out.push_str(":bool"),
            TypeExpr::Nil => out.push_str(":nil"),
            TypeExpr::Any => out.push_str(":any"),
            TypeExpr::Vector(item) => {
                out.push_str("[:vector ");
                item.write_rtfs(out, indent);
                out.push(']');
            }
            TypeExpr::Enum(values) => {
                out.push_str("[:enum");
                for value in values {
                    out.push(' ');
                    write_literal(out, value);
                }
                out.push(']');
            }
            TypeExpr::Or(alternatives) => {
                out.push_str("[:or");
                for alternative in alternatives {
                    out.push(' ');
                    alternative.write_rtfs(out, indent);
                }
                out.push(']');
            }
            TypeExpr::Map(fields) => {
                out.push_str("[:map");
                let inner = indent.map(|level| level + 2);
                for field in fields {
                    match inner {
                        Some(level) => {
                            out.push('\n');
                            out.push_str(&" ".repeat(level));
                        }
                        None => out.push(' '),
                    }
                    out.push('[');
                    write_key(out, &field.name);
                    if field.optional {
                        out.push_str(" {:optional true}");
                    }
                    out.push(' ');
                    field.ty.write_rtfs(out, inner);
                    out.push(']');
                }
                out.push(']');
            }
        }
    }
}

/// `:name` when the name is a valid keyword, else the name as a string.
fn write_key(out: &mut String, name: &str) {
    let keyword = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.?!*+<>=".contains(c));
    if keyword {
        out.push(':');
        out.push_str(name);
    } else {
        write_string(out, name);
    }
}

/// A value as an RTFS literal.
fn write_literal(out: &mut String, value: &Value) {
    match value {
        Value::String(text) => write_string(out, text),
        Value::Null => out.push_str("nil"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&number.to_string()),
        other => write_string(out, &other.to_string()),
    }
}

/// A string literal, escaped.
pub(crate) fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Converter<'_> {
    fn convert(&mut self, schema: Schema<'_>, depth: usize) -> TypeExpr {
        self.nodes += 1;
        if depth > MAX_DEPTH || self.nodes > MAX_NODES || !schema.value().is_object() {
            return TypeExpr::Any;
        }
        if let Some(reference) = schema.reference() {
            return self.follow(reference, depth);
        }
        if let Some(parts) = schema.all_of() {
            let merged = self.merge_all_of(schema, parts);
            return self.convert_plain(Schema::new(&merged), depth);
        }
        self.convert_plain(schema, depth)
    }

    /// Whether `reference` is being followed already (a cycle).
    fn is_following(&self, reference: &str) -> bool {
        self.following.iter().any(|r| r == reference)
    }

    fn follow(&mut self, reference: &str, depth: usize) -> TypeExpr {
        if self.is_following(reference) {
            return TypeExpr::Any;
        }
        let Some(target) = self.root.resolve(reference) else {
            return TypeExpr::Any;
        };
        self.following.push(reference.to_owned());
        let converted = self.convert(target, depth + 1);
        self.following.pop();
        converted
    }

    /// One object schema from `allOf`'s parts and the schema's own members:
    /// properties and `required` united; other members from the first part
    /// that has them.
    fn merge_all_of(&mut self, own: Schema<'_>, parts: &[Value]) -> Value {
        let mut merged = own.value().as_object().cloned().unwrap_or_default();
        merged.remove("allOf");
        let mut properties: Map<String, Value> = own
            .properties()
            .map(|(name, schema)| (name.to_owned(), schema.value().clone()))
            .collect();
        let mut required: Vec<&str> = own.required().collect();
        for part in parts {
            let part = match Schema::new(part).reference() {
                Some(reference) if !self.is_following(reference) => self.root.resolve(reference),
                Some(_) => None,
                None => Some(Schema::new(part)),
            };
            let Some(part) = part.filter(|part| part.value().is_object()) else {
                continue;
            };
            for (name, schema) in part.properties() {
                properties
                    .entry(name)
                    .or_insert_with(|| schema.value().clone());
            }
            for name in part.required() {
                if !required.contains(&name) {
                    required.push(name);
                }
            }
            for (key, value) in part.value().as_object().into_iter().flatten() {
                if key != "properties" && key != "required" {
                    merged.entry(key).or_insert_with(|| value.clone());
                }
            }
        }
        if !properties.is_empty() {
            merged.insert("properties".into(), Value::Object(properties));
            merged
                .entry("type")
                .or_insert_with(|| Value::from("object"));
        }
        if !required.is_empty() {
            merged.insert("required".into(), Value::from(required));
        }
        Value::Object(merged)
    }

    fn convert_plain(&mut self, schema: Schema<'_>, depth: usize) -> TypeExpr {
        if let Some(values) = schema.enum_values() {
            return TypeExpr::Enum(values.to_vec());
        }
        if let Some(value) = schema.const_value() {
            return TypeExpr::Enum(vec![value.clone()]);
        }
        if let Some(alternatives) = schema.alternatives() {
            let converted: Vec<TypeExpr> = alternatives
                .iter()
                .map(Schema::new)
                .map(|alternative| match alternative.types() {
                    SchemaType::One("null") => TypeExpr::Nil,
                    _ => self.convert(alternative, depth + 1),
                })
                .collect();
            return or(converted);
        }
        match schema.types() {
            SchemaType::One(name) => self.of_type(name, schema, depth),
            SchemaType::Several(names) => {
                let mut unique: Vec<&str> = Vec::new();
                for name in names {
                    if !unique.contains(&name) {
                        unique.push(name);
                    }
                }
                let converted = unique
                    .into_iter()
                    .map(|name| {
                        if name == "null" {
                            TypeExpr::Nil
                        } else {
                            self.of_type(name, schema, depth)
                        }
                    })
                    .collect();
                or(converted)
            }
            SchemaType::Unstated if schema.has("properties") => {
                self.of_type("object", schema, depth)
            }
            SchemaType::Unstated if schema.has("items") => self.of_type("array", schema, depth),
            SchemaType::Unstated => TypeExpr::Any,
        }
    }

    fn of_type(&mut self, name: &str, schema: Schema<'_>, depth: usize) -> TypeExpr {
        match name {
            "string" => TypeExpr::String,
            "integer" => TypeExpr::Int,
            "number" => TypeExpr::Float,
            "boolean" => TypeExpr::Bool,
            "array" => TypeExpr::Vector(Box::new(match schema.items() {
                Some(items) => self.convert(items, depth + 1),
                None => TypeExpr::Any,
            })),
            "object" => {
                let required: Vec<&str> = schema.required().collect();
                let mut fields = Vec::new();
                for (key, property) in schema.properties() {
                    // The budget counts fields too: past it, the map ends.
                    if self.nodes >= MAX_NODES {
                        break;
                    }
                    fields.push(Field {
                        name: key.to_owned(),
                        optional: !required.contains(&key),
                        ty: self.convert(property, depth + 1),
                    });
                }
                TypeExpr::Map(fields)
            }
            _ => TypeExpr::Any,
        }
    }
}

/// `[:or …]` of `alternatives`, flattened and without repeats; one is itself.
fn or(alternatives: Vec<TypeExpr>) -> TypeExpr {
    let mut flat: Vec<TypeExpr> = Vec::new();
    for alternative in alternatives {
        let parts = match alternative {
            TypeExpr::Or(inner) => inner,
            other => vec![other],
        };
        for part in parts {
            if !flat.contains(&part) {
                flat.push(part);
            }
        }
    }
    match flat.len() {
        0 => TypeExpr::Any,
        1 => flat.pop().unwrap_or(TypeExpr::Any),
        _ => TypeExpr::Or(flat),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn rtfs(schema: Value) -> String {
        TypeExpr::from_schema(&schema).to_rtfs()
    }

    #[test]
    fn the_issue_example_renders_exactly() {
        let schema = json!({"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"state":{"type":"string","enum":["open","closed","all"]}},"required":["owner","repo"]});
        assert_eq!(
            TypeExpr::from_schema(&schema).to_rtfs_pretty(),
            "[:map\n  [:owner :string]\n  [:repo :string]\n  [:state {:optional true} [:enum \"open\" \"closed\" \"all\"]]]"
        );
        assert_eq!(
            TypeExpr::from_schema(&schema).to_rtfs(),
            "[:map [:owner :string] [:repo :string] [:state {:optional true} [:enum \"open\" \"closed\" \"all\"]]]"
        );
    }

    #[test]
    fn the_table_of_the_issue() {
        assert_eq!(rtfs(json!({"type":"string"})), ":string");
        assert_eq!(rtfs(json!({"type":"integer"})), ":int");
        assert_eq!(rtfs(json!({"type":"number"})), ":float");
        assert_eq!(rtfs(json!({"type":"boolean"})), ":bool");
        assert_eq!(
            rtfs(json!({"type":"array","items":{"type":"integer"}})),
            "[:vector :int]"
        );
        assert_eq!(rtfs(json!({"type":"array"})), "[:vector :any]");
        assert_eq!(rtfs(json!({"type":"null"})), ":any");
        assert_eq!(rtfs(json!({"type":"frobnicate"})), ":any");
        assert_eq!(rtfs(json!(true)), ":any");
        assert_eq!(rtfs(json!({"enum":["a","b"]})), "[:enum \"a\" \"b\"]");
        assert_eq!(
            rtfs(json!({"anyOf":[{"type":"string"},{"type":"integer"}]})),
            "[:or :string :int]"
        );
        assert_eq!(
            rtfs(json!({"oneOf":[{"type":"string"},{"type":"null"}]})),
            "[:or :string :nil]"
        );
        assert_eq!(
            rtfs(json!({"type":["string","null"]})),
            "[:or :string :nil]"
        );
        assert_eq!(rtfs(json!({"type":"object"})), "[:map]");
        assert_eq!(
            rtfs(json!({"type":"object","properties":{"a b":{"type":"string"},"q\"":{"const":1}}})),
            "[:map [\"a b\" {:optional true} :string] [\"q\\\"\" {:optional true} [:enum 1]]]"
        );
    }

    #[test]
    fn refs_are_followed_and_cycles_cut() {
        let schema = json!({
            "type":"object",
            "properties":{"node":{"$ref":"#/$defs/Node"},"old":{"$ref":"#/definitions/Old"},"lost":{"$ref":"https://x/y"}},
            "required":["node"],
            "$defs":{"Node":{"type":"object","properties":{"value":{"type":"integer"},"next":{"$ref":"#/$defs/Node"}},"required":["value"]}},
            "definitions":{"Old":{"type":"boolean"}}
        });
        assert_eq!(
            rtfs(schema),
            "[:map [:node [:map [:value :int] [:next {:optional true} :any]]] [:old {:optional true} :bool] [:lost {:optional true} :any]]"
        );
    }

    #[test]
    fn all_of_is_merged() {
        let schema = json!({
            "allOf":[
                {"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
                {"$ref":"#/$defs/B"}
            ],
            "$defs":{"B":{"type":"object","properties":{"b":{"type":"number"}}}}
        });
        assert_eq!(
            rtfs(schema),
            "[:map [:a :string] [:b {:optional true} :float]]"
        );
    }

    fn schema_strategy() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!({"type":"string"})),
            Just(json!({"type":"integer"})),
            Just(json!({"type":["number","null"]})),
            Just(json!({"$ref":"#/$defs/X"})),
            Just(json!({"$ref":"#"})),
            Just(json!({"enum":["a",1,null,true]})),
            Just(json!(null)),
            Just(json!(7)),
            any::<String>().prop_map(|s| json!({"type": s})),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                inner.clone().prop_map(|i| json!({"type":"array","items":i})),
                prop::collection::vec((any::<String>(), inner.clone()), 0..6).prop_map(|props| {
                    let properties: Map<String, Value> = props.into_iter().collect();
                    json!({"type":"object","properties":properties,"required":["x"],"$defs":{"X":{"type":"object","properties":{"self":{"$ref":"#/$defs/X"}}}}})
                }),
                prop::collection::vec(inner.clone(), 0..4).prop_map(|v| json!({"anyOf": v})),
                prop::collection::vec(inner, 0..4).prop_map(|v| json!({"allOf": v})),
            ]
        })
    }

    fn count(ty: &TypeExpr) -> usize {
        1 + match ty {
            TypeExpr::Vector(item) => count(item),
            TypeExpr::Map(fields) => fields.iter().map(|f| count(&f.ty)).sum(),
            TypeExpr::Or(alternatives) => alternatives.iter().map(count).sum(),
            _ => 0,
        }
    }

    proptest! {
        #[test]
        fn any_schema_converts_within_bounds(schema in schema_strategy()) {
            let ty = TypeExpr::from_schema(&schema);
            prop_assert!(count(&ty) <= MAX_NODES * 2);
            let text = ty.to_rtfs();
            prop_assert!(text.starts_with(':') || text.starts_with('['));
            prop_assert!(ty.to_rtfs_pretty().len() >= text.len());
        }
    }
}
