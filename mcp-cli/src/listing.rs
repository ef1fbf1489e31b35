//! The commands that show what servers offer: `servers`, `discover`,
//! `warm`, `tools`, `resources` and `prompts`.

use std::process::ExitCode;

use mcpdisco::catalog::{Catalog, CatalogEntry, NameClash, Naming};
use mcpdisco::config::ServerConfig;
use mcpdisco::discovery::{self, DiscoveryReport, ServerStatus, StatusSummary};
use mcpdisco_client::session::ListKind;
use serde_json::{Value, json};

use crate::capabilities;
use crate::context::Context;
use crate::error::UsageError;
use crate::exit;
use crate::output::print_json;
use crate::render;

/// `discover`: everything every server offers and, with pins, each item's
/// pin status; with `verify_pins`, every server asked afresh.
pub async fn discover(context: &Context<'_>, verify_pins: bool) -> Result<ExitCode, UsageError> {
    let (global, loaded, style) = (context.global, &context.loaded, context.style);
    let report = context.discover(&loaded.servers, verify_pins).await;
    let verification = capabilities::verify(global, loaded, &report).await?;
    let checks = &verification.servers;
    if global.json {
        let pins = (!checks.is_empty()).then(|| capabilities::statuses_json(checks));
        print_json(&DiscoverDocument {
            report: &report,
            pins,
        });
    } else {
        print!("{}", render::discover(&report, discovery_now(), style));
        for line in capabilities::summary_lines(checks) {
            println!("{line}");
        }
    }
    if verify_pins && verification.violated() {
        return Ok(ExitCode::from(exit::PINS_CHANGED));
    }
    Ok(status_of(&report))
}

/// `discover --json`'s document: the report's fields, then the pin statuses
/// when there are pins. Written straight from the report, so each item is
/// the text its server sent (no tree of every item is built to print it).
#[derive(serde::Serialize)]
struct DiscoverDocument<'a> {
    #[serde(flatten)]
    report: &'a DiscoveryReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pins: Option<Value>,
}

/// `warm`: refreshes the cache and prints the statistics.
pub async fn warm(context: &Context<'_>, if_stale: bool) -> ExitCode {
    let (global, loaded) = (context.global, &context.loaded);
    let options = context.discovery_options();
    if options.cache.is_none() {
        eprintln!("warning: --no-cache: the servers are asked, but nothing is stored");
    }
    let mode = if if_stale {
        discovery::WarmMode::IfStale
    } else {
        discovery::WarmMode::All
    };
    let (stats, report) = discovery::warm(&loaded.servers, &options, mode).await;
    context.warn_shared_cache();
    if global.json {
        let servers: Vec<Value> = report
            .servers
            .iter()
            .map(|server| json!({"name": server.name, "status": server.status, "error": server.error}))
            .collect();
        print_json(&json!({"stats": stats, "servers": servers}));
    } else {
        for server in &report.servers {
            if let Some(error) = &server.error {
                eprintln!("{}: {}", server.name, error.message);
            }
        }
        println!(
            "warmed {} server(s): {} succeeded, {} failed; {} item(s) cached; {} fresh and {} disabled left alone",
            stats.refreshed,
            stats.succeeded,
            stats.failed,
            stats.items_cached,
            stats.fresh,
            stats.disabled
        );
    }
    if stats.failed > 0 {
        ExitCode::from(exit::SERVER_FAILED)
    } else {
        ExitCode::from(exit::OK)
    }
}

/// The `--json` document of `tools`, `resources` and `prompts`: the entries
/// of the kinds asked for, the status summary, and the failed servers.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ListDocument<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a [CatalogEntry]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<&'a [CatalogEntry]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_templates: Option<&'a [CatalogEntry]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<&'a [CatalogEntry]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skills: Option<&'a [CatalogEntry]>,
    summary: &'a StatusSummary,
    failed: Vec<Value>,
    #[serde(skip_serializing_if = "<[NameClash]>::is_empty")]
    clashes: &'a [NameClash],
}

/// `tools`, `resources`, `prompts` and `skills`: the items of `kinds` of every server.
pub async fn list(context: &Context<'_>, kinds: &[ListKind]) -> ExitCode {
    let (global, style) = (context.global, context.style);
    let report = context.discover(&context.loaded.servers, false).await;
    let naming = Naming::of_servers(&global.separator, &context.loaded.servers);
    let catalog = Catalog::build(&report.servers, &naming);
    for clash in &catalog.clashes {
        eprintln!("error: {clash}");
    }
    let failed: Vec<Value> = report
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Failed)
        .map(|s| json!({"name": s.name, "error": s.error}))
        .collect();
    if global.json {
        let entries = |kind: ListKind| kinds.contains(&kind).then(|| catalog.entries(kind));
        print_json(&ListDocument {
            tools: entries(ListKind::Tools),
            resources: entries(ListKind::Resources),
            resource_templates: entries(ListKind::ResourceTemplates),
            prompts: entries(ListKind::Prompts),
            skills: entries(ListKind::Skills),
            summary: &catalog.summary,
            failed,
            clashes: &catalog.clashes,
        });
    } else {
        for (index, kind) in kinds.iter().enumerate() {
            if index > 0 {
                println!();
            }
            if kinds.len() > 1 {
                println!("{}", style.bold(render::kind_title(*kind)));
            }
            print!("{}", render::catalog(&catalog, *kind, style));
        }
        let mut out = String::new();
        render::failures(&mut out, &report.servers, style);
        print!("{out}");
        println!("\n{}", render::summary(&catalog.summary));
    }
    if catalog.clashes.is_empty() {
        status_of(&report)
    } else {
        // An item left out for a clash is a server that did not load whole.
        ExitCode::from(exit::SERVER_FAILED)
    }
}

