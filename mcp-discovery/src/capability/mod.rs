//! From discovered tools to capabilities a host can review and trust: each
//! tool's schemas as type expressions ([`types`]), what it is about and what
//! it does ([`infer`]), a manifest per tool ([`manifest`]) that a person
//! approves ([`approval`]), and pins of what was approved, checked at every
//! discovery ([`pins`]); and compact signatures for people
//! (`search(query: string, limit?: integer) -> {hits}`, [`signature`]).

pub mod approval;
pub mod infer;
pub mod introspect;
pub mod manifest;
pub mod pins;
pub mod signature;
pub mod types;

pub use approval::{CapabilityDir, Formats, Stage};
pub use infer::{
    extract_primary_domain, extract_sub_domain, infer_category, infer_category_with, infer_domains,
};
pub use manifest::{Manifest, Provider};
pub use pins::{ItemCheck, ItemKind, PinFile, PinStatus};
pub use types::{Field, TypeExpr};
