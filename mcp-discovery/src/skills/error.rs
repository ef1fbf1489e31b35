//! [`SkillError`]: why a skill was not loaded, naming the file and what
//! differed, and never quoting the file's content.

use mcpdisco_client::session::SessionError;
use mcpdisco_transport::secret::Masker;

use super::mismatch::Mismatch;
use super::verify::PlanError;

/// Why a skill was not loaded.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    /// The server lists no skill by that name (or URI).
    #[error("server '{server}' lists no skill '{name}'")]
    NotFound {
        /// The server.
        server: String,
        /// The name asked for.
        name: String,
    },
    /// Several skills carry that name.
    #[error("server '{server}' lists {count} skills named '{name}'; name one by its URI: {uris}")]
    Ambiguous {
        /// The server.
        server: String,
        /// The name asked for.
        name: String,
        /// How many.
        count: usize,
        /// Their URIs.
        uris: String,
    },
    /// The entry cannot be verified or is over the bounds; nothing was read.
    #[error("skill {uri} on server '{server}' is not loaded: {reason}")]
    Unverifiable {
        /// The server.
        server: String,
        /// The skill's `SKILL.md`.
        uri: String,
        /// Why.
        reason: PlanError,
    },
    /// A file read does not match its entry; it was discarded unseen.
    #[error("skill {skill} on server '{server}' failed verification: file {file}: {mismatch}")]
    Verification {
        /// The server.
        server: String,
        /// The skill's `SKILL.md`.
        skill: String,
        /// The file that failed.
        file: String,
        /// What differed.
        mismatch: Mismatch,
    },
    /// Listing the skills or reading a file failed.
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl SkillError {
    /// This error with known secrets masked in every text it holds (file
    /// URIs, names, the session's message).
    pub fn masked(self, masker: &Masker) -> Self {
        if masker.is_empty() {
            return self;
        }
        let mask = |text: String| masker.mask_string(text);
        match self {
            SkillError::NotFound { server, name } => SkillError::NotFound {
                server,
                name: mask(name),
            },
            SkillError::Ambiguous {
                server,
                name,
                count,
                uris,
            } => SkillError::Ambiguous {
                server,
                name: mask(name),
                count,
                uris: mask(uris),
            },
            SkillError::Unverifiable {
                server,
                uri,
                reason,
            } => SkillError::Unverifiable {
                server,
                uri: mask(uri),
                reason: mask_plan(reason, masker),
            },
            SkillError::Verification {
                server,
                skill,
                file,
                mismatch,
            } => SkillError::Verification {
                server,
                skill: mask(skill),
                file: mask(file),
                mismatch,
            },
            SkillError::Session(error) => SkillError::Session(error.masked(masker)),
        }
    }
}

fn mask_plan(reason: PlanError, masker: &Masker) -> PlanError {
    let mask = |uri: String| masker.mask_string(uri);
    match reason {
        PlanError::DynamicFile { uri } => PlanError::DynamicFile { uri: mask(uri) },
        PlanError::BadDigest { uri } => PlanError::BadDigest { uri: mask(uri) },
        PlanError::Repeated { uri } => PlanError::Repeated { uri: mask(uri) },
        PlanError::Outside { uri } => PlanError::Outside { uri: mask(uri) },
        other => other,
    }
}
