//! JSON as hosts write it (VS Code allows comments and trailing commas),
//! read with `jsonc-parser` into a syntax tree that knows the byte range of
//! every member: for the values, for the line of each server and field in
//! messages, and for edits that keep every other byte of the file.

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use serde_json::Value;

use super::error::ConfigError;

/// A JSON file read: its tree, with the text it points into.
pub(crate) struct JsonDocument<'a> {
    tree: ast::Value<'a>,
    /// The byte where each line starts.
    line_starts: Vec<usize>,
}

/// Reads `text` (JSON with comments and trailing commas; nothing looser).
pub(crate) fn parse<'a>(path: &Path, text: &'a str) -> Result<JsonDocument<'a>, ConfigError> {
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &options)
        .map_err(|error| syntax_error(path, text, &error))?;
    let Some(tree) = parsed.value else {
        let (line, column) = line_and_column(text, text.len());
        return Err(ConfigError::Syntax {
            path: path.to_owned(),
            line,
            column,
            message: "expected a value, found the end of the file".into(),
        });
    };
    let line_starts = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect();
    Ok(JsonDocument { tree, line_starts })
}

impl<'a> JsonDocument<'a> {
    /// The value at the top, as `serde_json` holds it.
    pub fn value(&self) -> Value {
        self.tree.clone().into()
    }

    /// The top-level object's tree, if the top is an object.
    pub fn root_object(&self) -> Option<&ast::Object<'a>> {
        self.tree.as_object()
    }

    /// The line (from 1) of the member at `path` (object keys, and array
    /// indexes as numbers), or of the deepest member on the way to it.
    pub fn line_of<S: AsRef<str>>(&self, path: &[S]) -> Option<usize> {
        let mut node = &self.tree;
        let mut at = None;
        for segment in path {
            let segment = segment.as_ref();
            let next = match node {
                ast::Value::Object(object) => member(object, segment).map(|prop| {
                    at = Some(prop.range.start);
                    &prop.value
                }),
                ast::Value::Array(array) => segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| array.elements.get(index))
                    .inspect(|element| at = Some(element.start())),
                _ => None,
            };
            match next {
                Some(next) => node = next,
                None => break,
            }
        }
        at.map(|offset| self.line_at(offset))
    }

    /// The line (from 1) of byte `offset`.
    pub fn line_at(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|start| *start <= offset)
    }
}

/// The member `name` of `object`: the last one, as with the value, when a
/// name is repeated.
pub(crate) fn member<'t, 'a>(
    object: &'t ast::Object<'a>,
    name: &str,
) -> Option<&'t ast::ObjectProp<'a>> {
    object
        .properties
        .iter()
        .rev()
        .find(|prop| prop.name.as_str() == name)
}

/// A parse error as ours. It names the first token at or after where the
/// parser stopped (for a missing comma, the member that should follow one).
fn syntax_error(path: &Path, text: &str, error: &jsonc_parser::errors::ParseError) -> ConfigError {
    let at = next_token(text, error.range().start);
    let (line, column) = line_and_column(text, at);
    let kind = error.kind().to_string();
    let mut chars = kind.chars();
    let message = match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => kind,
    };
    ConfigError::Syntax {
        path: path.to_owned(),
        line,
        column,
        message,
    }
}

/// The first byte at or after `from` that is not blank or inside a comment.
fn next_token(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = from.min(bytes.len());
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let rest = &text[at..];
        if rest.starts_with("//") {
            at += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            at += rest.find("*/").map_or(rest.len(), |end| end + 2);
        } else {
            return at;
        }
    }
}

/// The 1-based line and column of byte `offset` of `text`.
pub(crate) fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |line| line.chars().count())
        + 1;
    (line, column)
}

/// What kind of JSON value `value` is, for messages ("a number", …).
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Value, ConfigError> {
        parse(Path::new("/p/a.json"), text).map(|document| document.value())
    }

    #[test]
    fn comments_and_trailing_commas_are_allowed() {
        let value = read(
            "{\n  // a comment\n  \"a\": \"x // not a comment\", /* b */\n  \"b\": [1, 2,],\n}",
        )
        .unwrap();
        assert_eq!(value["a"], "x // not a comment");
        assert_eq!(value["b"], serde_json::json!([1, 2]));
        assert_eq!(read(r#"{"a": "q\"//x", }"#).unwrap()["a"], "q\"//x");
    }

    #[test]
    fn nothing_looser_than_comments_and_trailing_commas() {
        for text in [
            "{a: 1}",
            "{\"a\": 'x'}",
            "{\"a\": 0x10}",
            "{\"a\": 1 \"b\": 2}",
            "[1,,]",
        ] {
            assert!(
                matches!(read(text), Err(ConfigError::Syntax { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn syntax_errors_name_the_token_found() {
        let error = read("{\n  \"a\": {\"x\": 1}\n  // note\n  \"b\": 2\n}").unwrap_err();
        assert_eq!(
            error.to_string(),
            "/p/a.json:4:3: invalid JSON: expected comma"
        );
        let empty = read("  // nothing\n").unwrap_err();
        assert!(empty.to_string().contains("end of the file"), "{empty}");
    }

    #[test]
    fn lines_of_members_and_elements() {
        let text = "{\n  \"servers\": {\n    \"a\": {\n      \"args\": [\n        \"x\",\n        3\n      ]\n    }\n  }\n}";
        let document = parse(Path::new("/p/a.json"), text).unwrap();
        assert_eq!(document.line_of(&["servers"]), Some(2));
        assert_eq!(document.line_of(&["servers", "a"]), Some(3));
        assert_eq!(document.line_of(&["servers", "a", "args", "1"]), Some(6));
        assert_eq!(
            document.line_of(&["servers", "a", "missing"]),
            Some(3),
            "the deepest member found"
        );
        assert_eq!(document.line_of::<&str>(&[]), None);
        assert_eq!(line_and_column("ab\ncd", 4), (2, 2));
    }
}
