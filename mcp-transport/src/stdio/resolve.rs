//! Finding the file a bare command names, by the rules of the platform that
//! will run it. On Windows that is `PATH` plus `PATHEXT`: `npx` is
//! `npx.cmd`, `uvx` is `uvx.exe`, which `CreateProcess` alone never finds
//! (the most reported launch failure of MCP hosts there). Pure apart from
//! checking which files exist, so the Windows rules are tested on every OS.
//!
//! [`program_file`] is the lookup as the launcher makes it (the server's own
//! `PATH` first); a diagnosis that asks where a command is uses it too, so
//! the two never disagree.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::secret::{ExposeSecret, SecretString};

/// Whose rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// `:`-separated `PATH`, no extensions.
    Unix,
    /// `;`-separated `PATH` (entries may be quoted), tried with each
    /// `PATHEXT` extension unless the name already has one of them.
    Windows,
}

impl Platform {
    /// The platform this runs on.
    pub fn current() -> Self {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }
}

/// The extensions Windows tries when `PATHEXT` is unset.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// A command that no directory holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{command}` was not found on PATH ({searched} directories searched{})", if extensions.is_empty() { String::new() } else { format!(", with {}", extensions.join(", ")) })]
pub struct NotFound {
    /// The command as configured.
    pub command: String,
    /// How many `PATH` entries were looked in.
    pub searched: usize,
    /// The extensions tried (Windows).
    pub extensions: Vec<String>,
}

