//! How to reach a server, from its entry: the transport its `type` names,
//! and the stdio, HTTP or custom [`Launch`] with what of it is safe to show.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpdisco_transport::http::HttpKind;
use mcpdisco_transport::secret::{SecretString, SecretUrl};
use mcpdisco_transport::stdio::EnvPolicy;
use serde_json::{Map, Value};

use super::custom_launch::custom_launch;
use super::entry::{EntryFields, Field, List, Text, TextMap};
use super::expand::Expander;
use super::launch::{Launch, ReadLaunch};
use super::problems::ServerProblems;
use super::redact;
use super::settings::text;

/// The transport a server's `type` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Transport {
    /// A child process.
    Stdio,
    /// Streamable HTTP, legacy SSE, or detect.
    Http(HttpKind),
    /// A registered third party's.
    Custom(String),
}

/// Reads launches of the servers of one file.
pub(crate) struct LaunchReader<'a> {
    /// The file's folder: relative commands and `cwd` resolve against it.
    pub dir: &'a Path,
    /// Expands `${…}` references.
    pub expander: Expander<'a>,
    /// Custom transport `type`s.
    pub custom_types: &'a [String],
}

impl LaunchReader<'_> {
    /// `type` (or `transport`, as some hosts write it) and the field it came
    /// from, when given; `Err` when it is wrong (said in `problems`).
    pub fn transport(
        &self,
        entry: &mut EntryFields,
        problems: &mut ServerProblems<'_, '_>,
    ) -> Result<Option<(&'static str, Transport)>, ()> {
        let field = match entry.transport_type {
            Field::Given(_) | Field::Mistyped(_) => "type",
            Field::Absent | Field::Null => "transport",
        };
        let value = match field {
            "type" => std::mem::take(&mut entry.transport_type),
            _ => std::mem::take(&mut entry.transport),
        };
        let before = problems.error_count();
        let Some(value) = text(value, field, problems) else {
            return if problems.error_count() > before {
                Err(())
            } else {
                Ok(None)
            };
        };
        let transport = match value.as_str() {
            "stdio" => Transport::Stdio,
            "http" | "streamable-http" | "streamableHttp" | "streamable_http" => {
                Transport::Http(HttpKind::StreamableHttp)
            }
            "sse" => Transport::Http(HttpKind::Sse),
            other if self.custom_types.iter().any(|t| t == other) => {
                Transport::Custom(other.to_owned())
            }
            other => {
                let mut known = vec!["stdio", "http", "streamable-http", "sse"];
                known.extend(self.custom_types.iter().map(String::as_str));
                let last = known.pop().unwrap_or_default();
                let message = format!(
                    "unknown transport \"{other}\"; expected {} or {last}",
                    known.join(", ")
                );
                problems.error(Some(field), message);
                return Err(());
            }
        };
        Ok(Some((field, transport)))
    }

    /// The launch of `entry` (`raw` as written), reached by `transport`.
    pub fn launch(
        &self,
        entry: &mut EntryFields,
        raw: &Map<String, Value>,
        transport: Option<(&'static str, Transport)>,
        problems: &mut ServerProblems<'_, '_>,
    ) -> Option<ReadLaunch> {
        if let Some((_, Transport::Custom(custom))) = &transport {
            return custom_launch(&self.expander, raw, custom, problems);
        }
        let before = problems.error_count();
        let command = text(std::mem::take(&mut entry.command), "command", problems);
        let url = text(std::mem::take(&mut entry.url), "url", problems);
        if problems.error_count() > before {
            return None;
        }
        match (command, url, transport) {
            (Some(_), Some(_), _) => {
                problems.error(None, "has both \"command\" and \"url\"; give one");
                None
            }
            (None, None, _) => {
                problems.error(None, "has neither \"command\" (stdio) nor \"url\" (HTTP)");
                None
            }
            (Some(_), None, Some((field, Transport::Http(_)))) => {
                problems.error(
                    Some(field),
                    "an HTTP transport needs a \"url\", but the server has a \"command\"",
                );
                None
            }
            (Some(command), None, _) => self.stdio(entry, &command, problems),
            (None, Some(_), Some((field, Transport::Stdio | Transport::Custom(_)))) => {
                problems.error(
                    Some(field),
                    "\"stdio\" needs a \"command\", but the server has a \"url\"",
                );
                None
            }
            (None, Some(url), Some((_, Transport::Http(kind)))) => {
                self.http(entry, &url, kind, problems)
            }
            (None, Some(url), None) => self.http(entry, &url, HttpKind::Auto, problems),
        }
    }

    fn stdio(
        &self,
        entry: &mut EntryFields,
        command: &str,
        problems: &mut ServerProblems<'_, '_>,
    ) -> Option<ReadLaunch> {
        let before = problems.error_count();
        let command = problems
            .expand(&self.expander, "command", command)
            .map(|e| e.text);
        if command
            .as_deref()
            .is_some_and(|command| command.trim().is_empty())
        {
            problems.error(Some("command"), "is empty");
        }
        let mut args = Vec::new();
        let mut shown = Vec::new();
        for (index, raw) in self
            .args(std::mem::take(&mut entry.args), problems)
            .into_iter()
            .enumerate()
        {
            if let Some(expanded) = problems.expand(&self.expander, &format!("args[{index}]"), &raw)
            {
                shown.push(if expanded.substituted {
                    raw
                } else {
                    expanded.text.clone()
                });
                args.push(expanded.text);
            }
        }
        let env = self.text_map(std::mem::take(&mut entry.env), "env", problems);
        let env_policy = env_policy(entry, problems);
        let cwd = match text(std::mem::take(&mut entry.cwd), "cwd", problems) {
            Some(cwd) => problems.expand(&self.expander, "cwd", &cwd).map(|cwd| {
                let cwd = PathBuf::from(cwd.text);
                if cwd.is_absolute() {
                    cwd
                } else {
                    self.dir.join(cwd)
                }
            }),
            None => Some(self.dir.to_owned()),
        };
        if problems.error_count() > before {
            return None;
        }
        let launch = Launch::Stdio {
            command: self.resolve_command(&command?),
            args,
            env,
            cwd: cwd?,
            env_policy,
        };
        Some(ReadLaunch {
            launch,
            shown_args: redact::mask_flag_values(&shown),
            shown_url: None,
        })
    }

    /// `args`: texts (numbers and booleans taken as text), as written.
    fn args(&self, value: List<Text>, problems: &mut ServerProblems<'_, '_>) -> Vec<String> {
        let items = match value.given() {
            Ok(items) => items.unwrap_or_default(),
            Err(found) => {
                problems.mistyped("args", "an array of strings", found);
                return Vec::new();
            }
        };
        let mut args = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            match item {
                Field::Given(Text(text)) => args.push(text),
                Field::Mistyped(found) => {
                    problems.mistyped(&format!("args[{index}]"), "a string", found)
                }
                Field::Null | Field::Absent => {
                    problems.mistyped(&format!("args[{index}]"), "a string", "null")
                }
            }
        }
        args
    }

    /// A command with a path separator resolves against the file's folder.
    fn resolve_command(&self, command: &str) -> String {
        let path = Path::new(command);
        let has_separator = command.contains('/') || command.contains(std::path::MAIN_SEPARATOR);
        if has_separator && path.is_relative() {
            self.dir.join(path).display().to_string()
        } else {
            command.to_owned()
        }
    }

    fn http(
        &self,
        entry: &mut EntryFields,
        url: &str,
        kind: HttpKind,
        problems: &mut ServerProblems<'_, '_>,
    ) -> Option<ReadLaunch> {
        let before = problems.error_count();
        let expanded = problems.expand(&self.expander, "url", url);
        if let Some(expanded) = &expanded {
            match url::Url::parse(&expanded.text) {
                Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
                Ok(parsed) => problems.error(
                    Some("url"),
                    format!("scheme \"{}\" is not http or https", parsed.scheme()),
                ),
                Err(error) => problems.error(Some("url"), format!("not a valid URL: {error}")),
            }
        }
        let headers = self.text_map(std::mem::take(&mut entry.headers), "headers", problems);
        for (field, written) in [
            ("inheritEnv", entry.inherit_env.is_written()),
            ("envPassthrough", entry.env_passthrough.is_written()),
        ] {
            if written {
                problems.error(
                    Some(field),
                    "applies to stdio servers only; an HTTP server has no environment",
                );
            }
        }
        let expanded = expanded?;
        if problems.error_count() > before {
            return None;
        }
        let shown_source = if expanded.substituted {
            url
        } else {
            expanded.text.as_str()
        };
        let shown_url = Some(redact::url_for_display(shown_source));
        Some(ReadLaunch {
            launch: Launch::Http {
                url: SecretUrl::new(expanded.text),
                headers,
                kind,
            },
            shown_args: Vec::new(),
            shown_url,
        })
    }

    /// A map of texts (env, headers), each expanded. Messages never show
    /// values: they may be secrets.
    fn text_map(
        &self,
        value: TextMap,
        field: &str,
        problems: &mut ServerProblems<'_, '_>,
    ) -> BTreeMap<String, SecretString> {
        let members = match value.given() {
            Ok(members) => members.map(|members| members.0).unwrap_or_default(),
            Err(found) => {
                problems.mistyped(field, "an object of strings", found);
                return BTreeMap::new();
            }
        };
        let mut map = BTreeMap::new();
        for (key, value) in members {
            let place = format!("{field}.{key}");
            match value {
                Field::Given(Text(text)) => {
                    if let Some(expanded) = problems.expand(&self.expander, &place, &text) {
                        map.insert(key, SecretString::from(expanded.text));
                    }
                }
                Field::Mistyped(found) => problems.mistyped(&place, "a string", found),
                Field::Null | Field::Absent => problems.mistyped(&place, "a string", "null"),
            }
        }
        map
    }
}

