//! Adding a server to a config file in that file's own format, keeping the
//! rest of the file as it was (`mcp-cli registry add --to FILE`).
//!
//! | file | written as | kept |
//! |---|---|---|
//! | JSON (`mcpServers`, `servers`, Zed's `context_servers`, VS Code's `mcp.servers`) | a new member, indented like its neighbours | every other byte: comments, order, trailing commas |
//! | Codex CLI `config.toml` (feature `toml`) | a `[mcp_servers.<name>]` table | every other line, comments included (`toml_edit`) |
//! | Goose `config.yaml` (feature `yaml`) | an `extensions` entry | every value and its order; YAML comments are not kept |
//!
//! The entry is a [`ServerEntry`] (references such as `${env:TOKEN}` kept
//! as written, so no secret is written), translated for the host. A new
//! file is created in the shape its name suggests. The file is replaced
//! atomically, keeping its permissions.

#[cfg(feature = "toml")]
mod codex;
#[cfg(feature = "yaml")]
mod goose;
mod json;
mod outcome;

use std::path::Path;

use mcpdisco_transport::fs::AtomicWrite;

use super::error::ConfigError;
use super::format::Syntax;
use super::server_entry::ServerEntry;

pub use outcome::Added;

/// Adds `entry` as server `name` to the config at `path`, in that file's
/// format. A server of that name already there is an error unless `replace`.
pub fn add_server(
    path: &Path,
    name: &str,
    entry: &ServerEntry,
    replace: bool,
) -> Result<Added, ConfigError> {
    let syntax = Syntax::of(path)?;
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let (text, outcome) = match &existing {
        None => {
            let text = match syntax {
                #[cfg(feature = "toml")]
                Syntax::Toml => codex::codex_add(path, "", name, entry, false)?.0,
                #[cfg(feature = "yaml")]
                Syntax::Yaml => goose::goose_add(path, "", name, entry, false)?.0,
                Syntax::Json => json::new_file(path, name, entry)?,
            };
            (text, Added::Created)
        }
        Some(text) => {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            match syntax {
                #[cfg(feature = "toml")]
                Syntax::Toml => codex::codex_add(path, text, name, entry, replace)?,
                #[cfg(feature = "yaml")]
                Syntax::Yaml => goose::goose_add(path, text, name, entry, replace)?,
                Syntax::Json => json::json_add(path, text, name, entry, replace)?,
            }
        }
    };
    // Keep the permissions of the file replaced (a config may hold secrets).
    AtomicWrite::new()
        .create_dirs()
        .keep_permissions()
        .write(path, text.as_bytes())
        .map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
    Ok(outcome)
}
