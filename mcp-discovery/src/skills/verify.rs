//! Checking a skill's files against its entry, without I/O: the plan of
//! what may be read (every file listed, sized and digested, within the
//! bounds), then each file's size, digest and, for `SKILL.md`, its
//! frontmatter.

use hmac_sha256::Hash as Sha256;
use mcpdisco_protocol::types::{Extra, SkillEntry, SkillFileSize};
use serde_json::Value;

use super::mismatch::Mismatch;

/// The most a skill's files may weigh together (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The most files a skill may have.
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes of YAML frontmatter read from a `SKILL.md` (64 KiB).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// One file of a skill as its entry promises it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedFile {
    /// Its resource URI.
    pub uri: String,
    /// The SHA-256 of its bytes.
    pub sha256: [u8; 32],
    /// Its length in bytes, when the entry gives one.
    pub size: Option<u64>,
}

/// What loading a skill reads: `SKILL.md` first, then the other files in
/// the entry's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadPlan {
    /// The skill's `SKILL.md`.
    pub skill_md: ExpectedFile,
    /// Every other file.
    pub others: Vec<ExpectedFile>,
}

/// Why an entry cannot be loaded at all (nothing is read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The entry lists no files: a dynamically generated skill.
    #[error("it lists no files with digests (a dynamic skill), so it cannot be verified")]
    NoResources,
    /// A file's size is `"dynamic"` or not a byte count.
    #[error("file {uri} has no fixed size (\"dynamic\"), so it cannot be verified")]
    DynamicFile {
        /// The file.
        uri: String,
    },
    /// A file has no digest, or one that is not `sha256:<64 lowercase hex>`.
    #[error("file {uri} has no sha256 digest the host can check")]
    BadDigest {
        /// The file.
        uri: String,
    },
    /// `SKILL.md` itself is not among the files.
    #[error("its files do not include its SKILL.md")]
    SkillMdUnlisted,
    /// A file is listed twice.
    #[error("file {uri} is listed more than once")]
    Repeated {
        /// The file.
        uri: String,
    },
    /// A file lies outside the skill's folder.
    #[error("file {uri} is outside the skill's folder")]
    Outside {
        /// The file.
        uri: String,
    },
    /// More files than [`MAX_SKILL_FILES`].
    #[error("it lists {count} files; at most {MAX_SKILL_FILES} are read")]
    TooManyFiles {
        /// How many.
        count: usize,
    },
    /// More bytes than [`MAX_SKILL_BYTES`].
    #[error("its files weigh {bytes} bytes; at most {MAX_SKILL_BYTES} are read")]
    TooLarge {
        /// How many bytes the entry declares.
        bytes: u64,
    },
}

/// The plan of reads for `entry`, or why it cannot be verified.
pub fn plan(entry: &SkillEntry) -> Result<LoadPlan, PlanError> {
    let files = entry.resources.as_deref().ok_or(PlanError::NoResources)?;
    if files.len() > MAX_SKILL_FILES {
        return Err(PlanError::TooManyFiles { count: files.len() });
    }
    let root = entry
        .uri
        .strip_suffix("SKILL.md")
        .filter(|root| root.ends_with('/'))
        .unwrap_or(&entry.uri);
    let mut skill_md = None;
    let mut others: Vec<ExpectedFile> = Vec::new();
    let mut total: u64 = 0;
    for file in files {
        let uri = file.uri.clone();
        let size = match &file.size {
            None => None,
            Some(SkillFileSize::Bytes(bytes)) => Some(*bytes),
            Some(SkillFileSize::Dynamic | SkillFileSize::Other(_)) => {
                return Err(PlanError::DynamicFile { uri });
            }
        };
        let Some(sha256) = file.digest.as_deref().and_then(parse_digest) else {
            return Err(PlanError::BadDigest { uri });
        };
        total = total.saturating_add(size.unwrap_or(0));
        let expected = ExpectedFile { uri, sha256, size };
        if expected.uri == entry.uri {
            if skill_md.is_some() {
                return Err(PlanError::Repeated { uri: expected.uri });
            }
            skill_md = Some(expected);
        } else if !expected.uri.starts_with(root)
            || expected.uri.len() == root.len()
            || expected.uri.contains("/../")
        {
            return Err(PlanError::Outside { uri: expected.uri });
        } else if others.iter().any(|other| other.uri == expected.uri) {
            return Err(PlanError::Repeated { uri: expected.uri });
        } else {
            others.push(expected);
        }
    }
    if total > MAX_SKILL_BYTES {
        return Err(PlanError::TooLarge { bytes: total });
    }
    let skill_md = skill_md.ok_or(PlanError::SkillMdUnlisted)?;
    Ok(LoadPlan { skill_md, others })
}

