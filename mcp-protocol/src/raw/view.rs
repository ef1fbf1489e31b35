//! [`JsonView`]: a JSON value borrowed from its text, read part by part
//! without building a tree.
//!
//! Where [`RawJson`] owns its text, a view borrows it, so reading an item
//! (its name, a few members of its schema) allocates nothing but the lists it
//! returns: each read is one pass over the view's own span that finds its
//! members by their quotes and brackets (the text was checked when it was
//! made) and skips whatever it was not asked for. [`RawJson`]'s own readers of a part
//! ([`member`](RawJson::member), [`members`](RawJson::members),
//! [`elements`](RawJson::elements)) read through a view, so they live here.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::key::Key;
use super::raw_json::RawJson;
use super::walk;

/// A JSON value borrowed from a text that is known to be valid JSON.
#[derive(Clone, Copy)]
pub struct JsonView<'a> {
    /// One valid JSON value with no surrounding whitespace: every constructor
    /// checks it or takes it from a text that was checked.
    text: &'a str,
}

impl<'a> JsonView<'a> {
    /// A view of the whole of `json`, free: its text was checked when it was made.
    pub fn of(json: &'a RawJson) -> Self {
        Self {
            text: json.as_str(),
        }
    }

    /// A view of `text` without surrounding whitespace, when it is one JSON value.
    pub fn parse(text: &'a str) -> Option<Self> {
        serde_json::from_str::<&RawValue>(text)
            .ok()
            .map(Self::from_raw)
    }

    fn from_raw(raw: &'a RawValue) -> Self {
        Self { text: raw.get() }
    }

    /// The JSON text of this value.
    pub fn text(self) -> &'a str {
        self.text
    }

    /// The string this value is, borrowed unless it has escapes; `None` for
    /// anything but a string.
    pub fn as_str(self) -> Option<Cow<'a, str>> {
        if !self.text().starts_with('"') {
            return None;
        }
        serde_json::from_str::<Key<'a>>(self.text())
            .ok()
            .map(Key::into_cow)
    }

    /// The boolean this value is; `None` for anything but `true` or `false`.
    pub fn as_bool(self) -> Option<bool> {
        match self.text() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// Whether this value is a JSON object.
    pub fn is_object(self) -> bool {
        self.text().starts_with('{')
    }

    /// The members named by `keys`, read in one pass over the object; every
    /// entry is `None` when this is not an object. A repeated member: the last
    /// one counts, as with every other reader here. The keys are meant to be
    /// distinct: a key named twice fills only its first entry.
    pub fn pick<const N: usize>(self, keys: [&str; N]) -> [Option<JsonView<'a>>; N] {
        let mut found = [None; N];
        let walked = walk::members(self.text, |key, value| {
            if let Some(index) = keys.iter().position(|wanted| *wanted == key) {
                found[index] = Some(JsonView { text: value });
            }
        });
        match walked {
            Some(()) => found,
            None => [None; N],
        }
    }

    /// One member; see [`pick`](Self::pick) to read several.
    pub fn get(self, key: &str) -> Option<JsonView<'a>> {
        let [found] = self.pick([key]);
        found
    }

    /// The members of an object, in order; `None` when this is not an object.
    pub fn members(self) -> Option<Vec<(Cow<'a, str>, JsonView<'a>)>> {
        let mut members = Vec::new();
        walk::members(self.text, |key, value| {
            members.push((key, JsonView { text: value }));
        })?;
        Some(members)
    }

    /// The elements of an array, in order; `None` when this is not an array.
    pub fn elements(self) -> Option<Vec<JsonView<'a>>> {
        let mut elements = Vec::new();
        walk::elements(self.text, |element| {
            elements.push(JsonView { text: element });
        })?;
        Some(elements)
    }
}

impl fmt::Debug for JsonView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonView({})", self.text())
    }
}

impl RawJson {
    /// Reads member `key` of an object into `T`, skipping every other member
    /// without building it. `Ok(None)` when the value is not an object or has
    /// no such member.
    pub fn member<'a, T: Deserialize<'a>>(
        &'a self,
        key: &str,
    ) -> Result<Option<T>, serde_json::Error> {
        JsonView::of(self)
            .get(key)
            .map(|member| serde_json::from_str(member.text()))
            .transpose()
    }

    /// The members of an object, in order, each value a slice of this text
    /// (not parsed). `None` when this is not an object or a key cannot be
    /// decoded.
    pub fn members(&self) -> Option<Vec<(String, RawJson)>> {
        let members = JsonView::of(self).members()?;
        Some(
            members
                .into_iter()
                .map(|(key, value)| (key.into_owned(), self.slice_text(value.text())))
                .collect(),
        )
    }

