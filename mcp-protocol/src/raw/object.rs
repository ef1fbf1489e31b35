//! [`ObjectWriter`]: a JSON object written member by member, whose values
//! may be [`RawJson`] kept as their text: the object is valid by how it is
//! made, so nothing in it is checked again.
//!
//! Serde cannot write a [`RawJson`] without reading its text once more (it
//! needs a `&RawValue`, which only a parse gives). A relay that passes on
//! what it was sent (a tool call's arguments) writes its params here
//! instead.

use bytes::Bytes;
use serde::Serialize;

use super::raw_json::RawJson;

/// Writes one JSON object, a member at a time.
///
/// ```
/// use mcpdisco_protocol::RawJson;
/// use mcpdisco_protocol::raw::ObjectWriter;
///
/// let arguments = RawJson::parse(r#"{"q": "rust"}"#).unwrap();
/// let params = ObjectWriter::new()
///     .value("name", "search")
///     .unwrap()
///     .raw("arguments", &arguments)
///     .finish();
/// assert_eq!(params.as_str(), r#"{"name":"search","arguments":{"q": "rust"}}"#);
/// ```
#[derive(Debug)]
pub struct ObjectWriter {
    /// The text so far: `{` and the members written, no closing brace.
    text: Vec<u8>,
}

impl Default for ObjectWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl ObjectWriter {
    /// An object with no member yet.
    pub fn new() -> Self {
        let mut text = Vec::with_capacity(64);
        text.push(b'{');
        Self { text }
    }

    /// Adds member `key` whose value is `value`'s text, as it is.
    pub fn raw(mut self, key: &str, value: &RawJson) -> Self {
        self.key(key);
        self.text.extend_from_slice(value.as_bytes());
        self
    }

    /// Adds member `key` whose value is `value` as serde_json writes it; an
    /// error when it cannot be written (a map with keys that are not
    /// strings, a `Serialize` that fails).
    pub fn value<T: Serialize + ?Sized>(
        mut self,
        key: &str,
        value: &T,
    ) -> Result<Self, serde_json::Error> {
        self.key(key);
        serde_json::to_writer(&mut self.text, value)?;
        Ok(self)
    }

    /// The object.
    pub fn finish(mut self) -> RawJson {
        self.text.push(b'}');
        RawJson::written(Bytes::from(self.text))
    }

    /// Writes `key` (escaped as JSON needs) and its colon, after a comma
    /// unless it is the first member.
    fn key(&mut self, key: &str) {
        if self.text.len() > 1 {
            self.text.push(b',');
        }
        // A `&str` into a `Vec` cannot fail: no I/O, nothing to refuse.
        let _ = serde_json::to_writer(&mut self.text, key);
        self.text.push(b':');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn the_object_holds_its_members_in_order_and_raw_values_as_sent() {
        let raw = RawJson::parse(r#"[1,  {"b" : "\u00e9"}]"#).unwrap();
        let object = ObjectWriter::new()
            .value("n\"ame", "t\n")
            .unwrap()
            .raw("list", &raw)
            .value("count", &3)
            .unwrap()
            .finish();
        assert_eq!(
            object.as_str(),
            r#"{"n\"ame":"t\n","list":[1,  {"b" : "\u00e9"}],"count":3}"#
        );
        let read: Value = serde_json::from_str(object.as_str()).unwrap();
        assert_eq!(
            read,
            json!({"n\"ame": "t\n", "list": [1, {"b": "é"}], "count": 3})
        );
        assert_eq!(ObjectWriter::new().finish().as_str(), "{}");
    }

    #[test]
    fn a_value_serde_cannot_write_is_an_error() {
        let mut map = std::collections::BTreeMap::new();
        map.insert(vec![1u8], 1);
        assert!(ObjectWriter::new().value("m", &map).is_err());
    }
}
