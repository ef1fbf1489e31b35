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
//!
//! Secrets (env values, header values, tokens in arguments, URL userinfo and
//! secret query parameters) never appear in [`ServerConfig::redacted`],
//! [`ServerConfig::summary`], `Debug`, or any error or warning. Env and
//! header values are held as [`SecretString`], URLs as [`SecretUrl`], and
//! [`ServerConfig::masker`] masks all of them (and credential-looking
//! arguments) in whatever the server sends back.
//!
//! A stdio server sees only a safe list of our environment variables plus
//! its own `env` ([`EnvPolicy`]); `"inheritEnv": true` passes all of ours,
//! `"envPassthrough": ["NAME", …]` adds names to the list.
//!
//! Reading is lenient: an unknown field is a warning, and a server with a
//! mistyped field does not stop the reading of the others. Every problem
//! names its file and line ([`parse_str_lenient`] gives the servers that
//! could be read beside every error; [`parse_str_with`] fails on any).
//! [`SourceSelection`] says which files to read and which servers to use.

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
mod problems;
mod read;
mod redact;
mod selection;
mod server;
mod settings;
mod shape;
mod sources;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpdisco_transport::http::HttpKind;

use mcpdisco_client::policy::RateLimit;
use mcpdisco_transport::secret::{ExposeSecret, Masker, SecretString, SecretUrl};
pub use mcpdisco_transport::stdio::EnvPolicy;
use serde_json::{Value, json};

pub use detect::{Candidate, Host, candidates, candidates_in, detect};
pub use edit::{Added, add_server};
pub use error::{ConfigError, ConfigWarning};
pub use expand::{ProcessEnv, VarSource, input_variable};
pub use filter::{Filter, Filters};
pub use format::ConfigFormat;
pub use launch::Launch;
pub use merge::{Merged, Origin};
pub use options::ParseOptions;
pub use read::{
    LenientFile, load_file, load_file_with, parse_str, parse_str_lenient, parse_str_with,
};
pub use selection::{LoadedConfig, SourceError, SourceSelection};
pub use sources::{DirDefinitions, first_found, load_dir, read_hosts};

/// One configured server.
#[derive(Clone)]
pub struct ServerConfig {
    /// The name, unique within its file.
    pub name: String,
    /// The file it was read from.
    pub source: PathBuf,
    /// The line of its entry in that file, when known.
    pub line: Option<usize>,
    /// Whether to start it (`enabled`, default true; `disabled`, default false).
    pub enabled: bool,
    /// The description, if any.
    pub description: Option<String>,
    /// Its own discovery deadline, if set.
    pub timeout: Option<Duration>,
    /// How long its last good catalog may be served after a failed refresh
    /// (`staleMaxAgeMs`); the cache's default (7 days) when not set.
    pub stale_max_age: Option<Duration>,
    /// Its own rate limit (`rateLimit`), instead of the session's.
    pub rate_limit: Option<RateLimit>,
    /// Its own health pings (`health`), instead of the supervisor's.
    pub ping: PingSettings,
    /// How to authorize with it (`auth`; HTTP servers only). Without it, an
    /// HTTP server that asks for authorization is still authorized, by
    /// dynamic registration or a client ID metadata document.
    pub auth: Option<mcpdisco_client::auth::AuthSettings>,
    /// Which of its tools, prompts and resources a host sees (`tools`,
    /// `prompts`, `resources`: `{"allow": [glob…], "deny": [glob…]}`).
    pub filters: Filters,
    /// How to reach it.
    pub launch: Launch,
    /// Arguments as safe to show (unexpanded where a variable was substituted, flag values masked).
    shown_args: Vec<String>,
    /// The URL as safe to show.
    shown_url: Option<String>,
}

/// A server's own health pings (`"health": {"pingInterval": 10, "pingTimeout": 2}`,
/// in seconds); what is left out comes from the supervisor's options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PingSettings {
    /// Between pings.
    pub interval: Option<Duration>,
    /// How long a ping may take.
    pub timeout: Option<Duration>,
}

impl ServerConfig {
    /// A server built in code rather than read from a file.
    pub fn new(name: impl Into<String>, launch: Launch) -> Self {
        let (shown_args, shown_url) = match &launch {
            Launch::Stdio { args, .. } => (redact::mask_flag_values(args), None),
            Launch::Http { url, .. } => (Vec::new(), Some(url.redacted().to_owned())),
            Launch::Custom { settings, .. } => (
                Vec::new(),
                settings
                    .get("url")
                    .and_then(Value::as_str)
                    .map(redact::url_for_display),
            ),
        };
        Self {
            name: name.into(),
            source: PathBuf::new(),
            line: None,
            enabled: true,
            description: None,
            timeout: None,
            stale_max_age: None,
            rate_limit: None,
            ping: PingSettings::default(),
            auth: None,
            filters: Filters::default(),
            launch,
            shown_args,
            shown_url,
        }
    }

