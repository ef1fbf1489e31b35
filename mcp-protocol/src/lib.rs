//! Pure Model Context Protocol types.
//!
//! This crate holds JSON-RPC 2.0 and every MCP message of every protocol version
//! from 2024-11-05 to 2026-07-28. It does no I/O: it depends only on serde,
//! serde_json, thiserror and bytes, and can be used from any runtime or none.
//!
//! Results, list items and JSON Schemas are kept as [`RawJson`]: the text the
//! peer sent, decoded only when asked (see [`raw`]). A decoded JSON Schema
//! is read keyword by keyword through [`schema::Schema`]. A list of items
//! ([`types::ItemList`]: the tools of `tools/list`, say) reads each item as
//! its type when first asked, at most once, and reports a malformed one as
//! a [`types::MalformedItem`] without losing the others.

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod error;
pub mod jsonrpc;
pub mod meta;
pub mod method;
pub mod methods;
pub mod modern_request;
pub mod raw;
pub mod schema;
pub mod server;
pub mod types;
pub mod version;

pub use error::{ErrorCode, ErrorObject};
pub use jsonrpc::{
    ErrorResponse, Incoming, Message, MessageError, Notification, Request, RequestId, Response,
};
pub use raw::{JsonView, PromptView, RawJson, RawPage, ResourceView, SkillView, ToolView};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
