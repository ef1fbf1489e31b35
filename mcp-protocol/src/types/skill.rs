//! Skills (SEP-2640, extension `io.modelcontextprotocol/skills`): the
//! entries of `skills/list` and `skills/get`.
//!
//! A skill is a folder of files served as resources; its entry names the
//! `SKILL.md` (`uri`), copies that file's YAML frontmatter as JSON
//! (`frontmatter`), and lists every file with its digest and size
//! (`resources`), so a host can verify what it later reads.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::extra::Extra;
use super::item_list::ItemList;
use super::lifecycle::CacheScope;
use super::list_result::list_result;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The size of a skill file as its entry gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillFileSize {
    /// The file's length in bytes.
    Bytes(u64),
    /// `"dynamic"`: generated on each read, so it cannot be verified.
    Dynamic,
    /// Anything else, kept as sent (never verifiable).
    Other(Value),
}

impl SkillFileSize {
    /// The size in bytes, when the entry gives one.
    pub fn bytes(&self) -> Option<u64> {
        match self {
            SkillFileSize::Bytes(bytes) => Some(*bytes),
            SkillFileSize::Dynamic | SkillFileSize::Other(_) => None,
        }
    }
}

impl Serialize for SkillFileSize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillFileSize::Bytes(bytes) => serializer.serialize_u64(*bytes),
            SkillFileSize::Dynamic => serializer.serialize_str("dynamic"),
            SkillFileSize::Other(value) => value.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for SkillFileSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(match &value {
            Value::Number(number) => match number.as_u64() {
                Some(bytes) => SkillFileSize::Bytes(bytes),
                None => SkillFileSize::Other(value),
            },
            Value::String(text) if text == "dynamic" => SkillFileSize::Dynamic,
            _ => SkillFileSize::Other(value),
        })
    }
}

super::extra::struct_with_extra! {
    /// One file of a skill: where it is, and what it must hash to.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct SkillResource {
        /// The file's resource URI.
        pub uri: String,
        /// `sha256:<64 lowercase hex>` of its bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub digest: Option<String>,
        /// Its length in bytes, or `"dynamic"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<SkillFileSize>,
    }
}

super::extra::struct_with_extra! {
    /// A skill a server offers (an entry of `skills/list` or `skills/get`).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct SkillEntry {
        /// The resource URI of its `SKILL.md`.
        pub uri: String,
        /// The `SKILL.md` frontmatter as JSON (`name`, `description`, …).
        #[serde(default)]
        pub frontmatter: Extra,
        /// Every file of the skill; absent for a dynamically generated skill.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resources: Option<Vec<SkillResource>>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl SkillResource {
    /// The file at `uri` with its digest and size.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        Self {
            uri: uri.into(),
            digest: Some(digest.into()),
            size: Some(SkillFileSize::Bytes(size)),
            extra: Extra::new(),
        }
    }
}

impl SkillEntry {
    /// The skill whose `SKILL.md` is at `uri`, with its frontmatter and files.
    pub fn new(uri: impl Into<String>, frontmatter: Extra, resources: Vec<SkillResource>) -> Self {
        Self {
            uri: uri.into(),
            frontmatter,
            resources: Some(resources),
            meta: None,
            extra: Extra::new(),
        }
    }

    /// `frontmatter.name`, when it is a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// `frontmatter.description`, when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The skill's path: its URI without the scheme and the `/SKILL.md` suffix
    /// (`skill://acme/billing/refunds/SKILL.md` is `acme/billing/refunds`).
    pub fn path(&self) -> &str {
        let rest = self
            .uri
            .split_once("://")
            .map_or(self.uri.as_str(), |(_, rest)| rest);
        rest.strip_suffix("/SKILL.md").unwrap_or(rest)
    }
}

list_result!(
    /// `skills/list` result.
    ListSkillsResult, skills, "skills", SkillEntry
);

super::extra::struct_with_extra! {
    /// `skills/get` params.
    #[derive(Debug, Clone, PartialEq)]
    pub struct GetSkillParams {
        /// The URI of the skill's `SKILL.md`.
        pub uri: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl GetSkillParams {
    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

super::extra::struct_with_extra! {
    /// `skills/get` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct GetSkillResult {
        /// The skill's entry.
        pub skill: SkillEntry,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entry_reads_and_writes_back_as_sent() {
        let sent = json!({
            "uri": "skill://acme/billing/refunds/SKILL.md",
            "frontmatter": {"name": "refunds", "description": "Refunds", "license": "MIT"},
            "resources": [
                {"uri": "skill://acme/billing/refunds/SKILL.md", "digest": "sha256:00", "size": 12},
                {"uri": "skill://acme/billing/refunds/gen.md", "digest": "sha256:11", "size": "dynamic"},
                {"uri": "skill://acme/billing/refunds/x.md", "size": -1, "x-more": true}
            ],
            "x-vendor": 1
        });
        let entry: SkillEntry = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(entry.name(), Some("refunds"));
        assert_eq!(entry.description(), Some("Refunds"));
        assert_eq!(entry.path(), "acme/billing/refunds");
        let files = entry.resources.as_ref().unwrap();
        assert_eq!(files[0].size, Some(SkillFileSize::Bytes(12)));
        assert_eq!(files[1].size, Some(SkillFileSize::Dynamic));
        assert_eq!(files[2].size, Some(SkillFileSize::Other(json!(-1))));
        assert_eq!(files[2].digest, None);
        assert_eq!(serde_json::to_value(&entry).unwrap(), sent);
    }

    #[test]
    fn a_list_keeps_a_malformed_entry_beside_the_good_ones() {
        let result: ListSkillsResult = serde_json::from_value(json!({
            "skills": [{"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}}, {"frontmatter": 3}],
            "nextCursor": "2",
            "ttlMs": 0,
            "cacheScope": "private"
        }))
        .unwrap();
        assert_eq!(result.skills.len(), 2);
        assert_eq!(result.skills.malformed().count(), 1);
        assert_eq!(result.next_cursor.as_deref(), Some("2"));
        let skill = result.skills.valid().next().unwrap();
        assert_eq!(skill.resources, None);
        assert_eq!(skill.path(), "a");
    }
}
