//! Walking a text that is known to be valid JSON (a [`JsonView`](super::JsonView)'s,
//! checked when it was made): the members of an object and the elements of
//! an array, each value's extent found by its quotes and brackets alone.
//! Nothing is checked again, and nothing is allocated.
//!
//! A text that is not valid JSON after all (which no constructor lets
//! through) ends the walk with `None`: never a panic, never a read past
//! its end.

use std::borrow::Cow;
use std::ops::Range;

use super::scan::key_in;

/// The members of the object `text` (nothing around it), each handed to
/// `member` in order: its key, its escapes decoded, and its value's text.
/// `None` when `text` is not an object, or a key's escapes do not decode.
pub(crate) fn members<'a>(
    text: &'a str,
    mut member: impl FnMut(Cow<'a, str>, &'a str),
) -> Option<()> {
    let bytes = text.as_bytes();
    let mut at = open(bytes, b'{')?;
    if bytes.get(at) == Some(&b'}') {
        return Some(());
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, at)?;
        let key = key_of(text, at + 1..key_end - 1)?;
        at = space_after(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = space_after(bytes, at + 1);
        let value_end = value_end(bytes, at)?;
        member(key, text.get(at..value_end)?);
        if after_item(bytes, &mut at, value_end, b'}')? {
            return Some(());
        }
    }
}

/// The elements of the array `text` (nothing around it), each handed to
/// `element` in order. `None` when `text` is not an array.
pub(crate) fn elements<'a>(text: &'a str, mut element: impl FnMut(&'a str)) -> Option<()> {
    let bytes = text.as_bytes();
    let mut at = open(bytes, b'[')?;
    if bytes.get(at) == Some(&b']') {
        return Some(());
    }
    loop {
        let value_end = value_end(bytes, at)?;
        element(text.get(at..value_end)?);
        if after_item(bytes, &mut at, value_end, b']')? {
            return Some(());
        }
    }
}

/// The key whose text (between its quotes) is `range` of `text`: borrowed,
/// or decoded when it holds an escape.
fn key_of(text: &str, range: Range<usize>) -> Option<Cow<'_, str>> {
    let key = text.get(range.clone())?;
    if key.as_bytes().contains(&b'\\') {
        key_in(text.as_bytes(), range, true)
    } else {
        Some(Cow::Borrowed(key))
    }
}

/// Where the first item of the object or array opened at 0 by `opener` may start.
fn open(bytes: &[u8], opener: u8) -> Option<usize> {
    (bytes.first() == Some(&opener)).then(|| space_after(bytes, 1))
}

/// After an item that ended at `end`: `true` at the closing `closer`, or
/// `at` moved to the next item after a comma.
fn after_item(bytes: &[u8], at: &mut usize, end: usize, closer: u8) -> Option<bool> {
    let next = space_after(bytes, end);
    match *bytes.get(next)? {
        b',' => {
            *at = space_after(bytes, next + 1);
            Some(false)
        }
        byte if byte == closer => Some(true),
        _ => None,
    }
}

/// The first offset at or after `at` that is not JSON whitespace.
fn space_after(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        at += 1;
    }
    at
}

/// Just past the end of the value that starts at `start`.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match *bytes.get(start)? {
        b'"' => string_end(bytes, start),
        b'{' | b'[' => container_end(bytes, start),
        _ => {
            let rest = bytes.get(start..)?;
            let length = rest
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
                .unwrap_or(rest.len());
            (length > 0).then_some(start + length)
        }
    }
}

/// Just past the closing quote of the string whose opening quote is at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        at += bytes
            .get(at..)?
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\')?;
        if bytes.get(at) == Some(&b'"') {
            return Some(at + 1);
        }
        // A backslash and the character it escapes (a `\u` escape's hex
        // digits hold no quote or backslash).
        at += 2;
    }
}

