//! [`ItemList`]: a list kept as the text of its items, each item read into
//! its protocol type when first asked for.
//!
//! A server's list is mostly passed along (to a cache, to `--json` output,
//! to another process) or read in part (a name for a catalog), and a 40 MB
//! `tools/list` read whole into [`Tool`](super::Tool)s costs more than the
//! bytes it came in. So a list keeps each item as sent ([`RawJson`], a slice
//! of the response) and decodes one when it is read, at most once; clones
//! share both the text and what was decoded.
//!
//! A malformed item is never lost: reading it yields a [`MalformedItem`]
//! naming it and why, and it is still written back as it came.
//!
//! ```
//! use mcpdisco_protocol::types::{ListToolsResult, Tool};
//!
//! let result: ListToolsResult = serde_json::from_str(
//!     r#"{"tools": [{"name": "add", "inputSchema": {"type": "object"}}, {"name": 7}]}"#,
//! )?;
//! let tools = result.tools;
//! // Each item as the protocol type, or why it is not one.
//! let first: &Tool = tools.get(0).unwrap()?;
//! assert_eq!(first.name, "add");
//! assert!(tools.get(1).unwrap().is_err());
//! // The well-formed ones, skipping the rest on purpose.
//! assert_eq!(tools.valid().count(), 1);
//! // The text as sent, for pass-through.
//! assert_eq!(tools.raw()[1].as_str(), r#"{"name": 7}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::iter::FusedIterator;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::raw::{JsonView, RawJson};

/// What one item decoded to: the value, or why it is not one.
type Decoded<T> = Result<T, String>;

/// One item's decoding, done at most once, kept inline (no allocation of
/// its own: a 40 MB list read whole costs little more than its `Vec<T>`).
type Cell<T> = OnceLock<Decoded<T>>;

/// A list kept as its items' text, each item decoded into `T` when first
/// read (and at most once; clones share what was decoded).
///
/// * Typed reads: [`iter`](Self::iter) and [`get`](Self::get) yield
///   `Result<&T, MalformedItem>`, so `?` stops at a malformed item and names
///   it; [`valid`](Self::valid) and [`into_valid`](Self::into_valid) skip
///   malformed items on purpose, [`malformed`](Self::malformed) lists them.
///   `for item in &list` and `for item in list` read the same way.
/// * Raw access, with no decoding: [`raw`](Self::raw) is every item exactly
///   as sent. Borrowed views ([`ToolView`](crate::raw::ToolView) and the
///   others) read a name or two from it without decoding the item.
/// * Serde writes the items as sent, byte for byte (a malformed one too),
///   and reads them without decoding any.
/// * Cloning copies no text and no decoded item.
///
/// The first typed read makes room for every item's decoded value at once
/// (one allocation); items are then decoded one by one as read.
pub struct ItemList<T> {
    /// The items, exactly as sent.
    raw: Vec<RawJson>,
    /// One cell per item of `raw`, made at the first typed read.
    decoded: OnceLock<Arc<[Cell<T>]>>,
}

/// An item of an [`ItemList`] that does not read as its protocol type: its
/// position, its text as sent, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("item {index}{} of the list is malformed: {reason}", label(.raw))]
pub struct MalformedItem {
    index: usize,
    raw: RawJson,
    reason: String,
}

impl MalformedItem {
    /// Its position in the list.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its text, as sent.
    pub fn raw(&self) -> &RawJson {
        &self.raw
    }

    /// Why it does not read as its type (serde's message, with the line and column in the item).
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// ` ("name")` when the item has a string `name` (else `uri`), for messages.
fn label(raw: &RawJson) -> String {
    let view = JsonView::of(raw);
    match view
        .get("name")
        .and_then(JsonView::as_str)
        .or_else(|| view.get("uri").and_then(JsonView::as_str))
    {
        Some(name) => format!(" ({name:?})"),
        None => String::new(),
    }
}

impl<T> ItemList<T> {
    /// An empty list.
    pub fn new() -> Self {
        Self::from_raw(Vec::new())
    }

    /// A list of these items, as sent; none is read until asked for.
    pub fn from_raw(items: Vec<RawJson>) -> Self {
        Self {
            raw: items,
            decoded: OnceLock::new(),
        }
    }

    /// How many items, well-formed or not.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Every item exactly as sent, in order: for passing them on, or for a
    /// borrowed view. Decodes nothing.
    pub fn raw(&self) -> &[RawJson] {
        &self.raw
    }

    /// The items as sent.
    pub fn into_raw(self) -> Vec<RawJson> {
        self.raw
    }
}

impl<T: Clone> ItemList<T> {
    /// Adds an item as sent.
    pub fn push_raw(&mut self, item: RawJson) {
        if let Some(cells) = self.decoded.take() {
            let mut kept = take_cells(cells, |_| true);
            kept.push(OnceLock::new());
            self.decoded = OnceLock::from(Arc::<[Cell<T>]>::from(kept));
        }
        self.raw.push(item);
    }

