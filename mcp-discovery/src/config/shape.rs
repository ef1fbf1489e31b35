//! Every host's file shape, made into ours before servers are read.
//!
//! | host | file | shape | becomes |
//! |---|---|---|---|
//! | most JSON hosts | `*.json` | `mcpServers` or `servers` | itself |
//! | Claude Code | `~/.claude.json` | `mcpServers` + `projects[<dir>].mcpServers` | `mcpServers`, the project's entries winning |
//! | VS Code user | `settings.json` | `mcp.servers` + `mcp.inputs` | `servers` + `inputs` |
//! | Zed | `settings.json` | `context_servers` | `mcpServers` |
//! | Codex CLI | `config.toml` | `[mcp_servers.<name>]` | `mcpServers` |
//! | Goose | `config.yaml` | `extensions` | `mcpServers` |
//!
//! Entries are also made ours: Windsurf's `serverUrl` and Gemini's `httpUrl`
//! become `url`, Gemini's `includeTools`/`excludeTools` a `tools` filter.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::ConfigFormat;
use super::error::ConfigError;

/// A file's top level in our shape.
pub(crate) struct Shaped {
    /// The top-level object, with `mcpServers` or `servers` when there are servers.
    pub root: Map<String, Value>,
    /// The host format, when the shape alone tells it.
    pub format: Option<ConfigFormat>,
    /// A shared settings file without an MCP section: no servers, no error.
    pub settings_without_servers: bool,
    /// The file holds a host's other settings too: its other top-level keys are not ours to judge.
    pub shared_file: bool,
    /// Entries left out, with why: `(server, message)`.
    pub skipped: Vec<(String, String)>,
}

/// Reads `text` (JSON with comments, TOML or YAML by the file's extension)
/// into our shape. `project_dir` picks the project in `~/.claude.json`.
pub(crate) fn read_root(
    path: &Path,
    text: &str,
    project_dir: &Path,
) -> Result<Shaped, ConfigError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("toml") => codex(path, text),
        Some("yaml" | "yml") => goose(path, text),
        _ => json_root(path, text, project_dir),
    }
}

fn json_root(path: &Path, text: &str, project_dir: &Path) -> Result<Shaped, ConfigError> {
    let plain = super::jsonc::to_plain_json(text);
    let root: Value = serde_json::from_str(&plain).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        line: error.line(),
        column: error.column(),
        message: super::parse::syntax_message(&error),
    })?;
    let Value::Object(mut root) = root else {
        return Err(invalid(
            path,
            format!(
                "expected a JSON object at the top, found {}",
                super::parse::kind_of(&root)
            ),
        ));
    };
    let mut shaped = Shaped {
        root: Map::new(),
        format: None,
        settings_without_servers: false,
        shared_file: is_settings_file(path),
        skipped: Vec::new(),
    };
    let is_claude_user = path.file_name().is_some_and(|name| name == ".claude.json");
    if is_claude_user {
        merge_claude_project(&mut root, project_dir);
    } else if !root.contains_key("mcpServers") && !root.contains_key("servers") {
        if let Some(Value::Object(zed_servers)) = root.get("context_servers") {
            shaped.format = Some(ConfigFormat::Zed);
            let servers = zed(zed_servers, &mut shaped.skipped);
            shaped
                .root
                .insert("mcpServers".into(), Value::Object(servers));
            return Ok(shaped);
        }
        if let Some(Value::Object(mcp)) = root.get("mcp") {
            shaped.format = Some(ConfigFormat::VsCodeSettings);
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

/// A host's general settings file, which may well have no MCP section.
fn is_settings_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == "settings.json")
}