/// Just past the bracket that closes the object or array opened at `start`.
fn container_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = start;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                at = string_end(bytes, at)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_members(text: &str) -> Option<Vec<(String, String)>> {
        let mut found = Vec::new();
        members(text, |key, value| {
            found.push((key.into_owned(), value.to_owned()))
        })?;
        Some(found)
    }

    fn all_elements(text: &str) -> Option<Vec<String>> {
        let mut found = Vec::new();
        elements(text, |element| found.push(element.to_owned()))?;
        Some(found)
    }

    #[test]
    fn members_are_found_by_quotes_and_brackets_alone() {
        let text =
            r#"{ "a" : 1 , "b\"}" :"x\\\"]" ,"c":{"d":[1,"}",{}]} , "e\u0041":[ ],"f":-2.5e3}"#;
        assert_eq!(
            all_members(text).unwrap(),
            [
                ("a", "1"),
                ("b\"}", r#""x\\\"]""#),
                ("c", r#"{"d":[1,"}",{}]}"#),
                ("eA", "[ ]"),
                ("f", "-2.5e3"),
            ]
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
        );
        assert_eq!(all_members("{}").unwrap(), []);
        assert_eq!(all_members("{ \n}").unwrap(), []);
        assert_eq!(all_members("[1]"), None);
        assert_eq!(
            all_members(r#"{"\ud800": 1}"#),
            None,
            "a key that does not decode"
        );
    }

    #[test]
    fn elements_are_found_by_quotes_and_brackets_alone() {
        assert_eq!(
            all_elements(r#"[1, "a,]", [2,[3]] ,{"k":"]"},true,null]"#).unwrap(),
            ["1", r#""a,]""#, "[2,[3]]", r#"{"k":"]"}"#, "true", "null"]
        );
        assert_eq!(all_elements("[ ]").unwrap(), Vec::<String>::new());
        assert_eq!(all_elements("{}"), None);
    }

    #[test]
    fn a_text_that_is_not_json_ends_the_walk_without_a_panic() {
        for broken in [
            "{",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1",
            "{\"a\":1,",
            "{\"a\" 1}",
            "{\"a\":\"x",
            "{\"a\":[1}",
            "{\"a\":1]",
            "[1",
            "[1,",
            "[\"\\",
            "{\"a\":}",
            "[,]",
            "{1:2}",
        ] {
            assert_eq!(all_members(broken), None, "{broken}");
            assert_eq!(all_elements(broken), None, "{broken}");
        }
    }

    mod properties {
        use std::fmt;

        use proptest::prelude::*;
        use serde::de::{MapAccess, Visitor};
        use serde_json::value::RawValue;

        use super::*;
        use crate::raw::scan::tests::properties::{json, text};

        /// An object's members as serde_json reads them: in order, each
        /// value's text.
        struct Members;

        impl<'de> Visitor<'de> for Members {
            type Value = Vec<(String, &'de str)>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    members.push((key, value.get()));
                }
                Ok(members)
            }
        }

        fn serde_members(text: &str) -> Option<Vec<(String, &str)>> {
            use serde::Deserializer as _;
            let mut deserializer = serde_json::Deserializer::from_str(text);
            deserializer.deserialize_map(Members).ok()
        }

        /// Every object and array in `text`, each walked and read by
        /// serde_json, which must agree; then the same for their values.
        fn agree_throughout(text: &str) -> Result<(), TestCaseError> {
            if text.starts_with('{') {
                let walked = all_members(text);
                let read = serde_members(text).map(|members| {
                    members
                        .into_iter()
                        .map(|(k, v)| (k, v.to_owned()))
                        .collect()
                });
                prop_assert_eq!(&walked, &read);
                for (_, value) in walked.unwrap_or_default() {
                    agree_throughout(&value)?;
                }
            } else if text.starts_with('[') {
                let walked = all_elements(text);
                let read = serde_json::from_str::<Vec<&RawValue>>(text)
                    .ok()
                    .map(|elements| elements.iter().map(|e| e.get().to_owned()).collect());
                prop_assert_eq!(&walked, &read);
                for element in walked.unwrap_or_default() {
                    agree_throughout(&element)?;
                }
            }
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            /// In a valid text, the walk finds what serde_json reads, at every level.
            #[test]
            fn the_walk_finds_what_serde_reads(value in json(), pretty in any::<bool>()) {
                let text = if pretty {
                    serde_json::to_string_pretty(&value)
                } else {
                    serde_json::to_string(&value)
                };
                agree_throughout(&text.unwrap_or_default())?;
            }

            /// Any text, valid or not, is walked without a panic.
            #[test]
            fn any_text_is_walked_without_a_panic(bytes in text()) {
                if let Ok(text) = std::str::from_utf8(&bytes) {
                    let _ = all_members(text.trim());
                    let _ = all_elements(text.trim());
                }
            }
        }
    }
}
