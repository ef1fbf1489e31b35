//! Goose's `config.yaml`: `extensions`, in our shape.

use std::path::Path;

use serde_json::{Map, Value};

use super::super::error::ConfigError;
use super::super::format::ConfigFormat;
use super::Shaped;

/// Goose's `config.yaml`: `extensions`, each with a `type`.
pub(crate) fn goose(path: &Path, text: &str) -> Result<Shaped, ConfigError> {
    let root: Value = if text.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_yaml_ng::from_str(text).map_err(|error| {
            let (line, column) = error
                .location()
                .map(|at| (at.line(), at.column()))
                .unwrap_or((0, 0));
            ConfigError::Syntax {
                path: path.to_owned(),
                line,
                column,
                message: error.to_string(),
            }
        })?
    };
    let mut shaped = Shaped::new(Some(ConfigFormat::Goose), true);
    let Some(extensions) = root.get("extensions") else {
        shaped.settings_without_servers = true;
        return Ok(shaped);
    };
    let Value::Object(extensions) = extensions else {
        return Err(ConfigError::invalid(
            path,
            "\"extensions\" must be a mapping of extensions",
        ));
    };
    let mut out = Map::new();
    for (name, entry) in extensions {
        let Value::Object(entry) = entry else {
            out.insert(name.clone(), entry.clone());
            continue;
        };
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("stdio");
        let mut server = Map::new();
        match kind {
            "stdio" => {
                copy(
                    entry,
                    &mut server,
                    &[("cmd", "command"), ("args", "args"), ("envs", "env")],
                );
                copy(entry, &mut server, &[("env_keys", "envPassthrough")]);
            }
            "sse" => {
                copy(
                    entry,
                    &mut server,
                    &[("uri", "url"), ("headers", "headers")],
                );
                server.insert("type".into(), Value::String("sse".into()));
            }
            "streamable_http" => {
                copy(
                    entry,
                    &mut server,
                    &[("uri", "url"), ("headers", "headers")],
                );
                server.insert("type".into(), Value::String("http".into()));
            }
            other => {
                shaped.skipped.push((
                    name.clone(),
                    format!("is a Goose \"{other}\" extension, not an MCP server we can start"),
                ));
                continue;
            }
        }
        copy(
            entry,
            &mut server,
            &[
                ("enabled", "enabled"),
                ("timeout", "timeout"),
                ("description", "description"),
            ],
        );
        out.insert(name.clone(), Value::Object(server));
    }
    shaped.root.insert("mcpServers".into(), Value::Object(out));
    Ok(shaped)
}

/// Copies `from` fields of `entry` into `server` as `to`, nulls left out.
fn copy(entry: &Map<String, Value>, server: &mut Map<String, Value>, fields: &[(&str, &str)]) {
    for (from, to) in fields {
        match entry.get(*from) {
            None | Some(Value::Null) => {}
            Some(value) => {
                server.insert((*to).into(), value.clone());
            }
        }
    }
}