    /// Keeps the items for which `keep` (given each item's text) says so;
    /// what was decoded of them stays decoded.
    pub fn retain_raw(&mut self, mut keep: impl FnMut(&RawJson) -> bool) {
        let kept: Vec<bool> = self.raw.iter().map(&mut keep).collect();
        let raw = std::mem::take(&mut self.raw);
        self.raw = raw
            .into_iter()
            .zip(&kept)
            .filter(|(_, keep)| **keep)
            .map(|(item, _)| item)
            .collect();
        if let Some(cells) = self.decoded.take() {
            let cells = take_cells(cells, |index| kept[index]);
            self.decoded = OnceLock::from(Arc::<[Cell<T>]>::from(cells));
        }
    }

    /// The items in `range` (clamped to the list), sharing their text; what
    /// was decoded of them is copied: a page to serve.
    pub fn slice(&self, range: Range<usize>) -> Self {
        let end = range.end.min(self.raw.len());
        let start = range.start.min(end);
        Self {
            raw: self.raw[start..end].to_vec(),
            decoded: match self.decoded.get() {
                Some(cells) => OnceLock::from(
                    cells[start..end]
                        .iter()
                        .map(copy_cell)
                        .collect::<Arc<[Cell<T>]>>(),
                ),
                None => OnceLock::new(),
            },
        }
    }
}

/// The cells whose index `keep` says so: moved out when `cells` is this
/// list's alone, copied when a clone shares them.
fn take_cells<T: Clone>(mut cells: Arc<[Cell<T>]>, keep: impl Fn(usize) -> bool) -> Vec<Cell<T>> {
    match Arc::get_mut(&mut cells) {
        Some(own) => own
            .iter_mut()
            .enumerate()
            .filter(|(index, _)| keep(*index))
            .map(|(_, cell)| match cell.take() {
                Some(decoded) => OnceLock::from(decoded),
                None => OnceLock::new(),
            })
            .collect(),
        None => cells
            .iter()
            .enumerate()
            .filter(|(index, _)| keep(*index))
            .map(|(_, cell)| copy_cell(cell))
            .collect(),
    }
}

/// A cell holding a copy of what `cell` holds.
fn copy_cell<T: Clone>(cell: &Cell<T>) -> Cell<T> {
    match cell.get() {
        Some(decoded) => OnceLock::from(decoded.clone()),
        None => OnceLock::new(),
    }
}

impl<T: DeserializeOwned> ItemList<T> {
    /// The cells, made on the first typed read.
    fn cells(&self) -> &[Cell<T>] {
        self.decoded
            .get_or_init(|| self.raw.iter().map(|_| OnceLock::new()).collect())
    }

    /// The item at `index` as `T` (decoded now if it was not yet), or why it
    /// is not one; `None` past the end.
    pub fn get(&self, index: usize) -> Option<Result<&T, MalformedItem>> {
        let raw = self.raw.get(index)?;
        let cell = self.cells().get(index)?;
        Some(read(index, raw, cell))
    }

    /// Every item in order, as `T` or as the [`MalformedItem`] it is.
    pub fn iter(&self) -> Items<'_, T> {
        Items {
            raw: &self.raw,
            cells: self.cells(),
            indices: 0..self.raw.len(),
        }
    }

    /// The well-formed items, skipping malformed ones (which
    /// [`malformed`](Self::malformed) lists).
    pub fn valid(&self) -> impl Iterator<Item = &T> {
        self.iter().filter_map(Result::ok)
    }

    /// The malformed items, each with why.
    pub fn malformed(&self) -> impl Iterator<Item = MalformedItem> + '_ {
        self.iter().filter_map(Result::err)
    }
}

impl<T: DeserializeOwned + Clone> ItemList<T> {
    /// The well-formed items, owned (each decoded once; one already decoded
    /// is moved out, or cloned while another list shares it).
    pub fn into_valid(self) -> Vec<T> {
        self.into_iter().filter_map(Result::ok).collect()
    }
}

impl<T: Serialize> ItemList<T> {
    /// A list of these values: each is written as JSON text now (what
    /// [`raw`](Self::raw) and serde give) and kept as already decoded.
    pub fn encode(items: impl IntoIterator<Item = T>) -> Result<Self, serde_json::Error> {
        let mut raw = Vec::new();
        let mut cells = Vec::new();
        for item in items {
            raw.push(RawJson::encode(&item)?);
            cells.push(OnceLock::from(Ok(item)));
        }
        Ok(Self {
            raw,
            decoded: OnceLock::from(Arc::<[Cell<T>]>::from(cells)),
        })
    }
}

/// Reads the item `raw` at `index` through its cell.
fn read<'a, T: DeserializeOwned>(
    index: usize,
    raw: &RawJson,
    cell: &'a Cell<T>,
) -> Result<&'a T, MalformedItem> {
    let decoded = cell.get_or_init(|| raw.decode().map_err(|e| e.to_string()));
    match decoded {
        Ok(value) => Ok(value),
        Err(reason) => Err(malformed(index, raw, reason)),
    }
}

