//! Tool search (`serve --tool-search`): the gateway lists two tools,
//! `search_tools` and `call_tool`, instead of every server's tools, so a
//! model's context holds two definitions however many tools there are.
//!
//! - [`ToolIndex`] (`index.rs`) is pure: BM25 over the words of each
//!   served tool's namespaced name, title, description, and its input
//!   schema's property names and descriptions, each field weighted.
//!   [`words`] (`tokenize.rs`) splits `snake_case`, `camelCase`,
//!   `kebab-case` and letter/digit boundaries, lowercased.
//! - `tools.rs` declares the two tools and answers `search_tools`;
//!   `call_tool` unwraps its `name` and `arguments` and goes down the
//!   gateway's one call path (`calls.rs`), so its errors, progress,
//!   cancellation and forwarded questions are those of a direct call.
//!
//! The index is built with the gateway's lists, once per catalog: a
//! server's `list_changed`, start, restart or loss makes a new catalog,
//! and the next search a new index.

mod index;
mod tokenize;
pub(crate) mod tools;

pub use index::{MAX_QUERY_WORDS, ToolIndex};
pub use tokenize::words;
