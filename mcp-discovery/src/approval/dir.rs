//! Manifests awaiting approval, and approved ones: `DIR/pending/<server>/
//! <tool>.rtfs|.json` and `DIR/approved/…`. Approving and revoking move the
//! files (a rename each, so each is atomic); exporting writes each file to a
//! temporary name and renames it. File names are made from server and tool
//! names so that no name can leave DIR.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use mcpdisco_capability::Manifest;
use mcpdisco_transport::fs::write_atomically;

use crate::fnv::fnv1a_32;

/// Which forms `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Formats {
    /// `.rtfs` only.
    Rtfs,
    /// `.json` only.
    Json,
    /// Both (what [`CapabilityDir::load_approved`] reads is the JSON).
    #[default]
    Both,
}

/// Where a manifest is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Awaiting approval.
    Pending,
    /// Approved.
    Approved,
}

impl Stage {
    fn folder(self) -> &'static str {
        match self {
            Stage::Pending => "pending",
            Stage::Approved => "approved",
        }
    }
}

/// One manifest on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The server's folder name.
    pub server: String,
    /// The tool's file stem.
    pub tool: String,
    /// Its files (`.rtfs`, `.json`).
    pub files: Vec<PathBuf>,
}

/// A folder of capability manifests.
#[derive(Debug, Clone)]
pub struct CapabilityDir {
    root: PathBuf,
}

/// The longest file stem made from a name.
const MAX_STEM: usize = 100;

