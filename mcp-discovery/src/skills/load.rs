//! Loading a skill over a session: its entry from `skills/list`, then its
//! files through `resources/read`, `SKILL.md` first, each verified before
//! the next is asked for. Nothing is read before the plan passes, and a
//! file that fails is dropped: the caller only ever holds verified content.

use base64::Engine as _;
use mcpdisco_client::session::{RequestOptions, Session};
use mcpdisco_protocol::types::{ReadResourceParams, ResourceContents, SkillEntry};
use serde::Serialize;

use super::error::SkillError;
use super::mismatch::Mismatch;
use super::verify::{
    ExpectedFile, MAX_SKILL_BYTES, compare_frontmatter, digest_of, frontmatter_of, plan,
    verify_file,
};

/// One verified file of a loaded skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillFile {
    /// Its resource URI.
    pub uri: String,
    /// Its MIME type, as the server gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its length in bytes.
    pub size: u64,
    /// `sha256:<hex>` of its bytes (the entry's, verified).
    pub digest: String,
    /// Its text, when the server sent text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes in base64, when the server sent a blob.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A skill whose every file matched its entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedSkill {
    /// The server it came from (the host's name for it).
    pub server: String,
    /// The entry it was verified against.
    pub entry: SkillEntry,
    /// Its files, `SKILL.md` first, then in the entry's order.
    pub files: Vec<SkillFile>,
}

