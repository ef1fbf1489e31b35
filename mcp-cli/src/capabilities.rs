//! `export`, `pending`, `approve`, `revoke` and `pins diff`: tools as
//! capability manifests a person approves, and the pins that catch an
//! approved tool changing afterwards (`discover --verify-pins`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpdisco::approval::pins::{self as pin_rules, PinStore};
use mcpdisco::approval::{CapabilityDir, Formats, Stage};
use mcpdisco::discovery::{DiscoveryReport, ServerStatus};
use mcpdisco_capability::{ItemCheck, PinFile, PinStatus};
use serde_json::{Value, json};

use crate::cli::{ExportFormat, GlobalOptions};
use crate::context::Context;
use crate::error::UsageError;
use crate::exit;
use crate::load::Loaded;
use crate::output::print_json;
use crate::render::printable_str as printable;

/// The lock file: `--lock`, else beside the first config read.
pub fn lock_path(global: &GlobalOptions, loaded: &Loaded) -> PathBuf {
    match (&global.lock, loaded.files.first()) {
        (Some(path), _) => path.clone(),
        (None, Some(config)) => PinStore::path_beside(config),
        (None, None) => PathBuf::from(pin_rules::LOCK_FILE),
    }
}

/// Where the pins live: the lock file, and with `--cache redis://…` the
/// fleet's shared copy (`<prefix>pins`).
pub fn pin_store(global: &GlobalOptions, lock: &Path) -> PinStore {
    let store = PinStore::new(lock);
    match global.cache_url.as_deref().filter(|_| !global.no_cache) {
        Some(url) => match mcpdisco::cache::RedisStore::open(url, global.cache_prefix.clone()) {
            Ok(shared) => store.with_shared(shared),
            Err(_) => store,
        },
        None => store,
    }
}

/// The pins (the shared copy first, when there is one); what was passed
/// over is a warning.
pub async fn load_pins(global: &GlobalOptions, lock: &Path) -> Result<PinFile, UsageError> {
    let (pins, warnings) = pin_store(global, lock)
        .load()
        .await
        .map_err(|e| UsageError::Capabilities(e.to_string()))?;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    Ok(pins)
}

/// Writes the pins to the lock file and, with `--cache redis://…`, to the
/// fleet's shared copy (a failure there is a warning: the file has them).
pub async fn save_pins(
    global: &GlobalOptions,
    lock: &Path,
    pins: &PinFile,
) -> Result<(), UsageError> {
    let warnings = pin_store(global, lock)
        .save(pins)
        .await
        .map_err(|e| UsageError::Capabilities(e.to_string()))?;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    Ok(())
}

fn io_error(what: &str, path: &Path, error: std::io::Error) -> UsageError {
    UsageError::Capabilities(format!("{what} {}: {error}", path.display()))
}

/// `mcp-cli export`: one manifest per tool of every ready server, to `pending/`.
pub fn export(
    global: &GlobalOptions,
    loaded: &Loaded,
    report: &DiscoveryReport,
    dir: &Path,
    format: ExportFormat,
    outputs: &Outputs,
) -> Result<ExitCode, UsageError> {
    let mut manifests = Vec::new();
    for server_report in &report.servers {
        let Some(server) = loaded.servers.iter().find(|s| s.name == server_report.name) else {
            continue;
        };
        for tool in server_report.tools.raw() {
            let Some(mut manifest) = mcpdisco::approval::manifest_of(server, tool) else {
                continue;
            };
            if manifest.output.is_none() {
                manifest.output = outputs
                    .get(&(manifest.server.clone(), manifest.tool.clone()))
                    .cloned();
            }
            manifests.push(manifest);
        }
    }
    let formats = match format {
        ExportFormat::Rtfs => Formats::Rtfs,
        ExportFormat::Json => Formats::Json,
        ExportFormat::Both => Formats::Both,
    };
    let written = CapabilityDir::new(dir)
        .export(&manifests, formats)
        .map_err(|e| io_error("cannot write to", dir, e))?;
    if global.json {
        print_json(&json!({"exported": manifests.len(), "files": written}));
    } else {
        println!(
            "{} tools exported to {} ({} files); approve them with `mcp-cli approve <server>`",
            manifests.len(),
            dir.join("pending").display(),
            written.len()
        );
    }
    Ok(ExitCode::from(
        if report
            .servers
            .iter()
            .any(|s| s.status == ServerStatus::Failed)
        {
            exit::SERVER_FAILED
        } else {
            exit::OK
        },
    ))
}

/// Output types learnt by calling tools, by (server, tool).
pub type Outputs = std::collections::HashMap<(String, String), mcpdisco_capability::TypeExpr>;

