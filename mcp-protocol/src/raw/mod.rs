//! [`RawJson`]: one JSON value kept as the text its sender wrote, decoded
//! only when asked.
//!
//! A result of 40 MB parsed into a [`serde_json::Value`] costs about ten times
//! its size in memory and most of the time spent reading it, and most results
//! are only passed along (to a cache, to the screen, to another process) or
//! read in part (a list's items, an item's name). So results, list items and
//! JSON Schemas are kept raw:
//!
//! * Cloning is O(1): the text is a reference-counted [`Bytes`](bytes::Bytes).
//! * Decoding a line yields results that are slices of the line, not copies
//!   (`Message::from_bytes`).
//! * [`decode`](RawJson::decode) reads it into any type straight from the text;
//!   [`member`](RawJson::member) reads one member of an object and skips the rest.
//! * Writing it back (serde, [`as_str`](RawJson::as_str)) reproduces the text byte for byte.
//!
//! * [`JsonView`] borrows a value's text to read several members, or walk
//!   a schema, without building a tree.
//! * [`ObjectWriter`] writes an object whose values may be kept text
//!   (a relay's params), with nothing checked again.
//! * [`list_page`](RawJson::list_page) splits a list result into its items
//!   without parsing them: from what the decoder recorded while checking a
//!   message's result, so a page costs no second pass.
//!
//! Equality is equality of the text: `{"a":1}` and `{ "a": 1 }` differ. Use
//! [`to_value`](RawJson::to_value) to compare meanings.

mod item;
pub(crate) mod key;
mod object;
mod page;
mod raw_json;
pub(crate) mod scan;
mod view;
mod walk;

pub use item::{PromptView, ResourceView, SkillView, ToolView};
pub use object::ObjectWriter;
pub use page::RawPage;
pub use raw_json::RawJson;
pub use view::JsonView;