/// A file or folder name for `name` that stays inside its parent: only
/// `[A-Za-z0-9_.-]`, no leading dot, bounded; a name that had to change, has
/// capitals (`Search` and `search` would share a file where case does not
/// count) or is a Windows device name (`con`, `nul`, `com1`, …) gets a hash
/// of the original, so two names never share a file.
pub fn file_stem(name: &str) -> String {
    let mut stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() || stem.starts_with('.') {
        stem.insert(0, '_');
    }
    let device = {
        let base = stem
            .split('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        matches!(base.as_str(), "con" | "prn" | "aux" | "nul")
            || ((base.starts_with("com") || base.starts_with("lpt"))
                && base.len() == 4
                && base.ends_with(|c: char| c.is_ascii_digit()))
    };
    if stem != name
        || stem.len() > MAX_STEM
        || stem.chars().any(|c| c.is_ascii_uppercase())
        || device
    {
        stem.truncate(MAX_STEM);
        stem.push_str(&format!("-{:08x}", fnv1a_32(name.as_bytes())));
    }
    stem
}

impl CapabilityDir {
    /// The folder at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// `./capabilities/servers`.
    pub fn default_root() -> PathBuf {
        PathBuf::from("capabilities").join("servers")
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn server_dir(&self, stage: Stage, server: &str) -> PathBuf {
        self.root.join(stage.folder()).join(file_stem(server))
    }

    /// Writes each manifest to `pending/<server>/<tool>.*`.
    pub fn export(&self, manifests: &[Manifest], formats: Formats) -> io::Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        for manifest in manifests {
            let dir = self.server_dir(Stage::Pending, &manifest.server);
            fs::create_dir_all(&dir)?;
            let stem = file_stem(&manifest.tool);
            if formats != Formats::Json {
                let path = dir.join(format!("{stem}.rtfs"));
                write_atomically(&path, manifest.to_rtfs().as_bytes())?;
                written.push(path);
            }
            if formats != Formats::Rtfs {
                let path = dir.join(format!("{stem}.json"));
                let text =
                    serde_json::to_vec_pretty(&manifest.to_json()).map_err(io::Error::other)?;
                write_atomically(&path, &text)?;
                written.push(path);
            }
        }
        Ok(written)
    }

    /// The manifests at `stage`, by server and tool.
    pub fn list(&self, stage: Stage) -> io::Result<Vec<Listed>> {
        let mut listed: Vec<Listed> = Vec::new();
        let stage_dir = self.root.join(stage.folder());
        let servers = match fs::read_dir(&stage_dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(listed),
            Err(error) => return Err(error),
        };
        let mut servers: Vec<PathBuf> = servers
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        servers.sort();
        for server_dir in servers {
            let server = name_of(&server_dir);
            let mut files: Vec<PathBuf> = fs::read_dir(&server_dir)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("rtfs" | "json")
                    )
                })
                .collect();
            files.sort();
            for file in files {
                let tool = file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                match listed
                    .iter_mut()
                    .find(|l| l.server == server && l.tool == tool)
                {
                    Some(entry) => entry.files.push(file),
                    None => listed.push(Listed {
                        server: server.clone(),
                        tool,
                        files: vec![file],
                    }),
                }
            }
        }
        Ok(listed)
    }

    /// `server`'s manifests at `stage`: all, or those of `tools`.
    pub fn selected(
        &self,
        stage: Stage,
        server: &str,
        tools: &[String],
    ) -> io::Result<Vec<Listed>> {
        let server_stem = file_stem(server);
        let stems: Vec<String> = tools.iter().map(|t| file_stem(t)).collect();
        Ok(self
            .list(stage)?
            .into_iter()
            .filter(|l| l.server == server_stem && (stems.is_empty() || stems.contains(&l.tool)))
            .collect())
    }

    /// Moves `server`'s manifests (all, or those of `tools`) from `from` to
    /// `to`; what was moved.
    fn shift(
        &self,
        from: Stage,
        to: Stage,
        server: &str,
        tools: &[String],
    ) -> io::Result<Vec<Listed>> {
        let chosen = self.selected(from, server, tools)?;
        if chosen.is_empty() {
            return Ok(chosen);
        }
        let target_dir = self.server_dir(to, server);
        fs::create_dir_all(&target_dir)?;
        let mut moved = Vec::new();
        for entry in chosen {
            let mut files = Vec::new();
            for file in &entry.files {
                let Some(name) = file.file_name() else {
                    continue;
                };
                let target = target_dir.join(name);
                fs::rename(file, &target)?;
                files.push(target);
            }
            moved.push(Listed { files, ..entry });
        }
        let source = self.server_dir(from, server);
        if fs::read_dir(&source).is_ok_and(|mut d| d.next().is_none()) {
            let _ = fs::remove_dir(&source);
        }
        Ok(moved)
    }

    /// Approves `server`'s pending manifests (all, or `tools`).
    pub fn approve(&self, server: &str, tools: &[String]) -> io::Result<Vec<Listed>> {
        self.shift(Stage::Pending, Stage::Approved, server, tools)
    }

    /// Takes `server`'s approval back (all, or `tools`): to pending again.
    pub fn revoke(&self, server: &str, tools: &[String]) -> io::Result<Vec<Listed>> {
        self.shift(Stage::Approved, Stage::Pending, server, tools)
    }

    /// Every approved manifest in its JSON form (for a host to load).
    pub fn load_approved(&self) -> io::Result<Vec<Value>> {
        let mut loaded = Vec::new();
        for entry in self.list(Stage::Approved)? {
            for file in entry
                .files
                .iter()
                .filter(|f| f.extension().is_some_and(|e| e == "json"))
            {
                let text = fs::read(file)?;
                let value: Value = serde_json::from_slice(&text).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{}: {e}", file.display()),
                    )
                })?;
                loaded.push(value);
            }
        }
        Ok(loaded)
    }
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServerConfig;
    use mcpdisco_protocol::RawJson;
    use serde_json::json;

    #[test]
    fn file_stems_never_leave_the_folder() {
        assert_eq!(file_stem("list_issues"), "list_issues");
        for hostile in [
            "../../etc/passwd",
            "..",
            ".",
            "",
            "a/b",
            "a\\b",
            "c:x",
            "\u{0}",
        ] {
            let stem = file_stem(hostile);
            assert!(!stem.contains(['/', '\\', ':', '\u{0}']), "{stem}");
            assert!(!stem.starts_with('.'), "{stem}");
            assert!(!stem.is_empty());
        }
        assert_ne!(
            file_stem("a/b"),
            file_stem("a_b"),
            "a changed name never collides"
        );
        assert_ne!(
            file_stem("Search").to_ascii_lowercase(),
            file_stem("search").to_ascii_lowercase(),
            "names differing in case never share a file"
        );
        for device in ["con", "NUL", "aux.json", "com1", "lpt9"] {
            assert!(
                file_stem(device).contains('-'),
                "{device}: {}",
                file_stem(device)
            );
        }
        assert_eq!(file_stem("command"), "command");
        assert!(file_stem(&"x".repeat(500)).len() <= MAX_STEM + 9);
    }

    /// Known answers for manifest file names, a stored format (approved
    /// manifests are found, and their pins removed, by them): computed once
    /// outside this crate (FNV-1a 32 of the original name's UTF-8).
    #[test]
    fn file_stems_have_known_answers() {
        for (name, expected) in [
            ("list_issues", "list_issues".to_owned()),
            ("Search", "Search-c646a2c9".to_owned()),
            ("../../etc/passwd", "_.._.._etc_passwd-6fadc99a".to_owned()),
            ("", "_-811c9dc5".to_owned()),
            ("con", "con-f08dd14b".to_owned()),
            ("aux.json", "aux.json-7e7ec8b3".to_owned()),
            ("résumé", "r_sum_-b6e8fa7c".to_owned()),
            (&"x".repeat(120), format!("{}-c14b2ba5", "x".repeat(100))),
        ] {
            assert_eq!(file_stem(name), expected, "{name}");
        }
    }

    #[test]
    fn export_approve_revoke_and_load() {
        let dir = tempfile::tempdir().unwrap();
        let capabilities = CapabilityDir::new(dir.path());
        let server = ServerConfig::http("github", "https://api.github.com/mcp");
        let manifests: Vec<Manifest> = ["list_issues", "create_issue", "../escape"]
            .iter()
            .filter_map(|name| {
                crate::approval::manifest_of(
                    &server,
                    &RawJson::from_value(&json!({"name": name, "inputSchema": {"type": "object"}})),
                )
                .ok()
            })
            .collect();
        let written = capabilities.export(&manifests, Formats::Both).unwrap();
        assert_eq!(written.len(), 6);
        assert!(
            written
                .iter()
                .all(|p| p.starts_with(dir.path().join("pending").join("github")))
        );
        assert_eq!(capabilities.list(Stage::Pending).unwrap().len(), 3);
        let approved = capabilities
            .approve("github", &["list_issues".into()])
            .unwrap();
        assert_eq!(approved.len(), 1);
        assert_eq!(approved[0].files.len(), 2);
        assert_eq!(capabilities.list(Stage::Pending).unwrap().len(), 2);
        let loaded = capabilities.load_approved().unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0]["id"], "mcp.github.list_issues");
        capabilities.approve("github", &[]).unwrap();
        assert!(capabilities.list(Stage::Pending).unwrap().is_empty());
        assert!(!dir.path().join("pending").join("github").exists());
        let revoked = capabilities
            .revoke("github", &["create_issue".into()])
            .unwrap();
        assert_eq!(revoked.len(), 1);
        assert_eq!(capabilities.list(Stage::Approved).unwrap().len(), 2);
        assert!(capabilities.approve("nobody", &[]).unwrap().is_empty());
    }
}
