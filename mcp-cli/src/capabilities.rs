//! `export`, `pending`, `approve`, `revoke` and `pins diff`, and the pins
//! of `discover`: the flags made into the library's approval workflow
//! (`mcpdisco::approval`), and its outcomes, warnings and checks rendered.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpdisco::approval::{
    ApprovalError, ApprovalOutcome, Approvals, CapabilityDir, Formats, OutputTypes, PinStore,
    ServerChecks, Verification, Warning, introspect,
};
use mcpdisco::discovery::{DiscoveryReport, ServerStatus};
use mcpdisco_capability::PinStatus;
use serde_json::{Value, json};

use crate::cli::{ExportFormat, GlobalOptions};
use crate::context::Context;
use crate::error::UsageError;
use crate::exit;
use crate::load::Loaded;
use crate::output::print_json;
use crate::render::printable_str as printable;

/// The lock file: `--lock`, else the library's place for it (beside the
/// first config read).
pub fn lock_path(global: &GlobalOptions, loaded: &Loaded) -> PathBuf {
    global
        .lock
        .clone()
        .unwrap_or_else(|| PinStore::path_for(loaded))
}

/// Where the pins live: the lock file, and with `--cache redis://…` (and
/// not `--no-cache`) the fleet's shared copy (`<prefix>pins`).
fn pin_store(global: &GlobalOptions, loaded: &Loaded) -> PinStore {
    let store = PinStore::new(lock_path(global, loaded));
    match global.cache_url.as_deref().filter(|_| !global.no_cache) {
        Some(url) => store.with_shared_url(url, global.cache_prefix.clone()),
        None => store,
    }
}

fn approvals(global: &GlobalOptions, loaded: &Loaded, dir: &Path) -> Approvals {
    Approvals::new(CapabilityDir::new(dir), pin_store(global, loaded))
}

/// Says each warning on stderr (a type left unknown is a note).
fn say(warnings: &[Warning]) {
    for warning in warnings {
        let label = match warning {
            Warning::OutputTypeUnknown { .. } => "note",
            _ => "warning",
        };
        eprintln!("{label}: {}", printable(&warning.to_string()));
    }
}

/// Says the warnings an approval step had before it failed, and the
/// failure as a usage error.
fn failed(error: ApprovalError) -> UsageError {
    say(&error.warnings);
    UsageError::Capabilities(error.failure.to_string())
}

/// The pins checked against `report`, their warnings said.
pub async fn verify(
    global: &GlobalOptions,
    loaded: &Loaded,
    report: &DiscoveryReport,
) -> Result<Verification, UsageError> {
    let verification = pin_store(global, loaded)
        .verify(&loaded.servers, report)
        .await
        .map_err(|e| UsageError::Capabilities(e.to_string()))?;
    say(&verification.warnings);
    Ok(verification)
}

/// `--introspect-output`: the output types of each eligible tool
/// (read-only, not destructive, no output schema) of each ready server,
/// each server connected to as every command connects.
pub async fn output_types(context: &Context<'_>, report: &DiscoveryReport) -> OutputTypes {
    let learnt = introspect::output_types(&context.loaded.servers, report, async |server| {
        context.connect(server).await
    })
    .await;
    say(&learnt.warnings);
    learnt.types
}

/// `mcp-cli export`: one manifest per tool of every ready server, to `pending/`.
pub fn export(
    global: &GlobalOptions,
    loaded: &Loaded,
    report: &DiscoveryReport,
    dir: &Path,
    format: ExportFormat,
    outputs: &OutputTypes,
) -> Result<ExitCode, UsageError> {
    let formats = match format {
        ExportFormat::Rtfs => Formats::Rtfs,
        ExportFormat::Json => Formats::Json,
        ExportFormat::Both => Formats::Both,
    };
    let exported = approvals(global, loaded, dir)
        .export(&loaded.servers, report, outputs, formats)
        .map_err(failed)?;
    say(&exported.warnings);
    if global.json {
        print_json(&json!({"exported": exported.manifests.len(), "files": exported.files}));
    } else {
        println!(
            "{} tools exported to {} ({} files); approve them with `mcp-cli approve <server>`",
            exported.manifests.len(),
            dir.join("pending").display(),
            exported.files.len()
        );
    }
    let any_failed = report
        .servers
        .iter()
        .any(|s| s.status == ServerStatus::Failed);
    Ok(ExitCode::from(if any_failed {
        exit::SERVER_FAILED
    } else {
        exit::OK
    }))
}

