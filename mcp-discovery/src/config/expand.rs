//! Variable expansion in config strings: `${VAR}`, `${VAR:-default}`,
//! `${env:VAR}`, `${input:id}`, `${workspaceFolder}`, `${userHome}` and
//! `${pathSeparator}`.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Where variables come from.
pub trait VarSource {
    /// The value of `name`, if set.
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl VarSource for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl VarSource for HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl VarSource for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

/// An expanded string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expanded {
    /// The text with every reference replaced.
    pub text: String,
    /// Whether the text refers to a variable or an input (whose value may be
    /// secret), even when its default was used; `${workspaceFolder}`,
    /// `${userHome}` and `${pathSeparator}` do not count.
    pub substituted: bool,
}

/// Expands references in one string.
pub(crate) struct Expander<'a> {
    pub vars: &'a dyn VarSource,
    pub workspace_folder: &'a Path,
}

impl Expander<'_> {
    /// Expands `text`; the error says what is missing or malformed (never a value).
    pub fn expand(&self, text: &str) -> Result<Expanded, String> {
        let mut out = String::with_capacity(text.len());
        let mut substituted = false;
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            // The text may be a secret (an env or header value): say where, not what.
            let end = after.find('}').ok_or_else(|| {
                let dollar = text.len() - after.len() - 2;
                let column = text[..dollar].chars().count() + 1;
                format!("unterminated `${{` at character {column}")
            })?;
            let (value, secret) = self.resolve(&after[..end])?;
            out.push_str(&value);
            substituted |= secret;
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(Expanded {
            text: out,
            substituted,
        })
    }

    fn resolve(&self, reference: &str) -> Result<(String, bool), String> {
        match reference {
            "workspaceFolder" => return Ok((self.workspace_folder.display().to_string(), false)),
            "userHome" => {
                let home = self
                    .vars
                    .var("HOME")
                    .or_else(|| dirs::home_dir().map(|h| h.display().to_string()))
                    .ok_or("`${userHome}`: the home directory is unknown")?;
                return Ok((home, false));
            }
            "pathSeparator" => return Ok((std::path::MAIN_SEPARATOR.to_string(), false)),
            _ => {}
        }
        if let Some(name) = reference.strip_prefix("env:") {
            check_name(name)?;
            let value = self
                .vars
                .var(name)
                .ok_or_else(|| format!("environment variable '{name}' is not set"))?;
            return Ok((value, true));
        }
        if let Some(id) = reference.strip_prefix("input:") {
            let variable = input_variable(id);
            let value = self
                .vars
                .var(&variable)
                .or_else(|| self.vars.var(id))
                .ok_or_else(|| format!("input '{id}' is not set (set {variable})"))?;
            return Ok((value, true));
        }
        if let Some((name, default)) = reference.split_once(":-") {
            check_name(name)?;
            let value = self.vars.var(name).filter(|v| !v.is_empty());
            return Ok((value.unwrap_or_else(|| default.to_owned()), true));
        }
        check_name(reference)?;
        let value = self
            .vars
            .var(reference)
            .ok_or_else(|| format!("environment variable '{reference}' is not set"))?;
        Ok((value, true))
    }
}

/// The environment variable that answers `${input:id}`: `MCP_INPUT_` plus the id
/// uppercased, anything but letters and digits as `_`.
pub fn input_variable(id: &str) -> String {
    format!("MCP_INPUT_{}", upper_snake(id))
}

/// `text` as an environment variable's name is written: letters and digits
/// uppercased, anything else `_`.
pub(crate) fn upper_snake(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`${{{name}}}` is not a variable reference this reader knows"
        ))
    }
}

/// `${env:NAME}` alone: the variable's name (for the TOML and YAML edits).
#[cfg(any(feature = "toml", feature = "yaml"))]
pub(crate) fn env_reference(value: &str) -> Option<&str> {
    value.strip_prefix("${env:")?.strip_suffix('}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(text: &str) -> Result<Expanded, String> {
        let vars: HashMap<String, String> = [
            ("TOKEN", "sekrit"),
            ("EMPTY", ""),
            ("MCP_INPUT_API_KEY", "from-input"),
            ("plain-id", "raw-id-value"),
            ("HOME", "/home/ada"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        Expander {
            vars: &vars,
            workspace_folder: Path::new("/work/project"),
        }
        .expand(text)
    }

    #[test]
    fn every_form_expands() {
        assert_eq!(expand("Bearer ${TOKEN}").unwrap().text, "Bearer sekrit");
        assert!(expand("${TOKEN}").unwrap().substituted);
        assert_eq!(expand("${env:TOKEN}").unwrap().text, "sekrit");
        assert_eq!(expand("${MISSING:-fallback}").unwrap().text, "fallback");
        assert!(
            expand("${MISSING:-fallback}").unwrap().substituted,
            "a default still marks a variable reference"
        );
        assert_eq!(expand("${EMPTY:-fallback}").unwrap().text, "fallback");
        assert_eq!(expand("${TOKEN:-fallback}").unwrap().text, "sekrit");
        assert_eq!(expand("${input:api-key}").unwrap().text, "from-input");
        assert_eq!(expand("${input:plain-id}").unwrap().text, "raw-id-value");
        let folder = expand("${workspaceFolder}/data").unwrap();
        assert_eq!(folder.text, "/work/project/data");
        assert!(!folder.substituted);
        assert_eq!(expand("${userHome}/x").unwrap().text, "/home/ada/x");
        assert_eq!(
            expand("no refs $HOME {x}").unwrap().text,
            "no refs $HOME {x}"
        );
        assert_eq!(
            expand("a${TOKEN}b${TOKEN}c").unwrap().text,
            "asekritbsekritc"
        );
    }

    #[test]
    fn errors_name_what_is_missing_without_values() {
        assert_eq!(
            expand("${NOPE}").unwrap_err(),
            "environment variable 'NOPE' is not set"
        );
        assert_eq!(
            expand("${input:other-key}").unwrap_err(),
            "input 'other-key' is not set (set MCP_INPUT_OTHER_KEY)"
        );
        assert_eq!(
            expand("ab${TOKEN").unwrap_err(),
            "unterminated `${` at character 3"
        );
        assert!(
            expand("${1BAD}")
                .unwrap_err()
                .contains("not a variable reference")
        );
    }
}