/// `servers`: where each server comes from, and its last known status.
pub fn servers(context: &Context<'_>) -> ExitCode {
    let (global, loaded, style) = (context.global, &context.loaded, context.style);
    let options = context.discovery_options();
    let now = discovery_now();
    let masker = loaded.masker();
    // Entries are masked when stored; masking again covers entries an older version wrote.
    let last_status = |server: &ServerConfig| {
        let cache = options.cache.as_ref()?;
        let mut entry = cache.get(&options.fingerprint(server))?;
        entry.report.mask_failures(&masker);
        Some(entry)
    };
    if global.json {
        let servers: Vec<Value> = loaded
            .servers
            .iter()
            .map(|server| {
                let mut view = server.redacted();
                let last = last_status(server).map(|entry| {
                    json!({
                        "status": entry.report.status,
                        "fetchedAtMs": entry.fetched_at_ms,
                        "fresh": entry.is_fresh(now),
                        "error": entry.report.error,
                    })
                });
                if let Some(object) = view.as_object_mut() {
                    object.insert("lastStatus".to_owned(), last.unwrap_or(Value::Null));
                }
                view
            })
            .collect();
        let candidates: Vec<Value> = loaded
            .candidates
            .iter()
            .map(|c| json!({"path": c.path, "label": c.label, "found": c.exists, "used": loaded.files.contains(&c.path)}))
            .collect();
        print_json(&json!({"files": loaded.files, "searched": candidates, "servers": servers}));
        return ExitCode::from(exit::OK);
    }
    if !loaded.candidates.is_empty() {
        println!("{}", style.bold("config files"));
        for candidate in &loaded.candidates {
            let mark = if loaded.files.contains(&candidate.path) {
                style.good("used")
            } else if candidate.exists {
                "found".to_owned()
            } else {
                style.dim("-")
            };
            println!(
                "  {mark:<6} {} ({})",
                candidate.path.display(),
                candidate.label
            );
        }
        println!();
    }
    let mut table = render::table(
        &["SERVER", "ENABLED", "LAST STATUS", "LAUNCH", "ENV", "FROM"],
        style,
    );
    for server in &loaded.servers {
        let last = match last_status(server) {
            Some(entry) => {
                let age = render::age(entry.fetched_at_ms, now);
                let status = render::server_status(&entry.report, style);
                match &entry.report.error {
                    Some(error) => format!("{status} {age} ({})", error.kind),
                    None => format!("{status} {age}"),
                }
            }
            None => style.dim("unknown"),
        };
        table.add_row(vec![
            server.name.clone(),
            if server.enabled {
                "yes".to_owned()
            } else {
                style.dim("no")
            },
            last,
            server.summary(),
            server
                .env_policy()
                .map_or_else(|| style.dim("-"), |policy| policy.describe()),
            server.source.display().to_string(),
        ]);
    }
    println!("{}", table.trim_fmt());
    ExitCode::from(exit::OK)
}

fn discovery_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The exit status of a discovery: whether a server failed.
pub fn status_of(report: &DiscoveryReport) -> ExitCode {
    if report.summary().failed > 0 {
        ExitCode::from(exit::SERVER_FAILED)
    } else {
        ExitCode::from(exit::OK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco::discovery::ServerReport;
    use mcpdisco::protocol::RawJson;

    fn report() -> DiscoveryReport {
        let mut server = ServerReport::empty("s", ServerStatus::Ready);
        let tool = RawJson::parse(r#"{"name":"t","inputSchema":{"type":"object"}}"#).unwrap();
        server.set_items(ListKind::Tools, vec![tool]);
        DiscoveryReport {
            servers: vec![server],
        }
    }

    #[test]
    fn the_discover_document_keeps_each_item_as_its_server_sent_it() {
        let report = report();
        let document = DiscoverDocument {
            report: &report,
            pins: None,
        };
        let text = serde_json::to_string_pretty(&document).unwrap();
        assert!(
            text.contains(r#"{"name":"t","inputSchema":{"type":"object"}}"#),
            "{text}"
        );
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, serde_json::to_value(&report).unwrap());
        assert!(parsed.get("pins").is_none());
    }

    #[test]
    fn pin_statuses_follow_the_report() {
        let report = report();
        let document = DiscoverDocument {
            report: &report,
            pins: Some(json!({"s": {}})),
        };
        let parsed: Value = serde_json::to_value(&document).unwrap();
        let keys: Vec<&String> = parsed.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["servers", "pins"]);
    }
}
