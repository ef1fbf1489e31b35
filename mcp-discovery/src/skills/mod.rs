//! Skills (SEP-2640, extension `io.modelcontextprotocol/skills`): loading
//! one with every file verified against its entry.
//!
//! Discovery lists skills like the other items (`skills/list` into
//! [`ServerReport::skills`](crate::report::ServerReport::skills)) and reads
//! none of their files; a session lists them with
//! [`Session::list_skills`](mcpdisco_client::session::Session::list_skills). [`load_skill`] is the one path that reads them:
//! `SKILL.md` first, its size then its digest then its frontmatter field by
//! field; the other files only when it passed. A mismatch is a
//! [`SkillError`] naming the file and what differed, never its content.
//! [`verify`] holds the checks as pure functions.

mod error;
mod load;
mod mismatch;
pub mod verify;

pub use error::SkillError;
pub use load::{LoadedSkill, SkillFile, find_skill, load_skill};
pub use mismatch::Mismatch;