/// `mcp-cli pending`: what awaits approval.
pub fn pending(
    global: &GlobalOptions,
    loaded: &Loaded,
    dir: &Path,
) -> Result<ExitCode, UsageError> {
    let listed = approvals(global, loaded, dir).pending().map_err(failed)?;
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

/// `mcp-cli approve`: the library's approval of `server_name`'s manifests
/// (all, or `tools`) against `report`, a discovery of it made now.
pub async fn approve(
    global: &GlobalOptions,
    loaded: &Loaded,
    dir: &Path,
    server_name: &str,
    tools: &[String],
    report: &DiscoveryReport,
) -> Result<ExitCode, UsageError> {
    let server = loaded.server(server_name)?;
    let outcome = approvals(global, loaded, dir)
        .approve(server, tools, report)
        .await
        .map_err(failed)?;
    Ok(said(global, "approve", "approved", dir, &outcome))
}

/// `mcp-cli revoke`: the library's revocation of `server_name`'s approval
/// (all, or `tools`).
pub async fn revoke(
    global: &GlobalOptions,
    loaded: &Loaded,
    dir: &Path,
    server_name: &str,
    tools: &[String],
) -> Result<ExitCode, UsageError> {
    let server = loaded.server(server_name)?;
    let outcome = approvals(global, loaded, dir)
        .revoke(server, tools)
        .await
        .map_err(failed)?;
    Ok(said(global, "revoke", "revoked", dir, &outcome))
}

/// What an approval or a revocation did, said.
fn said(
    global: &GlobalOptions,
    verb: &str,
    done: &str,
    dir: &Path,
    outcome: &ApprovalOutcome,
) -> ExitCode {
    say(&outcome.warnings);
    let server = &outcome.server;
    if outcome.manifests.is_empty() {
        if global.json {
            print_json(&json!({"server": server, done: [], "pins": []}));
        } else {
            println!("nothing to {verb} for '{server}' in {}", dir.display());
        }
    } else if global.json {
        let tools: Vec<&str> = outcome.manifests.iter().map(|m| m.tool.as_str()).collect();
        print_json(
            &json!({"server": server, done: tools, "pins": outcome.pins, "lock": outcome.lock}),
        );
    } else {
        println!(
            "{done} {} of '{server}' ({} pinned in {})",
            outcome.manifests.len(),
            outcome.pins.len(),
            outcome.lock.display()
        );
    }
    ExitCode::from(exit::OK)
}

/// The `pins` member of `discover --json`: server → item → status.
pub fn statuses_json(checks: &[ServerChecks]) -> Value {
    let mut servers = serde_json::Map::new();
    for checked in checks {
        let statuses: serde_json::Map<String, Value> = checked
            .items
            .iter()
            .map(|c| (c.key.clone(), json!(c.status)))
            .collect();
        servers.insert(checked.server.clone(), Value::Object(statuses));
    }
    Value::Object(servers)
}

/// One line per server whose pinned items changed, for the human output.
pub fn summary_lines(checks: &[ServerChecks]) -> Vec<String> {
    checks
        .iter()
        .filter_map(|checked| {
            let changed: Vec<&str> = checked.not_as_approved().map(|c| c.key.as_str()).collect();
            let server = &checked.server;
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
pub fn diff(global: &GlobalOptions, checks: &[ServerChecks]) -> ExitCode {
    if global.json {
        let servers: serde_json::Map<String, Value> = checks
            .iter()
            .map(|checked| (checked.server.clone(), json!(checked.items)))
            .collect();
        print_json(&json!({"servers": servers}));
        return ExitCode::from(exit::OK);
    }
    let mut any = false;
    for checked in checks {
        for item in checked.not_as_approved() {
            any = true;
            let status = match item.status {
                PinStatus::Changed => "changed",
                PinStatus::New => "new (not approved)",
                PinStatus::Removed => "removed",
                PinStatus::Unchanged => "unchanged",
            };
            println!("{} {}: {status}", checked.server, printable(&item.key));
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
