//! A `server.json` made into one of our config entries (`mcpServers` shape).
//!
//! Which way to run it, in order: a remote when [`ResolveOptions::prefer_remote`]
//! (or when there is no package); the package of
//! [`ResolveOptions::registry_type`] when one is asked for; else the first
//! stdio package of a known type. Known types and their launch:
//!
//! | `registryType` | command |
//! |---|---|
//! | `npm` | `npx [runtime args] -y <pkg>@<version> [package args]` |
//! | `pypi` | `uvx [runtime args] <pkg>==<version> [package args]` |
//! | `oci` | `docker run -i --rm [-e NAME]… [runtime args] <image>[:<version>] [package args]` |
//! | `nuget` | `dnx [runtime args] <pkg>@<version> --yes [-- package args]` |
//! | `mcpb` | the bundle's own command, after the download is verified against `fileSha256` (refused without it) |
//!
//! A `runtimeHint` replaces the command. An unknown `registryType` is an
//! error naming it, never a guess. Required environment variables become
//! `${env:NAME}` references (the config expands them at load), and
//! [`Resolved::missing_env`] names the ones not set. An input's fixed
//! `value` wins (the schema says users do not change it), then the caller's
//! value, then its default; `{variables}` are filled the same way; a named
//! argument of `format: boolean` is a bare flag when true; a required one that is still missing becomes an
//! `${env:NAME}` reference in an argument or header, and an error in a URL.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::types::{Argument, Input, KeyValueInput, Package, Remote, ServerJson};
use crate::config::VarSource;

/// How to resolve.
#[derive(Debug, Clone, Default)]
pub struct ResolveOptions {
    /// Take a remote endpoint when the server has one.
    pub prefer_remote: bool,
    /// Take the package of this registry type (`npm`, `pypi`, …).
    pub registry_type: Option<String>,
    /// Values for `{variables}` and inputs, by name.
    pub values: BTreeMap<String, String>,
}

/// What was chosen to run or reach the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A package: its registry type, identifier and version.
    Package {
        /// `npm`, `pypi`, …
        registry_type: String,
        /// The package.
        identifier: String,
        /// Its version, if given.
        version: Option<String>,
    },
    /// A remote endpoint.
    Remote {
        /// The URL, variables filled in.
        url: String,
    },
}

/// A bundle to download and check before it can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpbDownload {
    /// Where it is.
    pub url: String,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
}

/// A server resolved into our config.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// A local name for it: the last part of its registry name.
    pub name: String,
    /// The config entry, in our `mcpServers` shape.
    pub entry: Value,
    /// What was chosen.
    pub choice: Choice,
    /// Environment variables that must be set (referenced as `${env:NAME}`).
    pub required_env: Vec<String>,
    /// Of all the variables named, those holding secrets.
    pub secret_env: Vec<String>,
    /// For an `mcpb` package: the bundle to fetch first.
    pub download: Option<McpbDownload>,
    /// What the resolution could not honour, in words.
    pub warnings: Vec<String>,
}

impl Resolved {
    /// The required variables `vars` does not have.
    pub fn missing_env(&self, vars: &dyn VarSource) -> Vec<String> {
        self.required_env
            .iter()
            .filter(|name| vars.var(name).is_none())
            .cloned()
            .collect()
    }
}

/// Why a `server.json` cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Its packages are all of types we do not know how to run.
    #[error("{server}: unknown registry type(s) {}: not guessed; known: npm, pypi, oci, nuget, mcpb", .types.join(", "))]
    UnknownRegistryType {
        /// The server.
        server: String,
        /// The types.
        types: Vec<String>,
    },
    /// No package of the asked type.
    #[error("{server}: no package of type '{wanted}' (it has: {})", .have.join(", "))]
    NoSuchPackage {
        /// The server.
        server: String,
        /// The type asked for.
        wanted: String,
        /// The types it has.
        have: Vec<String>,
    },
    /// Neither a package nor a remote.
    #[error("{0}: neither a package nor a remote to run or reach")]
    Nothing(String),
    /// An `mcpb` package without `fileSha256`.
    #[error("{0}: the mcpb bundle has no fileSha256; it is not downloaded unverified")]
    UnverifiedBundle(String),
    /// A package that serves HTTP itself once started.
    #[error(
        "{server}: the {registry_type} package serves {transport} once started; start it yourself and add its URL"
    )]
    LocalHttp {
        /// The server.
        server: String,
        /// Its registry type.
        registry_type: String,
        /// Its transport.
        transport: String,
    },
    /// A URL variable without a value.
    #[error("{server}: the URL variable '{variable}' has no value; give it (--var {variable}=…)")]
    MissingVariable {
        /// The server.
        server: String,
        /// The variable.
        variable: String,
    },
    /// A transport type we do not know.
    #[error("{server}: unknown transport '{transport}'")]
    UnknownTransport {
        /// The server.
        server: String,
        /// The transport.
        transport: String,
    },
}