fn malformed(index: usize, raw: &RawJson, reason: &str) -> MalformedItem {
    MalformedItem {
        index,
        raw: raw.clone(),
        reason: reason.to_owned(),
    }
}

/// The items of an [`ItemList`], by reference: `Result<&T, MalformedItem>`.
pub struct Items<'a, T> {
    raw: &'a [RawJson],
    cells: &'a [Cell<T>],
    indices: Range<usize>,
}

impl<'a, T: DeserializeOwned> Items<'a, T> {
    fn at(&self, index: usize) -> Option<Result<&'a T, MalformedItem>> {
        Some(read(index, self.raw.get(index)?, self.cells.get(index)?))
    }
}

impl<'a, T: DeserializeOwned> Iterator for Items<'a, T> {
    type Item = Result<&'a T, MalformedItem>;

    fn next(&mut self) -> Option<Self::Item> {
        let index = self.indices.next()?;
        self.at(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.indices.size_hint()
    }
}

impl<T: DeserializeOwned> DoubleEndedIterator for Items<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let index = self.indices.next_back()?;
        self.at(index)
    }
}

impl<T: DeserializeOwned> ExactSizeIterator for Items<'_, T> {}

impl<T: DeserializeOwned> FusedIterator for Items<'_, T> {}

impl<'a, T: DeserializeOwned> IntoIterator for &'a ItemList<T> {
    type Item = Result<&'a T, MalformedItem>;
    type IntoIter = Items<'a, T>;

    fn into_iter(self) -> Items<'a, T> {
        self.iter()
    }
}

/// The items of an [`ItemList`], owned: `Result<T, MalformedItem>`.
pub struct IntoItems<T> {
    raw: std::iter::Enumerate<std::vec::IntoIter<RawJson>>,
    /// What was decoded before the list was taken apart, if anything.
    cells: Option<Arc<[Cell<T>]>>,
}

impl<T: DeserializeOwned + Clone> Iterator for IntoItems<T> {
    type Item = Result<T, MalformedItem>;

    fn next(&mut self) -> Option<Self::Item> {
        let (index, raw) = self.raw.next()?;
        let decoded = match &mut self.cells {
            // Ours alone: move the decoded item out.
            Some(cells) => match Arc::get_mut(cells) {
                Some(cells) => cells.get_mut(index).and_then(OnceLock::take),
                None => cells.get(index).and_then(|cell| cell.get().cloned()),
            },
            None => None,
        };
        Some(match decoded {
            Some(Ok(value)) => Ok(value),
            Some(Err(reason)) => Err(malformed(index, &raw, &reason)),
            None => raw.decode().map_err(|e| MalformedItem {
                index,
                reason: e.to_string(),
                raw,
            }),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.raw.size_hint()
    }
}

impl<T: DeserializeOwned + Clone> ExactSizeIterator for IntoItems<T> {}

impl<T: DeserializeOwned + Clone> IntoIterator for ItemList<T> {
    type Item = Result<T, MalformedItem>;
    type IntoIter = IntoItems<T>;

    fn into_iter(self) -> IntoItems<T> {
        IntoItems {
            raw: self.raw.into_iter().enumerate(),
            cells: self.decoded.into_inner(),
        }
    }
}

impl<T> Default for ItemList<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for ItemList<T> {
    /// Shares every item's text and what was decoded (decoded later by
    /// either list, an item is decoded for both only if it was before).
    fn clone(&self) -> Self {
        Self {
            raw: self.raw.clone(),
            decoded: match self.decoded.get() {
                Some(cells) => OnceLock::from(Arc::clone(cells)),
                None => OnceLock::new(),
            },
        }
    }
}

impl<T> fmt::Debug for ItemList<T> {
    /// The items as sent.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.raw).finish()
    }
}

impl<T> PartialEq for ItemList<T> {
    /// Equal when the items' texts are.
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl<T> Eq for ItemList<T> {}

impl<T> From<Vec<RawJson>> for ItemList<T> {
    fn from(items: Vec<RawJson>) -> Self {
        Self::from_raw(items)
    }
}

impl<T> FromIterator<RawJson> for ItemList<T> {
    fn from_iter<I: IntoIterator<Item = RawJson>>(items: I) -> Self {
        Self::from_raw(items.into_iter().collect())
    }
}

impl<T> Serialize for ItemList<T> {
    /// The items as sent, byte for byte.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl<'de, T> Deserialize<'de> for ItemList<T> {
    /// Keeps each element's text; none is decoded until read.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<RawJson>::deserialize(deserializer).map(Self::from_raw)
    }
}

/// A list result (`tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list`, `skills/list`): one page of items and the
/// cursor of the next, so a server can page any of them the same way.
pub trait ListResult: Sized {
    /// The listed item.
    type Item: Clone;

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

#[cfg(test)]
mod tests;
