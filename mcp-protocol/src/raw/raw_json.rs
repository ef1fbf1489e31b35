//! [`RawJson`] itself: one JSON value kept as the text its sender wrote,
//! with what makes it, reads it whole and writes it back.
//!
//! Reading it in part lives beside the tool that does it: the members and
//! elements of a value through a [`JsonView`](super::JsonView) (the `view`
//! module), a list result's page (the `page` module).

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::scan::Outline;

/// A JSON value kept as text. The text is always one valid JSON value with no
/// surrounding whitespace.
#[derive(Clone)]
pub struct RawJson {
    pub(super) text: Bytes,
    /// Where an object's members are, when the decoder recorded them while
    /// checking the text (a message's result): lets [`list_page`](Self::list_page)
    /// split a page without reading the text again. Not part of the value.
    pub(super) outline: Option<Arc<Outline>>,
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for RawJson {}

impl std::hash::Hash for RawJson {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl RawJson {
    /// Checks that `text` holds one JSON value (surrounding whitespace is
    /// dropped) and keeps it without copying.
    pub fn parse(text: impl Into<Bytes>) -> Result<Self, serde_json::Error> {
        let text = text.into();
        let raw: &RawValue = serde_json::from_slice(&text)?;
        Ok(Self::slice_of(&text, raw))
    }

    /// The JSON text of a value.
    pub fn from_value(value: &Value) -> Self {
        // Writing a `Value` into a Vec cannot fail: no I/O, and map keys are strings.
        Self::encode(value).unwrap_or_else(|_| Self::null())
    }

    /// The JSON text of anything serde can write.
    pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_vec(value).map(|text| Self::from_text(Bytes::from(text)))
    }

    /// A text this module's writers made, one JSON value by construction.
    pub(super) fn written(text: Bytes) -> Self {
        Self::from_text(text)
    }

    /// A text known to be one JSON value, nothing recorded about it.
    fn from_text(text: Bytes) -> Self {
        Self {
            text,
            outline: None,
        }
    }

    /// `text`, checked by the scanner, with what it recorded about it (ranges
    /// counted from `outline.base`).
    pub(crate) fn scanned(text: Bytes, outline: Option<Outline>) -> Self {
        Self {
            text,
            outline: outline.map(Arc::new),
        }
    }

    /// The part `range` of this text, sharing the bytes; `None` when the range
    /// does not lie within it.
    pub(super) fn part(&self, range: Range<usize>) -> Option<RawJson> {
        (range.start <= range.end && range.end <= self.text.len())
            .then(|| Self::from_text(self.text.slice(range)))
    }

    /// `null`.
    pub fn null() -> Self {
        Self::from_text(Bytes::from_static(b"null"))
    }

    /// `{}`.
    pub fn empty_object() -> Self {
        Self::from_text(Bytes::from_static(b"{}"))
    }

    /// The part of `owner` that `raw` was borrowed from, without copying; a
    /// copy when `raw` does not lie within `owner`.
    pub(crate) fn slice_of(owner: &Bytes, raw: &RawValue) -> Self {
        Self::slice_of_text(owner, raw.get())
    }

    /// [`slice_of`](Self::slice_of) for a text known to be one JSON value.
    fn slice_of_text(owner: &Bytes, part: &str) -> Self {
        let part = part.as_bytes();
        let start = (part.as_ptr() as usize).wrapping_sub(owner.as_ptr() as usize);
        let text = match start.checked_add(part.len()) {
            Some(end) if start <= owner.len() && end <= owner.len() => owner.slice(start..end),
            _ => Bytes::copy_from_slice(part),
        };
        Self::from_text(text)
    }

    /// The part of this text that `part` covers, sharing the bytes. `part` is
    /// meant to be borrowed from this text (by
    /// [`decode_borrowed`](Self::decode_borrowed) into a type holding
    /// `&RawValue`s); anything else is copied.
    pub fn slice(&self, part: &RawValue) -> RawJson {
        Self::slice_of(&self.text, part)
    }

    /// The part of this text that `part` (valid JSON borrowed from it, as a
    /// [`JsonView`]'s text is) covers.
    pub(super) fn slice_text(&self, part: &str) -> RawJson {
        Self::slice_of_text(&self.text, part)
    }

    /// A copy of `raw`.
    pub(crate) fn copy_of(raw: &RawValue) -> Self {
        Self::from_text(Bytes::copy_from_slice(raw.get().as_bytes()))
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        // Every constructor checks or produces UTF-8; this never falls back.
        std::str::from_utf8(&self.text).unwrap_or("null")
    }

    /// The JSON text as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.text
    }

    /// The JSON text as shared bytes.
    pub fn into_bytes(self) -> Bytes {
        self.text
    }

