//! From discovered tools to capabilities a host can review: each tool's
//! schemas as type expressions ([`types`]), what it is about and what it does
//! ([`infer`]).

pub mod infer;
pub mod types;

pub use infer::{
    extract_primary_domain, extract_sub_domain, infer_category, infer_category_with, infer_domains,
};
pub use types::{Field, TypeExpr};
