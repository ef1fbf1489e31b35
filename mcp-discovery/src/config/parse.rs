//! Reading one config file into [`ConfigFile`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpdisco_transport::http::HttpKind;
use serde_json::{Map, Value};

use super::PingSettings;
use super::error::{ConfigError, ConfigWarning};
use super::expand::{Expanded, Expander, VarSource};
use super::redact;
use super::{ConfigFile, ConfigFormat, EnvPolicy, Filter, Filters, Launch, ServerConfig};
use mcpdisco_client::auth::{AuthSettings, Grant};
use mcpdisco_client::policy::RateLimit;
use mcpdisco_transport::secret::{SecretString, SecretUrl};

/// The largest config file read (`~/.claude.json` can be big, but not this big).
const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// Fields any of the formats defines for a server.
const KNOWN_FIELDS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "type",
    "transport",
    "description",
    "enabled",
    "disabled",
    "timeout",
    "timeoutMs",
    "envFile",
    "name",
    "autoApprove",
    "alwaysAllow",
    "dev",
    "oauth",
    "trust",
    "includeTools",
    "excludeTools",
    "inheritEnv",
    "envPassthrough",
    "rateLimit",
    "staleMaxAgeMs",
    "health",
    "auth",
    "tools",
    "prompts",
    "resources",
    "serverUrl",
    "httpUrl",
];
/// Fields every server has whatever its transport (not part of a custom transport's settings).
const COMMON_FIELDS: &[&str] = &[
    "type",
    "transport",
    "description",
    "enabled",
    "disabled",
    "timeout",
    "timeoutMs",
    "name",
    "rateLimit",
    "staleMaxAgeMs",
    "health",
    "tools",
    "prompts",
    "resources",
];

/// How to read a config: which custom transport `type`s exist.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// `type`s served by registered third-party connectors.
    pub custom_types: Vec<String>,
    /// The project whose entries `~/.claude.json` adds (`projects[<dir>]`);
    /// the current directory when not set.
    pub project_dir: Option<PathBuf>,
}

impl ParseOptions {
    /// Accepts every type `connectors` has besides the built-in ones.
    pub fn for_connectors(connectors: &crate::connect::Connectors) -> Self {
        Self {
            custom_types: connectors
                .types()
                .filter(|t| !crate::connect::BUILTIN_TYPES.contains(t))
                .map(str::to_owned)
                .collect(),
            project_dir: None,
        }
    }
}
/// Top-level keys that are not servers but belong to some format.
const KNOWN_TOP_LEVEL: &[&str] = &["servers", "mcpServers", "inputs", "$schema", "version"];

/// Reads and parses a config file.
pub fn load_file(path: &Path, vars: &dyn VarSource) -> Result<ConfigFile, ConfigError> {
    load_file_with(path, vars, &ParseOptions::default())
}

/// Reads and parses a config file whose servers may name custom transports.
pub fn load_file_with(
    path: &Path,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<ConfigFile, ConfigError> {
    let read_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(read_error)?;
    if metadata.len() > MAX_CONFIG_BYTES {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            server: None,
            field: None,
            message: format!("the file is larger than {MAX_CONFIG_BYTES} bytes"),
        });
    }
    let text = std::fs::read_to_string(path).map_err(read_error)?;
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_owned())
    };
    parse_str_with(&absolute, &text, vars, options)
}

/// Parses `text` as the config file at `path` (used for messages and to resolve relative paths).
pub fn parse_str(path: &Path, text: &str, vars: &dyn VarSource) -> Result<ConfigFile, ConfigError> {
    parse_str_with(path, text, vars, &ParseOptions::default())
}

