//! Profiles: named views of a config's servers, for `mcp-cli serve`
//! (`/profiles/<name>/mcp` over HTTP, `--profile NAME` over stdio).
//!
//! ```json
//! "profiles": {
//!   "ops": {
//!     "servers": ["github", "k8s"],
//!     "tools": {"allow": ["github__*", "k8s__get_*"], "deny": ["*delete*"]},
//!     "toolSearch": true,
//!     "requiredScopes": ["mcp:ops"]
//!   }
//! }
//! ```
//!
//! - `servers`: the servers the profile shows; without it, every enabled one.
//! - `tools`: globs (`*`, `?`) over namespaced tool names (`<server>__<tool>`):
//!   a tool is shown when `allow` is empty or one of its globs matches, and
//!   no `deny` glob matches.
//! - `toolSearch`: the profile's `tools/list` is `search_tools` and `call_tool`.
//! - `requiredScopes`: the scopes a signed-in client needs (read and
//!   carried here; enforced where tokens are checked).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glob::Pattern;
use serde::Deserialize;
use serde_json::Value;

use super::filter::Filter;

/// One named view of a config's servers and tools.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Its name (the key under `profiles`).
    pub name: String,
    /// The file it is defined in.
    pub source: PathBuf,
    /// The servers it shows; every enabled server when `None`.
    pub servers: Option<Vec<String>>,
    /// Which namespaced tools (`<server>__<tool>`) it shows.
    pub tools: Filter,
    /// Whether its `tools/list` is tool search (`search_tools`, `call_tool`).
    pub tool_search: bool,
    /// The scopes a client's token needs to use it.
    pub required_scopes: Vec<String>,
}

impl Profile {
    /// Whether it shows the server `server`.
    pub fn shows_server(&self, server: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|servers| servers.iter().any(|name| name == server))
    }

    /// Whether it shows the tool of `server` served as `qualified_name`.
    pub fn shows_tool(&self, server: &str, qualified_name: &str) -> bool {
        self.shows_server(server) && self.tools.allows(qualified_name)
    }
}

/// Every profile of a config, by name.
pub type Profiles = BTreeMap<String, Profile>;

/// A profile as written in a file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProfileEntry {
    servers: Option<Vec<String>>,
    #[serde(default)]
    tools: ToolRules,
    #[serde(default)]
    tool_search: bool,
    #[serde(default)]
    required_scopes: Vec<String>,
}

/// A profile's `tools`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolRules {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// The profiles of a file's top-level `profiles` value, each read on its
/// own: a profile that cannot be read is an error naming it (and left out).
pub(crate) fn read_profiles(source: &Path, value: &Value) -> (Vec<Profile>, Vec<ProfileError>) {
    let mut profiles = Vec::new();
    let mut errors = Vec::new();
    let Value::Object(entries) = value else {
        errors.push(ProfileError {
            profile: None,
            message: "\"profiles\" must be an object of profiles".to_owned(),
        });
        return (profiles, errors);
    };
    for (name, entry) in entries {
        match read_profile(source, name, entry) {
            Ok(profile) => profiles.push(profile),
            Err(message) => errors.push(ProfileError {
                profile: Some(name.clone()),
                message: format!("profile '{name}': {message}"),
            }),
        }
    }
    (profiles, errors)
}

/// Why one profile (or all of them) could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProfileError {
    /// The profile, when the error is about one.
    pub(crate) profile: Option<String>,
    /// What is wrong, naming the profile.
    pub(crate) message: String,
}