/// `--introspect-output`: each eligible tool (read-only, not destructive, no
/// output schema) of each ready server called once; failures leave the type
/// unknown.
pub async fn introspect_outputs(context: &Context<'_>, report: &DiscoveryReport) -> Outputs {
    use mcpdisco::approval::introspect;
    let mut outputs = Outputs::new();
    for server_report in report
        .servers
        .iter()
        .filter(|r| r.status == ServerStatus::Ready)
    {
        let tools: Vec<Value> = server_report
            .tools
            .raw()
            .iter()
            .filter_map(|t| t.to_value().ok())
            .filter(introspect::eligible)
            .collect();
        let Some(server) = context
            .loaded
            .servers
            .iter()
            .find(|s| s.name == server_report.name)
        else {
            continue;
        };
        if tools.is_empty() {
            continue;
        }
        let connected = match context.connect(server).await {
            Ok(connected) => connected,
            Err(error) => {
                eprintln!("warning: no output types for '{}': {error}", server.name);
                continue;
            }
        };
        for tool in &tools {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            match introspect::introspect(&connected, tool).await {
                Some(ty) => {
                    outputs.insert((server.name.clone(), name), ty);
                }
                None => eprintln!(
                    "note: the output type of '{}' tool '{}' stays unknown",
                    server.name,
                    printable(&name)
                ),
            }
        }
        let _ = connected.close().await;
    }
    outputs
}

/// `mcp-cli pending`: what awaits approval.
pub fn pending(global: &GlobalOptions, dir: &Path) -> Result<ExitCode, UsageError> {
    let listed = CapabilityDir::new(dir)
        .list(Stage::Pending)
        .map_err(|e| io_error("cannot read", dir, e))?;
    if global.json {
        let items: Vec<Value> = listed
            .iter()
            .map(|l| json!({"server": l.server, "tool": l.tool, "files": l.files}))
            .collect();
        print_json(&json!({"pending": items}));
    } else if listed.is_empty() {
        println!(
            "nothing awaits approval in {}",
            dir.join("pending").display()
        );
    } else {
        for entry in &listed {
            println!("{}  {}", entry.server, entry.tool);
        }
    }
    Ok(ExitCode::from(exit::OK))
}

