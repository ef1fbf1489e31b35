//! One configured server, [`ServerConfig`], with the views that are safe to
//! show (redacted JSON, one-line summary) and the material of its cache key;
//! and one server entry read into it: every problem of the entry is said,
//! and the server is read when none of them is an error.

use std::collections::BTreeMap;
use std::fmt;
use std::mem::take;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpdisco_client::policy::RateLimit;
use mcpdisco_transport::http::HttpKind;
use mcpdisco_transport::secret::{ExposeSecret, Masker, SecretString, SecretUrl};
use mcpdisco_transport::stdio::EnvPolicy;
use serde_json::{Value, json};

use super::entry::read_entry;
use super::filter::Filters;
use super::json::kind_of;
use super::launch::Launch;
use super::launch_entry::{LaunchReader, Transport};
use super::ping::PingSettings;
use super::problems::ServerProblems;
use super::redact;
use super::settings;

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
    /// Whether its items are namespaced `<server>__<name>` in catalogs and
    /// behind the gateway (`namespace`, default true). Without, they keep
    /// their own names, and a clash with another server leaves the item out.
    pub namespaced: bool,
    /// How to reach it.
    pub launch: Launch,
    /// Arguments as safe to show (unexpanded where a variable was substituted, flag values masked).
    shown_args: Vec<String>,
    /// The URL as safe to show.
    shown_url: Option<String>,
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
            namespaced: true,
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

    /// The arguments as safe to show (a stdio server's; empty otherwise).
    pub(crate) fn shown_args(&self) -> &[String] {
        &self.shown_args
    }

    /// The URL as safe to show, when it has one.
    pub(crate) fn shown_url(&self) -> Option<&str> {
        self.shown_url.as_deref()
    }

    /// A third-party transport's settings as safe to show.
    pub(crate) fn shown_settings(&self) -> Option<Value> {
        match &self.launch {
            Launch::Custom { settings, .. } => {
                Some(redact::masked_settings(settings, &self.masker()))
            }
            Launch::Stdio { .. } | Launch::Http { .. } => None,
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

/// Reads the entry `raw` of the server `problems` is about, from the file at
/// `source`; `None` when it has an error (said in `problems`).
pub(crate) fn read_server(
    launches: &LaunchReader<'_>,
    source: &std::path::Path,
    raw: &Value,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<ServerConfig> {
    let Value::Object(raw) = raw else {
        problems.error(None, format!("expected an object, found {}", kind_of(raw)));
        return None;
    };
    let before = problems.error_count();
    let mut entry = read_entry(raw);
    let transport = launches.transport(&mut entry, problems);
    if !matches!(transport, Ok(Some((_, Transport::Custom(_))))) {
        for field in entry.unknown.keys() {
            problems.warn(Some(field), "unknown field; ignored");
        }
    }
    let enabled = settings::enabled(
        take(&mut entry.enabled),
        take(&mut entry.disabled),
        problems,
    );
    let description = settings::text(take(&mut entry.description), "description", problems);
    let timeout = settings::timeout(
        take(&mut entry.timeout),
        take(&mut entry.timeout_ms),
        problems,
    );
    let stale_max_age = settings::stale_max_age(take(&mut entry.stale_max_age_ms), problems);
    let rate_limit = settings::rate_limit(take(&mut entry.rate_limit), problems);
    let ping = settings::ping(take(&mut entry.health), problems);
    let auth = settings::auth(take(&mut entry.auth), &launches.expander, problems);
    let filters = Filters {
        tools: settings::filter(take(&mut entry.tools), "tools", problems),
        prompts: settings::filter(take(&mut entry.prompts), "prompts", problems),
        resources: settings::filter(take(&mut entry.resources), "resources", problems),
        skills: settings::filter(take(&mut entry.skills), "skills", problems),
    };
    let namespaced = settings::namespaced(take(&mut entry.namespace), problems);
    let launch = launches.launch(&mut entry, raw, transport.unwrap_or(None), problems);
    if problems.error_count() > before {
        return None;
    }
    let read = launch?;
    let mut server = ServerConfig::new(problems.name(), read.launch);
    server.source = source.to_owned();
    server.line = problems.entry_line();
    server.enabled = enabled;
    server.description = description;
    server.timeout = timeout;
    server.stale_max_age = stale_max_age;
    server.rate_limit = rate_limit;
    server.ping = ping;
    server.auth = auth;
    server.filters = filters;
    server.namespaced = namespaced;
    server.shown_args = read.shown_args;
    server.shown_url = read.shown_url;
    Some(server)
}
