//! [`Launch`]: how to reach a server, with its secrets held as secret types.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use mcpdisco_transport::http::HttpKind;
use mcpdisco_transport::secret::{
    ExposeSecret, Masker, MaskerBuilder, SecretString, SecretUrl, is_secret_name,
};
use mcpdisco_transport::stdio::EnvPolicy;
use serde_json::{Map, Value};

use super::redact;

/// How to reach a server.
#[derive(Clone)]
pub enum Launch {
    /// A child process speaking over stdio.
    Stdio {
        /// The program (resolved against the config's directory when it has a path separator).
        command: String,
        /// Its arguments, expanded.
        args: Vec<String>,
        /// Extra environment.
        env: BTreeMap<String, SecretString>,
        /// The working directory.
        cwd: PathBuf,
        /// Which of our own environment variables it sees.
        env_policy: EnvPolicy,
    },
    /// A remote server over HTTP.
    Http {
        /// The endpoint, expanded (it may hold credentials).
        url: SecretUrl,
        /// Extra headers.
        headers: BTreeMap<String, SecretString>,
        /// Streamable HTTP, legacy SSE, or detect.
        kind: HttpKind,
    },
    /// A transport of a third party's, started by the
    /// [`Connector`](crate::connect::Connector) registered under its `type`.
    Custom {
        /// The `type` it names.
        transport: String,
        /// The server's entry as written (variables expanded), but for the
        /// fields every server has (`type`, `enabled`, `timeout`, ...).
        /// Values under secret-looking names, `env` and `headers` are secrets.
        settings: Map<String, Value>,
    },
}

/// A launch, with what of it is safe to show.
pub(crate) struct ReadLaunch {
    /// How to reach the server.
    pub launch: Launch,
    /// The arguments as safe to show.
    pub shown_args: Vec<String>,
    /// The URL as safe to show.
    pub shown_url: Option<String>,
}

impl Launch {
    /// A stdio launch of `command args…` in `cwd`, with no env of its own and the default policy.
    pub fn stdio<I, S>(command: impl Into<String>, args: I, cwd: impl AsRef<Path>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Launch::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            cwd: cwd.as_ref().to_owned(),
            env_policy: EnvPolicy::default(),
        }
    }

    /// The name connectors are registered under for this launch: `stdio`,
    /// `http`, or a custom transport's `type`.
    pub fn transport_type(&self) -> &str {
        match self {
            Launch::Stdio { .. } => "stdio",
            Launch::Http { .. } => "http",
            Launch::Custom { transport, .. } => transport,
        }
    }

    /// Sets one env variable of a stdio launch (an HTTP launch is left as it is).
    pub fn set_env(&mut self, name: impl Into<String>, value: impl Into<String>) {
        if let Launch::Stdio { env, .. } = self {
            env.insert(name.into(), SecretString::from(value.into()));
        }
    }

    /// The masker of this launch: every env and header value (and the token
    /// after a header's scheme, as in `Bearer <token>`), the URL's userinfo
    /// and query values, and arguments that follow token-like flags or look
    /// like credentials.
    pub fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        match self {
            Launch::Stdio { args, env, .. } => {
                for value in env.values() {
                    builder.secret(value.expose_secret());
                }
                builder.args(args);
            }
            Launch::Http { url, headers, .. } => {
                builder.url(url.expose_secret());
                for value in headers.values() {
                    let value = value.expose_secret();
                    builder.secret(value);
                    if let Some((_, token)) = value.split_once(' ') {
                        builder.secret(token);
                    }
                }
            }
            Launch::Custom { settings, .. } => custom_secrets(&mut builder, settings),
        }
        builder.build()
    }
}

/// The secrets of custom settings: values under secret-looking names, every
/// string under `env` or `headers`, a `url`'s credentials, `args` as a command line.
fn custom_secrets(builder: &mut MaskerBuilder, settings: &Map<String, Value>) {
    for (key, value) in settings {
        match (key.as_str(), value) {
            ("url", Value::String(url)) => {
                builder.url(url);
            }
            ("env" | "headers", Value::Object(values)) => {
                for value in values.values() {
                    if let Value::String(text) = value {
                        builder.secret(text);
                        if let Some((_, token)) = text.split_once(' ') {
                            builder.secret(token);
                        }
                    }
                }
            }
            ("args", Value::Array(args)) => {
                let args: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
                builder.args(&args);
            }
            (key, Value::String(text)) if is_secret_name(key) => {
                builder.secret(text);
            }
            (_, Value::Object(nested)) => custom_secrets(builder, nested),
            _ => {}
        }
    }
}

fn same_secrets(a: &BTreeMap<String, SecretString>, b: &BTreeMap<String, SecretString>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && va.expose_secret() == vb.expose_secret())
}

impl PartialEq for Launch {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Launch::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                    env_policy,
                },
                Launch::Stdio {
                    command: c2,
                    args: a2,
                    env: e2,
                    cwd: w2,
                    env_policy: p2,
                },
            ) => {
                command == c2
                    && args == a2
                    && cwd == w2
                    && env_policy == p2
                    && same_secrets(env, e2)
            }
            (
                Launch::Http { url, headers, kind },
                Launch::Http {
                    url: u2,
                    headers: h2,
                    kind: k2,
                },
            ) => url == u2 && kind == k2 && same_secrets(headers, h2),
            (
                Launch::Custom {
                    transport,
                    settings,
                },
                Launch::Custom {
                    transport: t2,
                    settings: s2,
                },
            ) => transport == t2 && settings == s2,
            _ => false,
        }
    }
}

impl Eq for Launch {}

impl fmt::Debug for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio {
                command,
                args,
                env,
                cwd,
                env_policy,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                // Expanded arguments may hold substituted secrets: only their number.
                .field("args", &format_args!("<{} arguments>", args.len()))
                .field("env", &env.keys().map(|k| (k, "***")).collect::<Vec<_>>())
                .field("cwd", cwd)
                .field("env_policy", env_policy)
                .finish(),
            Self::Http { url, headers, kind } => f
                .debug_struct("Http")
                // The path may hold a substituted secret: only the origin.
                .field("url", &redact::origin_of(url.expose_secret()))
                .field(
                    "headers",
                    &headers.keys().map(|k| (k, "***")).collect::<Vec<_>>(),
                )
                .field("kind", kind)
                .finish(),
            Self::Custom {
                transport,
                settings,
            } => f
                .debug_struct("Custom")
                .field("transport", transport)
                // Values may be secrets: only the names.
                .field("settings", &settings.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}
