//! [`SkillError`]: why a skill was not loaded, naming the file and what
//! differed, and never quoting the file's content.

use mcpdisco_client::session::SessionError;
use mcpdisco_transport::secret::Masker;

use super::verify::PlanError;

/// How a file read for a skill differs from its entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// Its length is not the entry's `size` (checked before the digest).
    #[error("its size is {actual} bytes, the entry says {expected}")]
    Size {
        /// The entry's size.
        expected: u64,
        /// The bytes read.
        actual: u64,
    },
    /// Its SHA-256 is not the entry's digest.
    #[error("its sha256 digest differs from the entry's")]
    Digest,
    /// A `SKILL.md` without a `---` frontmatter block.
    #[error("it has no YAML frontmatter")]
    NoFrontmatter,
    /// A frontmatter block over the bound.
    #[error("its YAML frontmatter is larger than the host reads")]
    FrontmatterTooLarge,
    /// A frontmatter that is not YAML (or nests too deep).
    #[error("its YAML frontmatter cannot be read")]
    FrontmatterUnreadable,
    /// A frontmatter this build cannot read: the `yaml` feature was left out.
    #[error("its YAML frontmatter needs feature `yaml` of mcpdisco to be read")]
    FrontmatterNeedsYaml,
    /// A frontmatter that is not a mapping.
    #[error("its YAML frontmatter is not a mapping")]
    FrontmatterNotMapping,
    /// The frontmatter differs from the entry's.
    #[error("its frontmatter differs from the entry's{}{}",
        if differing.is_empty() { String::new() } else { format!(" in {}", differing.join(", ")) },
        if *unlisted == 0 { String::new() } else { format!(" and has {unlisted} field(s) the entry lacks") })]
    Frontmatter {
        /// The entry's fields the file lacks or gives another value.
        differing: Vec<String>,
        /// How many fields the file has that the entry lacks.
        unlisted: usize,
    },
    /// The answer is neither text nor base64 of this file.
    #[error("the server's answer holds no contents for it")]
    NoContents,
    /// The file is larger than what is left of the skill's bound.
    #[error("it is larger than the skill's bound")]
    OverBound,
}

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
