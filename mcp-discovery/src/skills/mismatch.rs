//! [`Mismatch`]: how a file read for a skill differs from its entry, as
//! the checks of `verify` find it and a `SkillError` reports it.

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
