//! Where hosts keep their MCP configs, in the order we look.

use std::path::{Path, PathBuf};

/// A place a config may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The file.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// What it is, such as "Claude Desktop".
    pub label: &'static str,
}

/// Every place we look, in order: `./mcp_config.json`, `./.mcp.json`,
/// `./.vscode/mcp.json`, `./.cursor/mcp.json`, `~/.cursor/mcp.json`, Claude
/// Desktop's config at its per-OS path, and `~/.claude.json`.
pub fn candidates(cwd: &Path, home: Option<&Path>) -> Vec<Candidate> {
    let mut places: Vec<(PathBuf, &'static str)> = vec![
        (cwd.join("mcp_config.json"), "project mcp_config.json"),
        (cwd.join(".mcp.json"), "project .mcp.json (Claude Code)"),
        (cwd.join(".vscode").join("mcp.json"), "project VS Code"),
        (cwd.join(".cursor").join("mcp.json"), "project Cursor"),
    ];
    if let Some(home) = home {
        places.push((home.join(".cursor").join("mcp.json"), "user Cursor"));
    }
    if let Some(desktop) = claude_desktop_config(home) {
        places.push((desktop, "Claude Desktop"));
    }
    if let Some(home) = home {
        places.push((
            home.join(".claude.json"),
            "user Claude Code (~/.claude.json)",
        ));
    }
    places
        .into_iter()
        .map(|(path, label)| Candidate {
            exists: path.is_file(),
            path,
            label,
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
fn claude_desktop_config(home: Option<&Path>) -> Option<PathBuf> {
    const FILE: &str = "claude_desktop_config.json";
    if cfg!(target_os = "macos") {
        home.map(|home| home.join("Library/Application Support/Claude").join(FILE))
    } else if cfg!(target_os = "windows") {
        dirs::config_dir().map(|appdata| appdata.join("Claude").join(FILE))
    } else {
        home.map(|home| home.join(".config").join("Claude").join(FILE))
    }
}

#[cfg(test)]
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
        assert_eq!(names.last().unwrap(), ".claude.json");
        assert_eq!(all.len(), 7);
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
