//! Human-readable output: tables and per-server sections.

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};
use mcp_discovery::RawJson;
use mcp_discovery::catalog::{Catalog, CatalogEntry};
use mcp_discovery::discovery::{DiscoveryReport, ServerReport, ServerStatus, StatusSummary};
use mcp_discovery::session::ListKind;
use serde_json::Value;

use crate::signature::{prompt_signature, tool_signature};
use crate::style::Style;

/// A table without borders, wrapped to the terminal's width.
pub fn table(header: &[&str], style: Style) -> Table {
    let mut table = Table::new();
    table
        .load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.iter().map(|title| style.bold(title)));
    table
}

/// `ready` in green, `failed` in red, `disabled` dim.
pub fn status(status: ServerStatus, style: Style) -> String {
    let text = status.to_string();
    match status {
        ServerStatus::Ready => style.good(&text),
        ServerStatus::Failed => style.bad(&text),
        ServerStatus::Disabled => style.dim(&text),
    }
}

/// "12 s ago", "3 min ago", "5 h ago", "2 d ago".
pub fn age(fetched_at_ms: u64, now_ms: u64) -> String {
    let seconds = now_ms.saturating_sub(fetched_at_ms) / 1000;
    match seconds {
        0..60 => format!("{seconds} s ago"),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..86_400 => format!("{} h ago", seconds / 3600),
        _ => format!("{} d ago", seconds / 86_400),
    }
}

/// "4 configured, 3 enabled: 2 ready, 1 failed; 1 disabled".
pub fn summary(summary: &StatusSummary) -> String {
    format!(
        "{} configured, {} enabled: {} ready, {} failed; {} disabled",
        summary.configured, summary.enabled, summary.ready, summary.failed, summary.disabled
    )
}

fn server_info(report: &ServerReport) -> String {
    let Some(info) = &report.server_info else {
        return String::new();
    };
    let name = info.get("name").and_then(Value::as_str).unwrap_or("?");
    match info.get("version").and_then(Value::as_str) {
        Some(version) => format!("{name} {version}"),
        None => name.to_owned(),
    }
}

fn timing(report: &ServerReport, now_ms: u64) -> String {
    match (report.from_cache, report.fetched_at_ms) {
        (true, Some(at)) => format!("cached, {}", age(at, now_ms)),
        _ if report.status == ServerStatus::Disabled => String::new(),
        _ => format!("{} ms", report.duration_ms),
    }
}

/// The `discover` output: one overview row per server, then each ready
/// server's items, then the failures with their causes.
pub fn discover(report: &DiscoveryReport, now_ms: u64, style: Style) -> String {
    let mut overview = table(
        &[
            "SERVER",
            "STATUS",
            "ERA",
            "VERSION",
            "SERVER INFO",
            "TOOLS",
            "RESOURCES",
            "TEMPLATES",
            "PROMPTS",
            "TIME",
        ],
        style,
    );
    for server in &report.servers {
        let count = |kind| {
            if server.status == ServerStatus::Ready {
                let n = server.items(kind).len();
                match server.list_errors.get(kind.method()) {
                    Some(_) => "error".to_owned(),
                    None => n.to_string(),
                }
            } else {
                String::new()
            }
        };
        overview.add_row(vec![
            server.name.clone(),
            status(server.status, style),
            server.era.map(|era| era.to_string()).unwrap_or_default(),
            server.protocol_version.clone().unwrap_or_default(),
            server_info(server),
            count(ListKind::Tools),
            count(ListKind::Resources),
            count(ListKind::ResourceTemplates),
            count(ListKind::Prompts),
            timing(server, now_ms),
        ]);
    }
    let mut out = format!("{overview}\n");
    for server in report
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Ready)
    {
        out.push_str(&format!("\n{}\n", style.bold(&server.name)));
        if let Some(instructions) = &server.instructions {
            let first = instructions.lines().next().unwrap_or_default();
            out.push_str(&format!("  {}\n", style.dim(first)));
        }
        section(&mut out, "tools", &server.tools, |tool| {
            (tool_signature(tool), first_line(tool.get("description")))
        });
        section(&mut out, "resources", &server.resources, |resource| {
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("?");
            (uri.to_owned(), label(resource))
        });
        section(
            &mut out,
            "resource templates",
            &server.resource_templates,
            |template| {
                let uri = template
                    .get("uriTemplate")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                (uri.to_owned(), label(template))
            },
        );
        section(&mut out, "prompts", &server.prompts, |prompt| {
            (
                prompt_signature(prompt),
                first_line(prompt.get("description")),
            )
        });
        for (method, failure) in &server.list_errors {
            out.push_str(&format!(
                "  {} {method}: {}\n",
                style.dim("note:"),
                failure.message
            ));
        }
    }
    failures(&mut out, &report.servers, style);
    out.push_str(&format!("\n{}\n", summary(&report.summary())));
    out
}

fn section(
    out: &mut String,
    title: &str,
    items: &[RawJson],
    row: impl Fn(&Value) -> (String, String),
) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("  {title} ({})\n", items.len()));
    let rows: Vec<(String, String)> = items.iter().map(|item| row(&readable(item))).collect();
    let width = rows
        .iter()
        .map(|(left, _)| left.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    for (left, right) in rows {
        if right.is_empty() {
            out.push_str(&format!("    {left}\n"));
        } else {
            out.push_str(&format!("    {left:<width$}  {right}\n"));
        }
    }
}

/// An item read for display; an unreadable one shows as empty.
fn readable(item: &RawJson) -> Value {
    item.to_value().unwrap_or(Value::Null)
}