    /// The elements of an array, each a slice of this text (not parsed).
    /// `None` when this is not an array.
    pub fn elements(&self) -> Option<Vec<RawJson>> {
        let elements = JsonView::of(self).elements()?;
        Some(
            elements
                .into_iter()
                .map(|element| self.slice_text(element.text()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str) -> JsonView<'_> {
        JsonView::parse(text).unwrap()
    }

    #[test]
    fn pick_reads_named_members_in_one_pass() {
        let object = view(r#"{"a": 1, "skip": {"deep": [1, 2]}, "b": "x", "a": [true]}"#);
        let [a, b, missing] = object.pick(["a", "b", "c"]);
        assert_eq!(a.unwrap().text(), "[true]", "the last duplicate counts");
        assert_eq!(b.unwrap().as_str().unwrap(), "x");
        assert!(missing.is_none());
        assert!(view("[1]").pick(["a"])[0].is_none());
        assert_eq!(object.get("b").unwrap().text(), r#""x""#);
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        assert!(matches!(
            view(r#""plain""#).as_str(),
            Some(Cow::Borrowed("plain"))
        ));
        assert_eq!(view(r#""a\nb""#).as_str().unwrap(), "a\nb");
        assert!(view("12").as_str().is_none());
        assert_eq!(view("true").as_bool(), Some(true));
        assert_eq!(view("\"true\"").as_bool(), None);
    }

    #[test]
    fn members_and_elements_keep_order() {
        let object = view(r#"{"z": 1, "a\u0041": [2, {"k": null}]}"#);
        let members = object.members().unwrap();
        assert_eq!(members[0].0, "z");
        assert_eq!(members[1].0, "aA");
        let elements = members[1].1.elements().unwrap();
        assert_eq!(elements[1].text(), r#"{"k": null}"#);
        assert!(object.elements().is_none());
        assert!(view("[]").members().is_none());
    }

    #[test]
    fn a_view_of_raw_json_covers_all_of_it() {
        let raw = RawJson::parse(r#" {"name": "t"} "#).unwrap();
        let whole = JsonView::of(&raw);
        assert_eq!(whole.text(), r#"{"name": "t"}"#);
        assert_eq!(whole.get("name").unwrap().as_str().unwrap(), "t");
        assert!(JsonView::parse("{} x").is_none());
        assert_eq!(JsonView::parse(" [1] ").unwrap().text(), "[1]");
    }

    #[test]
    fn member_reads_one_field_and_skips_the_rest() {
        let raw =
            RawJson::parse(r#"{"big": {"deep": [1, {"name": "no"}]}, "name": "yes", "n": 3}"#)
                .unwrap();
        assert_eq!(raw.member::<&str>("name").unwrap(), Some("yes"));
        assert_eq!(raw.member::<u32>("n").unwrap(), Some(3));
        let twice = RawJson::parse(r#"{"n": 1, "n": 2}"#).unwrap();
        assert_eq!(
            twice.member::<u32>("n").unwrap(),
            Some(2),
            "the last one counts"
        );
        assert_eq!(raw.member::<String>("missing").unwrap(), None);
        assert!(raw.member::<u32>("name").is_err());
        assert_eq!(
            RawJson::parse("[1]").unwrap().member::<u32>("n").unwrap(),
            None
        );
        let escaped = RawJson::parse(r#"{"na\u006de": "esc"}"#).unwrap();
        assert_eq!(
            escaped.member::<String>("name").unwrap(),
            Some("esc".into())
        );
    }

    #[test]
    fn members_and_elements_are_slices_in_order() {
        let raw = RawJson::parse(r#"{"b": [1, {"x": "y"}], "a\u0041": null}"#).unwrap();
        let members = raw.members().unwrap();
        assert_eq!(members[0].0, "b");
        assert_eq!(members[1].0, "aA");
        assert_eq!(members[1].1.as_str(), "null");
        let elements = members[0].1.elements().unwrap();
        assert_eq!(elements[1].as_str(), r#"{"x": "y"}"#);
        let range = raw.as_bytes().as_ptr_range();
        assert!(range.contains(&elements[1].as_bytes().as_ptr()));
        assert!(raw.elements().is_none());
        assert!(members[0].1.members().is_none());
        assert!(
            RawJson::parse(r#"{"\ud800": 1}"#)
                .unwrap()
                .members()
                .is_none()
        );
    }
}