/// The entry among `skills` called `name`: its frontmatter's `name`, its
/// path (`acme/billing/refunds`) or its URI. A name several skills share is
/// an error listing their URIs.
pub fn find_skill(
    server: &str,
    skills: &[SkillEntry],
    name: &str,
) -> Result<SkillEntry, SkillError> {
    let by_id: Vec<&SkillEntry> = skills
        .iter()
        .filter(|skill| skill.uri == name || skill.path() == name)
        .collect();
    let matches = if by_id.is_empty() {
        skills
            .iter()
            .filter(|skill| skill.name() == Some(name))
            .collect()
    } else {
        by_id
    };
    match matches.as_slice() {
        [] => Err(SkillError::NotFound {
            server: server.to_owned(),
            name: name.to_owned(),
        }),
        [one] => Ok((*one).clone()),
        several => Err(SkillError::Ambiguous {
            server: server.to_owned(),
            name: name.to_owned(),
            count: several.len(),
            uris: several
                .iter()
                .map(|skill| skill.uri.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// Loads `entry` from `session`: plans the reads (refusing a dynamic skill,
/// a malformed digest or one over the bounds before reading anything),
/// reads `SKILL.md` and checks its size, digest and frontmatter, and only
/// then reads and checks every other file. The first failure ends the load.
pub async fn load_skill(session: &Session, entry: &SkillEntry) -> Result<LoadedSkill, SkillError> {
    let server = session.name().to_owned();
    let plan = plan(entry).map_err(|reason| SkillError::Unverifiable {
        server: server.clone(),
        uri: entry.uri.clone(),
        reason,
    })?;
    let failed = |file: &ExpectedFile, mismatch: Mismatch| SkillError::Verification {
        server: server.clone(),
        skill: entry.uri.clone(),
        file: file.uri.clone(),
        mismatch,
    };
    let mut budget = MAX_SKILL_BYTES;
    let skill_md = read_verified(session, &plan.skill_md, &mut budget)
        .await?
        .map_err(|mismatch| failed(&plan.skill_md, mismatch))?;
    let text = skill_md
        .text
        .clone()
        .or_else(|| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(skill_md.blob.as_deref()?)
                .ok()?;
            String::from_utf8(bytes).ok()
        })
        .ok_or_else(|| failed(&plan.skill_md, Mismatch::NoFrontmatter))?;
    let frontmatter = frontmatter_of(&text).map_err(|mismatch| failed(&plan.skill_md, mismatch))?;
    compare_frontmatter(&entry.frontmatter, &frontmatter)
        .map_err(|mismatch| failed(&plan.skill_md, mismatch))?;
    let mut files = vec![skill_md];
    for expected in &plan.others {
        let file = read_verified(session, expected, &mut budget)
            .await?
            .map_err(|mismatch| failed(expected, mismatch))?;
        files.push(file);
    }
    Ok(LoadedSkill {
        server,
        entry: entry.clone(),
        files,
    })
}

/// Reads one file and verifies it; the outer error is the session's, the
/// inner one what differed.
async fn read_verified(
    session: &Session,
    expected: &ExpectedFile,
    budget: &mut u64,
) -> Result<Result<SkillFile, Mismatch>, SkillError> {
    let result = session
        .read_resource(
            ReadResourceParams::new(expected.uri.clone()),
            RequestOptions::default(),
        )
        .await?;
    let Some(contents) = result.contents.into_iter().find(|contents| match contents {
        ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => {
            *uri == expected.uri
        }
        ResourceContents::Unknown(_) => false,
    }) else {
        return Ok(Err(Mismatch::NoContents));
    };
    Ok(verified_file(expected, contents, budget))
}

/// `contents` as a verified file of `expected`, within what is left of `budget`.
fn verified_file(
    expected: &ExpectedFile,
    contents: ResourceContents,
    budget: &mut u64,
) -> Result<SkillFile, Mismatch> {
    let (mime_type, text, blob, bytes) = match contents {
        ResourceContents::Text {
            mime_type, text, ..
        } => {
            let bytes = text.as_bytes().to_vec();
            (mime_type, Some(text), None, bytes)
        }
        ResourceContents::Blob {
            mime_type, blob, ..
        } => {
            // Base64 is 4 characters for 3 bytes: a longer text cannot fit.
            let most = usize::try_from(*budget).unwrap_or(usize::MAX);
            if blob.len() / 4 > most / 3 + 1 {
                return Err(Mismatch::OverBound);
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|_| Mismatch::NoContents)?;
            (mime_type, None, Some(blob), bytes)
        }
        ResourceContents::Unknown(_) => return Err(Mismatch::NoContents),
    };
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size > *budget {
        return Err(Mismatch::OverBound);
    }
    verify_file(expected, &bytes)?;
    *budget -= size;
    Ok(SkillFile {
        uri: expected.uri.clone(),
        mime_type,
        size,
        digest: digest_of(&bytes),
        text,
        blob,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::{Extra, SkillResource};

    fn skill(uri: &str, name: &str) -> SkillEntry {
        let mut frontmatter = Extra::new();
        frontmatter.insert("name".into(), name.into());
        SkillEntry::new(uri, frontmatter, Vec::<SkillResource>::new())
    }

    #[test]
    fn a_skill_is_found_by_name_path_or_uri_and_a_shared_name_is_ambiguous() {
        let skills = [
            skill("skill://acme/billing/refunds/SKILL.md", "refunds"),
            skill("skill://acme/support/refunds/SKILL.md", "refunds"),
            skill("skill://git/SKILL.md", "git"),
        ];
        assert_eq!(
            find_skill("s", &skills, "git").unwrap().uri,
            "skill://git/SKILL.md"
        );
        assert_eq!(
            find_skill("s", &skills, "acme/support/refunds")
                .unwrap()
                .uri,
            "skill://acme/support/refunds/SKILL.md"
        );
        assert_eq!(
            find_skill("s", &skills, "skill://acme/billing/refunds/SKILL.md")
                .unwrap()
                .uri,
            "skill://acme/billing/refunds/SKILL.md"
        );
        let error = find_skill("s", &skills, "refunds").unwrap_err().to_string();
        assert!(error.contains("2 skills named 'refunds'"), "{error}");
        assert!(matches!(
            find_skill("s", &skills, "nope"),
            Err(SkillError::NotFound { .. })
        ));
    }

    #[test]
    fn a_blob_is_verified_on_its_bytes_and_bounded() {
        let bytes = b"\x00\x01binary";
        let expected = ExpectedFile {
            uri: "skill://a/x.bin".into(),
            sha256: super::super::verify::parse_digest(&digest_of(bytes)).unwrap(),
            size: Some(bytes.len() as u64),
        };
        let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
        let contents = |blob: &str| ResourceContents::Blob {
            uri: "skill://a/x.bin".into(),
            mime_type: None,
            blob: blob.to_owned(),
            extra: Extra::new(),
        };
        let mut budget = 100;
        let file = verified_file(&expected, contents(&blob), &mut budget).unwrap();
        assert_eq!(file.size, bytes.len() as u64);
        assert_eq!(budget, 100 - bytes.len() as u64);
        let mut small = 3;
        assert_eq!(
            verified_file(&expected, contents(&blob), &mut small),
            Err(Mismatch::OverBound)
        );
        assert_eq!(
            verified_file(&expected, contents("not base64!"), &mut budget),
            Err(Mismatch::NoContents)
        );
    }
}