/// Like [`parse_str`], for a config whose servers may name custom transports.
pub fn parse_str_with(
    path: &Path,
    text: &str,
    vars: &dyn VarSource,
    options: &ParseOptions,
) -> Result<ConfigFile, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let project_dir = match &options.project_dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    let shaped = super::shape::read_root(path, text, &project_dir)?;
    let root = shaped.root;
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_owned(),
        server: None,
        field: None,
        message,
    };
    let is_claude_user = path.file_name().is_some_and(|name| name == ".claude.json");
    let in_vscode_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == ".vscode");
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
            return Ok(ConfigFile {
                path: path.to_owned(),
                format: if is_claude_user {
                    ConfigFormat::ClaudeUser
                } else {
                    shaped.format.unwrap_or(ConfigFormat::McpServers)
                },
                servers: Vec::new(),
                warnings: Vec::new(),
            });
        } else {
            return Err(invalid(
                "no \"mcpServers\" or \"servers\" object: not an MCP config".into(),
            ));
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
    let mut reader = Reader {
        path,
        options,
        dir: &dir,
        expander: Expander {
            vars,
            workspace_folder: &workspace_folder,
        },
        warnings: Vec::new(),
    };
    for (server, message) in &shaped.skipped {
        reader.warn(Some(server), None, message);
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
            reader.warn(None, Some(name), "unknown top-level field; ignored");
        }
    }
    let servers = match root.get(key) {
        Some(Value::Object(servers)) => servers,
        Some(other) => {
            return Err(invalid(format!(
                "\"{key}\" must be an object of servers, found {}",
                kind_of(other)
            )));
        }
        None => return Err(invalid(format!("no \"{key}\" object"))),
    };
    let mut parsed = Vec::with_capacity(servers.len());
    let servers_at = text.find(&format!("\"{key}\"")).unwrap_or(0);
    for (name, entry) in servers {
        let mut server = reader.server(name, entry)?;
        server.line = line_of_key(text, servers_at, name);
        parsed.push(server);
    }
    Ok(ConfigFile {
        path: path.to_owned(),
        format,
        servers: parsed,
        warnings: reader.warnings,
    })
}

/// The line (from 1) where `"name":` first appears after byte `from`.
fn line_of_key(text: &str, from: usize, name: &str) -> Option<usize> {
    let quoted = serde_json::to_string(name).ok()?;
    let mut search = from.min(text.len());
    while let Some(found) = text.get(search..)?.find(&quoted) {
        let at = search + found;
        let after = text[at + quoted.len()..].trim_start();
        if after.starts_with(':') {
            return Some(text[..at].matches('\n').count() + 1);
        }
        search = at + quoted.len();
    }
    None
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn syntax_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The transport a server's `type` names.
#[derive(Clone)]
enum Transport {
    Stdio,
    Http(HttpKind),
    Custom(String),
}

struct Reader<'a> {
    path: &'a Path,
    options: &'a ParseOptions,
    dir: &'a Path,
    expander: Expander<'a>,
    warnings: Vec<ConfigWarning>,
}