    /// The length of the text in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Always `false`: the shortest JSON value is one byte long.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Reads the value into `T`, straight from the text.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.text)
    }

    /// Reads the value into `T`, borrowing strings from the text where `T` allows.
    pub fn decode_borrowed<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.text)
    }

    /// The value as a [`Value`] tree.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        self.decode()
    }

    /// Whether the value is a JSON object.
    pub fn is_object(&self) -> bool {
        self.text.first() == Some(&b'{')
    }
}

impl Default for RawJson {
    /// `null`.
    fn default() -> Self {
        Self::null()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.as_str())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> Self {
        Self::from_value(&value)
    }
}

impl From<&Value> for RawJson {
    fn from(value: &Value) -> Self {
        Self::from_value(value)
    }
}

impl PartialEq<Value> for RawJson {
    /// Equal when the text reads as `other`.
    fn eq(&self, other: &Value) -> bool {
        self.to_value().is_ok_and(|value| value == *other)
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        let text: Box<str> = raw.into();
        Self::from_text(Bytes::from(String::from(text)))
    }
}

impl Serialize for RawJson {
    /// Writes the text as it is. Needs a serde_json serializer (text or
    /// [`Value`]); other formats would see serde_json's raw-value wrapper.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Borrowing a `&RawValue` checks the text again but copies nothing.
        let raw: &RawValue =
            serde_json::from_slice(&self.text).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    /// Keeps the value's text. Works with serde_json's deserializers (from
    /// text or from a [`Value`]), not with serde's internal buffering (so not
    /// inside `#[serde(flatten)]` or untagged enums of other crates).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer)
            .map(Self::from)
            .map_err(|error| de::Error::custom(format!("cannot keep raw JSON: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_keeps_the_text_and_drops_surrounding_space() {
        let raw = RawJson::parse(" {\"b\": 1,  \"a\":[true]}\n").unwrap();
        assert_eq!(raw.as_str(), "{\"b\": 1,  \"a\":[true]}");
        assert!(raw.is_object());
        assert_eq!(raw, json!({"a": [true], "b": 1}));
        assert!(RawJson::parse("{\"a\":").is_err());
        assert!(RawJson::parse("1 2").is_err());
        assert!(RawJson::parse(&b"\"\xff\""[..]).is_err());
    }

    #[test]
    fn slices_share_their_owner_and_copies_do_not() {
        let owner = Bytes::from_static(br#"{"result":{"x":1}}"#);
        #[derive(Deserialize)]
        struct Envelope<'a> {
            #[serde(borrow)]
            result: &'a RawValue,
        }
        let envelope: Envelope<'_> = serde_json::from_slice(&owner).unwrap();
        let slice = RawJson::slice_of(&owner, envelope.result);
        assert_eq!(slice.as_str(), r#"{"x":1}"#);
        assert_eq!(slice.as_bytes().as_ptr(), owner[10..].as_ptr());
        let elsewhere = Bytes::from_static(b"[]");
        assert_eq!(
            RawJson::slice_of(&elsewhere, envelope.result).as_str(),
            r#"{"x":1}"#
        );
        assert_ne!(
            RawJson::copy_of(envelope.result).as_bytes().as_ptr(),
            owner[10..].as_ptr()
        );
    }

    #[test]
    fn serde_writes_the_text_verbatim_and_reads_it_back() {
        let raw = RawJson::parse(r#"{"z": 1.50, "a": "\u00e9"}"#).unwrap();
        let outer = json!({"k": 1});
        let mut document = serde_json::to_value(&outer).unwrap();
        document["raw"] = raw.to_value().unwrap();
        assert_eq!(
            serde_json::to_string(&vec![raw.clone()]).unwrap(),
            r#"[{"z": 1.50, "a": "\u00e9"}]"#
        );
        let back: Vec<RawJson> = serde_json::from_str(r#"[ {"z": 1.50, "a": "\u00e9"} ]"#).unwrap();
        assert_eq!(back[0], raw);
        let from_value: RawJson = serde_json::from_value(json!({"a": [1, 2]})).unwrap();
        assert_eq!(from_value.as_str(), r#"{"a":[1,2]}"#);
        let pretty = serde_json::to_string_pretty(&json!({"x": 1})).unwrap();
        assert!(pretty.contains('\n'));
    }

    #[test]
    fn values_and_defaults() {
        assert_eq!(RawJson::from_value(&json!([1, "a"])).as_str(), r#"[1,"a"]"#);
        assert_eq!(RawJson::default().as_str(), "null");
        assert_eq!(RawJson::empty_object().as_str(), "{}");
        assert_eq!(format!("{:?}", RawJson::null()), "RawJson(null)");
        assert_eq!(RawJson::null().to_string(), "null");
        assert!(!RawJson::null().is_empty());
    }
}
