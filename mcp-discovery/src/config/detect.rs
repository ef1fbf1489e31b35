//! Where hosts keep their MCP configs, in the order we look.

use std::path::{Path, PathBuf};

/// A program that keeps MCP servers in a config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Host {
    /// Our own `mcp_config.json` (the chatbot host's format).
    McpConfig,
    /// Claude Desktop.
    ClaudeDesktop,
    /// Claude Code: `~/.claude.json` and a project's `.mcp.json`.
    ClaudeCode,
    /// Cursor.
    Cursor,
    /// VS Code.
    VsCode,
    /// Windsurf.
    Windsurf,
    /// Zed.
    Zed,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
    /// Block's Goose.
    Goose,
}

impl Host {
    /// A short lowercase name, used as the prefix of a clashing server name.
    pub fn slug(self) -> &'static str {
        match self {
            Self::McpConfig => "mcp",
            Self::ClaudeDesktop => "claude-desktop",
            Self::ClaudeCode => "claude-code",
            Self::Cursor => "cursor",
            Self::VsCode => "vscode",
            Self::Windsurf => "windsurf",
            Self::Zed => "zed",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Goose => "goose",
        }
    }
}

/// A place a config may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The file.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// What it is, such as "Claude Desktop".
    pub label: &'static str,
    /// Whose it is.
    pub host: Host,
    /// The file is the host's general settings, which may have no MCP
    /// section: found only when it has servers.
    pub shared: bool,
}

/// Every place we look, in order. Project files come first:
/// `./mcp_config.json`, `./.mcp.json`, `./.vscode/mcp.json`,
/// `./.cursor/mcp.json`; then `~/.cursor/mcp.json`, Claude Desktop's config
/// at its per-OS path, `~/.claude.json`; then VS Code's user `mcp.json` and
/// `settings.json`, Windsurf's `~/.codeium/windsurf/mcp_config.json`, Zed's
/// `settings.json`, Codex CLI's `~/.codex/config.toml`, Gemini CLI's project
/// and user `settings.json`, and Goose's `config.yaml`.
pub fn candidates(cwd: &Path, home: Option<&Path>) -> Vec<Candidate> {
    let config_dir = dirs::config_dir();
    candidates_in(cwd, home, config_dir.as_deref())
}

/// [`candidates`] with the OS's config folder given (`~/.config`,
/// `~/Library/Application Support` or `%APPDATA%`).
pub fn candidates_in(cwd: &Path, home: Option<&Path>, config_dir: Option<&Path>) -> Vec<Candidate> {
    let mut places: Vec<(PathBuf, &'static str, Host, bool)> = vec![
        (
            cwd.join("mcp_config.json"),
            "project mcp_config.json",
            Host::McpConfig,
            false,
        ),
        (
            cwd.join(".mcp.json"),
            "project .mcp.json (Claude Code)",
            Host::ClaudeCode,
            false,
        ),
        (
            cwd.join(".vscode").join("mcp.json"),
            "project VS Code",
            Host::VsCode,
            false,
        ),
        (
            cwd.join(".cursor").join("mcp.json"),
            "project Cursor",
            Host::Cursor,
            false,
        ),
    ];
    if let Some(home) = home {
        places.push((
            home.join(".cursor").join("mcp.json"),
            "user Cursor",
            Host::Cursor,
            false,
        ));
    }
    if let Some(desktop) = claude_desktop_config(home, config_dir) {
        places.push((desktop, "Claude Desktop", Host::ClaudeDesktop, false));
    }
    if let Some(home) = home {
        places.push((
            home.join(".claude.json"),
            "user Claude Code (~/.claude.json)",
            Host::ClaudeCode,
            false,
        ));
    }
    if let Some(user) = vscode_user_dir(home, config_dir) {
        places.push((
            user.join("mcp.json"),
            "user VS Code mcp.json",
            Host::VsCode,
            false,
        ));
        places.push((
            user.join("settings.json"),
            "user VS Code settings.json",
            Host::VsCode,
            true,
        ));
    }
    if let Some(home) = home {
        places.push((
            home.join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            "Windsurf",
            Host::Windsurf,
            false,
        ));
    }
    if let Some(zed) = zed_settings(home, config_dir) {
        places.push((zed, "Zed settings.json", Host::Zed, true));
    }
    if let Some(home) = home {
        places.push((
            home.join(".codex").join("config.toml"),
            "Codex CLI",
            Host::Codex,
            true,
        ));
    }
    places.push((
        cwd.join(".gemini").join("settings.json"),
        "project Gemini CLI",
        Host::Gemini,
        true,
    ));
    if let Some(home) = home {
        places.push((
            home.join(".gemini").join("settings.json"),
            "user Gemini CLI",
            Host::Gemini,
            true,
        ));
    }
    if let Some(goose) = goose_config(home, config_dir) {
        places.push((goose, "Goose", Host::Goose, true));
    }
    places
        .into_iter()
        .map(|(path, label, host, shared)| Candidate {
            exists: path.is_file(),
            path,
            label,
            host,
            shared,
        })
        .collect()
}