const KNOWN_TYPES: &[&str] = &["npm", "pypi", "oci", "nuget", "mcpb"];

/// Resolves `server` as `options` ask.
pub fn resolve(server: &ServerJson, options: &ResolveOptions) -> Result<Resolved, ResolveError> {
    let name = local_name(&server.name);
    let mut resolved = Resolved {
        name,
        entry: Value::Null,
        choice: Choice::Remote { url: String::new() },
        required_env: Vec::new(),
        secret_env: Vec::new(),
        download: None,
        warnings: Vec::new(),
    };
    let remote_first = options.prefer_remote || server.packages.is_empty();
    if remote_first && let Some(remote) = server.remotes.first() {
        resolve_remote(server, remote, options, &mut resolved)?;
    } else {
        let package = choose_package(server, options)?;
        resolve_package(server, package, options, &mut resolved)?;
    }
    if let Value::Object(entry) = &mut resolved.entry
        && !server.description.is_empty()
    {
        entry.insert(
            "description".into(),
            Value::String(server.description.clone()),
        );
    }
    Ok(resolved)
}

/// The last part of a registry name, safe as a config key: `io.github.acme/Weather` → `weather`.
pub fn local_name(registry_name: &str) -> String {
    let last = registry_name.rsplit('/').next().unwrap_or(registry_name);
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_owned();
    if name.is_empty() {
        "server".to_owned()
    } else {
        name
    }
}

fn choose_package<'a>(
    server: &'a ServerJson,
    options: &ResolveOptions,
) -> Result<&'a Package, ResolveError> {
    if server.packages.is_empty() {
        return Err(ResolveError::Nothing(server.name.clone()));
    }
    if let Some(wanted) = &options.registry_type {
        return server
            .packages
            .iter()
            .find(|p| &p.registry_type == wanted)
            .ok_or_else(|| ResolveError::NoSuchPackage {
                server: server.name.clone(),
                wanted: wanted.clone(),
                have: server
                    .packages
                    .iter()
                    .map(|p| p.registry_type.clone())
                    .collect(),
            });
    }
    let known = |p: &&Package| KNOWN_TYPES.contains(&p.registry_type.as_str());
    server
        .packages
        .iter()
        .filter(known)
        .find(|p| p.transport.kind == "stdio")
        .or_else(|| server.packages.iter().find(known))
        .ok_or_else(|| ResolveError::UnknownRegistryType {
            server: server.name.clone(),
            types: server
                .packages
                .iter()
                .map(|p| p.registry_type.clone())
                .collect(),
        })
}

/// An environment variable name for an input labelled `label`.
fn env_name(label: &str) -> String {
    let name: String = label
        .trim_start_matches('-')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) || name.is_empty() {
        format!("MCP_{name}")
    } else {
        name
    }
}

impl Resolved {
    fn require(&mut self, name: &str, secret: bool) {
        if !self.required_env.iter().any(|n| n == name) {
            self.required_env.push(name.to_owned());
        }
        if secret && !self.secret_env.iter().any(|n| n == name) {
            self.secret_env.push(name.to_owned());
        }
    }
}

/// The value of an input: its own fixed value (variables filled; the
/// schema says a set value is not for users to change), else the caller's,
/// its default, or a `${env:…}` reference when it is required. `None` when
/// it is optional and has no value.
fn input_value(
    label: &str,
    input: &Input,
    options: &ResolveOptions,
    resolved: &mut Resolved,
) -> Option<String> {
    if let Some(value) = &input.value {
        return Some(fill_variables(value, &input.variables, options, resolved));
    }
    if let Some(given) = options.values.get(label) {
        return Some(given.clone());
    }
    if let Some(default) = &input.default {
        return Some(default.clone());
    }
    if input.is_required {
        let var = env_name(label);
        resolved.require(&var, input.is_secret);
        return Some(format!("${{env:{var}}}"));
    }
    None
}