/// `mcp-cli approve`: pins every approved tool from `report`, a discovery
/// of the server made now, whatever format its manifests were exported in
/// (the manifest is what the user reviewed; the pin is what the server says
/// at approval), then moves the manifests. A whole server's approval also
/// pins its prompts, resources and templates. When the server cannot be
/// discovered, or no longer offers a tool being approved, nothing is
/// approved or pinned.
pub async fn approve(
    global: &GlobalOptions,
    loaded: &Loaded,
    dir: &Path,
    server_name: &str,
    tools: &[String],
    report: &DiscoveryReport,
) -> Result<ExitCode, UsageError> {
    let server = find_server(loaded, server_name)?;
    let capabilities = CapabilityDir::new(dir);
    let chosen = capabilities
        .selected(Stage::Pending, server_name, tools)
        .map_err(|e| io_error("cannot read manifests in", dir, e))?;
    if chosen.is_empty() {
        return nothing_to(global, "approve", server_name, dir);
    }
    let server_report = report
        .servers
        .iter()
        .find(|r| r.name == server_name)
        .filter(|r| r.status == ServerStatus::Ready)
        .ok_or_else(|| {
            let why = report
                .servers
                .iter()
                .find(|r| r.name == server_name)
                .and_then(|r| r.error.as_ref())
                .map_or_else(|| "it was not discovered".to_owned(), |e| e.message.clone());
            UsageError::Capabilities(format!(
                "cannot approve '{server_name}': approval pins what the server offers now, \
                 and discovering it failed: {why}. Nothing was approved or pinned."
            ))
        })?;
    let lock = lock_path(global, loaded);
    let mut pins = load_pins(global, &lock).await?;
    let stems: Vec<String> = chosen.iter().map(|c| c.tool.clone()).collect();
    let mut keys =
        pin_rules::pin_tools(&mut pins, server, server_report, &stems).map_err(|missing| {
            UsageError::Capabilities(format!(
                "cannot approve '{server_name}': it no longer offers {} (export again to review \
                 what it offers now). Nothing was approved or pinned.",
                missing
                    .iter()
                    .map(|m| format!("'{}'", printable(m)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    if tools.is_empty() {
        keys.extend(pins.pin_others(
            &pin_rules::scope_of(server),
            &pin_rules::items_of(server_report),
        ));
    }
    let moved = capabilities
        .approve(server_name, tools)
        .map_err(|e| io_error("cannot move manifests in", dir, e))?;
    save_pins(global, &lock, &pins).await?;
    report_moved(global, "approved", server_name, &moved, &keys, &lock);
    Ok(ExitCode::from(exit::OK))
}

/// `mcp-cli revoke`: moves the manifests back to pending and unpins their
/// tools (a whole server's revocation unpins everything of it).
pub async fn revoke(
    global: &GlobalOptions,
    loaded: &Loaded,
    dir: &Path,
    server_name: &str,
    tools: &[String],
) -> Result<ExitCode, UsageError> {
    let server = find_server(loaded, server_name)?;
    let moved = CapabilityDir::new(dir)
        .revoke(server_name, tools)
        .map_err(|e| io_error("cannot move manifests in", dir, e))?;
    let lock = lock_path(global, loaded);
    let mut pins = load_pins(global, &lock).await?;
    let mut keys: Vec<String> = moved
        .iter()
        .filter_map(|entry| pin_rules::unpin_tool_stem(&mut pins, server, &entry.tool))
        .collect();
    if tools.is_empty() {
        keys.extend(pins.unpin_others(&pin_rules::scope_of(server)));
    }
    save_pins(global, &lock, &pins).await?;
    if moved.is_empty() {
        return nothing_to(global, "revoke", server_name, dir);
    }
    report_moved(global, "revoked", server_name, &moved, &keys, &lock);
    Ok(ExitCode::from(exit::OK))
}

fn find_server<'a>(
    loaded: &'a Loaded,
    server_name: &str,
) -> Result<&'a mcpdisco::config::ServerConfig, UsageError> {
    Ok(loaded.server(server_name)?)
}

fn nothing_to(
    global: &GlobalOptions,
    verb: &str,
    server_name: &str,
    dir: &Path,
) -> Result<ExitCode, UsageError> {
    if global.json {
        let done = if verb == "approve" {
            "approved"
        } else {
            "revoked"
        };
        print_json(&json!({"server": server_name, done: [], "pins": []}));
    } else {
        println!("nothing to {verb} for '{server_name}' in {}", dir.display());
    }
    Ok(ExitCode::from(exit::OK))
}

fn report_moved(
    global: &GlobalOptions,
    verb: &str,
    server_name: &str,
    moved: &[mcpdisco::approval::Listed],
    keys: &[String],
    lock: &Path,
) {
    if global.json {
        let tools: Vec<&str> = moved.iter().map(|m| m.tool.as_str()).collect();
        print_json(&json!({"server": server_name, verb: tools, "pins": keys, "lock": lock}));
    } else {
        println!(
            "{verb} {} of '{server_name}' ({} pinned in {})",
            moved.len(),
            keys.len(),
            lock.display()
        );
    }
}

/// The pin checks of every server in `report` that has pins.
pub fn checks(
    loaded: &Loaded,
    pins: &PinFile,
    report: &DiscoveryReport,
) -> Vec<(String, Vec<ItemCheck>)> {
    report
        .servers
        .iter()
        .filter(|r| r.status == ServerStatus::Ready)
        .filter_map(|r| {
            let server = loaded.servers.iter().find(|s| s.name == r.name)?;
            let checks = pin_rules::check(pins, server, r);
            (!checks.is_empty()).then(|| (r.name.clone(), checks))
        })
        .collect()
}

/// Whether anything pinned changed or vanished, or a server with pins
/// offers something nobody approved (a rename is a removal and a new item).
pub fn violated(checks: &[(String, Vec<ItemCheck>)]) -> bool {
    checks
        .iter()
        .flat_map(|(_, c)| c)
        .any(|c| c.status != PinStatus::Unchanged)
}

/// The `pins` member of `discover --json`: server → item → status.
pub fn statuses_json(checks: &[(String, Vec<ItemCheck>)]) -> Value {
    let mut servers = serde_json::Map::new();
    for (server, items) in checks {
        let statuses: serde_json::Map<String, Value> = items
            .iter()
            .map(|c| (c.key.clone(), json!(c.status)))
            .collect();
        servers.insert(server.clone(), Value::Object(statuses));
    }
    Value::Object(servers)
}

/// One line per server whose pinned items changed, for the human output.
pub fn summary_lines(checks: &[(String, Vec<ItemCheck>)]) -> Vec<String> {
    checks
        .iter()
        .filter_map(|(server, items)| {
            let changed: Vec<&str> = items
                .iter()
                .filter(|c| c.status != PinStatus::Unchanged)
                .map(|c| c.key.as_str())
                .collect();
            (!changed.is_empty()).then(|| {
                format!(
                    "! {server}: not as approved: {} (see `mcp-cli pins diff {server}`)",
                    printable(&changed.join(", "))
                )
            })
        })
        .collect()
}

/// `mcp-cli pins diff [SERVER]`: what changed, field by field.
pub fn diff(global: &GlobalOptions, checks: &[(String, Vec<ItemCheck>)]) -> ExitCode {
    if global.json {
        let servers: serde_json::Map<String, Value> = checks
            .iter()
            .map(|(server, items)| (server.clone(), json!(items)))
            .collect();
        print_json(&json!({"servers": servers}));
        return ExitCode::from(exit::OK);
    }
    let mut any = false;
    for (server, items) in checks {
        for item in items.iter().filter(|c| c.status != PinStatus::Unchanged) {
            any = true;
            let status = match item.status {
                PinStatus::Changed => "changed",
                PinStatus::New => "new (not approved)",
                PinStatus::Removed => "removed",
                PinStatus::Unchanged => "unchanged",
            };
            println!("{server} {}: {status}", printable(&item.key));
            for change in &item.changes {
                println!("  {}", printable(&change.path));
                println!("    - {}", printable(&shown(&change.old)));
                println!("    + {}", printable(&shown(&change.new)));
            }
        }
    }
    if !any {
        println!("every pinned item is as approved");
    }
    ExitCode::from(exit::OK)
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "(absent)".into(),
        other => other.to_string(),
    }
}