/// `inheritEnv` and `envPassthrough`: which of our variables the server sees.
fn env_policy(entry: &mut EntryFields, problems: &mut ServerProblems<'_, '_>) -> EnvPolicy {
    match std::mem::take(&mut entry.inherit_env).given() {
        Ok(Some(true)) => return EnvPolicy::InheritAll,
        Ok(_) => {}
        Err(found) => problems.mistyped("inheritEnv", "true or false", found),
    }
    let names = match std::mem::take(&mut entry.env_passthrough).given() {
        Ok(names) => names.unwrap_or_default(),
        Err(found) => {
            problems.mistyped("envPassthrough", "an array of names", found);
            Vec::new()
        }
    };
    let mut passthrough = Vec::with_capacity(names.len());
    for (index, name) in names.into_iter().enumerate() {
        let place = format!("envPassthrough[{index}]");
        match name {
            Field::Given(name) if is_variable_name(&name) => passthrough.push(name),
            Field::Given(_) => problems.error(
                Some(&place),
                "is not a variable name (letters, digits and _)",
            ),
            Field::Mistyped(found) => problems.mistyped(&place, "a string", found),
            Field::Null | Field::Absent => problems.mistyped(&place, "a string", "null"),
        }
    }
    EnvPolicy::Allowlist { passthrough }
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
