//! `mcp-cli registry search|show|add` and `discover --from-registry`: the
//! MCP Registry through `mcpdisco::registry`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpdisco::config::{self, Added, ParseOptions, ProcessEnv, ServerConfig};
use mcpdisco::registry::{
    Choice, DEFAULT_REGISTRY, RegistryClient, RegistryEntry, RegistryOptions, ResolveOptions,
    Resolved, SearchQuery, mcpb_entry, resolve,
};
use serde_json::{Value, json};

use crate::cli::{GlobalOptions, RegistryCommand, ResolveArgs};
use crate::error::UsageError;
use crate::exit;
use crate::load::Loaded;
use crate::output::print_json;
use crate::style::Style;

/// The client `global` asks for: `--registry` (or `MCP_REGISTRY_URL`), the
/// answers cached beside the discovery cache unless `--no-cache`.
fn client(global: &GlobalOptions) -> Result<RegistryClient, UsageError> {
    let cache_dir = if global.no_cache {
        None
    } else {
        global
            .cache_dir
            .clone()
            .or_else(mcpdisco::cache::Cache::default_dir)
            .map(|dir| dir.join("registry"))
    };
    Ok(RegistryClient::new(RegistryOptions {
        base_url: global
            .registry
            .clone()
            .unwrap_or_else(|| DEFAULT_REGISTRY.to_owned()),
        cache_dir,
        refresh: global.refresh,
        ..RegistryOptions::default()
    })?)
}

fn resolve_options(args: &ResolveArgs) -> ResolveOptions {
    ResolveOptions {
        prefer_remote: args.remote,
        registry_type: args.registry_type.clone(),
        values: args.vars.iter().cloned().collect(),
    }
}

/// What an entry runs: `npm @acme/files@1.2.0`, `remote`, or its package types.
fn runs(entry: &RegistryEntry) -> String {
    let mut kinds: Vec<String> = entry
        .server
        .packages
        .iter()
        .map(|p| match &p.version {
            Some(version) => format!("{} {}@{version}", p.registry_type, p.identifier),
            None => format!("{} {}", p.registry_type, p.identifier),
        })
        .collect();
    if !entry.server.remotes.is_empty() {
        kinds.push(format!("remote ({})", entry.server.remotes[0].kind));
    }
    kinds.join(", ")
}

fn warn_all(warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
}

/// Runs a `registry` subcommand.
pub async fn run(
    global: &GlobalOptions,
    command: &RegistryCommand,
) -> Result<ExitCode, UsageError> {
    let client = client(global)?;
    match command {
        RegistryCommand::Search { query, limit, all } => {
            let found = client
                .search(&SearchQuery {
                    search: Some(query.clone()),
                    limit: Some(*limit),
                    latest_only: true,
                    include_inactive: *all,
                    ..SearchQuery::default()
                })
                .await?;
            warn_all(&found.warnings);
            if global.json {
                let servers: Vec<Value> = found
                    .entries
                    .iter()
                    .map(|entry| {
                        json!({
                            "name": entry.server.name,
                            "version": entry.server.version,
                            "description": entry.server.description,
                            "status": entry.official.status.as_deref().unwrap_or("active"),
                            "runs": runs(entry),
                        })
                    })
                    .collect();
                print_json(&json!({"registry": client.base_url(), "servers": servers}));
            } else {
                let style = Style::detect();
                let mut table = crate::render::table(
                    &["NAME", "VERSION", "STATUS", "RUNS", "DESCRIPTION"],
                    style,
                );
                for entry in &found.entries {
                    table.add_row(vec![
                        entry.server.name.clone(),
                        entry.server.version.clone(),
                        entry
                            .official
                            .status
                            .clone()
                            .unwrap_or_else(|| "active".into()),
                        runs(entry),
                        entry.server.description.clone(),
                    ]);
                }
                println!("{table}");
                println!(
                    "{} server(s) from {}",
                    found.entries.len(),
                    client.base_url()
                );
            }
            Ok(ExitCode::from(exit::OK))
        }
        RegistryCommand::Show {
            name,
            version,
            resolve: args,
        } => {
            let (entry, warnings) = client.get(name, version.as_deref()).await?;
            warn_all(&warnings);
            let resolved = resolve(&entry.server, &resolve_options(args));
            if global.json {
                let (resolved_json, error) = match &resolved {
                    Ok(resolved) => (
                        json!({"name": resolved.name, "entry": resolved.entry,
                               "requiredEnv": resolved.required_env, "secretEnv": resolved.secret_env}),
                        Value::Null,
                    ),
                    Err(error) => (Value::Null, json!(error.to_string())),
                };
                print_json(&json!({"server": entry.server, "official": entry.official,
                                   "resolved": resolved_json, "resolveError": error}));
            } else {
                println!(
                    "{} {}  ({})",
                    entry.server.name,
                    entry.server.version,
                    entry.official.status.as_deref().unwrap_or("active")
                );
                println!("{}", entry.server.description);
                if let Some(message) = &entry.official.status_message {
                    println!("status: {message}");
                }
                println!("runs: {}", runs(&entry));
                match &resolved {
                    Ok(resolved) => {
                        println!("\nas a config entry ('{}'):", resolved.name);
                        println!(
                            "{}",
                            serde_json::to_string_pretty(&resolved.entry).unwrap_or_default()
                        );
                        for name in &resolved.required_env {
                            let secret = if resolved.secret_env.contains(name) {
                                " (secret)"
                            } else {
                                ""
                            };
                            println!("needs {name}{secret} in the environment");
                        }
                    }
                    Err(error) => println!("\ncannot be resolved: {error}"),
                }
            }
            Ok(ExitCode::from(exit::OK))
        }
        RegistryCommand::Add {
            name,
            version,
            to,
            local_name,
            replace,
            resolve: args,
        } => {
            let (entry, warnings) = client.get(name, version.as_deref()).await?;
            warn_all(&warnings);
            let mut resolved = resolve(&entry.server, &resolve_options(args))
                .map_err(|error| UsageError::Registry(error.to_string()))?;
            complete_bundle(global, &client, &mut resolved).await?;
            let path = match to {
                Some(path) => path.clone(),
                None => default_target()?,
            };
            let local = local_name.clone().unwrap_or_else(|| resolved.name.clone());
            let added = config::add_server(&path, &local, &resolved.entry, *replace)?;
            let verb = match added {
                Added::Added => "added",
                Added::Replaced => "replaced",
                Added::Created => "created with",
            };
            println!(
                "{} '{local}' ({}) in {}",
                verb,
                chosen(&resolved),
                path.display()
            );
            for missing in resolved.missing_env(&ProcessEnv) {
                let secret = if resolved.secret_env.contains(&missing) {
                    " (secret)"
                } else {
                    ""
                };
                eprintln!("note: set {missing}{secret} in the environment before using '{local}'");
            }
            Ok(ExitCode::from(exit::OK))
        }
    }
}

