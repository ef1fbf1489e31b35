//! A `server.json` made into one of our config entries, a
//! [`ServerEntry`](crate::config::ServerEntry) (see [`Resolved`]).
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
//! `${env:NAME}` references (the config expands them at load; no secret is
//! written), and [`Resolved::missing_env`] names the ones not set. An input's fixed
//! `value` wins (the schema says users do not change it), then the caller's
//! value, then its default; `{variables}` are filled the same way; a named
//! argument of `format: boolean` is a bare flag when true; a required one that is still missing becomes an
//! `${env:NAME}` reference in an argument or header, and an error in a URL.

use mcpdisco_transport::http::HttpKind;

use super::inputs::{
    Needs, arguments, environment, fill_variables, input_value, template_variables,
};
use super::options::ResolveOptions;
use super::resolved::{Choice, McpbDownload, PendingBundle, ResolveError, Resolved, ResolvedEntry};
use super::types::{Package, Remote, ServerJson};
use crate::config::{EntryLaunch, ServerEntry};

const KNOWN_TYPES: &[&str] = &["npm", "pypi", "oci", "nuget", "mcpb"];

/// Resolves `server` as `options` ask.
pub fn resolve(server: &ServerJson, options: &ResolveOptions) -> Result<Resolved, ResolveError> {
    let mut needs = Needs::default();
    let remote_first = options.prefer_remote || server.packages.is_empty();
    let (choice, entry) = match server.remotes.first() {
        Some(remote) if remote_first => resolve_remote(server, remote, options, &mut needs)?,
        _ => {
            let package = choose_package(server, options)?;
            resolve_package(server, package, options, &mut needs)?
        }
    };
    Ok(Resolved {
        name: local_name(&server.name),
        entry,
        choice,
        required_env: needs.required_env,
        secret_env: needs.secret_env,
    })
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

/// How `package` runs, with the variables it needs noted in `needs`.
fn resolve_package(
    server: &ServerJson,
    package: &Package,
    options: &ResolveOptions,
    needs: &mut Needs,
) -> Result<(Choice, ResolvedEntry), ResolveError> {
    let choice = Choice::Package {
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
    let env = environment(&package.environment_variables, options, needs);
    let runtime_args = arguments(&package.runtime_arguments, options, needs);
    let package_args = arguments(&package.package_arguments, options, needs);
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
            for (name, _) in &env {
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
            // The command comes from the bundle's manifest, once it is verified.
            let bundle = PendingBundle {
                download: McpbDownload {
                    url: package.identifier.clone(),
                    sha256: sha256.to_ascii_lowercase(),
                },
                env,
                description: description(server),
            };
            return Ok((choice, ResolvedEntry::Bundle(bundle)));
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
    let entry = ServerEntry {
        launch: EntryLaunch::Stdio {
            command,
            args,
            env,
            cwd: None,
        },
        description: description(server),
    };
    Ok((choice, ResolvedEntry::Ready(entry)))
}

/// How `remote` is reached, with the variables it needs noted in `needs`.
fn resolve_remote(
    server: &ServerJson,
    remote: &Remote,
    options: &ResolveOptions,
    needs: &mut Needs,
) -> Result<(Choice, ResolvedEntry), ResolveError> {
    let kind = match remote.kind.as_str() {
        "streamable-http" => HttpKind::StreamableHttp,
        "sse" => HttpKind::Sse,
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
    let url = fill_variables(&remote.url, &remote.variables, options, needs);
    let mut headers = Vec::new();
    for header in &remote.headers {
        if let Some(value) = input_value(&header.name, &header.input, options, needs) {
            if header.input.is_secret {
                for name in needs.required_env.clone() {
                    if value.contains(&format!("${{env:{name}}}")) {
                        needs.secret(&name);
                    }
                }
            }
            headers.push((header.name.clone(), value));
        }
    }
    let choice = Choice::Remote { url: url.clone() };
    let entry = ServerEntry {
        launch: EntryLaunch::Http { url, headers, kind },
        description: description(server),
    };
    Ok((choice, ResolvedEntry::Ready(entry)))
}

/// The server's description, when it has one.
fn description(server: &ServerJson) -> Option<String> {
    (!server.description.is_empty()).then(|| server.description.clone())
}
