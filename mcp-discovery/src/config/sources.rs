//! Where servers come from besides one named file: the first host config
//! found, every host's config at once, and folders of definitions.

use std::path::{Path, PathBuf};

use super::config_file::ConfigFile;
use super::detect::{Candidate, candidates};
use super::error::ConfigError;
use super::expand::VarSource;
use super::options::ParseOptions;
use super::read::{absolute, load_file, parse_definition, read_text};

/// The deepest folder `--dir` walks into.
const MAX_DIR_DEPTH: usize = 16;
/// The most files `--dir` reads from one folder tree.
const MAX_DIR_FILES: usize = 10_000;
/// The largest single definition file read from a folder.
const MAX_DEFINITION_BYTES: u64 = 4 * 1024 * 1024;

/// The first candidate that holds servers: an existing dedicated MCP file,
/// or a shared settings file with an MCP section. A shared file that cannot
/// be read is passed over; a dedicated one is returned with its error.
pub fn first_found(
    candidates: &[Candidate],
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Option<(Candidate, Result<ConfigFile, ConfigError>)> {
    for candidate in candidates.iter().filter(|c| c.exists) {
        let result = load_file(&candidate.path, vars, options);
        match &result {
            Ok(file) if candidate.shared && file.servers.is_empty() => continue,
            Err(_) if candidate.shared => continue,
            _ => return Some((candidate.clone(), result)),
        }
    }
    None
}

/// The config a server is added to when none is named
/// ([`add_server`](super::add_server), `mcp-cli registry add`): the first
/// host config found from `cwd` and `home` (as [`first_found`] finds it),
/// else `.mcp.json` in `cwd`.
pub fn add_target(
    cwd: &Path,
    home: Option<&Path>,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> PathBuf {
    let candidates = candidates(cwd, home);
    match first_found(&candidates, vars, options) {
        Some((found, _)) => found.path,
        None => cwd.join(".mcp.json"),
    }
}

/// Every existing candidate read: the overview of what is installed on the machine.
pub fn read_hosts(
    candidates: &[Candidate],
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Vec<(Candidate, Result<ConfigFile, ConfigError>)> {
    candidates
        .iter()
        .filter(|candidate| candidate.exists)
        .map(|candidate| (candidate.clone(), load_file(&candidate.path, vars, options)))
        .collect()
}

/// What a folder of definitions held.
#[derive(Debug, Default)]
pub struct DirDefinitions {
    /// The files read, in path order.
    pub files: Vec<ConfigFile>,
    /// Files that could not be used, each naming its path: they were skipped.
    pub errors: Vec<ConfigError>,
}

/// Reads every `*.json` under `dir`, recursively and in path order. A file
/// holds one server (`{"command": …}` or `{"url": …}`, named after the file)
/// or a whole config. Hidden entries and symbolic links to folders are
/// not followed.
pub fn load_dir(
    dir: &Path,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<DirDefinitions, ConfigError> {
    let metadata = std::fs::metadata(dir).map_err(|source| ConfigError::Read {
        path: dir.to_owned(),
        source,
    })?;
    if !metadata.is_dir() {
        return Err(ConfigError::invalid(dir, "is not a folder"));
    }
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    walk(dir, 0, &mut paths, &mut errors);
    let mut definitions = DirDefinitions {
        files: Vec::new(),
        errors,
    };
    for path in paths {
        match load_definition(&path, vars, options) {
            Ok(file) => definitions.files.push(file),
            Err(error) => definitions.errors.push(error),
        }
    }
    definitions.errors.sort_by_key(|error| error.to_string());
    Ok(definitions)
}

fn walk(dir: &Path, depth: usize, paths: &mut Vec<PathBuf>, errors: &mut Vec<ConfigError>) {
    if depth > MAX_DIR_DEPTH {
        errors.push(ConfigError::invalid(
            dir,
            format!("is more than {MAX_DIR_DEPTH} folders deep; not read"),
        ));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(source) => {
            errors.push(ConfigError::Read {
                path: dir.to_owned(),
                source,
            });
            return;
        }
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        if paths.len() >= MAX_DIR_FILES {
            errors.push(ConfigError::invalid(
                dir,
                format!("holds more than {MAX_DIR_FILES} files; the rest are not read"),
            ));
            return;
        }
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        // `file_type` does not follow symbolic links: a linked folder is not walked.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&path, depth + 1, paths, errors);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            && path.is_file()
        {
            paths.push(path);
        }
    }
}

/// One file of a folder: a single server or a whole config.
fn load_definition(
    path: &Path,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<ConfigFile, ConfigError> {
    let text = read_text(path, MAX_DEFINITION_BYTES)?;
    parse_definition(&absolute(path), &text, vars, options)
}