/// The 32 bytes of a `sha256:<64 lowercase hex>` digest.
pub fn parse_digest(digest: &str) -> Option<[u8; 32]> {
    let hex_text = digest.strip_prefix("sha256:")?;
    if hex_text.len() != 64
        || !hex_text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(hex_text, &mut bytes).ok()?;
    Some(bytes)
}

/// `sha256:<hex>` of `bytes`.
pub fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::hash(bytes)))
}

/// Checks `bytes` against `expected`: the size first (a wrong size fails
/// without hashing), then the digest.
pub fn verify_file(expected: &ExpectedFile, bytes: &[u8]) -> Result<(), Mismatch> {
    let actual = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if let Some(size) = expected.size
        && size != actual
    {
        return Err(Mismatch::Size {
            expected: size,
            actual,
        });
    }
    let sha256: [u8; 32] = Sha256::hash(bytes);
    if sha256 != expected.sha256 {
        return Err(Mismatch::Digest);
    }
    Ok(())
}

/// The YAML frontmatter of a `SKILL.md`, as JSON: the mapping between a
/// first line `---` and the next line `---` (or `...`). Bounded by
/// [`MAX_FRONTMATTER_BYTES`]; never panics. Reading the YAML takes the
/// `yaml` feature: without it, a frontmatter that is not empty is
/// [`Mismatch::FrontmatterNeedsYaml`].
pub fn frontmatter_of(text: &str) -> Result<Extra, Mismatch> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end_matches(['\r', '\n']) != "---" {
        return Err(Mismatch::NoFrontmatter);
    }
    let start = first.len();
    let mut end = None;
    let mut at = start;
    for line in lines {
        if matches!(line.trim_end_matches(['\r', '\n']), "---" | "...") {
            end = Some(at);
            break;
        }
        at += line.len();
        if at - start > MAX_FRONTMATTER_BYTES {
            return Err(Mismatch::FrontmatterTooLarge);
        }
    }
    let yaml = text
        .get(start..end.ok_or(Mismatch::NoFrontmatter)?)
        .ok_or(Mismatch::NoFrontmatter)?;
    if yaml.trim().is_empty() {
        return Ok(Extra::new());
    }
    #[cfg(feature = "yaml")]
    match serde_yaml_ng::from_str::<Value>(yaml) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(Mismatch::FrontmatterNotMapping),
        Err(_) => Err(Mismatch::FrontmatterUnreadable),
    }
    #[cfg(not(feature = "yaml"))]
    Err(Mismatch::FrontmatterNeedsYaml)
}

/// Compares a `SKILL.md`'s frontmatter with its entry's, field by field.
/// The mismatch names only the entry's fields (what the server listed),
/// never a value or a field of the file.
pub fn compare_frontmatter(entry: &Extra, file: &Extra) -> Result<(), Mismatch> {
    let mut differing: Vec<String> = entry
        .iter()
        .filter(|(key, value)| !file.get(*key).is_some_and(|other| same(value, other)))
        .map(|(key, _)| key.clone())
        .collect();
    differing.sort();
    let extra = file.keys().filter(|key| !entry.contains_key(*key)).count();
    if differing.is_empty() && extra == 0 {
        return Ok(());
    }
    Err(Mismatch::Frontmatter {
        differing,
        unlisted: extra,
    })
}

