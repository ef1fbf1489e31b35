//! [`ServerEntry`]: one server's entry as a config file holds it, before
//! its references are expanded. What [`resolve`](crate::registry) makes of
//! a registry's `server.json`, what [`add_server`](super::add_server) writes
//! into a file of any host's format, and what [`ServerEntry::to_server`]
//! reads into a [`ServerConfig`] by the same rules as a file.

use std::fmt;
use std::path::Path;

use mcpdisco_transport::http::HttpKind;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::error::ConfigError;
use super::expand::{Expander, VarSource};
use super::launch_entry::LaunchReader;
use super::problems::Problems;
use super::redact;
use super::server::{ServerConfig, read_server};

/// A server's entry as written in a config file: strings hold references
/// such as `${env:TOKEN}` as they are, so a secret stays in the
/// environment and out of the file. Serializes to our `mcpServers` shape
/// (`command`, `args`, `env`, `cwd`, or `type`, `url`, `headers`; then
/// `description`). `Debug` shows no value that may be a secret.
///
/// ```
/// use mcpdisco::config::{ProcessEnv, ServerEntry};
/// let entry = ServerEntry::stdio("uvx", ["mcp-server-time"])
///     .with_env("TZ", "Europe/Paris")
///     .with_description("Time and time zones");
/// let server = entry.to_server("time", "/p/.mcp.json".as_ref(), "/p".as_ref(), &ProcessEnv)?;
/// assert_eq!(server.summary(), "stdio: uvx mcp-server-time");
/// # Ok::<(), mcpdisco::config::ConfigError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerEntry {
    /// How the server is run or reached.
    pub launch: EntryLaunch,
    /// What it is for.
    pub description: Option<String>,
}

/// How an entry's server is run or reached, as written.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryLaunch {
    /// A child process speaking over stdio.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its own environment, in the order written.
        env: Vec<(String, String)>,
        /// Its working folder (default: the config file's).
        cwd: Option<String>,
    },
    /// A remote server over HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Headers to send, in the order written.
        headers: Vec<(String, String)>,
        /// Streamable HTTP, legacy SSE, or detect (no `type` written).
        kind: HttpKind,
    },
}

impl ServerEntry {
    /// A stdio server run as `command args…`.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            launch: EntryLaunch::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
                cwd: None,
            },
            description: None,
        }
    }

    /// An HTTP server at `url`, reached over `kind`.
    pub fn http(url: impl Into<String>, kind: HttpKind) -> Self {
        Self {
            launch: EntryLaunch::Http {
                url: url.into(),
                headers: Vec::new(),
                kind,
            },
            description: None,
        }
    }

    /// With the environment variable `name` (stdio; replacing one of that name).
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let EntryLaunch::Stdio { env, .. } = &mut self.launch {
            set(env, name.into(), value.into());
        }
        self
    }

    /// With the header `name` (HTTP; replacing one of that name).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let EntryLaunch::Http { headers, .. } = &mut self.launch {
            set(headers, name.into(), value.into());
        }
        self
    }

    /// With the working folder `cwd` (stdio).
    pub fn with_cwd(mut self, dir: impl Into<String>) -> Self {
        if let EntryLaunch::Stdio { cwd, .. } = &mut self.launch {
            *cwd = Some(dir.into());
        }
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The entry as the members of a JSON object in our `mcpServers` shape.
    pub(crate) fn to_fields(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        match &self.launch {
            EntryLaunch::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                fields.insert("command".into(), Value::String(command.clone()));
                let args = args.iter().cloned().map(Value::String).collect();
                fields.insert("args".into(), Value::Array(args));
                if !env.is_empty() {
                    fields.insert("env".into(), Value::Object(object(env)));
                }
                if let Some(cwd) = cwd {
                    fields.insert("cwd".into(), Value::String(cwd.clone()));
                }
            }
            EntryLaunch::Http { url, headers, kind } => {
                if let Some(kind) = type_name(*kind) {
                    fields.insert("type".into(), Value::String(kind.into()));
                }
                fields.insert("url".into(), Value::String(url.clone()));
                if !headers.is_empty() {
                    fields.insert("headers".into(), Value::Object(object(headers)));
                }
            }
        }
        if let Some(description) = &self.description {
            fields.insert("description".into(), Value::String(description.clone()));
        }
        fields
    }

    /// This entry read as server `name` of the config at `source`, as a
    /// file's entry is: references expanded from `vars`, a relative
    /// command or `cwd` (and the default working folder) from `dir`, every
    /// secret held as a secret and masked where it is shown.
    pub fn to_server(
        &self,
        name: &str,
        source: &Path,
        dir: &Path,
        vars: &dyn VarSource,
    ) -> Result<ServerConfig, ConfigError> {
        let launches = LaunchReader {
            dir,
            expander: Expander {
                vars,
                workspace_folder: dir,
            },
            custom_types: &[],
        };
        let mut problems = Problems::new(source, None);
        let at = [name.to_owned()];
        let raw = Value::Object(self.to_fields());
        let server = read_server(&launches, source, &raw, &mut problems.server(name, &at));
        if let Some(error) = ConfigError::from_all(source, problems.errors) {
            return Err(error);
        }
        server
            .ok_or_else(|| ConfigError::invalid(source, format!("server '{name}' cannot be read")))
    }
}

