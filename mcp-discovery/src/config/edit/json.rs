//! A server added to a JSON config (`mcpServers`, `servers`, Zed's
//! `context_servers`, VS Code's `mcp.servers`) as a new member indented like
//! its neighbours, every other byte kept: comments, order, trailing commas.
//! Where members are comes from the syntax tree's byte ranges.

use std::path::Path;

use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use serde_json::{Map, Value};

use super::super::error::ConfigError;
use super::super::format::{ConfigFormat, is_in_vscode_folder, is_settings_file};
use super::super::json::{self, member};
use super::super::server_entry::{EntryLaunch, ServerEntry};
use super::outcome::{Added, clash};

/// A new JSON file holding server `name`, in the shape its path suggests.
pub(crate) fn new_file(
    path: &Path,
    name: &str,
    entry: &ServerEntry,
) -> Result<String, ConfigError> {
    let vscode = is_in_vscode_folder(path);
    let key = if vscode { "servers" } else { "mcpServers" };
    let entry = if vscode {
        vscode_entry(entry)
    } else {
        Value::Object(entry.to_fields())
    };
    let mut servers = Map::new();
    servers.insert(name.to_owned(), entry);
    let mut root = Map::new();
    root.insert(key.into(), Value::Object(servers));
    let mut text = serde_json::to_string_pretty(&Value::Object(root))
        .map_err(|error| ConfigError::invalid(path, error.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// `text` with `entry` as server `name`.
pub(crate) fn json_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &ServerEntry,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let document = json::parse(path, text)?;
    let Value::Object(root) = document.value() else {
        return Err(ConfigError::invalid(
            path,
            "expected a JSON object at the top",
        ));
    };
    let Some(tree) = document.root_object() else {
        return Err(ConfigError::invalid(
            path,
            "expected a JSON object at the top",
        ));
    };
    let (keys, format) = servers_path(&root, path);
    let entry = match format {
        ConfigFormat::VsCode | ConfigFormat::VsCodeSettings => vscode_entry(entry),
        _ => Value::Object(entry.to_fields()),
    };
    // The deepest existing object on the way, and the keys still missing below it.
    let mut object = tree;
    let mut missing: &[&str] = &keys;
    while let Some((first, rest)) = missing.split_first() {
        match member(object, first).map(|prop| &prop.value) {
            Some(ast::Value::Object(inner)) => {
                object = inner;
                missing = rest;
            }
            Some(_) => {
                return Err(ConfigError::invalid(
                    path,
                    format!("\"{first}\" is not an object; cannot add a server to it"),
                ));
            }
            None => break,
        }
    }
    if missing.is_empty()
        && let Some(old) = member(object, name)
    {
        if !replace {
            return Err(clash(path, name));
        }
        let range = old.value.range();
        let rendered = render(path, &entry, &line_indent(text, range.start))?;
        let mut out = String::with_capacity(text.len() + rendered.len());
        out.push_str(&text[..range.start]);
        out.push_str(&rendered);
        out.push_str(&text[range.end..]);
        return Ok((out, Added::Replaced));
    }
    // What to place in `object`: the server itself, or the missing keys around it.
    let mut value = entry;
    let mut member_name = name.to_owned();
    for key in missing.iter().rev() {
        let mut wrapper = Map::new();
        wrapper.insert(member_name, value);
        value = Value::Object(wrapper);
        member_name = (*key).to_owned();
    }
    let inserted = insert_member(path, text, object, &member_name, &value)?;
    Ok((inserted, Added::Added))
}

/// Where the servers are in a JSON config, as a path of keys from the top.
fn servers_path(root: &Map<String, Value>, path: &Path) -> (Vec<&'static str>, ConfigFormat) {
    let settings = is_settings_file(path);
    if root.contains_key("mcpServers") {
        (vec!["mcpServers"], ConfigFormat::McpServers)
    } else if root.contains_key("servers") {
        (vec!["servers"], ConfigFormat::VsCode)
    } else if root.contains_key("context_servers") {
        (vec!["context_servers"], ConfigFormat::Zed)
    } else if root.get("mcp").is_some_and(Value::is_object) {
        (vec!["mcp", "servers"], ConfigFormat::VsCodeSettings)
    } else if is_in_vscode_folder(path) {
        (vec!["servers"], ConfigFormat::VsCode)
    } else if settings && path.to_string_lossy().contains("zed") {
        (vec!["context_servers"], ConfigFormat::Zed)
    } else if settings && path.to_string_lossy().contains("Code") {
        (vec!["mcp", "servers"], ConfigFormat::VsCodeSettings)
    } else {
        (vec!["mcpServers"], ConfigFormat::McpServers)
    }
}

/// VS Code wants a `type` on every server.
fn vscode_entry(entry: &ServerEntry) -> Value {
    let mut fields = entry.to_fields();
    if !fields.contains_key("type") {
        let kind = match entry.launch {
            EntryLaunch::Stdio { .. } => "stdio",
            EntryLaunch::Http { .. } => "http",
        };
        fields.insert("type".into(), Value::String(kind.into()));
    }
    Value::Object(fields)
}

/// Inserts `"name": value` as the last member of `object`.
fn insert_member(
    path: &Path,
    text: &str,
    object: &ast::Object<'_>,
    name: &str,
    value: &Value,
) -> Result<String, ConfigError> {
    let open = object.range.start;
    let close = object.range.end.saturating_sub(1);
    let object_indent = line_indent(text, open);
    let member_indent = match object.properties.first() {
        Some(first) if text[open + 1..first.range.start].contains('\n') => {
            line_indent(text, first.range.start)
        }
        _ => format!("{object_indent}  "),
    };
    let key = serde_json::to_string(name)
        .map_err(|error| ConfigError::invalid(path, error.to_string()))?;
    let member = format!(
        "{member_indent}{key}: {}",
        render(path, value, &member_indent)?
    );
    let mut out = String::with_capacity(text.len() + member.len() + 8);
    match object.properties.last() {
        None => {
            // Only blanks or comments inside: they stay, before the new member.
            let inner = text[open + 1..close].trim_end();
            out.push_str(&text[..=open]);
            out.push_str(inner);
            out.push('\n');
            out.push_str(&member);
            out.push('\n');
            out.push_str(&object_indent);
            out.push_str(&text[close..]);
        }
        Some(last) => {
            // Right after the last member's value, before any comma or comment.
            let end = last.range.end;
            out.push_str(&text[..end]);
            out.push_str(",\n");
            out.push_str(&member);
            out.push_str(&text[end..]);
        }
    }
    Ok(out)
}

/// The indentation of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// `value` as pretty JSON whose continuation lines start with `indent`.
fn render(path: &Path, value: &Value, indent: &str) -> Result<String, ConfigError> {
    let pretty = serde_json::to_string_pretty(value)
        .map_err(|error| ConfigError::invalid(path, error.to_string()))?;
    Ok(pretty.replace('\n', &format!("\n{indent}")))
}
