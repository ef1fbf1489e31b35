//! A server added to Codex CLI's `config.toml` as a `[mcp_servers.<name>]`
//! table, every other line kept, comments included (`toml_edit`).

use std::path::Path;

use serde_json::Value;

use super::super::error::ConfigError;
use super::super::expand::env_reference;
use super::outcome::{Added, clash};

/// `text` with `entry` (our `mcpServers` shape) as server `name`.
pub(crate) fn codex_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &Value,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let mut document: toml_edit::DocumentMut =
        text.parse().map_err(|error: toml_edit::TomlError| {
            ConfigError::invalid(path, format!("not valid TOML: {}", error.message()))
        })?;
    let servers = document
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| ConfigError::invalid(path, "\"mcp_servers\" is not a table"))?;
    let exists = servers.contains_key(name);
    if exists && !replace {
        return Err(clash(path, name));
    }
    let mut table = toml_edit::Table::new();
    let fields = entry.as_object().cloned().unwrap_or_default();
    if let Some(command) = fields.get("command").and_then(Value::as_str) {
        table["command"] = toml_edit::value(command);
    }
    if let Some(Value::Array(args)) = fields.get("args") {
        let mut array = toml_edit::Array::new();
        for arg in args.iter().filter_map(Value::as_str) {
            array.push(arg);
        }
        table["args"] = toml_edit::value(array);
    }
    if let Some(Value::Object(env)) = fields.get("env") {
        let mut literal = toml_edit::InlineTable::new();
        let mut passed = toml_edit::Array::new();
        for (key, value) in env {
            let value = value.as_str().unwrap_or_default();
            match env_reference(value) {
                // Codex passes variables through by name rather than expanding references.
                Some(var) if var == key => passed.push(key.as_str()),
                _ => {
                    literal.insert(key, value.into());
                }
            }
        }
        if !literal.is_empty() {
            table["env"] = toml_edit::value(literal);
        }
        if !passed.is_empty() {
            table["env_vars"] = toml_edit::value(passed);
        }
    }
    if let Some(url) = fields.get("url").and_then(Value::as_str) {
        table["url"] = toml_edit::value(url);
    }
    if let Some(Value::Object(headers)) = fields.get("headers") {
        let mut literal = toml_edit::InlineTable::new();
        let mut from_env = toml_edit::InlineTable::new();
        for (header, value) in headers {
            let value = value.as_str().unwrap_or_default();
            if header.eq_ignore_ascii_case("authorization")
                && let Some(var) = value.strip_prefix("Bearer ").and_then(env_reference)
            {
                table["bearer_token_env_var"] = toml_edit::value(var);
            } else if let Some(var) = env_reference(value) {
                from_env.insert(header, var.into());
            } else {
                literal.insert(header, value.into());
            }
        }
        if !literal.is_empty() {
            table["http_headers"] = toml_edit::value(literal);
        }
        if !from_env.is_empty() {
            table["env_http_headers"] = toml_edit::value(from_env);
        }
    }
    servers.insert(name, toml_edit::Item::Table(table));
    Ok((document.to_string(), Added::when(exists)))
}