fn label(item: &Value) -> String {
    let title = item
        .get("title")
        .or_else(|| item.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    match item.get("mimeType").and_then(Value::as_str) {
        Some(mime) if !title.is_empty() => format!("{title} ({mime})"),
        Some(mime) => format!("({mime})"),
        None => title.to_owned(),
    }
}

/// The first line of a description, cut at 100 characters.
pub fn first_line(description: Option<&Value>) -> String {
    let text = description.and_then(Value::as_str).unwrap_or_default();
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default()
        .trim();
    if line.chars().count() > 100 {
        let mut cut: String = line.chars().take(99).collect();
        cut.push('…');
        cut
    } else {
        line.to_owned()
    }
}

/// Appends a "failed" section naming each failed server's cause.
pub fn failures(out: &mut String, servers: &[ServerReport], style: Style) {
    let failed: Vec<&ServerReport> = servers
        .iter()
        .filter(|s| s.status == ServerStatus::Failed)
        .collect();
    if failed.is_empty() {
        return;
    }
    out.push_str(&format!("\n{}\n", style.bad("failed")));
    for server in failed {
        let message = server
            .error
            .as_ref()
            .map_or("unknown error", |e| e.message.as_str());
        out.push_str(&format!(
            "  {}: {}\n",
            style.bold(&server.name),
            indent_rest(message)
        ));
    }
}

fn indent_rest(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join("\n    ")
}

/// The flat view of one kind: namespaced name, signature or URI, description.
pub fn catalog(catalog: &Catalog, kind: ListKind, style: Style) -> String {
    let entries = catalog.entries(kind);
    type Row = fn(&CatalogEntry, &Value) -> Vec<String>;
    let (header, row): (&[&str], Row) = match kind {
        ListKind::Tools => (&["NAME", "SIGNATURE", "DESCRIPTION"], |entry, item| {
            vec![
                entry.qualified_name.clone(),
                tool_signature(item),
                first_line(item.get("description")),
            ]
        }),
        ListKind::Prompts => (&["NAME", "SIGNATURE", "DESCRIPTION"], |entry, item| {
            vec![
                entry.qualified_name.clone(),
                prompt_signature(item),
                first_line(item.get("description")),
            ]
        }),
        ListKind::Resources => (&["NAME", "URI", "TITLE"], |entry, item| {
            let uri = item.get("uri").and_then(Value::as_str).unwrap_or("?");
            vec![entry.qualified_name.clone(), uri.to_owned(), label(item)]
        }),
        ListKind::ResourceTemplates => (&["NAME", "URI TEMPLATE", "TITLE"], |entry, item| {
            let uri = item
                .get("uriTemplate")
                .and_then(Value::as_str)
                .unwrap_or("?");
            vec![entry.qualified_name.clone(), uri.to_owned(), label(item)]
        }),
    };
    if entries.is_empty() {
        return format!("no {}\n", kind_title(kind));
    }
    let mut table = table(header, style);
    for entry in entries {
        table.add_row(row(entry, &readable(&entry.item)));
    }
    format!("{table}\n")
}

/// "tools", "resources", "resource templates", "prompts".
pub fn kind_title(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::ResourceTemplates => "resource templates",
        ListKind::Prompts => "prompts",
    }
}

/// The text of a `tools/call` result: text blocks as they are, other blocks as JSON.
pub fn call_result(result: &Value) -> String {
    let mut out = String::new();
    if let Some(blocks) = result.get("content").and_then(Value::as_array) {
        for block in blocks {
            match (
                block.get("type").and_then(Value::as_str),
                block.get("text").and_then(Value::as_str),
            ) {
                (Some("text"), Some(text)) => out.push_str(text),
                _ => out.push_str(&block.to_string()),
            }
            out.push('\n');
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        if out.is_empty() {
            out.push_str(&serde_json::to_string_pretty(structured).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ages_read_well() {
        assert_eq!(age(0, 5_000), "5 s ago");
        assert_eq!(age(0, 180_000), "3 min ago");
        assert_eq!(age(0, 7_200_000), "2 h ago");
        assert_eq!(age(10, 0), "0 s ago");
    }

    #[test]
    fn discover_output_names_servers_counts_and_causes() {
        let mut ready = ServerReport::empty("notes", ServerStatus::Ready);
        ready.tools = vec![
            json!({"name": "add", "description": "Adds.\nMore.", "inputSchema": {"properties": {"a": {"type": "number"}}, "required": ["a"]}}).into(),
        ];
        ready.server_info = Some(json!({"name": "example", "version": "1.0"}));
        let mut failed = ServerReport::empty("broken", ServerStatus::Failed);
        failed.error = Some(mcp_discovery::discovery::Failure {
            kind: "exited".into(),
            message: "server 'broken' exited with status 3 during initialize: no key".into(),
        });
        let report = DiscoveryReport {
            servers: vec![ready, failed, ServerReport::disabled("off")],
        };
        let text = discover(&report, 0, Style::plain());
        assert!(text.contains("add(a: number)"), "{text}");
        assert!(text.contains("Adds."));
        assert!(!text.contains("More."));
        assert!(text.contains("example 1.0"));
        assert!(
            text.contains("broken: server 'broken' exited with status 3"),
            "{text}"
        );
        assert!(text.contains("3 configured, 2 enabled: 1 ready, 1 failed; 1 disabled"));
    }

    #[test]
    fn call_result_prints_text_blocks() {
        let result =
            json!({"content": [{"type": "text", "text": "5"}, {"type": "image", "data": "x"}]});
        assert_eq!(
            call_result(&result),
            "5\n{\"type\":\"image\",\"data\":\"x\"}\n"
        );
    }
}
