//! `mcp-cli registry search|show|add` and `discover --from-registry`: the
//! flags made into `mcpdisco::registry` calls, and what they give rendered.
//! The workflow (resolving, fetching bundles, writing the config, reading
//! the servers) is the library's.

use std::process::ExitCode;

use mcpdisco::config::{Added, ProcessEnv, ServerEntry};
use mcpdisco::registry::{
    AddOptions, McpbDownload, Official, RegistryClient, RegistryEntry, RegistryOptions,
    RegistryWarning, ResolveOptions, Resolved, ResolvedEntry, SearchQuery, ServerJson,
};
use serde::Serialize;

use crate::cli::{GlobalOptions, RegistryCommand, ResolveArgs};
use crate::error::UsageError;
use crate::exit;
use crate::load::Loaded;
use crate::output::print_json;
use crate::style::Style;

/// The client `global` asks for: `--registry` (or `MCP_REGISTRY_URL`), the
/// answers cached beside the discovery cache unless `--no-cache`, bundles
/// kept beside it.
fn client(global: &GlobalOptions) -> Result<RegistryClient, UsageError> {
    let mut options = RegistryOptions::default().refresh(global.refresh);
    if let Some(url) = &global.registry {
        options = options.base_url(url.clone());
    }
    if global.no_cache {
        options = options.cache_dir(None);
    }
    if let Some(dir) = &global.cache_dir {
        if !global.no_cache {
            options = options.cache_dir(dir.join("registry"));
        }
        options = options.bundle_dir(dir.join("bundles"));
    }
    Ok(RegistryClient::new(options)?)
}

fn resolve_options(args: &ResolveArgs) -> ResolveOptions {
    ResolveOptions::default()
        .prefer_remote(args.remote)
        .registry_type(args.registry_type.clone())
        .values(args.vars.iter().cloned())
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
    if let Some(remote) = entry.server.remotes.first() {
        kinds.push(format!("remote ({})", remote.kind));
    }
    kinds.join(", ")
}

fn status(official: &Official) -> &str {
    official.status.as_deref().unwrap_or("active")
}

fn warn_all(warnings: &[RegistryWarning]) {
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
}

/// `registry search --json`.
#[derive(Serialize)]
struct SearchOutput<'a> {
    registry: &'a str,
    servers: Vec<FoundServer<'a>>,
}

/// One server found.
#[derive(Serialize)]
struct FoundServer<'a> {
    name: &'a str,
    version: &'a str,
    description: &'a str,
    status: &'a str,
    runs: String,
}

/// `registry show --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ShowOutput<'a> {
    server: &'a ServerJson,
    official: &'a Official,
    resolved: Option<ResolvedOutput<'a>>,
    resolve_error: Option<String>,
}

/// A resolution, as `registry show --json` gives it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResolvedOutput<'a> {
    name: &'a str,
    /// The config entry; `null` for a bundle, whose entry its manifest gives.
    entry: Option<&'a ServerEntry>,
    /// The bundle to fetch first.
    #[serde(skip_serializing_if = "Option::is_none")]
    bundle: Option<BundleOutput<'a>>,
    required_env: &'a [String],
    secret_env: &'a [String],
}

/// A bundle to fetch.
#[derive(Serialize)]
struct BundleOutput<'a> {
    url: &'a str,
    sha256: &'a str,
}

impl<'a> ResolvedOutput<'a> {
    fn of(resolved: &'a Resolved) -> Self {
        let bundle = match &resolved.entry {
            ResolvedEntry::Bundle(bundle) => Some(BundleOutput::of(&bundle.download)),
            _ => None,
        };
        Self {
            name: &resolved.name,
            entry: resolved.entry.ready(),
            bundle,
            required_env: &resolved.required_env,
            secret_env: &resolved.secret_env,
        }
    }
}

impl<'a> BundleOutput<'a> {
    fn of(download: &'a McpbDownload) -> Self {
        Self {
            url: &download.url,
            sha256: &download.sha256,
        }
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
            let query = SearchQuery::matching(query.clone())
                .limit(*limit)
                .latest_only(true)
                .include_inactive(*all);
            let found = client.search(&query).await?;
            warn_all(&found.warnings);
            if global.json {
                let servers = found
                    .entries
                    .iter()
                    .map(|entry| FoundServer {
                        name: &entry.server.name,
                        version: &entry.server.version,
                        description: &entry.server.description,
                        status: status(&entry.official),
                        runs: runs(entry),
                    })
                    .collect();
                print_json(&SearchOutput {
                    registry: client.base_url(),
                    servers,
                });
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
                        status(&entry.official).to_owned(),
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
            let lookup = client
                .look_up(name, version.as_deref(), &resolve_options(args))
                .await?;
            warn_all(&lookup.warnings);
            let entry = &lookup.entry;
            if global.json {
                print_json(&ShowOutput {
                    server: &entry.server,
                    official: &entry.official,
                    resolved: lookup.resolved.as_ref().ok().map(ResolvedOutput::of),
                    resolve_error: lookup.resolved.as_ref().err().map(ToString::to_string),
                });
            } else {
                println!(
                    "{} {}  ({})",
                    entry.server.name,
                    entry.server.version,
                    status(&entry.official)
                );
                println!("{}", entry.server.description);
                if let Some(message) = &entry.official.status_message {
                    println!("status: {message}");
                }
                println!("runs: {}", runs(entry));
                match &lookup.resolved {
                    Ok(resolved) => show_resolved(resolved),
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
            let lookup = client
                .look_up(name, version.as_deref(), &resolve_options(args))
                .await?;
            warn_all(&lookup.warnings);
            let mut options = AddOptions::default().replace(*replace);
            if let Some(path) = to {
                options = options.to(path.clone());
            }
            if let Some(local_name) = local_name {
                options = options.local_name(local_name.clone());
            }
            let added = client.add(&lookup, &options, &ProcessEnv).await?;
            let verb = match added.added {
                Added::Added => "added",
                Added::Replaced => "replaced",
                Added::Created => "created with",
            };
            println!(
                "{verb} '{}' ({}) in {}",
                added.name,
                added.choice,
                added.path.display()
            );
            for missing in &added.missing_env {
                eprintln!(
                    "note: set {missing} in the environment before using '{}'",
                    added.name
                );
            }
            Ok(ExitCode::from(exit::OK))
        }
    }
}

/// The entry `resolved` gives, and the variables it needs.
fn show_resolved(resolved: &Resolved) {
    match &resolved.entry {
        ResolvedEntry::Ready(entry) => {
            println!("\nas a config entry ('{}'):", resolved.name);
            println!(
                "{}",
                serde_json::to_string_pretty(entry).unwrap_or_default()
            );
        }
        ResolvedEntry::Bundle(bundle) => println!(
            "\nas a config entry ('{}'): the command of the bundle {} (SHA-256 {}), once downloaded and verified",
            resolved.name, bundle.download.url, bundle.download.sha256
        ),
    }
    for required in resolved.required() {
        println!("needs {required} in the environment");
    }
}

/// The servers of `discover --from-registry QUERY`, resolved and read as
/// a config's would be; those left out are warnings.
pub async fn servers_from_registry(
    global: &GlobalOptions,
    query: &str,
    limit: usize,
) -> Result<Loaded, UsageError> {
    let client = client(global)?;
    let query = SearchQuery::matching(query).limit(limit).latest_only(true);
    let found = client.server_configs(&query, &ProcessEnv).await?;
    Ok(Loaded {
        servers: found.servers,
        warnings: found.warnings.iter().map(ToString::to_string).collect(),
        ..Loaded::default()
    })
}