    /// A stdio server run as `command args…` in `cwd`.
    pub fn stdio<I, S>(
        name: impl Into<String>,
        command: impl Into<String>,
        args: I,
        cwd: impl AsRef<Path>,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(name, Launch::stdio(command, args, cwd))
    }

    /// An HTTP server at `url`, transport detected.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(
            name,
            Launch::Http {
                url: SecretUrl::new(url.into()),
                headers: BTreeMap::new(),
                kind: HttpKind::Auto,
            },
        )
    }

    /// The masker of this server's secrets ([`Launch::masker`]): whatever the
    /// server sends back passes through it before it is shown, logged or stored.
    pub fn masker(&self) -> Masker {
        match &self.auth {
            Some(auth) => self.launch.masker().union(&auth.masker()),
            None => self.launch.masker(),
        }
    }

    /// Which of our environment variables the server sees (stdio only).
    pub fn env_policy(&self) -> Option<&EnvPolicy> {
        match &self.launch {
            Launch::Stdio { env_policy, .. } => Some(env_policy),
            Launch::Http { .. } | Launch::Custom { .. } => None,
        }
    }

    /// A JSON view that is safe to print: secrets as `***`.
    pub fn redacted(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("name".into(), json!(self.name));
        object.insert("source".into(), json!(self.source));
        object.insert("enabled".into(), json!(self.enabled));
        if let Some(description) = &self.description {
            object.insert("description".into(), json!(description));
        }
        if let Some(timeout) = self.timeout {
            object.insert("timeoutMs".into(), json!(timeout.as_millis() as u64));
        }
        match &self.launch {
            Launch::Stdio {
                command,
                env,
                cwd,
                env_policy,
                ..
            } => {
                object.insert("transport".into(), json!("stdio"));
                object.insert("command".into(), json!(command));
                object.insert("args".into(), json!(self.shown_args));
                object.insert("env".into(), redact::masked_map(env));
                object.insert("cwd".into(), json!(cwd));
                object.insert("envPolicy".into(), redact::policy_view(env_policy));
            }
            Launch::Http { headers, kind, .. } => {
                object.insert("transport".into(), json!("http"));
                object.insert("url".into(), json!(self.shown_url));
                object.insert("headers".into(), redact::masked_map(headers));
                object.insert("kind".into(), json!(redact::kind_name(*kind)));
            }
            Launch::Custom {
                transport,
                settings,
            } => {
                object.insert("transport".into(), json!(transport));
                object.insert(
                    "settings".into(),
                    redact::masked_settings(settings, &self.masker()),
                );
            }
        }
        Value::Object(object)
    }

    /// One line that is safe to print: `stdio: npx -y pkg` or `http: https://host/mcp (streamable)`.
    pub fn summary(&self) -> String {
        match &self.launch {
            Launch::Stdio { command, .. } => {
                let mut line = format!("stdio: {command}");
                for arg in &self.shown_args {
                    line.push(' ');
                    line.push_str(arg);
                }
                line
            }
            Launch::Http { kind, .. } => format!(
                "http: {} ({})",
                self.shown_url.as_deref().unwrap_or("?"),
                redact::kind_name(*kind)
            ),
            Launch::Custom { transport, .. } => match &self.shown_url {
                Some(url) => format!("{transport}: {url}"),
                None => format!("{transport}: custom transport"),
            },
        }
    }

    /// Everything that decides how the server is launched, secrets included,
    /// for the cache key. Never print it.
    pub fn fingerprint_material(&self) -> Value {
        match &self.launch {
            Launch::Stdio {
                command,
                args,
                env,
                cwd,
                env_policy,
            } => {
                let mut material = json!({
                    "transport": "stdio",
                    "command": command,
                    "args": args,
                    "env": exposed(env),
                    "cwd": cwd,
                });
                // Only a non-default policy is part of the key, so keys made before policies stay valid.
                if *env_policy != EnvPolicy::default() {
                    material["envPolicy"] = redact::policy_view(env_policy);
                }
                material
            }
            Launch::Http { url, headers, kind } => json!({
                "transport": "http",
                "url": url.expose_secret(),
                "headers": exposed(headers),
                "kind": redact::kind_name(*kind),
            }),
            Launch::Custom {
                transport,
                settings,
            } => json!({
                "transport": transport,
                "settings": settings,
            }),
        }
    }
}

/// The values of a secret map, for hashing only.
fn exposed(map: &BTreeMap<String, SecretString>) -> BTreeMap<&str, &str> {
    map.iter()
        .map(|(key, value)| (key.as_str(), value.expose_secret()))
        .collect()
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("source", &self.source)
            .field("enabled", &self.enabled)
            .field("timeout", &self.timeout)
            .field("launch", &self.summary())
            .finish_non_exhaustive()
    }
}

/// A file read.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its format.
    pub format: ConfigFormat,
    /// Its servers, in file order.
    pub servers: Vec<ServerConfig>,
    /// Unknown fields and other oddities.
    pub warnings: Vec<ConfigWarning>,
}

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
