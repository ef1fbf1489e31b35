//! The JSON hosts' shapes: `mcpServers` or `servers` as they are, Claude
//! Code's user file with the current project's servers, VS Code's user
//! settings (`mcp.servers`) and Zed's `context_servers`.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::super::error::ConfigError;
use super::super::format::{ConfigFormat, is_claude_user_file, is_settings_file};
use super::super::json::kind_of;
use super::{Shaped, escaped_names};

/// `root`, the value of a JSON file at `path`, in our shape. `project_dir`
/// picks the project in `~/.claude.json`.
pub(crate) fn json_root(
    path: &Path,
    root: Value,
    project_dir: &Path,
) -> Result<Shaped, ConfigError> {
    let Value::Object(mut root) = root else {
        return Err(ConfigError::invalid(
            path,
            format!(
                "expected a JSON object at the top, found {}",
                kind_of(&root)
            ),
        ));
    };
    let mut shaped = Shaped::new(None, is_settings_file(path));
    if is_claude_user_file(path) {
        merge_claude_project(&mut root, project_dir, &mut shaped);
    } else if !root.contains_key("mcpServers") && !root.contains_key("servers") {
        if let Some(Value::Object(zed_servers)) = root.get("context_servers") {
            shaped.format = Some(ConfigFormat::Zed);
            shaped.servers_at = Some(vec!["context_servers".into()]);
            let servers = zed(zed_servers, &mut shaped.skipped);
            shaped
                .root
                .insert("mcpServers".into(), Value::Object(servers));
            return Ok(shaped);
        }
        if let Some(Value::Object(mcp)) = root.get("mcp") {
            shaped.format = Some(ConfigFormat::VsCodeSettings);
            shaped.servers_at = Some(vec!["mcp".into(), "servers".into()]);
            let mut servers = mcp.get("servers").cloned().unwrap_or(json!({}));
            if let Value::Object(servers) = &mut servers {
                normalize_entries(servers);
            }
            shaped.root.insert("servers".into(), servers);
            if let Some(inputs) = mcp.get("inputs") {
                shaped.root.insert("inputs".into(), inputs.clone());
            }
            return Ok(shaped);
        }
        if is_settings_file(path) {
            shaped.settings_without_servers = true;
            return Ok(shaped);
        }
    }
    for key in ["mcpServers", "servers"] {
        if let Some(Value::Object(servers)) = root.get_mut(key) {
            normalize_entries(servers);
        }
    }
    shaped.root = root;
    Ok(shaped)
}

/// `~/.claude.json`: the current project's `mcpServers` join the user's,
/// and win a name clash (Claude Code's own precedence).
fn merge_claude_project(root: &mut Map<String, Value>, project_dir: &Path, shaped: &mut Shaped) {
    let Some(Value::Object(projects)) = root.get("projects") else {
        return;
    };
    let wanted = project_dir.to_string_lossy();
    let wanted = wanted.trim_end_matches(['/', '\\']);
    let Some((dir, Value::Object(project_servers))) = projects
        .iter()
        .find(|(dir, _)| dir.trim_end_matches(['/', '\\']) == wanted)
        .and_then(|(dir, project)| Some((dir.clone(), project.get("mcpServers")?)))
    else {
        return;
    };
    let project_servers = project_servers.clone();
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(servers) = servers {
        for (name, entry) in project_servers {
            let at = vec![
                "projects".to_owned(),
                dir.clone(),
                "mcpServers".to_owned(),
                name.clone(),
            ];
            shaped.moved.insert(name.clone(), at);
            servers.insert(name, entry);
        }
    }
}

/// Windsurf's `serverUrl`, Gemini's `httpUrl`, `includeTools` and `excludeTools`.
fn normalize_entries(servers: &mut Map<String, Value>) {
    for entry in servers.values_mut() {
        let Value::Object(entry) = entry else {
            continue;
        };
        if !entry.contains_key("url") {
            if let Some(url) = entry.remove("serverUrl") {
                entry.insert("url".into(), url);
            } else if let Some(url) = entry.remove("httpUrl") {
                entry.insert("url".into(), url);
                entry
                    .entry("type")
                    .or_insert_with(|| Value::String("http".into()));
            }
        }
        if !entry.contains_key("tools") {
            let allow = entry.remove("includeTools");
            let deny = entry.remove("excludeTools");
            if allow.is_some() || deny.is_some() {
                let mut filter = Map::new();
                if let Some(allow) = allow {
                    filter.insert("allow".into(), escaped_names(&allow));
                }
                if let Some(deny) = deny {
                    filter.insert("deny".into(), escaped_names(&deny));
                }
                entry.insert("tools".into(), Value::Object(filter));
            }
        }
    }
}

/// Zed's `context_servers`: `{"command": "x", "args": [], "env": {}}`, the
/// older `{"command": {"path", "args", "env"}}`, or `{"url", "headers"}`.
/// Servers that a Zed extension provides have no command here and are skipped.
fn zed(servers: &Map<String, Value>, skipped: &mut Vec<(String, String)>) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, entry) in servers {
        let Value::Object(entry) = entry else {
            out.insert(name.clone(), entry.clone());
            continue;
        };
        let mut server = Map::new();
        match entry.get("command") {
            Some(Value::Object(command)) => {
                for (from, to) in [("path", "command"), ("args", "args"), ("env", "env")] {
                    if let Some(value) = command.get(from) {
                        server.insert(to.into(), value.clone());
                    }
                }
            }
            Some(command) => {
                server.insert("command".into(), command.clone());
            }
            None => {}
        }
        for field in ["args", "env", "url", "headers", "enabled", "timeout"] {
            if let Some(value) = entry.get(field) {
                server.entry(field).or_insert_with(|| value.clone());
            }
        }
        if !server.contains_key("command") && !server.contains_key("url") {
            skipped.push((
                name.clone(),
                "is provided by a Zed extension; its launch command is not in settings.json".into(),
            ));
            continue;
        }
        out.insert(name.clone(), Value::Object(server));
    }
    out
}
