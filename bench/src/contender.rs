//! [`Contender`]: whose implementation a run measures.

use std::fmt;

/// Whose implementation a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Contender {
    /// This workspace's crates.
    Ours,
    /// rmcp, the official Rust SDK.
    Rmcp,
    /// A baseline without protocol logic: the limit.
    Raw,
}

impl fmt::Display for Contender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Contender::Ours => "ours",
            Contender::Rmcp => "rmcp",
            Contender::Raw => "raw",
        })
    }
}
