//! [`RawPage`]: one page of a list result, its items split out as raw slices.
//!
//! A result decoded from a message carries the outline the decoder's one
//! pass recorded (the `scan` module): the page is split from it, and the
//! text is not read again. Any other text takes one pass of serde_json, which
//! borrows each item's span. Either way every item is a slice of the
//! result's bytes: no item is parsed or copied.

use std::fmt;

use serde::Deserializer as _;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::raw_json::RawJson;
use super::scan::{Inner, Outline, key_in};

/// One page of a list result, read without parsing its items.
#[derive(Debug, Clone, PartialEq)]
pub struct RawPage {
    /// The items, each a slice of the result's text.
    pub items: Vec<RawJson>,
    /// `nextCursor`, when it is a string.
    pub next_cursor: Option<String>,
    /// `ttlMs`, when it is an integer.
    pub ttl_ms: Option<i64>,
}

impl RawJson {
    /// Reads a list result (`tools/list` and the like) in one pass: the
    /// elements of the array member `items_key` as slices of this text, not
    /// parsed, with `nextCursor` and `ttlMs`. `None` when this is not an object,
    /// or `items_key` is missing or not an array.
    pub fn list_page(&self, items_key: &str) -> Option<RawPage> {
        if let Some(outline) = &self.outline {
            return self.page_from_outline(outline, items_key);
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&self.text);
        let page = deserializer
            .deserialize_map(PageVisitor { items_key })
            .ok()?;
        Some(RawPage {
            items: page
                .items?
                .into_iter()
                .map(|item| self.slice(item))
                .collect(),
            next_cursor: page.next_cursor,
            ttl_ms: page.ttl_ms,
        })
    }
}

impl RawJson {
    /// [`list_page`](Self::list_page) from what the decoder recorded.
    fn page_from_outline(&self, outline: &Outline, items_key: &str) -> Option<RawPage> {
        let mut page = RawPage {
            items: Vec::new(),
            next_cursor: None,
            ttl_ms: None,
        };
        let mut found = false;
        for member in &outline.members {
            let key = key_in(&self.text, outline.local(&member.key), member.key_escaped)?;
            let value = || {
                let text = self.text.get(outline.local(&member.value))?;
                serde_json::from_slice::<Value>(text).ok()
            };
            match key.as_ref() {
                "nextCursor" => page.next_cursor = value()?.as_str().map(str::to_owned),
                "ttlMs" => page.ttl_ms = value()?.as_i64(),
                key if key == items_key => {
                    // Every member of that name must be an array; the last one counts.
                    let Inner::Elements(elements) = &member.inner else {
                        return None;
                    };
                    page.items = elements
                        .iter()
                        .map(|element| self.part(outline.local(element)))
                        .collect::<Option<_>>()?;
                    found = true;
                }
                _ => {}
            }
        }
        found.then_some(page)
    }
}

/// A page's members, its items borrowed from the text.
struct BorrowedPage<'a> {
    items: Option<Vec<&'a RawValue>>,
    next_cursor: Option<String>,
    ttl_ms: Option<i64>,
}

struct PageVisitor<'k> {
    items_key: &'k str,
}

impl<'de> Visitor<'de> for PageVisitor<'_> {
    type Value = BorrowedPage<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list result object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BorrowedPage<'de>, A::Error> {
        let mut page = BorrowedPage {
            items: None,
            next_cursor: None,
            ttl_ms: None,
        };
        while let Some(key) = map.next_key::<super::key::Key<'de>>()? {
            match key.as_str() {
                "nextCursor" => {
                    page.next_cursor = map.next_value::<Value>()?.as_str().map(str::to_owned)
                }
                "ttlMs" => page.ttl_ms = map.next_value::<Value>()?.as_i64(),
                key if key == self.items_key => page.items = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_page_is_split_without_parsing_its_items() {
        let result = RawJson::parse(
            r#"{"tools": [{"name":"a"} , {"name":"b","x":[1,{"y":"]"}]}], "nextCursor": "c2", "ttlMs": -5, "z": {}}"#,
        )
        .unwrap();
        let page = result.list_page("tools").unwrap();
        let items: Vec<&str> = page.items.iter().map(RawJson::as_str).collect();
        assert_eq!(
            items,
            [r#"{"name":"a"}"#, r#"{"name":"b","x":[1,{"y":"]"}]}"#]
        );
        let range = result.as_bytes().as_ptr_range();
        assert!(
            page.items
                .iter()
                .all(|item| range.contains(&item.as_bytes().as_ptr()))
        );
        assert_eq!(page.next_cursor.as_deref(), Some("c2"));
        assert_eq!(page.ttl_ms, Some(-5));
        let last = RawJson::parse(r#"{"prompts": [], "nextCursor": null}"#).unwrap();
        let page = last.list_page("prompts").unwrap();
        assert!(page.items.is_empty() && page.next_cursor.is_none());
        assert!(result.list_page("prompts").is_none());
        assert!(
            RawJson::parse(r#"{"tools": {}}"#)
                .unwrap()
                .list_page("tools")
                .is_none()
        );
        assert!(RawJson::parse("[]").unwrap().list_page("tools").is_none());
    }

    #[test]
    fn escaped_keys_and_non_array_items() {
        let raw = RawJson::parse(r#"{"to\u006fls": [1], "nextCursor": 5}"#).unwrap();
        let page = raw.list_page("tools").unwrap();
        assert_eq!(page.items[0].as_str(), "1");
        assert_eq!(page.next_cursor, None);
        let not_array = RawJson::parse(r#"{"tools": "no", "nextCursor": "c"}"#).unwrap();
        assert!(not_array.list_page("tools").is_none());
    }
}
