//! A server added to Goose's `config.yaml` as an `extensions` entry: every
//! value and its order kept; YAML comments are not.

use std::path::Path;

use serde_yaml_ng::{Mapping, Value};

use super::super::error::ConfigError;
use super::super::expand::env_reference;
use super::super::server_entry::{EntryLaunch, ServerEntry};
use super::outcome::{Added, clash};

/// How long Goose waits for an extension we add, in seconds.
const GOOSE_TIMEOUT_SECS: u64 = 300;

/// `text` with `entry` as extension `name`.
pub(crate) fn goose_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &ServerEntry,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let mut root: Value = if text.trim().is_empty() {
        Value::Mapping(Mapping::new())
    } else {
        serde_yaml_ng::from_str(text)
            .map_err(|error| ConfigError::invalid(path, format!("not valid YAML: {error}")))?
    };
    let Value::Mapping(top) = &mut root else {
        return Err(ConfigError::invalid(
            path,
            "expected a YAML mapping at the top",
        ));
    };
    let extensions = top
        .entry("extensions".into())
        .or_insert_with(|| Value::Mapping(Mapping::new()));
    let Value::Mapping(extensions) = extensions else {
        return Err(ConfigError::invalid(
            path,
            "\"extensions\" is not a mapping",
        ));
    };
    let key = Value::String(name.to_owned());
    let exists = extensions.contains_key(&key);
    if exists && !replace {
        return Err(clash(path, name));
    }
    extensions.insert(key, extension(name, entry));
    let text = serde_yaml_ng::to_string(&root)
        .map_err(|error| ConfigError::invalid(path, error.to_string()))?;
    Ok((text, Added::when(exists)))
}

/// `entry` as a Goose extension named `name`.
fn extension(name: &str, entry: &ServerEntry) -> Value {
    let text = |text: &str| Value::String(text.to_owned());
    let mut extension = Mapping::new();
    extension.insert(text("name"), text(name));
    extension.insert(text("enabled"), Value::Bool(true));
    match &entry.launch {
        EntryLaunch::Stdio {
            command, args, env, ..
        } => {
            extension.insert(text("type"), text("stdio"));
            extension.insert(text("cmd"), text(command));
            let args = args.iter().map(|arg| text(arg)).collect();
            extension.insert(text("args"), Value::Sequence(args));
            let mut envs = Mapping::new();
            let mut env_keys = Vec::new();
            for (var, value) in env {
                match env_reference(value) {
                    // Goose passes variables through by name rather than expanding references.
                    Some(reference) if reference == var => env_keys.push(text(var)),
                    _ => {
                        envs.insert(text(var), text(value));
                    }
                }
            }
            extension.insert(text("envs"), Value::Mapping(envs));
            extension.insert(text("env_keys"), Value::Sequence(env_keys));
        }
        EntryLaunch::Http { url, headers, kind } => {
            let kind = match kind {
                mcpdisco_transport::http::HttpKind::Sse => "sse",
                _ => "streamable_http",
            };
            extension.insert(text("type"), text(kind));
            extension.insert(text("uri"), text(url));
            if !headers.is_empty() {
                let headers = headers
                    .iter()
                    .map(|(header, value)| (text(header), text(value)))
                    .collect();
                extension.insert(text("headers"), Value::Mapping(headers));
            }
        }
    }
    if let Some(description) = &entry.description {
        extension.insert(text("description"), text(description));
    }
    extension.insert(text("timeout"), Value::from(GOOSE_TIMEOUT_SECS));
    Value::Mapping(extension)
}
