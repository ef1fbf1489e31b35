//! The one-pass scanner: checks that a text is one JSON object and records
//! where its members are, two levels deep, so a message's result can be split
//! (a list page into its items) without being read again.
//!
//! It is the fast path only. Whatever it does not accept (bad JSON, nesting
//! deeper than [`MAX_DEPTH`], an escaped surrogate that is not a valid pair)
//! it gives up on, and the caller reads the text with serde_json instead,
//! which then says precisely what is wrong. So the scanner must never accept
//! a text serde_json rejects; it may reject more.
//!
//! Strings, the bulk of any MCP result, are skipped eight bytes at a time:
//! one word test finds the next quote, backslash, control character or
//! non-ASCII byte (checked as one UTF-8 sequence).

use std::borrow::Cow;
use std::ops::Range;

/// The deepest nesting accepted: serde_json refuses a 128th container.
pub(crate) const MAX_DEPTH: usize = 127;

/// The scanner gave up: the text is not JSON, or not JSON it reads quickly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GaveUp;

type Scan<T> = Result<T, GaveUp>;

/// One member of a scanned object. Ranges are byte offsets in the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemberSpan {
    /// The key's text between its quotes, escapes not decoded.
    pub key: Range<usize>,
    /// Whether the key holds a backslash escape (then it must be decoded to compare).
    pub key_escaped: bool,
    /// The value's text.
    pub value: Range<usize>,
    /// What is recorded inside the value.
    pub inner: Inner,
}

/// What the scanner recorded inside a member's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inner {
    /// Nothing: a scalar, or an object below the recorded levels.
    Nothing,
    /// An array: each element's text.
    Elements(Vec<Range<usize>>),
    /// An object within the recorded levels: its members.
    Members(Vec<MemberSpan>),
}

/// The members of an object, recorded while its text was checked; offsets
/// count from `base` (where the object starts in the text they came from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outline {
    /// Where the object starts in the scanned text.
    pub base: usize,
    /// Its members, in order.
    pub members: Vec<MemberSpan>,
}

impl Outline {
    /// `range` (offsets in the scanned text) as offsets in the object's own text.
    pub(crate) fn local(&self, range: &Range<usize>) -> Range<usize> {
        // Recorded ranges lie within the object; were one not to, it would
        // wrap to an offset past any text, and the caller's `get` says `None`.
        range.start.wrapping_sub(self.base)..range.end.wrapping_sub(self.base)
    }
}

/// The key whose text (between its quotes) is `key` in `text`, its escapes
/// decoded when `escaped`; `None` when the range does not lie in `text`.
pub(crate) fn key_in(text: &[u8], key: Range<usize>, escaped: bool) -> Option<Cow<'_, str>> {
    if escaped {
        let quoted = text.get(key.start.checked_sub(1)?..key.end.checked_add(1)?)?;
        serde_json::from_slice::<String>(quoted)
            .ok()
            .map(Cow::Owned)
    } else {
        std::str::from_utf8(text.get(key)?).ok().map(Cow::Borrowed)
    }
}

/// Scans `text`, which must hold one JSON object (whitespace around it
/// allowed), handing each member to `member` in order, and returns the
/// object's own range. Nothing is allocated but what is recorded: only a
/// member whose key text (between its quotes, escapes not decoded) `record`
/// accepts has its value's inside recorded: an array's elements, or an
/// object's members with the elements of their arrays.
pub(crate) fn object_members(
    text: &[u8],
    record: impl Fn(&[u8]) -> bool,
    mut member: impl FnMut(MemberSpan),
) -> Scan<Range<usize>> {
    let mut scanner = Scanner { text, at: 0 };
    scanner.skip_space();
    let start = scanner.at;
    if scanner.peek() != Some(b'{') {
        return Err(GaveUp);
    }
    if !scanner.open(b'}') {
        loop {
            let (key, key_escaped) = scanner.key()?;
            let value_start = scanner.at;
            let inner = match text.get(key.clone()) {
                Some(key_text) if record(key_text) => scanner.recorded_value(2)?,
                _ => {
                    scanner.value(1)?;
                    Inner::Nothing
                }
            };
            member(MemberSpan {
                key,
                key_escaped,
                value: value_start..scanner.at,
                inner,
            });
            if scanner.after_item(b'}')? {
                break;
            }
        }
    }
    let end = scanner.at;
    scanner.skip_space();
    if scanner.at != text.len() {
        return Err(GaveUp);
    }
    Ok(start..end)
}