impl Serialize for ServerEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_fields().serialize(serializer)
    }
}

/// The `type` written for `kind`; none when it is detected.
pub(crate) fn type_name(kind: HttpKind) -> Option<&'static str> {
    match kind {
        HttpKind::StreamableHttp => Some("http"),
        HttpKind::Sse => Some("sse"),
        HttpKind::Auto => None,
    }
}

fn set(pairs: &mut Vec<(String, String)>, name: String, value: String) {
    match pairs.iter_mut().find(|(key, _)| *key == name) {
        Some(pair) => pair.1 = value,
        None => pairs.push((name, value)),
    }
}

fn object(pairs: &[(String, String)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(key, value)| (key.clone(), Value::String(value.clone())))
        .collect()
}

impl fmt::Debug for ServerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerEntry")
            .field("launch", &self.launch)
            .field("description", &self.description)
            .finish()
    }
}

impl fmt::Debug for EntryLaunch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |pairs: &[(String, String)]| -> Vec<String> {
            pairs.iter().map(|(key, _)| format!("{key}=***")).collect()
        };
        match self {
            Self::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                // A value given for a secret input may be among them: only their number.
                .field("args", &format_args!("<{} arguments>", args.len()))
                .field("env", &names(env))
                .field("cwd", cwd)
                .finish(),
            Self::Http { url, headers, kind } => f
                .debug_struct("Http")
                .field("url", &redact::url_for_display(url))
                .field("headers", &names(headers))
                .field("kind", kind)
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use mcpdisco_transport::secret::ExposeSecret;

    use super::*;
    use crate::config::Launch;

    fn vars() -> HashMap<String, String> {
        [("API_KEY".to_owned(), "planted-8128".to_owned())].into()
    }

    #[test]
    fn an_entry_reads_as_a_file_entry_would_and_keeps_its_secret_out_of_view() {
        let entry = ServerEntry::http("https://api.example.com/mcp", HttpKind::StreamableHttp)
            .with_header("Authorization", "Bearer ${env:API_KEY}")
            .with_description("hosted");
        let server = entry
            .to_server("api", "/p/.mcp.json".as_ref(), "/p".as_ref(), &vars())
            .unwrap();
        let Launch::Http { headers, kind, .. } = &server.launch else {
            panic!("{server:?}")
        };
        assert_eq!(*kind, HttpKind::StreamableHttp);
        assert_eq!(
            headers["Authorization"].expose_secret(),
            "Bearer planted-8128"
        );
        assert_eq!(server.description.as_deref(), Some("hosted"));
        assert_eq!(server.masker().mask("planted-8128"), "***");
        let shown = format!("{server:?} {} {entry:?}", server.redacted());
        assert!(!shown.contains("planted-8128"), "{shown}");
        assert!(!format!("{entry:?}").contains("API_KEY}"));

        let stdio = ServerEntry::stdio("./run.sh", ["--token", "${env:API_KEY}"]);
        let server = stdio
            .to_server("local", "/p/.mcp.json".as_ref(), "/p".as_ref(), &vars())
            .unwrap();
        assert_eq!(
            server.summary(),
            "stdio: /p/./run.sh --token ${env:API_KEY}"
        );
        let Launch::Stdio { args, cwd, .. } = &server.launch else {
            panic!()
        };
        assert_eq!(args[1], "planted-8128");
        assert_eq!(cwd, Path::new("/p"));
    }

    #[test]
    fn an_unset_variable_is_the_error_a_file_would_give() {
        let entry = ServerEntry::stdio("x", ["y"]).with_env("TOKEN", "${env:NOT_SET_HERE}");
        let error = entry
            .to_server("x", "/p/.mcp.json".as_ref(), "/p".as_ref(), &vars())
            .unwrap_err();
        assert!(
            error.to_string().contains("'NOT_SET_HERE' is not set"),
            "{error}"
        );
    }

    #[test]
    fn serializes_in_our_shape_in_the_order_written() {
        let entry = ServerEntry::stdio("npx", ["-y", "pkg"])
            .with_env("B", "2")
            .with_env("A", "1")
            .with_cwd("/w")
            .with_description("d");
        assert_eq!(
            serde_json::to_string(&entry).unwrap(),
            r#"{"command":"npx","args":["-y","pkg"],"env":{"B":"2","A":"1"},"cwd":"/w","description":"d"}"#
        );
        let detected = ServerEntry::http("https://h/mcp", HttpKind::Auto);
        assert_eq!(
            serde_json::to_string(&detected).unwrap(),
            r#"{"url":"https://h/mcp"}"#
        );
    }
}