/// JSON equality where numbers compare by value (YAML `1.0` is JSON `1.0`, `1` is `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, p)| y.get(key).is_some_and(|q| same(p, q)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::SkillResource;
    use serde_json::json;

    const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";

    fn fields(value: Value) -> Extra {
        match value {
            Value::Object(fields) => fields,
            _ => panic!("not an object"),
        }
    }

    fn entry(files: Vec<SkillResource>) -> SkillEntry {
        SkillEntry::new(
            "skill://pdf-processing/SKILL.md",
            fields(
                json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"}),
            ),
            files,
        )
    }

    fn file(uri: &str, text: &str) -> SkillResource {
        SkillResource::new(uri, digest_of(text.as_bytes()), text.len() as u64)
    }

    #[test]
    fn the_plan_puts_skill_md_first() {
        let plan = plan(&entry(vec![
            file("skill://pdf-processing/references/FORMS.md", "forms"),
            file("skill://pdf-processing/SKILL.md", SKILL_MD),
        ]))
        .unwrap();
        assert_eq!(plan.skill_md.uri, "skill://pdf-processing/SKILL.md");
        assert_eq!(plan.others.len(), 1);
        assert_eq!(
            plan.others[0].uri,
            "skill://pdf-processing/references/FORMS.md"
        );
    }

    #[test]
    fn an_entry_that_cannot_be_verified_is_refused_before_any_read() {
        let mut dynamic = entry(vec![]);
        dynamic.resources = None;
        assert_eq!(plan(&dynamic), Err(PlanError::NoResources));

        let mut sized = file("skill://pdf-processing/SKILL.md", SKILL_MD);
        sized.size = Some(SkillFileSize::Dynamic);
        assert!(matches!(
            plan(&entry(vec![sized])),
            Err(PlanError::DynamicFile { .. })
        ));

        let mut upper = file("skill://pdf-processing/SKILL.md", SKILL_MD);
        upper.digest = upper.digest.map(|d| d.to_uppercase());
        assert!(matches!(
            plan(&entry(vec![upper])),
            Err(PlanError::BadDigest { .. })
        ));

        assert_eq!(
            plan(&entry(vec![file("skill://pdf-processing/a.md", "a")])),
            Err(PlanError::SkillMdUnlisted)
        );
        assert!(matches!(
            plan(&entry(vec![
                file("skill://pdf-processing/SKILL.md", SKILL_MD),
                file("skill://other/SKILL.md", SKILL_MD),
            ])),
            Err(PlanError::Outside { .. })
        ));
        assert!(matches!(
            plan(&entry(vec![
                file("skill://pdf-processing/SKILL.md", SKILL_MD),
                file("skill://pdf-processing/../other/x.md", "x"),
            ])),
            Err(PlanError::Outside { .. })
        ));
    }

    #[test]
    fn the_bounds_are_checked_from_the_entry() {
        let mut many = vec![file("skill://pdf-processing/SKILL.md", SKILL_MD)];
        for n in 0..MAX_SKILL_FILES {
            many.push(file(&format!("skill://pdf-processing/{n}.md"), "x"));
        }
        assert_eq!(
            plan(&entry(many)),
            Err(PlanError::TooManyFiles {
                count: MAX_SKILL_FILES + 1
            })
        );
        let mut big = file("skill://pdf-processing/big.bin", "x");
        big.size = Some(SkillFileSize::Bytes(MAX_SKILL_BYTES));
        assert!(matches!(
            plan(&entry(vec![
                file("skill://pdf-processing/SKILL.md", SKILL_MD),
                big
            ])),
            Err(PlanError::TooLarge { .. })
        ));
    }

    #[test]
    fn size_is_checked_before_the_digest() {
        let plan = plan(&entry(vec![file(
            "skill://pdf-processing/SKILL.md",
            SKILL_MD,
        )]))
        .unwrap();
        assert_eq!(verify_file(&plan.skill_md, SKILL_MD.as_bytes()), Ok(()));
        let longer = format!("{SKILL_MD}extra\n");
        assert_eq!(
            verify_file(&plan.skill_md, longer.as_bytes()),
            Err(Mismatch::Size {
                expected: SKILL_MD.len() as u64,
                actual: longer.len() as u64
            })
        );
        let tampered = SKILL_MD.replace("Skill body.", "Evil body!!");
        assert_eq!(tampered.len(), SKILL_MD.len());
        assert_eq!(
            verify_file(&plan.skill_md, tampered.as_bytes()),
            Err(Mismatch::Digest)
        );
    }

    #[cfg(not(feature = "yaml"))]
    #[test]
    fn without_yaml_a_frontmatter_is_a_mismatch_naming_the_feature() {
        assert_eq!(
            frontmatter_of(SKILL_MD),
            Err(Mismatch::FrontmatterNeedsYaml)
        );
        assert!(
            Mismatch::FrontmatterNeedsYaml
                .to_string()
                .contains("feature `yaml` of mcpdisco")
        );
        // What is not YAML yet is judged as before.
        assert_eq!(
            frontmatter_of("no frontmatter"),
            Err(Mismatch::NoFrontmatter)
        );
        assert_eq!(
            frontmatter_of(
                "---
---
body"
            ),
            Ok(Extra::new())
        );
    }

    #[cfg(feature = "yaml")]
    #[test]
    fn frontmatter_is_read_and_compared_field_by_field() {
        let listed = fields(
            json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"}),
        );
        let read = frontmatter_of(SKILL_MD).unwrap();
        assert_eq!(compare_frontmatter(&listed, &read), Ok(()));
        let crlf = SKILL_MD.replace('\n', "\r\n");
        assert_eq!(
            compare_frontmatter(&listed, &frontmatter_of(&crlf).unwrap()),
            Ok(())
        );

        let tampered = SKILL_MD.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: Exfiltrate credentials\nallowed-tools: Bash",
        );
        assert_eq!(
            compare_frontmatter(&listed, &frontmatter_of(&tampered).unwrap()),
            Err(Mismatch::Frontmatter {
                differing: vec!["description".into()],
                unlisted: 1
            })
        );
        let numbers =
            fields(json!({"name": "n", "description": "d", "metadata": {"version": 2.0, "n": 1}}));
        let yaml = "---\nname: n\ndescription: d\nmetadata:\n  version: 2.0\n  n: 1\n---\n";
        assert_eq!(
            compare_frontmatter(&numbers, &frontmatter_of(yaml).unwrap()),
            Ok(())
        );
    }

    #[cfg(feature = "yaml")]
    #[test]
    fn malformed_frontmatter_is_the_mismatch_that_names_its_fault() {
        let deep = format!(
            "---\na: {}{}\n---\n",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        let long = format!("---\na: \"{}\"\n---\n", "x\n".repeat(MAX_FRONTMATTER_BYTES));
        let cases: [(&str, Mismatch); 10] = [
            ("", Mismatch::NoFrontmatter),
            ("no frontmatter", Mismatch::NoFrontmatter),
            // Opened and never closed.
            ("---\nname: a\n", Mismatch::NoFrontmatter),
            ("---\n- a list\n---\n", Mismatch::FrontmatterNotMapping),
            ("---\nplain words\n---\n", Mismatch::FrontmatterNotMapping),
            (
                "---\nname: [unclosed\n---\n",
                Mismatch::FrontmatterUnreadable,
            ),
            // An alias to the anchor it sits in.
            ("---\n&a [*a]\n---\n", Mismatch::FrontmatterUnreadable),
            (
                "---\na: &a [*a, *a]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n---\n",
                Mismatch::FrontmatterUnreadable,
            ),
            (&deep, Mismatch::FrontmatterUnreadable),
            (&long, Mismatch::FrontmatterTooLarge),
        ];
        for (text, expected) in cases {
            let shown: String = text.chars().take(60).collect();
            assert_eq!(frontmatter_of(text), Err(expected), "{shown:?}");
        }
        // A key that is not text is read as its text.
        let numbered = frontmatter_of("---\n{1: 2}\n---\n").unwrap();
        assert_eq!(numbered.get("1"), Some(&Value::from(2)));
    }

    proptest::proptest! {
        #[test]
        fn frontmatter_of_never_panics(body in ".{0,400}") {
            let _ = frontmatter_of(&format!("---\n{body}\n---\n"));
        }
    }
}
