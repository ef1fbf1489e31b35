//! Reading one config file into [`ConfigFile`], leniently: every server is
//! read that can be, and every problem is said, with its line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::config_file::ConfigFile;
use super::error::ConfigError;
use super::expand::{Expander, VarSource};
use super::format::{ConfigFormat, Syntax, is_claude_user_file, is_in_vscode_folder};
use super::json::{self, JsonDocument, kind_of};
use super::launch_entry::LaunchReader;
use super::options::ParseOptions;
use super::problems::Problems;
use super::profile::read_profiles;
use super::server::read_server;
use super::shape::{self, Shaped};

/// The largest config file read (`~/.claude.json` can be big, but not this big).
const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// Top-level keys that are not servers but belong to some format.
const KNOWN_TOP_LEVEL: &[&str] = &[
    "servers",
    "mcpServers",
    "inputs",
    "$schema",
    "version",
    "profiles",
];

/// A file read leniently: the servers that could be read, and every error
/// of the others.
#[derive(Debug)]
pub struct LenientFile {
    /// The file, with the servers without errors and every warning.
    pub file: ConfigFile,
    /// Every error, in file order: the servers they are about are left out.
    pub errors: Vec<ConfigError>,
}

impl LenientFile {
    /// The file when nothing in it is wrong, else all that is.
    pub fn into_result(self) -> Result<ConfigFile, ConfigError> {
        match ConfigError::from_all(&self.file.path, self.errors) {
            None => Ok(self.file),
            Some(error) => Err(error),
        }
    }
}

