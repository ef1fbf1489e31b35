//! Where servers come from besides one named file: the first host config
//! found, every host's config at once, and directories of definitions.
//!
//! Merging ([`Merged`]) keeps configuration order. A server whose launch is
//! the same as one already taken (the same command, arguments and
//! environment, or the same URL and headers) counts once, whatever its name.
//! The folder a stdio server starts in is left out of that comparison: it
//! defaults to the config file's own folder, which differs between hosts.
//! A different server under a name already taken is renamed
//! `<host>-<name>` when it comes from a host's config; from a file or a
//! directory the first definition wins, with a warning.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::detect::{Candidate, Host};
use super::error::ConfigError;
use super::expand::VarSource;
use super::parse::{ParseOptions, load_file_with, parse_str_with};
use super::{ConfigFile, ServerConfig};

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
        let result = load_file_with(&candidate.path, vars, options);
        match &result {
            Ok(file) if candidate.shared && file.servers.is_empty() => continue,
            Err(_) if candidate.shared => continue,
            _ => return Some((candidate.clone(), result)),
        }
    }
    None
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
        .map(|candidate| {
            (
                candidate.clone(),
                load_file_with(&candidate.path, vars, options),
            )
        })
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
        return Err(ConfigError::Invalid {
            path: dir.to_owned(),
            server: None,
            field: None,
            message: "is not a folder".into(),
        });
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
        errors.push(ConfigError::Invalid {
            path: dir.to_owned(),
            server: None,
            field: None,
            message: format!("is more than {MAX_DIR_DEPTH} folders deep; not read"),
        });
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
            errors.push(ConfigError::Invalid {
                path: dir.to_owned(),
                server: None,
                field: None,
                message: format!("holds more than {MAX_DIR_FILES} files; the rest are not read"),
            });
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
    let read_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let size = std::fs::metadata(path).map_err(read_error)?.len();
    if size > MAX_DEFINITION_BYTES {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            server: None,
            field: None,
            message: format!("the file is larger than {MAX_DEFINITION_BYTES} bytes"),
        });
    }
    let text = std::fs::read_to_string(path).map_err(read_error)?;
    let plain = super::jsonc::to_plain_json(text.strip_prefix('\u{feff}').unwrap_or(&text));
    let single = match serde_json::from_str::<Value>(&plain) {
        Ok(Value::Object(root)) => {
            root.contains_key("command") || root.contains_key("url") || root.contains_key("type")
        }
        _ => false,
    };
    if !single {
        return load_file_with(path, vars, options);
    }
    let name = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let server: Value = serde_json::from_str(&plain).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        line: error.line(),
        column: error.column(),
        message: super::parse::syntax_message(&error),
    })?;
    let mut servers = Map::new();
    servers.insert(name, server);
    let mut root = Map::new();
    root.insert("mcpServers".into(), Value::Object(servers));
    let wrapped = Value::Object(root).to_string();
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_owned())
    };
    let mut file = parse_str_with(&absolute, &wrapped, vars, options)?;
    // Lines of the wrapper mean nothing in the file.
    for server in &mut file.servers {
        server.line = None;
    }
    Ok(file)
}

/// Where a file of servers came from, for merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Named with `--config`, or found first.
    File,
    /// A file of a `--dir` folder.
    Dir,
    /// A host's config, read with every other host's.
    Host(Host),
}

/// Servers merged from many files.
#[derive(Debug, Default)]
pub struct Merged {
    /// The servers, in the order their files were added.
    pub servers: Vec<ServerConfig>,
    /// Servers counted once, renamed, or left out, said in words.
    pub warnings: Vec<String>,
}

impl Merged {
    /// Adds the servers of `file`.
    pub fn add(&mut self, file: ConfigFile, origin: Origin) {
        for mut server in file.servers {
            let material = launch_identity(&server);
            if let Some(same) = self
                .servers
                .iter()
                .find(|taken| launch_identity(taken) == material)
            {
                if same.name != server.name || origin == Origin::Dir || origin == Origin::File {
                    self.warnings.push(format!(
                        "{}: server '{}' is the same server as '{}' of {}; counted once",
                        server.source.display(),
                        server.name,
                        same.name,
                        same.source.display()
                    ));
                }
                continue;
            }
            let Some(taken) = self.servers.iter().find(|taken| taken.name == server.name) else {
                self.servers.push(server);
                continue;
            };
            match origin {
                Origin::Host(host) => {
                    let base = format!("{}-{}", host.slug(), server.name);
                    let mut name = base.clone();
                    let mut counter = 2;
                    while self.servers.iter().any(|s| s.name == name) {
                        name = format!("{base}-{counter}");
                        counter += 1;
                    }
                    self.warnings.push(format!(
                        "{}: server '{}' differs from the one of that name in {}; it is named '{name}'",
                        server.source.display(),
                        server.name,
                        taken.source.display()
                    ));
                    server.name = name;
                    self.servers.push(server);
                }
                Origin::File | Origin::Dir => {
                    self.warnings.push(format!(
                        "{}: server '{}' is also defined in {}; the first definition is used",
                        server.source.display(),
                        server.name,
                        taken.source.display()
                    ));
                }
            }
        }
    }
}

/// What makes two configured servers the same server: the fingerprint
/// material without the working folder.
fn launch_identity(server: &ServerConfig) -> Value {
    let mut material = server.fingerprint_material();
    if let Value::Object(fields) = &mut material {
        fields.remove("cwd");
    }
    material
}
