//! Which host's format a file is in, and which syntax its name says.

use std::fmt;
use std::path::Path;

use super::error::ConfigError;

/// Which host's format a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    /// Chatbot-host `mcp_config.json`: `servers`.
    McpConfig,
    /// Claude Desktop, Cursor, Claude Code `.mcp.json`: `mcpServers`.
    McpServers,
    /// VS Code `.vscode/mcp.json`: `servers` and `inputs`.
    VsCode,
    /// Claude Code's user file `~/.claude.json`: its top-level `mcpServers`
    /// and the current project's `projects[<dir>].mcpServers`.
    ClaudeUser,
    /// VS Code's user `settings.json`: `mcp.servers` and `mcp.inputs`.
    VsCodeSettings,
    /// Zed's `settings.json`: `context_servers`.
    Zed,
    /// Codex CLI's `~/.codex/config.toml`: `[mcp_servers.<name>]`.
    Codex,
    /// Goose's `config.yaml`: `extensions`.
    Goose,
}

impl fmt::Display for ConfigFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::McpConfig => "mcp_config.json (servers)",
            Self::McpServers => "mcpServers (Claude, Cursor, .mcp.json)",
            Self::VsCode => "VS Code mcp.json",
            Self::ClaudeUser => "~/.claude.json",
            Self::VsCodeSettings => "VS Code settings.json (mcp.servers)",
            Self::Zed => "Zed settings.json (context_servers)",
            Self::Codex => "Codex config.toml (mcp_servers)",
            Self::Goose => "Goose config.yaml (extensions)",
        })
    }
}

/// The syntax of a config file, by its extension. TOML and YAML are each
/// read under a feature of this crate (`toml`, `yaml`); in a build without
/// it, [`Syntax::of`] refuses such a file, naming the feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// JSON with comments and trailing commas: anything but the two below.
    Json,
    /// `.toml` (Codex CLI).
    #[cfg(feature = "toml")]
    Toml,
    /// `.yaml` or `.yml` (Goose).
    #[cfg(feature = "yaml")]
    Yaml,
}

impl Syntax {
    /// The syntax the name of `path` says. A TOML or YAML file in a build
    /// without the feature that reads it is an error naming the feature.
    pub fn of(path: &Path) -> Result<Self, ConfigError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            #[cfg(feature = "toml")]
            Some("toml") => Ok(Self::Toml),
            #[cfg(not(feature = "toml"))]
            Some("toml") => Err(needs_feature(path, "Codex's TOML", "toml")),
            #[cfg(feature = "yaml")]
            Some("yaml" | "yml") => Ok(Self::Yaml),
            #[cfg(not(feature = "yaml"))]
            Some("yaml" | "yml") => Err(needs_feature(path, "Goose's YAML", "yaml")),
            _ => Ok(Self::Json),
        }
    }
}

/// The error for a file in `format` in a build without `feature`.
#[cfg(not(all(feature = "toml", feature = "yaml")))]
fn needs_feature(path: &Path, format: &'static str, feature: &'static str) -> ConfigError {
    ConfigError::NeedsFeature {
        path: path.to_owned(),
        format,
        feature,
    }
}

/// A host's general settings file, which may well have no MCP section.
pub(crate) fn is_settings_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == "settings.json")
}

/// Claude Code's user file, `~/.claude.json`.
pub(crate) fn is_claude_user_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == ".claude.json")
}

/// A file in a `.vscode` folder.
pub(crate) fn is_in_vscode_folder(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == ".vscode")
}