/// The first candidate that exists.
pub fn detect(cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    candidates(cwd, home)
        .into_iter()
        .find(|candidate| candidate.exists)
        .map(|candidate| candidate.path)
}

/// Claude Desktop's `claude_desktop_config.json` for this OS.
fn claude_desktop_config(home: Option<&Path>, config_dir: Option<&Path>) -> Option<PathBuf> {
    const FILE: &str = "claude_desktop_config.json";
    if cfg!(target_os = "macos") {
        home.map(|home| home.join("Library/Application Support/Claude").join(FILE))
    } else if cfg!(target_os = "windows") {
        config_dir.map(|appdata| appdata.join("Claude").join(FILE))
    } else {
        home.map(|home| home.join(".config").join("Claude").join(FILE))
    }
}

/// VS Code's `User` folder: `~/.config/Code/User`, `~/Library/Application
/// Support/Code/User` or `%APPDATA%\Code\User`.
fn vscode_user_dir(home: Option<&Path>, config_dir: Option<&Path>) -> Option<PathBuf> {
    os_config_dir(home, config_dir).map(|dir| dir.join("Code").join("User"))
}

/// Zed's `settings.json`: `~/.config/zed` on Linux and macOS, `%APPDATA%\Zed` on Windows.
fn zed_settings(home: Option<&Path>, config_dir: Option<&Path>) -> Option<PathBuf> {
    if cfg!(target_os = "windows") {
        config_dir.map(|appdata| appdata.join("Zed").join("settings.json"))
    } else {
        home.map(|home| home.join(".config").join("zed").join("settings.json"))
    }
}

/// Goose's `config.yaml`: `~/.config/goose` on Linux and macOS,
/// `%APPDATA%\Block\goose\config` on Windows.
fn goose_config(home: Option<&Path>, config_dir: Option<&Path>) -> Option<PathBuf> {
    if cfg!(target_os = "windows") {
        config_dir.map(|appdata| {
            appdata
                .join("Block")
                .join("goose")
                .join("config")
                .join("config.yaml")
        })
    } else {
        home.map(|home| home.join(".config").join("goose").join("config.yaml"))
    }
}

/// The OS's per-user config folder, following `home` on Linux so tests can move it.
fn os_config_dir(home: Option<&Path>, config_dir: Option<&Path>) -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        home.map(|home| home.join("Library/Application Support"))
    } else if cfg!(target_os = "windows") {
        config_dir.map(Path::to_owned)
    } else {
        home.map(|home| home.join(".config"))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn order_is_project_then_user_and_the_first_found_wins() {
        let cwd = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let all = candidates(cwd.path(), Some(home.path()));
        let names: Vec<String> = all
            .iter()
            .map(|c| {
                c.path
                    .strip_prefix(cwd.path())
                    .or_else(|_| c.path.strip_prefix(home.path()))
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        assert_eq!(
            names[..5],
            [
                "mcp_config.json",
                ".mcp.json",
                ".vscode/mcp.json",
                ".cursor/mcp.json",
                ".cursor/mcp.json"
            ]
        );
        assert_eq!(names[6], ".claude.json");
        assert_eq!(
            names[7..],
            [
                ".config/Code/User/mcp.json",
                ".config/Code/User/settings.json",
                ".codeium/windsurf/mcp_config.json",
                ".config/zed/settings.json",
                ".codex/config.toml",
                ".gemini/settings.json",
                ".gemini/settings.json",
                ".config/goose/config.yaml",
            ]
        );
        assert_eq!(all.len(), 15);
        assert!(all.iter().all(|c| !c.exists));
        assert_eq!(detect(cwd.path(), Some(home.path())), None);

        std::fs::write(home.path().join(".claude.json"), "{}").unwrap();
        assert_eq!(
            detect(cwd.path(), Some(home.path())),
            Some(home.path().join(".claude.json"))
        );
        std::fs::create_dir(cwd.path().join(".vscode")).unwrap();
        std::fs::write(cwd.path().join(".vscode/mcp.json"), "{}").unwrap();
        assert_eq!(
            detect(cwd.path(), Some(home.path())),
            Some(cwd.path().join(".vscode/mcp.json"))
        );
        std::fs::write(cwd.path().join(".mcp.json"), "{}").unwrap();
        assert_eq!(
            detect(cwd.path(), Some(home.path())),
            Some(cwd.path().join(".mcp.json"))
        );
    }
}
