//! [`Contender`]: whose implementation a run measures, and which of them
//! this build has.

use std::fmt;

/// Whose implementation a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Contender {
    /// This workspace's crates.
    Ours,
    /// rmcp, the official Rust SDK.
    Rmcp,
    /// A baseline without protocol logic: the floor.
    Raw,
}

impl Contender {
    /// The error for a contender this build does not have (see [`BUILT_WITH`]).
    pub fn not_built(self) -> crate::BenchError {
        crate::BenchError::Unexpected(format!(
            "{self} is not in this build (features: {BUILT_WITH})"
        ))
    }
}

/// The features this build was made with: `ours` (our crates, with the
/// serde_json features our users get), `peers` (rmcp and the raw floors,
/// with serde_json's defaults), or both (tests only: one binary unifies
/// both sides' features).
pub const BUILT_WITH: &str = match (cfg!(feature = "ours"), cfg!(feature = "peers")) {
    (true, true) => "ours+peers",
    (true, false) => "ours",
    (false, true) => "peers",
    (false, false) => "none",
};

impl fmt::Display for Contender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Contender::Ours => "ours",
            Contender::Rmcp => "rmcp",
            Contender::Raw => "raw",
        })
    }
}