/// `{name}` references in `text` replaced by the variables' values; a
/// variable without one stays as written.
fn fill_variables(
    text: &str,
    variables: &BTreeMap<String, Input>,
    options: &ResolveOptions,
    resolved: &mut Resolved,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                let value = match variables.get(name) {
                    Some(input) => input_value(name, input, options, resolved),
                    None => options.values.get(name).cloned(),
                };
                match value {
                    Some(value) => out.push_str(&value),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The `{name}`s of a template, in order.
fn template_variables(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        names.push(&after[..close]);
        rest = &after[close + 1..];
    }
    names
}

fn arguments(
    arguments: &[Argument],
    options: &ResolveOptions,
    resolved: &mut Resolved,
) -> Vec<String> {
    let mut out = Vec::new();
    for argument in arguments {
        match argument.kind.as_str() {
            "named" => {
                let Some(flag) = &argument.name else { continue };
                if argument.input.format.as_deref() == Some("boolean") {
                    // A boolean flag stands alone when true and is left out otherwise.
                    if input_value(flag, &argument.input, options, resolved).as_deref()
                        == Some("true")
                    {
                        out.push(flag.clone());
                    }
                    continue;
                }
                match input_value(flag, &argument.input, options, resolved) {
                    Some(value) => {
                        out.push(flag.clone());
                        out.push(value);
                    }
                    // A named argument with no value at all is a bare flag.
                    None if argument.input.value.is_none()
                        && argument.input.default.is_none()
                        && !argument.input.is_required => {}
                    None => out.push(flag.clone()),
                }
            }
            _ => {
                let label = argument.value_hint.as_deref().unwrap_or("argument");
                if let Some(value) = input_value(label, &argument.input, options, resolved) {
                    out.push(value);
                }
            }
        }
    }
    out
}

fn environment(
    variables: &[KeyValueInput],
    options: &ResolveOptions,
    resolved: &mut Resolved,
) -> Map<String, Value> {
    let mut env = Map::new();
    for variable in variables {
        if variable.input.is_secret && !resolved.secret_env.contains(&variable.name) {
            resolved.secret_env.push(variable.name.clone());
        }
        let value = if variable.input.is_required
            && variable.input.value.is_none()
            && !options.values.contains_key(&variable.name)
        {
            resolved.require(&variable.name, variable.input.is_secret);
            Some(format!("${{env:{}}}", variable.name))
        } else {
            input_value(&variable.name, &variable.input, options, resolved)
        };
        if let Some(value) = value {
            env.insert(variable.name.clone(), Value::String(value));
        }
    }
    env
}

fn resolve_package(
    server: &ServerJson,
    package: &Package,
    options: &ResolveOptions,
    resolved: &mut Resolved,
) -> Result<(), ResolveError> {
    resolved.choice = Choice::Package {
        registry_type: package.registry_type.clone(),
        identifier: package.identifier.clone(),
        version: package.version.clone(),
    };
    if package.transport.kind != "stdio" {
        return Err(ResolveError::LocalHttp {
            server: server.name.clone(),
            registry_type: package.registry_type.clone(),
            transport: package.transport.kind.clone(),
        });
    }
    let env = environment(&package.environment_variables, options, resolved);
    let runtime_args = arguments(&package.runtime_arguments, options, resolved);
    let package_args = arguments(&package.package_arguments, options, resolved);
    let version = package.version.as_deref();
    let (default_command, mut args): (&str, Vec<String>) = match package.registry_type.as_str() {
        "npm" => {
            let mut args = runtime_args;
            args.push("-y".into());
            args.push(match version {
                Some(version) => format!("{}@{version}", package.identifier),
                None => package.identifier.clone(),
            });
            ("npx", args)
        }
        "pypi" => {
            let mut args = runtime_args;
            args.push(match version {
                Some(version) => format!("{}=={version}", package.identifier),
                None => package.identifier.clone(),
            });
            ("uvx", args)
        }
        "oci" => {
            let mut args: Vec<String> = vec!["run".into(), "-i".into(), "--rm".into()];
            // A container sees only the variables passed to it by name.
            for name in env.keys() {
                args.push("-e".into());
                args.push(name.clone());
            }
            args.extend(runtime_args);
            let tagged = package
                .identifier
                .rsplit('/')
                .next()
                .is_some_and(|last| last.contains(':') || last.contains('@'));
            args.push(match version {
                Some(version) if !tagged => format!("{}:{version}", package.identifier),
                _ => package.identifier.clone(),
            });
            ("docker", args)
        }
        "nuget" => {
            let mut args = runtime_args;
            args.push(match version {
                Some(version) => format!("{}@{version}", package.identifier),
                None => package.identifier.clone(),
            });
            args.push("--yes".into());
            // dnx passes what follows `--` to the tool.
            if !package_args.is_empty() {
                args.push("--".into());
            }
            ("dnx", args)
        }
        "mcpb" => {
            let Some(sha256) = package.file_sha256.clone() else {
                return Err(ResolveError::UnverifiedBundle(server.name.clone()));
            };
            resolved.download = Some(McpbDownload {
                url: package.identifier.clone(),
                sha256: sha256.to_ascii_lowercase(),
            });
            // The command comes from the bundle's manifest, once it is verified.
            resolved.entry = json!({"env": env});
            return Ok(());
        }
        other => {
            return Err(ResolveError::UnknownRegistryType {
                server: server.name.clone(),
                types: vec![other.to_owned()],
            });
        }
    };
    args.extend(package_args);
    let command = package
        .runtime_hint
        .clone()
        .unwrap_or_else(|| default_command.to_owned());
    let mut entry = Map::new();
    entry.insert("command".into(), Value::String(command));
    entry.insert("args".into(), json!(args));
    if !env.is_empty() {
        entry.insert("env".into(), Value::Object(env));
    }
    resolved.entry = Value::Object(entry);
    Ok(())
}

fn resolve_remote(
    server: &ServerJson,
    remote: &Remote,
    options: &ResolveOptions,
    resolved: &mut Resolved,
) -> Result<(), ResolveError> {
    let kind = match remote.kind.as_str() {
        "streamable-http" => "http",
        "sse" => "sse",
        other => {
            return Err(ResolveError::UnknownTransport {
                server: server.name.clone(),
                transport: other.to_owned(),
            });
        }
    };
    // A URL must be whole: every variable needs a value, given or its own.
    for variable in template_variables(&remote.url) {
        let known = options.values.contains_key(variable)
            || remote
                .variables
                .get(variable)
                .is_some_and(|input| input.value.is_some() || input.default.is_some());
        if !known {
            return Err(ResolveError::MissingVariable {
                server: server.name.clone(),
                variable: variable.to_owned(),
            });
        }
    }
    let url = fill_variables(&remote.url, &remote.variables, options, resolved);
    let mut headers = Map::new();
    for header in &remote.headers {
        if let Some(value) = input_value(&header.name, &header.input, options, resolved) {
            if header.input.is_secret {
                for name in resolved.required_env.clone() {
                    if value.contains(&format!("${{env:{name}}}"))
                        && !resolved.secret_env.contains(&name)
                    {
                        resolved.secret_env.push(name);
                    }
                }
            }
            headers.insert(header.name.clone(), Value::String(value));
        }
    }
    resolved.choice = Choice::Remote { url: url.clone() };
    let mut entry = Map::new();
    entry.insert("type".into(), Value::String(kind.into()));
    entry.insert("url".into(), Value::String(url));
    if !headers.is_empty() {
        entry.insert("headers".into(), Value::Object(headers));
    }
    resolved.entry = Value::Object(entry);
    Ok(())
}

/// The entry of an unpacked, verified `mcpb` bundle: its `manifest.json`'s
/// `server.mcp_config` (`command`, `args`, `env`), `${__dirname}` being
/// the bundle's folder, with the resolved environment added.
pub fn mcpb_entry(resolved: &Resolved, bundle_dir: &std::path::Path) -> Result<Value, String> {
    let manifest_path = bundle_dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|error| format!("{}: {error}", manifest_path.display()))?;
    let manifest: Value = serde_json::from_str(&text)
        .map_err(|error| format!("{}: {error}", manifest_path.display()))?;
    let config = manifest
        .get("server")
        .and_then(|server| server.get("mcp_config"))
        .ok_or_else(|| format!("{}: no server.mcp_config", manifest_path.display()))?;
    let dir = bundle_dir.display().to_string();
    let fill = |text: &str| text.replace("${__dirname}", &dir);
    let command = config
        .get("command")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            format!(
                "{}: server.mcp_config has no command",
                manifest_path.display()
            )
        })?;
    let args: Vec<String> = config
        .get("args")
        .and_then(Value::as_array)
        .map(|args| args.iter().filter_map(Value::as_str).map(fill).collect())
        .unwrap_or_default();
    let mut env = Map::new();
    if let Some(Value::Object(own)) = config.get("env") {
        for (name, value) in own {
            if let Some(value) = value.as_str() {
                env.insert(name.clone(), Value::String(fill(value)));
            }
        }
    }
    if let Some(Value::Object(given)) = resolved.entry.get("env") {
        env.extend(given.clone());
    }
    let mut entry = Map::new();
    entry.insert("command".into(), Value::String(fill(command)));
    entry.insert("args".into(), json!(args));
    if !env.is_empty() {
        entry.insert("env".into(), Value::Object(env));
    }
    entry.insert("cwd".into(), Value::String(dir));
    Ok(Value::Object(entry))
}