/// Reads and parses the config file at `path`, its variables from `vars`,
/// as `options` say (`&ParseOptions::default()` for the built-in transports
/// only). Any error in the file fails it; [`parse_str_lenient`] reads the rest.
pub fn load_file(
    path: &Path,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<ConfigFile, ConfigError> {
    let text = read_text(path, MAX_CONFIG_BYTES)?;
    parse_str(&absolute(path), &text, vars, options)
}

/// The text of the file at `path`, if it has at most `limit` bytes.
pub(crate) fn read_text(path: &Path, limit: u64) -> Result<String, ConfigError> {
    let read_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(read_error)?;
    if metadata.len() > limit {
        return Err(ConfigError::invalid(
            path,
            format!("the file is larger than {limit} bytes"),
        ));
    }
    std::fs::read_to_string(path).map_err(read_error)
}

/// `path` from the current directory, when relative.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}

/// Parses `text` as the config file at `path` (used for messages and to
/// resolve relative paths), as `options` say. Any error fails it.
pub fn parse_str(
    path: &Path,
    text: &str,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<ConfigFile, ConfigError> {
    parse_str_lenient(path, text, vars, options)?.into_result()
}

/// Like [`parse_str`], but a server with an error does not fail the
/// file: it is left out, and the error listed with every other. `Err` only
/// when the file as a whole cannot be read.
pub fn parse_str_lenient(
    path: &Path,
    text: &str,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<LenientFile, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let project_dir = match &options.project_dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    match Syntax::of(path)? {
        #[cfg(feature = "toml")]
        Syntax::Toml => read_shaped(path, shape::codex::codex(path, text)?, None, vars, options),
        #[cfg(feature = "yaml")]
        Syntax::Yaml => read_shaped(path, shape::goose::goose(path, text)?, None, vars, options),
        Syntax::Json => {
            let document = json::parse(path, text)?;
            let shaped = shape::json::json_root(path, document.value(), &project_dir)?;
            read_shaped(path, shaped, Some(&document), vars, options)
        }
    }
}

/// One file of a folder of definitions: a single server (`{"command": …}`
/// or `{"url": …}`, named after the file) or a whole config.
pub(crate) fn parse_definition(
    path: &Path,
    text: &str,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<ConfigFile, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let document = json::parse(path, text)?;
    let root = document.value();
    let single = root.as_object().is_some_and(|root| {
        ["command", "url", "type"]
            .iter()
            .any(|k| root.contains_key(*k))
    });
    if !single {
        return parse_str(path, text, vars, options);
    }
    let name = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut servers = Map::new();
    servers.insert(name.clone(), root);
    let mut shaped = Shaped::new(Some(ConfigFormat::McpServers), false);
    shaped
        .root
        .insert("mcpServers".into(), Value::Object(servers));
    // The entry is the whole file.
    shaped.moved = HashMap::from([(name, Vec::new())]);
    read_shaped(path, shaped, Some(&document), vars, options)?.into_result()
}

/// The servers of a file in our shape.
fn read_shaped(
    path: &Path,
    shaped: Shaped,
    document: Option<&JsonDocument<'_>>,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<LenientFile, ConfigError> {
    let root = &shaped.root;
    let is_claude_user = is_claude_user_file(path);
    let in_vscode_dir = is_in_vscode_folder(path);
    let (format, key) =
        if let Some(format) = shaped.format.filter(|_| !shaped.settings_without_servers) {
            let key = if root.contains_key("mcpServers") {
                "mcpServers"
            } else {
                "servers"
            };
            (format, key)
        } else if root.contains_key("mcpServers") {
            let format = if is_claude_user {
                ConfigFormat::ClaudeUser
            } else {
                ConfigFormat::McpServers
            };
            (format, "mcpServers")
        } else if root.contains_key("servers") {
            let format = if root.contains_key("inputs") || in_vscode_dir {
                ConfigFormat::VsCode
            } else {
                ConfigFormat::McpConfig
            };
            (format, "servers")
        } else if is_claude_user || shaped.settings_without_servers {
            // A ~/.claude.json without servers, or a host's settings without an
            // MCP section: nothing to start.
            let format = match shaped.format {
                _ if is_claude_user => ConfigFormat::ClaudeUser,
                Some(format) => format,
                None => ConfigFormat::McpServers,
            };
            return Ok(LenientFile {
                file: empty_file(path, format),
                errors: Vec::new(),
            });
        } else {
            return Err(ConfigError::invalid(
                path,
                "no \"mcpServers\" or \"servers\" object: not an MCP config",
            ));
        };
    let servers_at = shaped
        .servers_at
        .clone()
        .unwrap_or_else(|| vec![key.to_owned()]);
    let servers = match root.get(key) {
        Some(Value::Object(servers)) => servers,
        Some(other) => {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                line: document.and_then(|document| document.line_of(&servers_at)),
                server: None,
                field: None,
                message: format!(
                    "\"{key}\" must be an object of servers, found {}",
                    kind_of(other)
                ),
            });
        }
        None => return Err(ConfigError::invalid(path, format!("no \"{key}\" object"))),
    };

    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let workspace_folder = match format {
        ConfigFormat::VsCode if in_vscode_dir => {
            dir.parent().map_or_else(|| dir.clone(), Path::to_owned)
        }
        _ => dir.clone(),
    };
    let launches = LaunchReader {
        dir: &dir,
        expander: Expander {
            vars,
            workspace_folder: &workspace_folder,
        },
        custom_types: &options.custom_types,
    };
    let mut problems = Problems::new(path, document);
    for (server, message) in &shaped.skipped {
        let at = shaped.entry_path(key, server);
        problems.server(server, &at).warn(None, message.clone());
    }
    let ours = matches!(
        format,
        ConfigFormat::McpServers | ConfigFormat::McpConfig | ConfigFormat::VsCode
    );
    if ours && !shaped.shared_file {
        for name in root
            .keys()
            .filter(|k| !KNOWN_TOP_LEVEL.contains(&k.as_str()))
        {
            problems.warn_at(
                std::slice::from_ref(name),
                Some(name),
                "unknown top-level field; ignored",
            );
        }
    }
    let mut profiles = Vec::new();
    if ours
        && !shaped.shared_file
        && let Some(value) = root.get("profiles")
    {
        let (read, errors) = read_profiles(path, value);
        profiles = read;
        for error in errors {
            let mut at = vec!["profiles".to_owned()];
            at.extend(error.profile);
            problems.error_at(&at, error.message);
        }
    }
    let mut read = Vec::with_capacity(servers.len());
    for (name, entry) in servers {
        let at = shaped.entry_path(key, name);
        if name.trim().is_empty() {
            problems.error_at(&at, "a server has an empty name");
            continue;
        }
        let mut server_problems = problems.server(name, &at);
        read.extend(read_server(&launches, path, entry, &mut server_problems));
    }
    Ok(LenientFile {
        file: ConfigFile {
            path: path.to_owned(),
            format,
            servers: read,
            warnings: problems.warnings,
            profiles,
        },
        errors: problems.errors,
    })
}

fn empty_file(path: &Path, format: ConfigFormat) -> ConfigFile {
    ConfigFile {
        path: path.to_owned(),
        format,
        servers: Vec::new(),
        warnings: Vec::new(),
        profiles: Vec::new(),
    }
}
