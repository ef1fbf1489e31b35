//! From discovered MCP tools to capabilities a host can review and trust.
//! Pure: no I/O, no runtime; it reads items as their servers sent them.
//!
//! * [`types`]: a tool's JSON Schemas as type expressions, written as RTFS
//!   (`[:map [:query :string] [:limit {:optional true} :int]]`).
//! * [`infer`]: what a tool is about (its domains) and what it does (its
//!   categories: `crud.read`, `search`, …).
//! * [`manifest`]: one tool as a capability manifest, in RTFS and JSON.
//! * [`pins`]: what a person approved, as a canonical hash (RFC 8785) over
//!   the fields that say what an item does; the lock file's format; and the
//!   checks that tell an unchanged item from a changed, new or removed one,
//!   field by field.
//! * [`signature`]: compact signatures for people
//!   (`search(query: string, limit?: integer) -> {hits}`).
//!
//! Items are taken as protocol types: a [`Tool`](mcpdisco_protocol::types::Tool)
//! for a manifest; for a pin, a typed item or a borrowed view of the text
//! its server sent ([`ToolView`](mcpdisco_protocol::ToolView), …), which
//! pins exactly what was sent.
//!
//! ```
//! use mcpdisco_capability::{Manifest, PinFile, PinScope, Provider, ServerIdentity};
//! use mcpdisco_protocol::RawJson;
//! use mcpdisco_protocol::types::{Tool, ToolAnnotations};
//!
//! let schema = r#"{"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}"#;
//! let mut tool = Tool::new("search_issues", RawJson::parse(schema)?);
//! tool.description = Some("Searches the issues.".into());
//! tool.annotations = Some(ToolAnnotations { read_only_hint: Some(true), ..Default::default() });
//!
//! let provider = Provider::Http { url: "https://example.com/mcp".into() };
//! let manifest = Manifest::of("tracker", provider, &tool);
//! assert_eq!(manifest.id, "mcp.tracker.search_issues");
//! assert!(manifest.to_rtfs().contains(":input-schema [:map [:query :string]]"));
//!
//! let scope = PinScope::of(&ServerIdentity {
//!     name: "tracker".into(),
//!     transport: "http".into(),
//!     command: None,
//!     args: None,
//!     url: Some("https://example.com/mcp".into()),
//!     settings: None,
//! });
//! let mut pins = PinFile::default();
//! assert_eq!(pins.pin(&scope, &tool).as_deref(), Some("tool:search_issues"));
//! # Ok::<(), serde_json::Error>(())
//! ```

#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod infer;
pub mod manifest;
pub mod pins;
pub mod signature;
pub mod types;

pub use infer::{
    extract_primary_domain, extract_sub_domain, infer_category, infer_category_with, infer_domains,
};
pub use manifest::{Manifest, Provider};
pub use pins::{
    ItemCheck, ItemKind, PinFile, PinItem, PinScope, PinStatus, Pinnable, ServerIdentity,
};
pub use types::{Field, TypeExpr};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
