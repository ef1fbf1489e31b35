//! A server added to Goose's `config.yaml` as an `extensions` entry: every
//! value and its order kept; YAML comments are not.

use std::path::Path;

use serde_json::{Map, Value};

use super::super::error::ConfigError;
use super::super::expand::env_reference;
use super::outcome::{Added, clash};

/// `text` with `entry` (our `mcpServers` shape) as extension `name`.
pub(crate) fn goose_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &Value,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let mut root: serde_yaml_ng::Value = if text.trim().is_empty() {
        serde_yaml_ng::Value::Mapping(Default::default())
    } else {
        serde_yaml_ng::from_str(text)
            .map_err(|error| ConfigError::invalid(path, format!("not valid YAML: {error}")))?
    };
    let serde_yaml_ng::Value::Mapping(top) = &mut root else {
        return Err(ConfigError::invalid(
            path,
            "expected a YAML mapping at the top",
        ));
    };
    let extensions = top
        .entry("extensions".into())
        .or_insert_with(|| serde_yaml_ng::Value::Mapping(Default::default()));
    let serde_yaml_ng::Value::Mapping(extensions) = extensions else {
        return Err(ConfigError::invalid(
            path,
            "\"extensions\" is not a mapping",
        ));
    };
    let key = serde_yaml_ng::Value::String(name.to_owned());
    let exists = extensions.contains_key(&key);
    if exists && !replace {
        return Err(clash(path, name));
    }
    let fields = entry.as_object().cloned().unwrap_or_default();
    let mut extension = Map::new();
    extension.insert("name".into(), Value::String(name.to_owned()));
    extension.insert("enabled".into(), Value::Bool(true));
    if let Some(command) = fields.get("command") {
        extension.insert("type".into(), "stdio".into());
        extension.insert("cmd".into(), command.clone());
        extension.insert(
            "args".into(),
            fields
                .get("args")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        );
        let mut envs = Map::new();
        let mut env_keys = Vec::new();
        if let Some(Value::Object(env)) = fields.get("env") {
            for (var, value) in env {
                match value.as_str().and_then(env_reference) {
                    Some(reference) if reference == var => {
                        env_keys.push(Value::String(var.clone()))
                    }
                    _ => {
                        envs.insert(var.clone(), value.clone());
                    }
                }
            }
        }
        extension.insert("envs".into(), Value::Object(envs));
        extension.insert("env_keys".into(), Value::Array(env_keys));
    } else {
        let kind = match fields.get("type").and_then(Value::as_str) {
            Some("sse") => "sse",
            _ => "streamable_http",
        };
        extension.insert("type".into(), kind.into());
        extension.insert(
            "uri".into(),
            fields.get("url").cloned().unwrap_or(Value::Null),
        );
        if let Some(headers) = fields.get("headers") {
            extension.insert("headers".into(), headers.clone());
        }
    }
    if let Some(description) = fields.get("description") {
        extension.insert("description".into(), description.clone());
    }
    extension.insert("timeout".into(), Value::from(300));
    let extension: serde_yaml_ng::Value = serde_yaml_ng::to_value(Value::Object(extension))
        .map_err(|error| ConfigError::invalid(path, error.to_string()))?;
    extensions.insert(key, extension);
    let text = serde_yaml_ng::to_string(&root)
        .map_err(|error| ConfigError::invalid(path, error.to_string()))?;
    Ok((text, Added::when(exists)))
}