fn read_profile(source: &Path, name: &str, entry: &Value) -> Result<Profile, String> {
    if name.trim().is_empty() {
        return Err("a profile has an empty name".to_owned());
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err("a profile's name may only have letters, digits, '-', '_' and '.' (it is part of a URL path)".to_owned());
    }
    let entry = ProfileEntry::deserialize(entry).map_err(|error| error.to_string())?;
    let globs = |globs: Vec<String>, list: &str| -> Result<Vec<Pattern>, String> {
        globs
            .into_iter()
            .map(|glob| {
                Pattern::new(&glob)
                    .map_err(|error| format!("tools.{list}: invalid glob '{glob}': {error}"))
            })
            .collect()
    };
    Ok(Profile {
        name: name.to_owned(),
        source: source.to_owned(),
        servers: entry.servers,
        tools: Filter {
            allow: globs(entry.tools.allow, "allow")?,
            deny: globs(entry.tools.deny, "deny")?,
        },
        tool_search: entry.tool_search,
        required_scopes: entry.required_scopes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: Value) -> (Vec<Profile>, Vec<ProfileError>) {
        read_profiles(Path::new("/etc/mcp.json"), &value)
    }

    #[test]
    fn a_profile_reads_servers_globs_search_and_scopes() {
        let (profiles, errors) = read(json!({
            "ops": {
                "servers": ["github"],
                "tools": {"allow": ["github__*"], "deny": ["*delete*"]},
                "toolSearch": true,
                "requiredScopes": ["mcp:ops"]
            }
        }));
        assert!(errors.is_empty(), "{errors:?}");
        let ops = &profiles[0];
        assert_eq!(ops.name, "ops");
        assert_eq!(ops.source, Path::new("/etc/mcp.json"));
        assert!(ops.tool_search);
        assert_eq!(ops.required_scopes, ["mcp:ops"]);
        assert!(ops.shows_tool("github", "github__create_issue"));
        assert!(!ops.shows_tool("github", "github__delete_repo"));
        assert!(!ops.shows_tool("k8s", "k8s__get_pods"));
        assert!(!ops.shows_server("k8s"));
    }

    #[test]
    fn without_servers_a_profile_shows_every_server() {
        let (profiles, errors) = read(json!({"all": {"tools": {"deny": ["?__x"]}}}));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(profiles[0].shows_server("anything"));
        assert!(!profiles[0].shows_tool("a", "a__x"));
        assert!(profiles[0].shows_tool("ab", "ab__x"));
    }

    #[test]
    fn errors_name_the_profile() {
        let (profiles, errors) = read(json!({
            "good": {},
            "typo": {"tool": {}},
            "glob": {"tools": {"allow": ["[unclosed"]}},
            "bad name": {}
        }));
        assert_eq!(profiles.len(), 1);
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(errors.len(), 3, "{messages:?}");
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("profile 'typo': unknown field `tool`"))
        );
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("profile 'glob': tools.allow: invalid glob '[unclosed'"))
        );
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("profile 'bad name':"))
        );
    }

    #[test]
    fn a_config_file_carries_its_profiles_and_an_error_names_file_and_profile() {
        let vars = std::collections::HashMap::<String, String>::new();
        let path = Path::new("/etc/mcp.json");
        let good =
            r#"{"mcpServers": {"a": {"command": "x"}}, "profiles": {"p": {"servers": ["a"]}}}"#;
        let file = crate::config::parse_str(path, good, &vars, &Default::default()).unwrap();
        assert_eq!(file.profiles.len(), 1);
        assert_eq!(file.profiles[0].name, "p");
        assert!(
            file.warnings.is_empty(),
            "profiles is a known top-level key"
        );
        let bad = "{\"mcpServers\": {\"a\": {\"command\": \"x\"}},\n \"profiles\": {\"bad\": {\"tools\": 3}}}";
        let error = crate::config::parse_str(path, bad, &vars, &Default::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("/etc/mcp.json:2") && error.contains("profile 'bad': invalid type"),
            "{error}"
        );
    }

    #[test]
    fn a_profile_naming_an_unknown_server_fails_the_load_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("mcp.json");
        std::fs::write(
            &config,
            r#"{"mcpServers": {"a": {"command": "x"}}, "profiles": {"p": {"servers": ["a", "b"]}}}"#,
        )
        .unwrap();
        let selection = crate::config::SourceSelection {
            files: vec![config.clone()],
            ..crate::config::SourceSelection::new(dir.path(), None)
        };
        let vars = std::collections::HashMap::<String, String>::new();
        let error = selection.load(&vars).unwrap_err().to_string();
        assert!(
            error.contains(&config.display().to_string())
                && error.contains("profile 'p': no server named 'b'; configured: a"),
            "{error}"
        );
    }

    #[test]
    fn profiles_must_be_an_object() {
        let (_, errors) = read(json!(["ops"]));
        assert_eq!(
            errors[0].message,
            "\"profiles\" must be an object of profiles"
        );
    }
}