fn chosen(resolved: &Resolved) -> String {
    match &resolved.choice {
        Choice::Package {
            registry_type,
            identifier,
            version,
        } => match version {
            Some(version) => format!("{registry_type} {identifier} {version}"),
            None => format!("{registry_type} {identifier}"),
        },
        Choice::Remote { url } => format!(
            "remote {}",
            mcpdisco::config::ServerConfig::http("x", url.clone())
                .summary()
                .trim_start_matches("http: ")
        ),
    }
}

/// The first config found, else `./.mcp.json`.
fn default_target() -> Result<PathBuf, UsageError> {
    let cwd = std::env::current_dir().map_err(UsageError::CurrentDir)?;
    let home = dirs::home_dir();
    let candidates = config::candidates(&cwd, home.as_deref());
    Ok(
        match config::first_found(&candidates, &ProcessEnv, &ParseOptions::default()) {
            Some((found, _)) => found.path,
            None => cwd.join(".mcp.json"),
        },
    )
}

/// For an `mcpb` package: downloads and verifies the bundle, and takes
/// its command from its manifest.
async fn complete_bundle(
    global: &GlobalOptions,
    client: &RegistryClient,
    resolved: &mut Resolved,
) -> Result<(), UsageError> {
    let Some(download) = resolved.download.clone() else {
        return Ok(());
    };
    let dir = global
        .cache_dir
        .clone()
        .or_else(mcpdisco::cache::Cache::default_dir)
        .unwrap_or_else(std::env::temp_dir)
        .join("bundles");
    let unpacked = client
        .fetch_bundle(&download.url, &download.sha256, &dir)
        .await?;
    resolved.entry = mcpb_entry(resolved, &unpacked).map_err(UsageError::Registry)?;
    Ok(())
}

/// The servers of `discover --from-registry QUERY`, resolved and loaded
/// as a config would be. Servers that cannot be resolved, or need
/// variables that are not set, are left out with a warning each.
pub async fn servers_from_registry(
    global: &GlobalOptions,
    query: &str,
    limit: usize,
) -> Result<Loaded, UsageError> {
    let client = client(global)?;
    let found = client
        .search(&SearchQuery {
            search: Some(query.to_owned()),
            limit: Some(limit),
            latest_only: true,
            ..SearchQuery::default()
        })
        .await?;
    let mut warnings = found.warnings.clone();
    let mut servers = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for entry in &found.entries {
        let mut resolved = match resolve(&entry.server, &ResolveOptions::default()) {
            Ok(resolved) => resolved,
            Err(error) => {
                warnings.push(format!("{error}; left out"));
                continue;
            }
        };
        let missing = resolved.missing_env(&ProcessEnv);
        if !missing.is_empty() {
            warnings.push(format!(
                "{}: needs {} in the environment; left out",
                entry.server.name,
                missing.join(", ")
            ));
            continue;
        }
        if let Err(error) = complete_bundle(global, &client, &mut resolved).await {
            warnings.push(format!("{}: {error}; left out", entry.server.name));
            continue;
        }
        let mut name = resolved.name.clone();
        let mut counter = 2;
        while names.contains(&name) {
            name = format!("{}-{counter}", resolved.name);
            counter += 1;
        }
        names.push(name.clone());
        let text = json!({"mcpServers": {name.clone(): resolved.entry}}).to_string();
        let source = Path::new(client.base_url()).join(&entry.server.name);
        match config::parse_str_with(&source, &text, &ProcessEnv, &ParseOptions::default()) {
            Ok(file) => servers.extend(file.servers.into_iter().map(|mut server: ServerConfig| {
                server.source = PathBuf::from(format!("registry: {}", entry.server.name));
                server
            })),
            Err(error) => warnings.push(format!("{}: {error}; left out", entry.server.name)),
        }
    }
    if servers.is_empty() && warnings.is_empty() {
        warnings.push(format!(
            "no server in {} matches '{query}'",
            client.base_url()
        ));
    }
    Ok(Loaded {
        files: Vec::new(),
        candidates: Vec::new(),
        servers,
        warnings,
        ..Loaded::default()
    })
}
