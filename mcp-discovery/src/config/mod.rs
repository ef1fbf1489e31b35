//! MCP server configurations as hosts write them, read into one type.
//!
//! | file | shape |
//! |---|---|
//! | chatbot-host `mcp_config.json` | `{"servers": {name: {command, args, env, description, enabled}}}` |
//! | Claude Desktop, Cursor, Claude Code `.mcp.json` | `{"mcpServers": {name: {command, args, env, cwd} or {url, headers, type}, disabled}}` |
//! | VS Code `.vscode/mcp.json` | `{"servers": {name: {type, ...}}, "inputs": [...]}` |
//! | `~/.claude.json` | its top-level `mcpServers` |
//!
//! Every format accepts every field of the others; comments and trailing
//! commas are allowed. Strings expand `${VAR}`, `${VAR:-default}`,
//! `${env:VAR}`, `${input:id}` (from `MCP_INPUT_<ID>` or `id` in the
//! environment), `${workspaceFolder}` and `${userHome}`. A command with a
//! path separator and a relative `cwd` resolve against the file's directory,
//! which is also the default working directory. A per-server `timeout`
//! (seconds) or `timeoutMs` sets its discovery deadline; `staleMaxAgeMs`
//! how long its last good catalog may be served after a failed refresh.
//! `"namespace": false` keeps a server's item names as they are in catalogs
//! and behind the gateway, instead of `<server>__<name>`
//! ([`Naming`](crate::catalog::Naming)).
//!
//! Secrets (env values, header values, tokens in arguments, URL userinfo and
//! secret query parameters) never appear in [`ServerConfig::redacted`],
//! [`ServerConfig::summary`], `Debug`, or any error or warning. Env and
//! header values are held as
//! [`SecretString`](mcpdisco_transport::secret::SecretString), URLs as
//! [`SecretUrl`](mcpdisco_transport::secret::SecretUrl), and
//! [`ServerConfig::masker`] masks all of them (and credential-looking
//! arguments) in whatever the server sends back.
//!
//! A stdio server sees only a safe list of our environment variables plus
//! its own `env` ([`EnvPolicy`](mcpdisco_transport::stdio::EnvPolicy)); `"inheritEnv": true` passes all of ours,
//! `"envPassthrough": ["NAME", …]` adds names to the list.
//!
//! Reading is lenient: an unknown field is a warning, and a server with a
//! mistyped field does not stop the reading of the others. Every problem
//! names its file and line ([`parse_str_lenient`] gives the servers that
//! could be read beside every error; [`parse_str`] fails on any).
//! [`SourceSelection`] says which files to read and which servers to use.
//!
//! A JSON config's top-level `profiles` names views of its servers for the
//! gateway ([`Profile`]: servers, tool globs, tool search, required scopes).
//!
//! A [`ServerEntry`] is one server's entry as a file holds it, references
//! such as `${env:TOKEN}` unexpanded (what the registry resolves a
//! `server.json` into): [`add_server`] writes it into a file of any host's
//! format, the rest of the file kept ([`add_target`] says which file when
//! none is named), and [`ServerEntry::to_server`] reads it into a
//! [`ServerConfig`] by the same rules as a file's entry.
//!
//! Reading is told what a file cannot say by [`ParseOptions`] (custom
//! transport types, the project of `~/.claude.json`): built from
//! `ParseOptions::default()` and its setters, and given to every reader.

mod config_file;
mod custom_launch;
mod detect;
mod edit;
mod entry;
mod error;
mod expand;
mod filter;
mod format;
mod json;
mod launch;
mod launch_entry;
mod merge;
mod options;
mod ping;
mod problems;
mod profile;
mod read;
mod redact;
mod selection;
mod server;
mod server_entry;
mod settings;
mod shape;
mod sources;

pub use config_file::ConfigFile;
pub use detect::{Candidate, Host, candidates, candidates_in, detect};
pub use edit::{Added, add_server};
pub use error::{ConfigError, ConfigWarning};
#[cfg(feature = "registry")]
pub(crate) use expand::upper_snake;
pub use expand::{ProcessEnv, VarSource, input_variable};
pub use filter::{Filter, Filters};
pub use format::ConfigFormat;
pub use launch::Launch;
pub use merge::{Merged, Origin};
pub use options::ParseOptions;
pub use ping::PingSettings;
pub use profile::{Profile, Profiles};
pub use read::{LenientFile, load_file, parse_str, parse_str_lenient};
pub use selection::{LoadedConfig, SourceError, SourceSelection};
pub use server::ServerConfig;
pub use server_entry::{EntryLaunch, ServerEntry};
pub use sources::{DirDefinitions, add_target, first_found, load_dir, read_hosts};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod sources_tests;

#[cfg(test)]
mod edit_tests;

#[cfg(test)]
mod lenient_tests;

#[cfg(test)]
mod selection_tests;
