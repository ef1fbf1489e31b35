//! [`ItemList`]: a list whose malformed items do not lose the good ones.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::raw::RawJson;

/// One item of a list: readable, or kept raw with the reason it is not.
#[derive(Debug, Clone, PartialEq)]
pub enum ListItem<T> {
    /// A well-formed item.
    Valid(T),
    /// A malformed item, kept as sent.
    Invalid {
        /// The item as sent, byte for byte.
        raw: RawJson,
        /// Why it could not be read.
        error: String,
    },
}

/// A list decoded item by item: one malformed tool does not lose the others,
/// and writing the list back reproduces every item, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemList<T> {
    items: Vec<ListItem<T>>,
}

impl<T> Default for ItemList<T> {
    fn default() -> Self {
        Self { items: Vec::new() }
    }
}

impl<T> ItemList<T> {
    /// A list of valid items.
    pub fn from_valid(items: impl IntoIterator<Item = T>) -> Self {
        Self {
            items: items.into_iter().map(ListItem::Valid).collect(),
        }
    }

    /// Every item, valid or not, in order.
    pub fn items(&self) -> &[ListItem<T>] {
        &self.items
    }

    /// The valid items.
    pub fn valid(&self) -> impl Iterator<Item = &T> {
        self.items.iter().filter_map(|item| match item {
            ListItem::Valid(value) => Some(value),
            ListItem::Invalid { .. } => None,
        })
    }

    /// The valid items, owned.
    pub fn into_valid(self) -> Vec<T> {
        self.items
            .into_iter()
            .filter_map(|item| match item {
                ListItem::Valid(value) => Some(value),
                ListItem::Invalid { .. } => None,
            })
            .collect()
    }

    /// `(index, error)` for each malformed item.
    pub fn errors(&self) -> Vec<(usize, &str)> {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| match item {
                ListItem::Invalid { error, .. } => Some((index, error.as_str())),
                ListItem::Valid(_) => None,
            })
            .collect()
    }

    /// How many items, valid or not.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T> From<T> for ListItem<T> {
    fn from(item: T) -> Self {
        ListItem::Valid(item)
    }
}

impl<T> FromIterator<ListItem<T>> for ItemList<T> {
    fn from_iter<I: IntoIterator<Item = ListItem<T>>>(items: I) -> Self {
        Self {
            items: items.into_iter().collect(),
        }
    }
}

/// A list result (`tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list`): one page of items and the cursor of the
/// next, so a server can page any of them the same way.
pub trait ListResult: Sized {
    /// The listed item.
    type Item;

    /// The page `items`, followed by the page at `next_cursor` when there is one.
    fn page(items: ItemList<Self::Item>, next_cursor: Option<String>) -> Self;

    /// The modern caching hints (2026-07-28): how long the page stays fresh, and who may share it.
    fn cached(self, ttl_ms: i64, scope: super::lifecycle::CacheScope) -> Self;
}

/// Implements [`ListResult`] for a list result whose items are in `$field`.
macro_rules! impl_list_result {
    ($name:ident, $field:ident, $item:ty) => {
        impl $crate::types::item_list::ListResult for $name {
            type Item = $item;

            fn page(items: ItemList<$item>, next_cursor: Option<String>) -> Self {
                Self {
                    $field: items,
                    next_cursor,
                    ttl_ms: None,
                    cache_scope: None,
                    meta: None,
                    extra: $crate::types::extra::Extra::new(),
                }
            }

            fn cached(self, ttl_ms: i64, scope: $crate::types::lifecycle::CacheScope) -> Self {
                Self {
                    ttl_ms: Some(ttl_ms),
                    cache_scope: Some(scope),
                    ..self
                }
            }
        }
    };
}
pub(crate) use impl_list_result;

impl<T: DeserializeOwned> ItemList<T> {
    /// Decodes each item on its own, straight from its text.
    pub fn from_raw(items: impl IntoIterator<Item = RawJson>) -> Self {
        Self {
            items: items.into_iter().map(ListItem::decode).collect(),
        }
    }

    /// Decodes each value on its own.
    pub fn from_values(values: Vec<Value>) -> Self {
        Self::from_raw(values.iter().map(RawJson::from_value))
    }
}

impl<T: DeserializeOwned> ListItem<T> {
    /// Reads one item; a malformed one is kept with the reason.
    pub fn decode(raw: RawJson) -> Self {
        match raw.decode() {
            Ok(value) => ListItem::Valid(value),
            Err(error) => ListItem::Invalid {
                error: error.to_string(),
                raw,
            },
        }
    }
}

impl<T: Serialize> Serialize for ItemList<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.items.len()))?;
        for item in &self.items {
            match item {
                ListItem::Valid(value) => seq.serialize_element(value)?,
                ListItem::Invalid { raw, .. } => seq.serialize_element(raw)?,
            }
        }
        seq.end()
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for ItemList<T> {
    /// Reads each element as raw text and decodes it at once, so the list is
    /// never held twice and a malformed element is kept exactly as sent.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemsVisitor<T>(PhantomData<T>);

        impl<'de, T: DeserializeOwned> Visitor<'de> for ItemsVisitor<T> {
            type Value = ItemList<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ItemList<T>, A::Error> {
                // The hint comes from the input: bound it.
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(raw) = seq.next_element::<RawJson>()? {
                    items.push(ListItem::decode(raw));
                }
                Ok(ItemList { items })
            }
        }

        deserializer.deserialize_seq(ItemsVisitor(PhantomData))
    }
}