/// `~/.claude.json`: the current project's `mcpServers` join the user's,
/// and win a name clash (Claude Code's own precedence).
fn merge_claude_project(root: &mut Map<String, Value>, project_dir: &Path) {
    let Some(Value::Object(projects)) = root.get("projects") else {
        return;
    };
    let wanted = project_dir.to_string_lossy();
    let wanted = wanted.trim_end_matches(['/', '\\']);
    let Some(Value::Object(project_servers)) = projects
        .iter()
        .find(|(dir, _)| dir.trim_end_matches(['/', '\\']) == wanted)
        .and_then(|(_, project)| project.get("mcpServers"))
    else {
        return;
    };
    let project_servers = project_servers.clone();
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(servers) = servers {
        for (name, entry) in project_servers {
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

/// Exact tool names as globs that match only themselves.
fn escaped_names(names: &Value) -> Value {
    match names {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| match item {
                    Value::String(name) => Value::String(glob::Pattern::escape(name)),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
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

/// Codex CLI's fields that do not change how a server is reached or listed.
const CODEX_IGNORED: &[&str] = &["tool_timeout_sec", "required", "startup_timeout_ms"];

/// Codex CLI's `~/.codex/config.toml`: `[mcp_servers.<name>]` tables.
fn codex(path: &Path, text: &str) -> Result<Shaped, ConfigError> {
    let root: Value = toml::from_str(text).map_err(|error| {
        let (line, column) = error
            .span()
            .map(|span| line_and_column(text, span.start))
            .unwrap_or((0, 0));
        ConfigError::Syntax {
            path: path.to_owned(),
            line,
            column,
            message: error.message().to_owned(),
        }
    })?;
    let mut shaped = Shaped {
        root: Map::new(),
        format: Some(ConfigFormat::Codex),
        settings_without_servers: false,
        shared_file: true,
        skipped: Vec::new(),
    };
    let Some(servers) = root.get("mcp_servers") else {
        shaped.settings_without_servers = true;
        return Ok(shaped);
    };
    let Value::Object(servers) = servers else {
        return Err(invalid(path, "\"mcp_servers\" must be a table of servers"));
    };
    let mut out = Map::new();
    for (name, entry) in servers {
        let Value::Object(entry) = entry else {
            out.insert(name.clone(), entry.clone());
            continue;
        };
        let mut server = Map::new();
        let mut headers = Map::new();
        for (field, value) in entry {
            match field.as_str() {
                "url" => {
                    server.insert("url".into(), value.clone());
                    server.insert("type".into(), Value::String("http".into()));
                }
                "bearer_token_env_var" => {
                    if let Value::String(var) = value {
                        headers.insert(
                            "Authorization".into(),
                            Value::String(format!("Bearer ${{env:{var}}}")),
                        );
                    }
                }
                "http_headers" => {
                    if let Value::Object(given) = value {
                        headers.extend(given.clone());
                    }
                }
                "env_http_headers" => {
                    if let Value::Object(given) = value {
                        for (header, var) in given {
                            if let Value::String(var) = var {
                                headers.insert(
                                    header.clone(),
                                    Value::String(format!("${{env:{var}}}")),
                                );
                            }
                        }
                    }
                }
                "startup_timeout_sec" => {
                    server.insert("timeout".into(), value.clone());
                }
                "env_vars" => {
                    server.insert("envPassthrough".into(), value.clone());
                }
                "enabled_tools" | "disabled_tools" => {
                    let key = if field == "enabled_tools" {
                        "allow"
                    } else {
                        "deny"
                    };
                    let tools = server
                        .entry("tools")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(tools) = tools {
                        tools.insert(key.into(), escaped_names(value));
                    }
                }
                ignored if CODEX_IGNORED.contains(&ignored) => {}
                other => {
                    server.insert(other.to_owned(), value.clone());
                }
            }
        }
        if let Some(ms) = entry.get("startup_timeout_ms")
            && !server.contains_key("timeout")
        {
            server.insert("timeoutMs".into(), ms.clone());
        }
        if !headers.is_empty() {
            server.insert("headers".into(), Value::Object(headers));
        }
        out.insert(name.clone(), Value::Object(server));
    }
    shaped.root.insert("mcpServers".into(), Value::Object(out));
    Ok(shaped)
}

/// Goose's `config.yaml`: `extensions`, each with a `type`.
fn goose(path: &Path, text: &str) -> Result<Shaped, ConfigError> {
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
    let mut shaped = Shaped {
        root: Map::new(),
        format: Some(ConfigFormat::Goose),
        settings_without_servers: false,
        shared_file: true,
        skipped: Vec::new(),
    };
    let Some(extensions) = root.get("extensions") else {
        shaped.settings_without_servers = true;
        return Ok(shaped);
    };
    let Value::Object(extensions) = extensions else {
        return Err(invalid(
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

fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, str::len) + 1;
    (line, column)
}

fn invalid(path: &Path, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_owned(),
        server: None,
        field: None,
        message: message.into(),
    }
}
