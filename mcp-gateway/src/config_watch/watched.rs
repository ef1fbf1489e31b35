//! Which paths a config watch concerns ([`Watched`]): pure, so the rules
//! are tested without a file system.

use std::path::{Path, PathBuf};

/// The config files and folders a `serve` read, and the folders to watch
/// for them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Watched {
    /// Config files, as given (`--config`, or found).
    pub files: Vec<PathBuf>,
    /// Folders of definitions (`--dir`), as given.
    pub dirs: Vec<PathBuf>,
}

impl Watched {
    /// The config `files` and the definition folders `dirs`, as given.
    pub fn new(files: Vec<PathBuf>, dirs: Vec<PathBuf>) -> Self {
        Self { files, dirs }
    }

    /// The folders to watch (not recursively): each file's parent (a file
    /// replaced by a rename is a new file, which a watch on the old one
    /// would miss) and each folder itself; each once, in order.
    pub fn folders(&self) -> Vec<PathBuf> {
        let mut folders: Vec<PathBuf> = Vec::new();
        let parents = self.files.iter().map(|file| match file.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        });
        for folder in parents.chain(self.dirs.iter().cloned()) {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
        folders
    }

    /// Whether a change at `path` (as the watcher reports it, under one of
    /// [`folders`](Self::folders)) may change the config: a config file
    /// itself, anything in a `--dir` folder, or a `..`-named entry beside a
    /// config file (how Kubernetes swaps a mounted ConfigMap: it renames a
    /// `..data` symlink, never touching the file's own name).
    pub fn concerns(&self, path: &Path) -> bool {
        let is = |known: &Path| path == known || same_file_name_in(path, known);
        if self.files.iter().any(|file| is(file)) {
            return true;
        }
        if self
            .dirs
            .iter()
            .any(|dir| path.parent().is_some_and(|parent| ends_with(parent, dir)) || path == dir)
        {
            return true;
        }
        let swapped = path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with(".."));
        swapped
            && self.files.iter().any(|file| {
                file.parent()
                    .zip(path.parent())
                    .is_some_and(|(folder, parent)| ends_with(parent, folder))
            })
    }
}

/// Whether `path` and `known` name the same entry, one of them relative
/// (the watcher reports absolute paths; a config path may be given relative).
fn same_file_name_in(path: &Path, known: &Path) -> bool {
    !known.is_absolute() && path.ends_with(known)
}

/// Whether folder `actual` is `folder` (which may be relative or `.`).
fn ends_with(actual: &Path, folder: &Path) -> bool {
    if folder.as_os_str().is_empty() || folder == Path::new(".") {
        return !actual.as_os_str().is_empty();
    }
    actual == folder || (!folder.is_absolute() && actual.ends_with(folder))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched() -> Watched {
        Watched {
            files: vec!["/etc/mcp/gateway.json".into(), "/srv/conf/mcp.json".into()],
            dirs: vec!["/etc/mcp/servers.d".into()],
        }
    }

    #[test]
    fn the_folders_are_each_files_parent_and_each_dir_once() {
        let mut watched = watched();
        watched.files.push("/etc/mcp/other.json".into());
        assert_eq!(
            watched.folders(),
            [
                PathBuf::from("/etc/mcp"),
                PathBuf::from("/srv/conf"),
                PathBuf::from("/etc/mcp/servers.d")
            ]
        );
        let relative = Watched {
            files: vec!["mcp.json".into()],
            dirs: vec![],
        };
        assert_eq!(relative.folders(), [PathBuf::from(".")]);
    }

    #[test]
    fn a_config_file_and_a_dirs_entries_concern_it() {
        let watched = watched();
        assert!(watched.concerns(Path::new("/etc/mcp/gateway.json")));
        assert!(watched.concerns(Path::new("/etc/mcp/servers.d/github.json")));
        assert!(watched.concerns(Path::new("/etc/mcp/servers.d")));
        assert!(!watched.concerns(Path::new("/etc/mcp/gateway.json.swp")));
        assert!(!watched.concerns(Path::new("/etc/mcp/notes.txt")));
        assert!(!watched.concerns(Path::new("/srv/conf/.mcp.json.tmp")));
    }

    #[test]
    fn a_configmap_swap_beside_a_file_concerns_it() {
        let watched = watched();
        assert!(watched.concerns(Path::new("/srv/conf/..data")));
        assert!(watched.concerns(Path::new("/srv/conf/..2026_11_27_01_00_00.123")));
        assert!(!watched.concerns(Path::new("/elsewhere/..data")));
    }

    #[test]
    fn relative_paths_match_the_absolute_ones_reported() {
        let watched = Watched {
            files: vec!["conf/mcp.json".into()],
            dirs: vec!["defs".into()],
        };
        assert!(watched.concerns(Path::new("/home/me/conf/mcp.json")));
        assert!(watched.concerns(Path::new("/home/me/defs/a.json")));
        assert!(!watched.concerns(Path::new("/home/me/conf/other.json")));
    }
}