/// The file `command` runs. A name with a directory part is taken as it is
/// (relative to `cwd`), with the extensions tried on Windows when it has
/// none; a bare name is searched for in `path`'s directories in order.
pub fn resolve(
    command: &str,
    path: Option<&OsStr>,
    pathext: Option<&OsStr>,
    platform: Platform,
    cwd: Option<&Path>,
) -> Result<PathBuf, NotFound> {
    let extensions = match platform {
        Platform::Unix => Vec::new(),
        Platform::Windows => extensions(pathext),
    };
    let has_directory = match platform {
        Platform::Unix => command.contains('/'),
        Platform::Windows => command.contains(['/', '\\']) || command.contains(':'),
    };
    let candidates = |base: PathBuf| -> Vec<PathBuf> {
        let name = base.to_string_lossy().to_ascii_uppercase();
        if extensions.is_empty() || extensions.iter().any(|ext| name.ends_with(ext.as_str())) {
            vec![base]
        } else {
            extensions
                .iter()
                .map(|ext| {
                    let mut with = base.clone().into_os_string();
                    with.push(ext.to_ascii_lowercase());
                    PathBuf::from(with)
                })
                .collect()
        }
    };
    if has_directory {
        let base = match cwd {
            Some(cwd) if Path::new(command).is_relative() => cwd.join(command),
            _ => PathBuf::from(command),
        };
        return candidates(base)
            .into_iter()
            .find(|candidate| candidate.is_file())
            .ok_or(NotFound {
                command: command.to_owned(),
                searched: 0,
                extensions,
            });
    }
    let separator = match platform {
        Platform::Unix => ':',
        Platform::Windows => ';',
    };
    let path = path.map(OsStr::to_string_lossy).unwrap_or_default();
    let directories: Vec<&str> = path
        .split(separator)
        .map(|entry| entry.trim().trim_matches('"'))
        .filter(|entry| !entry.is_empty())
        .collect();
    for directory in &directories {
        for candidate in candidates(Path::new(directory).join(command)) {
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(NotFound {
        command: command.to_owned(),
        searched: directories.len(),
        extensions,
    })
}

/// The file a server launched as `command` with the extra environment `env`
/// runs, by the rules of the platform this runs on: `PATH` from `env` when
/// it sets one (its name in any case on Windows), else ours; our `PATHEXT`.
pub fn program_file(
    command: &str,
    env: &BTreeMap<String, SecretString>,
    cwd: Option<&Path>,
) -> Result<PathBuf, NotFound> {
    let platform = Platform::current();
    let path = env
        .iter()
        .find(|(key, _)| match platform {
            Platform::Unix => key.as_str() == "PATH",
            Platform::Windows => key.eq_ignore_ascii_case("PATH"),
        })
        .map(|(_, value)| OsString::from(value.expose_secret()))
        .or_else(|| std::env::var_os("PATH"));
    let pathext = std::env::var_os("PATHEXT");
    resolve(command, path.as_deref(), pathext.as_deref(), platform, cwd)
}

/// `PATHEXT`'s extensions, upper-cased, each with its dot.
fn extensions(pathext: Option<&OsStr>) -> Vec<String> {
    let text = pathext
        .map(OsStr::to_string_lossy)
        .filter(|text| !text.trim().is_empty())
        .unwrap_or(DEFAULT_PATHEXT.into());
    text.split(';')
        .map(str::trim)
        .filter(|ext| !ext.is_empty())
        .map(|ext| {
            let ext = ext.to_ascii_uppercase();
            if ext.starts_with('.') {
                ext
            } else {
                format!(".{ext}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"").unwrap();
    }

    fn windows_path(dirs: &[&Path]) -> std::ffi::OsString {
        dirs.iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(";")
            .into()
    }

    #[test]
    fn the_servers_own_path_wins_over_ours() {
        let root = tempfile::tempdir().unwrap();
        let name = if cfg!(windows) {
            "my-server.exe"
        } else {
            "my-server"
        };
        touch(&root.path().join("bin").join(name));
        let mut env = BTreeMap::new();
        let path = root.path().join("bin").to_string_lossy().into_owned();
        env.insert("PATH".to_owned(), SecretString::from(path));
        assert_eq!(
            program_file("my-server", &env, None),
            Ok(root.path().join("bin").join(name))
        );
        assert!(program_file("my-server", &BTreeMap::new(), None).is_err());
        let relative = format!("./bin/{name}");
        assert_eq!(
            program_file(&relative, &BTreeMap::new(), Some(root.path())),
            Ok(root.path().join(&relative))
        );
    }

    #[test]
    fn windows_finds_cmd_shims_through_pathext_in_path_order() {
        let root = tempfile::tempdir().unwrap();
        let (first, second) = (root.path().join("nodejs"), root.path().join("uv"));
        touch(&first.join("npx.cmd"));
        touch(&second.join("npx.exe"));
        touch(&second.join("uvx.exe"));
        touch(&second.join("run.bat"));
        let path = windows_path(&[&first, &second]);
        let pathext = OsStr::new(".COM;.EXE;.BAT;.CMD");
        let find = |name| resolve(name, Some(&path), Some(pathext), Platform::Windows, None);
        // PATH order wins over PATHEXT order.
        assert_eq!(find("npx"), Ok(first.join("npx.cmd")));
        assert_eq!(find("uvx"), Ok(second.join("uvx.exe")));
        assert_eq!(find("run"), Ok(second.join("run.bat")));
        // A name with a listed extension is taken as it is.
        assert_eq!(find("uvx.exe"), Ok(second.join("uvx.exe")));
        let missing = find("docker").unwrap_err();
        assert_eq!(missing.searched, 2);
        assert_eq!(missing.extensions, vec![".COM", ".EXE", ".BAT", ".CMD"]);
        assert!(
            missing
                .to_string()
                .contains("`docker` was not found on PATH")
        );
    }

    #[test]
    fn windows_rules_for_quotes_empty_entries_default_pathext_and_paths() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("Program Files").join("tool");
        touch(&dir.join("tool.exe"));
        let path: std::ffi::OsString = format!(";\"{}\";;", dir.to_string_lossy()).into();
        assert_eq!(
            resolve("tool", Some(&path), None, Platform::Windows, None),
            Ok(dir.join("tool.exe")),
            "quoted entries, empty entries skipped, PATHEXT's default"
        );
        assert_eq!(
            resolve(
                "tool",
                Some(&path),
                Some(OsStr::new("exe; .Cmd")),
                Platform::Windows,
                None
            ),
            Ok(dir.join("tool.exe")),
            "extensions without a dot, spaces and any case"
        );
        // A relative name with a directory is taken from cwd, extensions tried.
        assert_eq!(
            resolve(
                "tool/tool",
                None,
                None,
                Platform::Windows,
                Some(&root.path().join("Program Files"))
            ),
            Ok(root
                .path()
                .join("Program Files")
                .join("tool")
                .join("tool.exe"))
        );
        assert!(resolve("tool", None, None, Platform::Windows, None).is_err());
    }

    #[test]
    fn unix_rules_take_the_name_as_it_is() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        touch(&b.join("server"));
        touch(&a.join("server.cmd"));
        let path: std::ffi::OsString =
            format!("{}:{}", a.to_string_lossy(), b.to_string_lossy()).into();
        assert_eq!(
            resolve(
                "server",
                Some(&path),
                Some(OsStr::new(".CMD")),
                Platform::Unix,
                None
            ),
            Ok(b.join("server")),
            "no PATHEXT on Unix"
        );
        assert!(resolve("absent", Some(&path), None, Platform::Unix, None).is_err());
    }
}