impl Reader<'_> {
    fn warn(&mut self, server: Option<&str>, field: Option<&str>, message: &str) {
        self.warnings.push(ConfigWarning {
            file: self.path.to_owned(),
            server: server.map(str::to_owned),
            field: field.map(str::to_owned),
            message: message.to_owned(),
        });
    }

    fn error(&self, server: &str, field: Option<&str>, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            server: Some(server.to_owned()),
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    fn expand(&self, server: &str, field: &str, text: &str) -> Result<Expanded, ConfigError> {
        self.expander
            .expand(text)
            .map_err(|message| self.error(server, Some(field), message))
    }

    fn string(
        &self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Option<String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(self.error(
                server,
                Some(field),
                format!("expected a string, found {}", kind_of(other)),
            )),
        }
    }

    fn boolean(
        &self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Option<bool>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(self.error(
                server,
                Some(field),
                format!("expected true or false, found {}", kind_of(other)),
            )),
        }
    }

    /// A map of strings (env, headers); numbers and booleans are taken as text.
    /// Errors never show values: they may be secrets.
    fn string_map(
        &self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<BTreeMap<String, SecretString>, ConfigError> {
        let object = match entry.get(field) {
            None | Some(Value::Null) => return Ok(BTreeMap::new()),
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Err(self.error(
                    server,
                    Some(field),
                    format!("expected an object of strings, found {}", kind_of(other)),
                ));
            }
        };
        let mut map = BTreeMap::new();
        for (key, value) in object {
            let place = format!("{field}.{key}");
            let text = match value {
                Value::String(text) => text.clone(),
                Value::Number(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
                other => {
                    return Err(self.error(
                        server,
                        Some(&place),
                        format!("expected a string, found {}", kind_of(other)),
                    ));
                }
            };
            let value = self.expand(server, &place, &text)?.text;
            map.insert(key.clone(), SecretString::from(value));
        }
        Ok(map)
    }

    /// `inheritEnv` and `envPassthrough`: which of our variables the server sees.
    fn env_policy(
        &self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<EnvPolicy, ConfigError> {
        if self.boolean(server, entry, "inheritEnv")? == Some(true) {
            return Ok(EnvPolicy::InheritAll);
        }
        let passthrough = match entry.get("envPassthrough") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(names)) => names
                .iter()
                .enumerate()
                .map(|(index, name)| match name {
                    Value::String(name) if is_variable_name(name) => Ok(name.clone()),
                    Value::String(_) => Err(self.error(
                        server,
                        Some(&format!("envPassthrough[{index}]")),
                        "is not a variable name (letters, digits and _)",
                    )),
                    other => Err(self.error(
                        server,
                        Some(&format!("envPassthrough[{index}]")),
                        format!("expected a string, found {}", kind_of(other)),
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(self.error(
                    server,
                    Some("envPassthrough"),
                    format!("expected an array of names, found {}", kind_of(other)),
                ));
            }
        };
        Ok(EnvPolicy::Allowlist { passthrough })
    }

    fn server(&mut self, name: &str, entry: &Value) -> Result<ServerConfig, ConfigError> {
        if name.trim().is_empty() {
            return Err(ConfigError::Invalid {
                path: self.path.to_owned(),
                server: None,
                field: None,
                message: "a server has an empty name".into(),
            });
        }
        let Value::Object(entry) = entry else {
            return Err(self.error(
                name,
                None,
                format!("expected an object, found {}", kind_of(entry)),
            ));
        };
        let transport = self.transport(name, entry)?;
        if !matches!(transport, Some((_, Transport::Custom(_)))) {
            for field in entry.keys().filter(|k| !KNOWN_FIELDS.contains(&k.as_str())) {
                self.warn(Some(name), Some(field), "unknown field; ignored");
            }
        }
        let enabled = !matches!(
            (
                self.boolean(name, entry, "enabled")?,
                self.boolean(name, entry, "disabled")?
            ),
            (Some(false), _) | (_, Some(true))
        );
        let description = self.string(name, entry, "description")?;
        let timeout = self.timeout(name, entry)?;
        let stale_max_age = self.stale_max_age(name, entry)?;
        let rate_limit = self.rate_limit(name, entry)?;
        let ping = self.ping(name, entry)?;
        let auth = self.auth(name, entry)?;
        let filters = Filters {
            tools: self.filter(name, entry, "tools")?,
            prompts: self.filter(name, entry, "prompts")?,
            resources: self.filter(name, entry, "resources")?,
        };
        let command = self.string(name, entry, "command")?;
        let url = self.string(name, entry, "url")?;
        let custom = match &transport {
            Some((_, Transport::Custom(custom))) => Some(custom.clone()),
            _ => None,
        };
        let (launch, shown_args, shown_url) = match (command, url) {
            _ if custom.is_some() => self.custom(name, entry, custom.unwrap_or_default())?,
            (Some(_), Some(_)) => {
                return Err(self.error(name, None, "has both \"command\" and \"url\"; give one"));
            }
            (None, None) => {
                return Err(self.error(
                    name,
                    None,
                    "has neither \"command\" (stdio) nor \"url\" (HTTP)",
                ));
            }
            (Some(command), None) => match transport {
                None | Some((_, Transport::Stdio | Transport::Custom(_))) => {
                    self.stdio(name, entry, &command)?
                }
                Some((field, Transport::Http(_))) => {
                    return Err(self.error(
                        name,
                        Some(field),
                        "an HTTP transport needs a \"url\", but the server has a \"command\"",
                    ));
                }
            },
            (None, Some(url)) => match transport {
                None => self.http(name, entry, &url, HttpKind::Auto)?,
                Some((_, Transport::Http(kind))) => self.http(name, entry, &url, kind)?,
                Some((field, Transport::Stdio | Transport::Custom(_))) => {
                    return Err(self.error(
                        name,
                        Some(field),
                        "\"stdio\" needs a \"command\", but the server has a \"url\"",
                    ));
                }
            },
        };
        let mut server = ServerConfig::new(name, launch);
        server.source = self.path.to_owned();
        server.enabled = enabled;
        server.description = description;
        server.timeout = timeout;
        server.stale_max_age = stale_max_age;
        server.rate_limit = rate_limit;
        server.ping = ping;
        server.auth = auth;
        server.filters = filters;
        server.shown_args = shown_args;
        server.shown_url = shown_url;
        Ok(server)
    }

    /// `type` (or `transport`, as some hosts write it) and the field it came
    /// from, when given.
    fn transport(
        &self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<Option<(&'static str, Transport)>, ConfigError> {
        let (field, value) = match self.string(server, entry, "type")? {
            Some(value) => ("type", value),
            None => match self.string(server, entry, "transport")? {
                Some(value) => ("transport", value),
                None => return Ok(None),
            },
        };
        let transport = match value.as_str() {
            "stdio" => Transport::Stdio,
            "http" | "streamable-http" | "streamableHttp" | "streamable_http" => {
                Transport::Http(HttpKind::StreamableHttp)
            }
            "sse" => Transport::Http(HttpKind::Sse),
            other if self.options.custom_types.iter().any(|t| t == other) => {
                Transport::Custom(other.to_owned())
            }
            other => {
                let mut known = vec!["stdio", "http", "streamable-http", "sse"];
                known.extend(self.options.custom_types.iter().map(String::as_str));
                let last = known.pop().unwrap_or_default();
                return Err(self.error(
                    server,
                    Some(field),
                    format!(
                        "unknown transport \"{other}\"; expected {} or {last}",
                        known.join(", ")
                    ),
                ));
            }
        };
        Ok(Some((field, transport)))
    }

    /// A filter: `{"allow": [glob…], "deny": [glob…]}`.
    fn filter(
        &self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Filter, ConfigError> {
        let object = match entry.get(field) {
            None | Some(Value::Null) => return Ok(Filter::default()),
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Err(self.error(
                    server,
                    Some(field),
                    format!(
                        "expected {{\"allow\": [glob…], \"deny\": [glob…]}}, found {}",
                        kind_of(other)
                    ),
                ));
            }
        };
        let globs = |key: &str| -> Result<Vec<glob::Pattern>, ConfigError> {
            let place = format!("{field}.{key}");
            match object.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        let place = format!("{place}[{index}]");
                        let text = item.as_str().ok_or_else(|| {
                            self.error(server, Some(&place), "expected a glob string")
                        })?;
                        glob::Pattern::new(text).map_err(|error| {
                            self.error(server, Some(&place), format!("not a valid glob: {error}"))
                        })
                    })
                    .collect(),
                Some(_) => Err(self.error(server, Some(&place), "expected an array of globs")),
            }
        };
        if let Some(key) = object.keys().find(|k| *k != "allow" && *k != "deny") {
            return Err(self.error(
                server,
                Some(&format!("{field}.{key}")),
                "unknown; a filter has \"allow\" and \"deny\"",
            ));
        }
        Ok(Filter {
            allow: globs("allow")?,
            deny: globs("deny")?,
        })
    }

    /// `rateLimit`: `{"requestsPerSecond": n, "burst": n}`.
    fn rate_limit(
        &self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<Option<RateLimit>, ConfigError> {
        let object = match entry.get("rateLimit") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Err(self.error(
                    server,
                    Some("rateLimit"),
                    format!(
                        "expected {{\"requestsPerSecond\": …, \"burst\": …}}, found {}",
                        kind_of(other)
                    ),
                ));
            }
        };
        let defaults = RateLimit::default();
        let rate = match object.get("requestsPerSecond") {
            None => defaults.requests_per_second,
            Some(Value::Number(n)) if n.as_f64().is_some_and(|r| r > 0.0 && r.is_finite()) => {
                n.as_f64().unwrap_or(defaults.requests_per_second)
            }
            Some(_) => {
                return Err(self.error(
                    server,
                    Some("rateLimit.requestsPerSecond"),
                    "must be a positive number",
                ));
            }
        };
        let burst = match object.get("burst") {
            None => defaults.burst,
            Some(Value::Number(n)) => n
                .as_u64()
                .and_then(|b| u32::try_from(b).ok())
                .filter(|b| *b > 0)
                .ok_or_else(|| {
                    self.error(
                        server,
                        Some("rateLimit.burst"),
                        "must be a positive integer",
                    )
                })?,
            Some(_) => {
                return Err(self.error(
                    server,
                    Some("rateLimit.burst"),
                    "must be a positive integer",
                ));
            }
        };
        Ok(Some(RateLimit {
            requests_per_second: rate,
            burst,
        }))
    }

    /// A custom transport's settings: the entry but for the common fields,
    /// every string expanded.
    fn custom(
        &self,
        name: &str,
        entry: &Map<String, Value>,
        transport: String,
    ) -> Result<(Launch, Vec<String>, Option<String>), ConfigError> {
        let mut settings = Map::new();
        for (key, value) in entry {
            if COMMON_FIELDS.contains(&key.as_str()) {
                continue;
            }
            settings.insert(key.clone(), self.expand_value(name, key, value)?);
        }
        let shown_url =
            settings
                .get("url")
                .and_then(Value::as_str)
                .map(|_| match entry.get("url") {
                    Some(Value::String(raw)) => redact::url_for_display(raw),
                    _ => String::new(),
                });
        Ok((
            Launch::Custom {
                transport,
                settings,
            },
            Vec::new(),
            shown_url,
        ))
    }

    /// Every string inside `value`, expanded.
    fn expand_value(&self, server: &str, field: &str, value: &Value) -> Result<Value, ConfigError> {
        Ok(match value {
            Value::String(text) => Value::String(self.expand(server, field, text)?.text),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        self.expand_value(server, &format!("{field}[{index}]"), item)
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(key, item)| {
                        Ok((
                            key.clone(),
                            self.expand_value(server, &format!("{field}.{key}"), item)?,
                        ))
                    })
                    .collect::<Result<_, ConfigError>>()?,
            ),
            other => other.clone(),
        })
    }

    fn timeout(
        &self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<Option<Duration>, ConfigError> {
        Ok(self
            .seconds(server, entry, "timeoutMs", "timeoutMs", 0.001)?
            .or(self.seconds(server, entry, "timeout", "timeout", 1.0)?))
    }

    /// `staleMaxAgeMs`: how long the last good catalog may be served after
    /// refreshing it failed; 0 never serves it stale.
    fn stale_max_age(
        &self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<Option<Duration>, ConfigError> {
        const FIELD: &str = "staleMaxAgeMs";
        /// A year, in milliseconds.
        const MOST: u64 = 366 * 24 * 60 * 60 * 1000;
        match entry.get(FIELD) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => match number.as_u64() {
                Some(ms) if ms <= MOST => Ok(Some(Duration::from_millis(ms))),
                _ => Err(self.error(
                    server,
                    Some(FIELD),
                    "must be a whole number of milliseconds from 0 to a year",
                )),
            },
            Some(other) => Err(self.error(
                server,
                Some(FIELD),
                format!("expected a number, found {}", kind_of(other)),
            )),
        }
    }

    /// `auth`: `{"clientId", "clientSecret", "privateKey", "signingAlgorithm",
    /// "scopes", "clientMetadataUrl", "grant"}`; secrets may be `${env:…}`.
    fn auth(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<Option<AuthSettings>, ConfigError> {
        let object = match entry.get("auth") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Err(self.error(
                    server,
                    Some("auth"),
                    format!("expected an object, found {}", kind_of(other)),
                ));
            }
        };
        const FIELDS: &[&str] = &[
            "clientId",
            "clientSecret",
            "privateKey",
            "signingAlgorithm",
            "scopes",
            "clientMetadataUrl",
            "grant",
            "assertion",
            "assertionFile",
            "idpTokenEndpoint",
            "idpIdToken",
            "idpClientId",
            "issuer",
        ];
        for field in object.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
            self.warn(
                Some(server),
                Some(&format!("auth.{field}")),
                "unknown field; ignored",
            );
        }
        let text = |this: &Self, field: &str| -> Result<Option<String>, ConfigError> {
            let place = format!("auth.{field}");
            match object.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => Ok(Some(this.expand(server, &place, text)?.text)),
                Some(other) => Err(this.error(
                    server,
                    Some(&place),
                    format!("expected a string, found {}", kind_of(other)),
                )),
            }
        };
        let scopes = match object.get("scopes") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(mcpdisco_client::auth::split_scopes(text)),
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|item| match item {
                        Value::String(scope) => Ok(scope.clone()),
                        other => Err(self.error(
                            server,
                            Some("auth.scopes"),
                            format!("expected strings, found {}", kind_of(other)),
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(other) => {
                return Err(self.error(
                    server,
                    Some("auth.scopes"),
                    format!("expected a list of strings, found {}", kind_of(other)),
                ));
            }
        };
        let grant = match text(self, "grant")?.as_deref() {
            None | Some("authorization_code") => Grant::AuthorizationCode,
            Some("client_credentials") => Grant::ClientCredentials,
            Some("jwt_bearer") => Grant::JwtBearer,
            Some("enterprise") => Grant::Enterprise,
            Some(other) => {
                return Err(self.error(
                    server,
                    Some("auth.grant"),
                    format!(
                        "unknown grant {other:?}; expected \"authorization_code\", \"client_credentials\", \"jwt_bearer\" or \"enterprise\""
                    ),
                ));
            }
        };
        Ok(Some(AuthSettings {
            client_id: text(self, "clientId")?,
            client_secret: text(self, "clientSecret")?.map(SecretString::from),
            private_key: text(self, "privateKey")?.map(SecretString::from),
            signing_algorithm: text(self, "signingAlgorithm")?,
            scopes,
            client_metadata_url: text(self, "clientMetadataUrl")?,
            grant,
            assertion: text(self, "assertion")?.map(SecretString::from),
            assertion_file: text(self, "assertionFile")?.map(std::path::PathBuf::from),
            idp_token_endpoint: text(self, "idpTokenEndpoint")?,
            idp_id_token: text(self, "idpIdToken")?.map(SecretString::from),
            idp_client_id: text(self, "idpClientId")?,
            issuer: text(self, "issuer")?,
        }))
    }

    /// `health`: `{"pingInterval": seconds, "pingTimeout": seconds}`.
    fn ping(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
    ) -> Result<PingSettings, ConfigError> {
        match entry.get("health") {
            None | Some(Value::Null) => Ok(PingSettings::default()),
            Some(Value::Object(health)) => {
                for field in health
                    .keys()
                    .filter(|k| !matches!(k.as_str(), "pingInterval" | "pingTimeout"))
                {
                    self.warn(
                        Some(server),
                        Some(&format!("health.{field}")),
                        "unknown field; ignored",
                    );
                }
                Ok(PingSettings {
                    interval: self.seconds(
                        server,
                        health,
                        "pingInterval",
                        "health.pingInterval",
                        1.0,
                    )?,
                    timeout: self.seconds(
                        server,
                        health,
                        "pingTimeout",
                        "health.pingTimeout",
                        1.0,
                    )?,
                })
            }
            Some(other) => Err(self.error(
                server,
                Some("health"),
                format!("expected an object, found {}", kind_of(other)),
            )),
        }
    }

    /// A positive duration of at most a day: `field` of `object`, a number
    /// of units of `scale` seconds (`shown` names it in errors).
    fn seconds(
        &self,
        server: &str,
        object: &Map<String, Value>,
        field: &str,
        shown: &str,
        scale: f64,
    ) -> Result<Option<Duration>, ConfigError> {
        match object.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => {
                let seconds = number.as_f64().unwrap_or(-1.0) * scale;
                if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 {
                    Ok(Some(Duration::from_secs_f64(seconds)))
                } else {
                    Err(self.error(
                        server,
                        Some(shown),
                        "must be a positive duration of at most a day",
                    ))
                }
            }
            Some(other) => Err(self.error(
                server,
                Some(shown),
                format!("expected a number, found {}", kind_of(other)),
            )),
        }
    }

    fn stdio(
        &self,
        name: &str,
        entry: &Map<String, Value>,
        command: &str,
    ) -> Result<(Launch, Vec<String>, Option<String>), ConfigError> {
        let command = self.expand(name, "command", command)?.text;
        if command.trim().is_empty() {
            return Err(self.error(name, Some("command"), "is empty"));
        }
        let command = self.resolve_command(&command);
        let raw_args: Vec<String> = match entry.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(index, item)| match item {
                    Value::String(text) => Ok(text.clone()),
                    Value::Number(number) => Ok(number.to_string()),
                    Value::Bool(flag) => Ok(flag.to_string()),
                    other => Err(self.error(
                        name,
                        Some(&format!("args[{index}]")),
                        format!("expected a string, found {}", kind_of(other)),
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(self.error(
                    name,
                    Some("args"),
                    format!("expected an array of strings, found {}", kind_of(other)),
                ));
            }
        };
        let mut args = Vec::with_capacity(raw_args.len());
        let mut shown = Vec::with_capacity(raw_args.len());
        for (index, raw) in raw_args.iter().enumerate() {
            let expanded = self.expand(name, &format!("args[{index}]"), raw)?;
            shown.push(if expanded.substituted {
                raw.clone()
            } else {
                expanded.text.clone()
            });
            args.push(expanded.text);
        }
        let env = self.string_map(name, entry, "env")?;
        let env_policy = self.env_policy(name, entry)?;
        let cwd = match self.string(name, entry, "cwd")? {
            Some(cwd) => {
                let cwd = PathBuf::from(self.expand(name, "cwd", &cwd)?.text);
                if cwd.is_absolute() {
                    cwd
                } else {
                    self.dir.join(cwd)
                }
            }
            None => self.dir.to_owned(),
        };
        let launch = Launch::Stdio {
            command,
            args,
            env,
            cwd,
            env_policy,
        };
        Ok((launch, redact::mask_flag_values(&shown), None))
    }

    fn resolve_command(&self, command: &str) -> String {
        let path = Path::new(command);
        let has_separator = command.contains('/') || command.contains(std::path::MAIN_SEPARATOR);
        if has_separator && path.is_relative() {
            self.dir.join(path).display().to_string()
        } else {
            command.to_owned()
        }
    }

    fn http(
        &self,
        name: &str,
        entry: &Map<String, Value>,
        url: &str,
        kind: HttpKind,
    ) -> Result<(Launch, Vec<String>, Option<String>), ConfigError> {
        let expanded = self.expand(name, "url", url)?;
        match url::Url::parse(&expanded.text) {
            Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
            Ok(parsed) => {
                return Err(self.error(
                    name,
                    Some("url"),
                    format!("scheme \"{}\" is not http or https", parsed.scheme()),
                ));
            }
            Err(error) => {
                return Err(self.error(name, Some("url"), format!("not a valid URL: {error}")));
            }
        }
        let shown_source = if expanded.substituted {
            url
        } else {
            expanded.text.as_str()
        };
        let shown = redact::url_for_display(shown_source);
        let headers = self.string_map(name, entry, "headers")?;
        for field in ["inheritEnv", "envPassthrough"] {
            if entry.contains_key(field) {
                return Err(self.error(
                    name,
                    Some(field),
                    "applies to stdio servers only; an HTTP server has no environment",
                ));
            }
        }
        let launch = Launch::Http {
            url: SecretUrl::new(expanded.text),
            headers,
            kind,
        };
        Ok((launch, Vec::new(), Some(shown)))
    }
}
