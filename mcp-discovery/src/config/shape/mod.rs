//! Every host's file shape, made into ours before servers are read.
//!
//! | host | file | shape | becomes |
//! |---|---|---|---|
//! | most JSON hosts | `*.json` | `mcpServers` or `servers` | itself |
//! | Claude Code | `~/.claude.json` | `mcpServers` + `projects[<dir>].mcpServers` | `mcpServers`, the project's entries winning |
//! | VS Code user | `settings.json` | `mcp.servers` + `mcp.inputs` | `servers` + `inputs` |
//! | Zed | `settings.json` | `context_servers` | `mcpServers` |
//! | Codex CLI (feature `toml`) | `config.toml` | `[mcp_servers.<name>]` | `mcpServers` |
//! | Goose (feature `yaml`) | `config.yaml` | `extensions` | `mcpServers` |
//!
//! Entries are also made ours: Windsurf's `serverUrl` and Gemini's `httpUrl`
//! become `url`, Gemini's `includeTools`/`excludeTools` a `tools` filter.

#[cfg(feature = "toml")]
pub(crate) mod codex;
#[cfg(feature = "yaml")]
pub(crate) mod goose;
pub(crate) mod json;

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::format::ConfigFormat;

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
    /// Where the host keeps its servers in the file read, as keys from the
    /// top, when not under the key they have in our shape.
    pub servers_at: Option<Vec<String>>,
    /// Entries the file keeps elsewhere still: where each is.
    pub moved: HashMap<String, Vec<String>>,
}

impl Shaped {
    /// Nothing yet, in `format` when the shape tells it.
    pub fn new(format: Option<ConfigFormat>, shared_file: bool) -> Self {
        Self {
            root: Map::new(),
            format,
            settings_without_servers: false,
            shared_file,
            skipped: Vec::new(),
            servers_at: None,
            moved: HashMap::new(),
        }
    }

    /// Where server `name`, found under `key` in our shape, is in the file read.
    pub fn entry_path(&self, key: &str, name: &str) -> Vec<String> {
        if let Some(path) = self.moved.get(name) {
            return path.clone();
        }
        let mut path = self
            .servers_at
            .clone()
            .unwrap_or_else(|| vec![key.to_owned()]);
        path.push(name.to_owned());
        path
    }
}

/// Exact tool names as globs that match only themselves.
pub(crate) fn escaped_names(names: &Value) -> Value {
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
