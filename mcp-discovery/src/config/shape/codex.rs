//! Codex CLI's `~/.codex/config.toml`: `[mcp_servers.<name>]` tables, in our shape.

use std::path::Path;

use serde_json::{Map, Value};

use super::super::error::ConfigError;
use super::super::format::ConfigFormat;
use super::super::json::line_and_column;
use super::{Shaped, escaped_names};

/// Codex CLI's fields that do not change how a server is reached or listed.
const CODEX_IGNORED: &[&str] = &["tool_timeout_sec", "required", "startup_timeout_ms"];

/// Codex CLI's `~/.codex/config.toml`: `[mcp_servers.<name>]` tables.
pub(crate) fn codex(path: &Path, text: &str) -> Result<Shaped, ConfigError> {
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
    let mut shaped = Shaped::new(Some(ConfigFormat::Codex), true);
    let Some(servers) = root.get("mcp_servers") else {
        shaped.settings_without_servers = true;
        return Ok(shaped);
    };
    let Value::Object(servers) = servers else {
        return Err(ConfigError::invalid(
            path,
            "\"mcp_servers\" must be a table of servers",
        ));
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