/// [`object_members`] recording every member: the object's range and its members (for tests).
#[cfg(test)]
pub(crate) fn object_outline(text: &[u8]) -> Scan<(Range<usize>, Vec<MemberSpan>)> {
    let mut members = Vec::new();
    let range = object_members(text, |_| true, |member| members.push(member))?;
    Ok((range, members))
}

/// Whether `text` is exactly one JSON value, as the scanner reads it (for tests).
#[cfg(test)]
pub(crate) fn is_json(text: &[u8]) -> bool {
    let mut scanner = Scanner { text, at: 0 };
    scanner.skip_space();
    let ok = scanner.value(0).is_ok();
    scanner.skip_space();
    ok && scanner.at == text.len()
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `word` that needs a look inside a string:
/// `"`, `\`, a control character, or a non-ASCII byte. The lowest flagged
/// byte is always a true one (the borrow tricks can only flag bytes above it).
#[inline(always)]
fn string_stops(word: u64) -> u64 {
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let is_quote = quote.wrapping_sub(ONES) & !quote;
    let is_backslash = backslash.wrapping_sub(ONES) & !backslash;
    let is_control = word.wrapping_sub(ONES * 0x20) & !word;
    (is_quote | is_backslash | is_control | word) & HIGH
}

struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    #[inline(always)]
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    /// Consumes `byte` or gives up.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Scan<()> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(GaveUp)
        }
    }

    /// One value at nesting `depth` (the number of containers around it).
    fn value(&mut self, depth: usize) -> Scan<()> {
        match self.peek() {
            Some(b'"') => self.string().map(drop),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(GaveUp),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Scan<()> {
        if self.text.get(self.at..self.at + word.len()) == Some(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(GaveUp)
        }
    }

    fn digits(&mut self) -> Scan<()> {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        if self.at == start {
            Err(GaveUp)
        } else {
            Ok(())
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Scan<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits()?,
            _ => return Err(GaveUp),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.digits()?;
        }
        Ok(())
    }

    /// A string, from its opening quote; whether it held an escape.
    fn string(&mut self) -> Scan<bool> {
        let text = self.text;
        let mut at = self.at + 1;
        let mut escaped = false;
        loop {
            // Find the next byte that needs a look, eight at a time.
            let stop = loop {
                if let Some(chunk) = text.get(at..at + 8) {
                    let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
                        return Err(GaveUp);
                    };
                    let word = u64::from_le_bytes(bytes);
                    let stops = string_stops(word);
                    if stops == 0 {
                        at += 8;
                        continue;
                    }
                    let shift = stops.trailing_zeros() & !7;
                    at += (shift / 8) as usize;
                    break (word >> shift) as u8;
                }
                match text.get(at) {
                    Some(&byte @ 0x20..=0x7f) if byte != b'"' && byte != b'\\' => at += 1,
                    Some(&byte) => break byte,
                    None => return Err(GaveUp),
                }
            };
            match stop {
                b'"' => {
                    self.at = at + 1;
                    return Ok(escaped);
                }
                b'\\' => {
                    escaped = true;
                    self.at = at;
                    self.escape()?;
                    at = self.at;
                }
                0x80..=0xff => {
                    self.at = at;
                    self.utf8_sequence()?;
                    at = self.at;
                }
                // A control character.
                _ => return Err(GaveUp),
            }
        }
    }

    /// One escape, from its backslash. A `\u` escape of a surrogate must be a
    /// valid pair (serde_json decides about anything else).
    fn escape(&mut self) -> Scan<()> {
        match self.text.get(self.at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.at += 2;
                Ok(())
            }
            Some(b'u') => {
                let unit = self.hex_unit(self.at + 2)?;
                self.at += 6;
                match unit {
                    0xD800..=0xDBFF => {
                        if self.text.get(self.at..self.at + 2) != Some(b"\\u") {
                            return Err(GaveUp);
                        }
                        let low = self.hex_unit(self.at + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(GaveUp);
                        }
                        self.at += 6;
                        Ok(())
                    }
                    0xDC00..=0xDFFF => Err(GaveUp),
                    _ => Ok(()),
                }
            }
            _ => Err(GaveUp),
        }
    }

    /// The four hex digits at `at`.
    fn hex_unit(&self, at: usize) -> Scan<u16> {
        let digits = self.text.get(at..at + 4).ok_or(GaveUp)?;
        let mut unit = 0u16;
        for &digit in digits {
            let nibble = (digit as char).to_digit(16).ok_or(GaveUp)?;
            unit = unit << 4 | nibble as u16;
        }
        Ok(unit)
    }

    /// One multi-byte UTF-8 sequence, from its lead byte.
    fn utf8_sequence(&mut self) -> Scan<()> {
        let width = match self.peek() {
            Some(0xC2..=0xDF) => 2,
            Some(0xE0..=0xEF) => 3,
            Some(0xF0..=0xF4) => 4,
            _ => return Err(GaveUp),
        };
        let sequence = self.text.get(self.at..self.at + width).ok_or(GaveUp)?;
        std::str::from_utf8(sequence).map_err(|_| GaveUp)?;
        self.at += width;
        Ok(())
    }

    /// Checks a nesting depth.
    fn enter(depth: usize) -> Scan<()> {
        if depth > MAX_DEPTH {
            Err(GaveUp)
        } else {
            Ok(())
        }
    }

    /// Steps over a container's opening bracket and the space after it;
    /// whether `close` follows at once (then it is stepped over too).
    #[inline(always)]
    fn open(&mut self, close: u8) -> bool {
        self.at += 1;
        self.skip_space();
        let empty = self.peek() == Some(close);
        if empty {
            self.at += 1;
        }
        empty
    }

    /// After a container's member or element: whether `close` ended the
    /// container (`false`: a comma, another one follows).
    #[inline(always)]
    fn after_item(&mut self, close: u8) -> Scan<bool> {
        self.skip_space();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                self.skip_space();
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.at += 1;
                Ok(true)
            }
            _ => Err(GaveUp),
        }
    }

    /// A member's key and the colon after it: the key's text between its
    /// quotes, and whether it holds an escape.
    #[inline(always)]
    fn key(&mut self) -> Scan<(Range<usize>, bool)> {
        if self.peek() != Some(b'"') {
            return Err(GaveUp);
        }
        let start = self.at + 1;
        let escaped = self.string()?;
        let key = start..self.at - 1;
        self.skip_space();
        self.expect(b':')?;
        self.skip_space();
        Ok((key, escaped))
    }

    /// An object at nesting `depth`, from its `{`, recording nothing.
    fn object(&mut self, depth: usize) -> Scan<()> {
        Self::enter(depth)?;
        if self.open(b'}') {
            return Ok(());
        }
        loop {
            self.key()?;
            self.value(depth)?;
            if self.after_item(b'}')? {
                return Ok(());
            }
        }
    }

    /// An array at nesting `depth`, from its `[`; each element's range goes
    /// to `elements` when given.
    fn array_into(
        &mut self,
        depth: usize,
        mut elements: Option<&mut Vec<Range<usize>>>,
    ) -> Scan<()> {
        Self::enter(depth)?;
        if self.open(b']') {
            return Ok(());
        }
        loop {
            let start = self.at;
            self.value(depth)?;
            if let Some(elements) = elements.as_deref_mut() {
                elements.push(start..self.at);
            }
            if self.after_item(b']')? {
                return Ok(());
            }
        }
    }

    fn array(&mut self, depth: usize) -> Scan<()> {
        self.array_into(depth, None)
    }

    /// A member's value, recording its inside: an array's elements, and
    /// with `levels` 2 an object's members (each value recorded with
    /// `levels` 1). The value of a top-level member: depth 1.
    fn recorded_value(&mut self, levels: u8) -> Scan<Inner> {
        let depth = 3 - usize::from(levels);
        Ok(match self.peek() {
            Some(b'[') => {
                let mut elements = Vec::new();
                self.array_into(depth + 1, Some(&mut elements))?;
                Inner::Elements(elements)
            }
            Some(b'{') if levels > 1 => Inner::Members(self.recorded_object()?),
            _ => {
                self.value(depth)?;
                Inner::Nothing
            }
        })
    }

    /// An object at depth 2, from its `{`, recording its members and the
    /// elements of their arrays.
    fn recorded_object(&mut self) -> Scan<Vec<MemberSpan>> {
        let mut members = Vec::new();
        if self.open(b'}') {
            return Ok(members);
        }
        loop {
            let (key, key_escaped) = self.key()?;
            let value_start = self.at;
            let inner = self.recorded_value(1)?;
            members.push(MemberSpan {
                key,
                key_escaped,
                value: value_start..self.at,
                inner,
            });
            if self.after_item(b'}')? {
                return Ok(members);
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn text(source: &str, range: &Range<usize>) -> String {
        source[range.clone()].to_owned()
    }

    #[test]
    fn records_two_levels_and_array_elements() {
        let source = r#" {"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a"} , {"b":[1]}],"nextCursor":"c","x":{"deep":[2]}}} "#;
        let (range, members) = object_outline(source.as_bytes()).unwrap();
        assert_eq!(range, 1..source.len() - 1);
        let keys: Vec<String> = members.iter().map(|m| text(source, &m.key)).collect();
        assert_eq!(keys, ["jsonrpc", "id", "result"]);
        assert_eq!(text(source, &members[1].value), "7");
        let Inner::Members(result) = &members[2].inner else {
            panic!("result not recorded")
        };
        let Inner::Elements(tools) = &result[0].inner else {
            panic!("tools not split")
        };
        let tools: Vec<String> = tools.iter().map(|r| text(source, r)).collect();
        assert_eq!(tools, [r#"{"name":"a"}"#, r#"{"b":[1]}"#]);
        assert_eq!(text(source, &result[1].value), r#""c""#);
        assert_eq!(
            result[2].inner,
            Inner::Nothing,
            "three levels down is not recorded"
        );
    }

    #[test]
    fn escaped_keys_are_marked() {
        let source = r#"{"a\u0062":1,"c":2}"#;
        let (_, members) = object_outline(source.as_bytes()).unwrap();
        assert!(members[0].key_escaped);
        assert_eq!(text(source, &members[0].key), r"a\u0062");
        assert!(!members[1].key_escaped);
    }

    #[test]
    fn accepts_what_json_allows() {
        for ok in [
            "0",
            "-0.5e+10",
            "1E5",
            "123",
            "\"\"",
            "\"caf\u{e9} \u{1F600} \\u00e9 \\ud83d\\ude00 \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"",
            "[]",
            "{}",
            " [ 1 , { \"a\" : [ ] } , null, true, false ] ",
            "\"a long string that is longer than eight bytes, with a \\\" quote in it\"",
        ] {
            assert!(is_json(ok.as_bytes()), "{ok}");
            assert!(
                serde_json::from_str::<serde_json::Value>(ok).is_ok(),
                "{ok}"
            );
        }
    }

    #[test]
    fn gives_up_on_what_json_forbids_or_serde_may() {
        for bad in [
            "",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "[1 2]",
            "tru",
            "nul",
            "\"abc",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"tab\there\"",
            "[1]]",
            "{\"a\" 1}",
            "\"\u{1}\"",
        ] {
            assert!(!is_json(bad.as_bytes()), "accepted {bad:?}");
        }
        assert!(!is_json(b"\"\xff\""));
        assert!(!is_json(b"\"\xc3\""));
        assert!(!is_json(b"\"\xed\xa0\x80\""), "an encoded surrogate");
        assert!(!is_json(b"\"\xe2\x82\""), "a cut sequence");
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(!is_json(deep.as_bytes()));
        let fine = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(is_json(fine.as_bytes()));
        assert!(serde_json::from_str::<serde_json::Value>(&fine).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&deep).is_err());
        assert!(object_outline(b"[1]").is_err());
        assert!(object_outline(b"{} x").is_err());
    }

    #[test]
    fn string_stops_finds_the_first_special_byte() {
        for (bytes, first) in [
            (*b"abcdefgh", None),
            (*b"abc\"efgh", Some(3)),
            (*b"\\bcdefgh", Some(0)),
            (*b"abcdefg\x01", Some(7)),
            (*b"ab\x00\x01\"fgh", Some(2)),
            (*b"a\xc3\xa9defgh", Some(1)),
            (*b"~~~~~~~\x7f", None),
        ] {
            let stops = string_stops(u64::from_le_bytes(bytes));
            let found = (stops != 0).then(|| stops.trailing_zeros() as usize / 8);
            assert_eq!(found, first, "{bytes:?}");
        }
    }

    pub(in crate::raw) mod properties {
        use super::super::*;
        use proptest::prelude::*;
        use serde_json::Value;
        use serde_json::value::RawValue;

        /// Any JSON value, with keys and strings that need escapes.
        pub(in crate::raw) fn json() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                any::<f64>().prop_map(Value::from),
                "\\PC{0,12}".prop_map(Value::from),
                "[ -~\\u{0}-\\u{1f}\\u{e9}\\u{1F600}\"\\\\]{0,40}".prop_map(Value::from),
            ];
            leaf.prop_recursive(4, 32, 6, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                    prop::collection::vec(("[a-z\"\\\\\\u{e9}]{0,6}", inner), 0..6)
                        .prop_map(|members| Value::Object(members.into_iter().collect())),
                ]
            })
        }

        /// A JSON text, compact or spaced, maybe with one byte changed, added or removed.
        pub(in crate::raw) fn text() -> impl Strategy<Value = Vec<u8>> {
            let alphabet = prop::sample::select(
                b" \t\n{}[]:,\"\\/0123456789.eE+-truefalsn\x01\x7f\xc3\xa9\xff".to_vec(),
            );
            (
                json(),
                any::<bool>(),
                0..4u8,
                any::<prop::sample::Index>(),
                alphabet,
            )
                .prop_map(|(value, pretty, edit, at, byte)| {
                    let mut text = if pretty {
                        serde_json::to_vec_pretty(&value).unwrap_or_default()
                    } else {
                        serde_json::to_vec(&value).unwrap_or_default()
                    };
                    let i = at.index(text.len() + 1);
                    match edit {
                        1 if i < text.len() => text[i] = byte,
                        2 => text.insert(i, byte),
                        3 if i < text.len() => {
                            text.remove(i);
                        }
                        _ => {}
                    }
                    text
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]

            /// Sound: whatever the scanner accepts, serde_json accepts; and
            /// what serde_json writes, the scanner reads.
            #[test]
            fn accepts_only_json(text in text()) {
                if is_json(&text) {
                    prop_assert!(serde_json::from_slice::<&RawValue>(&text).is_ok(), "{}", String::from_utf8_lossy(&text));
                }
            }

            #[test]
            fn reads_all_it_writes(value in json(), pretty in any::<bool>()) {
                let text = if pretty { serde_json::to_vec_pretty(&value) } else { serde_json::to_vec(&value) };
                let text = text.unwrap_or_default();
                prop_assert!(is_json(&text), "{}", String::from_utf8_lossy(&text));
            }

            /// The recorded spans are serde_json's: members, and array elements.
            #[test]
            fn spans_match_serde(members in prop::collection::vec(("[a-z]{1,4}", json()), 0..5), pretty in any::<bool>()) {
                let object = Value::Object(members.into_iter().collect());
                let text = if pretty { serde_json::to_vec_pretty(&object) } else { serde_json::to_vec(&object) };
                let text = text.unwrap_or_default();
                let (range, outline) = object_outline(&text).map_err(|_| TestCaseError::fail("refused"))?;
                prop_assert_eq!(range, 0..text.len());
                let theirs: Vec<(String, &RawValue)> = serde_json::from_slice::<serde_json::Map<String, Value>>(&text)
                    .map(|_| ())
                    .and_then(|()| {
                        let map: std::collections::BTreeMap<String, &RawValue> = serde_json::from_slice(&text)?;
                        Ok(map.into_iter().collect())
                    })
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(outline.len(), theirs.len());
                for member in &outline {
                    let key = std::str::from_utf8(&text[member.key.clone()]).unwrap_or_default();
                    let (_, raw) = theirs.iter().find(|(k, _)| k == key).ok_or_else(|| TestCaseError::fail("missing"))?;
                    prop_assert_eq!(&text[member.value.clone()], raw.get().as_bytes());
                    if let Inner::Elements(elements) = &member.inner {
                        let items: Vec<&RawValue> = serde_json::from_str(raw.get()).map_err(|e| TestCaseError::fail(e.to_string()))?;
                        let ours: Vec<&[u8]> = elements.iter().map(|r| &text[r.clone()]).collect();
                        let theirs: Vec<&[u8]> = items.iter().map(|i| i.get().as_bytes()).collect();
                        prop_assert_eq!(ours, theirs);
                    }
                }
            }
        }
    }
}
