//! A server added to Codex CLI's `config.toml` as a `[mcp_servers.<name>]`
//! table, every other line kept, comments included (`toml_edit`).

use std::path::Path;

use super::super::error::ConfigError;
use super::super::expand::env_reference;
use super::super::server_entry::{EntryLaunch, ServerEntry};
use super::outcome::{Added, clash};

/// `text` with `entry` as server `name`.
pub(crate) fn codex_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &ServerEntry,
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
    let table = match &entry.launch {
        EntryLaunch::Stdio {
            command,
            args,
            env,
            cwd,
        } => stdio_table(command, args, env, cwd.as_deref()),
        EntryLaunch::Http { url, headers, .. } => http_table(url, headers),
    };
    servers.insert(name, toml_edit::Item::Table(table));
    Ok((document.to_string(), Added::when(exists)))
}

fn stdio_table(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&str>,
) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    table["command"] = toml_edit::value(command);
    table["args"] = toml_edit::value(args.iter().collect::<toml_edit::Array>());
    let mut literal = toml_edit::InlineTable::new();
    let mut passed = toml_edit::Array::new();
    for (key, value) in env {
        match env_reference(value) {
            // Codex passes variables through by name rather than expanding references.
            Some(var) if var == key => passed.push(key.as_str()),
            _ => {
                literal.insert(key, value.as_str().into());
            }
        }
    }
    if !literal.is_empty() {
        table["env"] = toml_edit::value(literal);
    }
    if !passed.is_empty() {
        table["env_vars"] = toml_edit::value(passed);
    }
    if let Some(cwd) = cwd {
        table["cwd"] = toml_edit::value(cwd);
    }
    table
}

fn http_table(url: &str, headers: &[(String, String)]) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    table["url"] = toml_edit::value(url);
    let mut literal = toml_edit::InlineTable::new();
    let mut from_env = toml_edit::InlineTable::new();
    for (header, value) in headers {
        if header.eq_ignore_ascii_case("authorization")
            && let Some(var) = value.strip_prefix("Bearer ").and_then(env_reference)
        {
            table["bearer_token_env_var"] = toml_edit::value(var);
        } else if let Some(var) = env_reference(value) {
            from_env.insert(header, var.into());
        } else {
            literal.insert(header, value.as_str().into());
        }
    }
    if !literal.is_empty() {
        table["http_headers"] = toml_edit::value(literal);
    }
    if !from_env.is_empty() {
        table["env_http_headers"] = toml_edit::value(from_env);
    }
    table
}
