//! Human-readable output: tables and per-server sections.

use comfy_table::presets::NOTHING;
use comfy_table::{ContentArrangement, Table};
use mcpdisco::catalog::Catalog;
use mcpdisco::discovery::{DiscoveryReport, ServerReport, ServerStatus, StatusSummary};
use mcpdisco::doctor::{CheckStatus, Diagnosis};
use mcpdisco::protocol::{JsonView, RawJson, ResourceView, SkillView};
use mcpdisco_client::protocol::types::CallToolResult;
use mcpdisco_client::session::ListKind;

use crate::columns::{self, Layout};
use crate::style::Style;
use mcpdisco_capability::signature::{
    PromptView, ToolView, prompt_signature, shorten, text_or, tool_signature,
};

/// A table without borders, wrapped to the terminal's width (print it with `trim_fmt`).
pub fn table(header: &[&str], style: Style) -> Table {
    let mut table = Table::new();
    table
        .load_preset(NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.iter().map(|title| style.bold(title)));
    // Flush left and two spaces apart, like the item lists (`columns`).
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    table
}

/// A server's status in a table: `stale` (in red) for the last good
/// catalog kept after a failed refresh, else its status.
pub fn server_status(report: &ServerReport, style: Style) -> String {
    if report.stale {
        style.bad("stale")
    } else {
        status(report.status, style)
    }
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

/// "4 configured, 3 enabled: 2 ready, 1 failed; 1 disabled", with "(1
/// stale)" after the ready count when some are.
pub fn summary(summary: &StatusSummary) -> String {
    let stale = if summary.stale > 0 {
        format!(" ({} stale)", summary.stale)
    } else {
        String::new()
    };
    format!(
        "{} configured, {} enabled: {} ready{stale}, {} failed; {} disabled",
        summary.configured, summary.enabled, summary.ready, summary.failed, summary.disabled
    )
}

fn server_info(report: &ServerReport) -> String {
    let Some(info) = &report.server_info else {
        return String::new();
    };
    let name = if info.name.is_empty() {
        "?"
    } else {
        info.name.as_str()
    };
    printable(
        match Some(info.version.as_str()).filter(|v| !v.is_empty()) {
            Some(version) => format!("{name} {version}"),
            None => name.to_owned(),
        },
    )
}

/// A server's text made safe to print on one line: a tab becomes a space,
/// and any other control character (a line break, the start of an escape
/// sequence) becomes `�`.
pub(crate) fn printable_str(text: &str) -> String {
    printable(text.to_owned())
}

/// The same, for an owned text.
fn printable(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    text.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
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
            "SKILLS",
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
            server_status(server, style),
            server.era.map(|era| era.to_string()).unwrap_or_default(),
            server.protocol_version.clone().unwrap_or_default(),
            server_info(server),
            count(ListKind::Tools),
            count(ListKind::Resources),
            count(ListKind::ResourceTemplates),
            count(ListKind::Prompts),
            count(ListKind::Skills),
            timing(server, now_ms),
        ]);
    }
    let mut out = format!("{}\n", overview.trim_fmt());
    for server in report
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Ready)
    {
        out.push_str(&format!("\n{}\n", style.bold(&server.name)));
        if let Some(instructions) = &server.instructions {
            let first = instructions.lines().next().unwrap_or_default();
            out.push_str(&format!("  {}\n", style.dim(&printable(first.to_owned()))));
        }
        for kind in ListKind::ALL {
            section(&mut out, kind, server.items(kind), style);
        }
        for (method, failure) in &server.list_errors {
            out.push_str(&format!(
                "  {} {method}: {}\n",
                style.dim("note:"),
                printable(failure.message.clone())
            ));
        }
    }
    failures(&mut out, &report.servers, style);
    out.push_str(&format!("\n{}\n", summary(&report.summary())));
    out
}

fn section(out: &mut String, kind: ListKind, items: &[RawJson], style: Style) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("  {} ({})\n", kind_title(kind), items.len()));
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|item| {
            let (left, right) = item_texts(kind, JsonView::of(item));
            vec![left, right]
        })
        .collect();
    let layout = Layout {
        indent: 4,
        max_cell_width: 60,
        max_line_width: style.line_width(),
    };
    columns::write(out, &rows, layout);
}

/// What an item's line shows: a tool's or prompt's signature and the first
/// line of its description, a resource's URI (or template) and its title.
/// Read from the item's text; a member that is missing or of the wrong type
/// shows as `?` or nothing, and control characters as `�` ([`printable`]).
fn item_texts(kind: ListKind, item: JsonView<'_>) -> (String, String) {
    let (left, right) = match kind {
        ListKind::Tools => {
            let tool = ToolView::read(item);
            (tool_signature(&tool), first_line(tool.description))
        }
        ListKind::Prompts => {
            let prompt = PromptView::read(item);
            (prompt_signature(&prompt), first_line(prompt.description))
        }
        ListKind::Resources | ListKind::ResourceTemplates => {
            let resource = ResourceView::read(item, kind == ListKind::ResourceTemplates);
            (
                text_or(resource.uri, "?").into_owned(),
                label(resource.title.or(resource.name), resource.mime_type),
            )
        }
        ListKind::Skills => {
            let skill = SkillView::read(item);
            let files = match skill.file_count() {
                Some(count) => format!("{count} file(s)"),
                None => "dynamic".to_owned(),
            };
            let description = first_line(skill.description);
            (
                text_or(skill.uri, "?").into_owned(),
                if description.is_empty() {
                    format!("[{files}]")
                } else {
                    format!("{description} [{files}]")
                },
            )
        }
    };
    (printable(left), printable(right))
}

/// The checklists of `doctor`: one section per server, a line per check.
pub fn diagnoses(diagnoses: &[Diagnosis], style: Style) -> String {
    let mut out = String::new();
    for diagnosis in diagnoses {
        let verdict = if diagnosis.passed() {
            style.good("ok")
        } else {
            style.bad("problems")
        };
        out.push_str(&format!(
            "{} {}  {}\n",
            style.bold(&diagnosis.server),
            style.dim(&format!("({})", diagnosis.launch)),
            verdict
        ));
        for check in &diagnosis.checks {
            let mark = match check.status {
                CheckStatus::Pass => style.good("ok  "),
                CheckStatus::Warn => style.bad("warn"),
                CheckStatus::Fail => style.bad("FAIL"),
                CheckStatus::Skip => style.dim("-   "),
                CheckStatus::Info => style.dim("info"),
            };
            let mut lines = check.detail.lines();
            let first = printable(lines.next().unwrap_or_default().to_owned());
            out.push_str(&format!("  {mark} {:<10} {first}\n", check.name));
            for line in lines {
                out.push_str(&format!("  {:<15} {}\n", "", printable(line.to_owned())));
            }
            if let Some(hint) = &check.hint {
                out.push_str(&format!(
                    "  {:<15} {} {}\n",
                    "",
                    style.dim("->"),
                    printable(hint.clone())
                ));
            }
        }
        let timing = |label: &str, ms: Option<u64>| ms.map(|ms| format!("{label} {ms} ms"));
        let timings: Vec<String> = [
            timing("start", diagnosis.timings.start_ms),
            timing("handshake", diagnosis.timings.handshake_ms),
            timing("lists", diagnosis.timings.lists_ms),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !timings.is_empty() {
            out.push_str(&format!(
                "  {}\n",
                style.dim(&format!("time: {}", timings.join(", ")))
            ));
        }
        out.push('\n');
    }
    out
}

/// `Title (mime/type)`: the title (or name), then the MIME type when there is one.
fn label(title: Option<JsonView<'_>>, mime_type: Option<JsonView<'_>>) -> String {
    let title = text_or(title, "");
    match mime_type.and_then(JsonView::as_str) {
        Some(mime) if !title.is_empty() => format!("{title} ({mime})"),
        Some(mime) => format!("({mime})"),
        None => title.into_owned(),
    }
}

/// The first line of a description, cut at 100 characters.
pub fn first_line(description: Option<JsonView<'_>>) -> String {
    let text = text_or(description, "");
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default()
        .trim();
    shorten(line.to_owned(), 100)
}

/// Appends a "failed" section naming each failed server's cause, and a
/// "stale" one naming why each stale server's refresh failed.
pub fn failures(out: &mut String, servers: &[ServerReport], style: Style) {
    let failed: Vec<&ServerReport> = servers
        .iter()
        .filter(|s| s.status == ServerStatus::Failed)
        .collect();
    cause_section(out, "failed", &failed, style);
    let stale: Vec<&ServerReport> = servers.iter().filter(|s| s.stale).collect();
    cause_section(
        out,
        "stale (refreshing failed; the last good catalog is shown)",
        &stale,
        style,
    );
}

fn cause_section(out: &mut String, heading: &str, servers: &[&ServerReport], style: Style) {
    if servers.is_empty() {
        return;
    }
    out.push_str(&format!("\n{}\n", style.bad(heading)));
    for server in servers {
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
    if entries.is_empty() {
        return format!("no {}\n", kind_title(kind));
    }
    let header: &[&str] = match kind {
        ListKind::Tools | ListKind::Prompts => &["NAME", "SIGNATURE", "DESCRIPTION"],
        ListKind::Resources => &["NAME", "URI", "TITLE"],
        ListKind::ResourceTemplates => &["NAME", "URI TEMPLATE", "TITLE"],
        ListKind::Skills => &["NAME", "URI", "DESCRIPTION"],
    };
    let mut rows = Vec::with_capacity(entries.len() + 1);
    rows.push(header.iter().map(|title| style.bold(title)).collect());
    rows.extend(entries.iter().map(|entry| {
        let (left, right) = item_texts(kind, JsonView::of(&entry.item));
        vec![printable(entry.qualified_name.clone()), left, right]
    }));
    let mut out = String::with_capacity(rows.len() * 160);
    let layout = Layout {
        indent: 0,
        max_cell_width: 120,
        max_line_width: style.line_width(),
    };
    columns::write(&mut out, &rows, layout);
    out
}

/// "tools", "resources", "resource templates", "prompts", "skills".
pub fn kind_title(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::ResourceTemplates => "resource templates",
        ListKind::Prompts => "prompts",
        ListKind::Skills => "skills",
    }
}

/// A multi-line text as it may reach a terminal: lines and tabs kept,
/// every other control character (escape sequences) shown as `�`.
pub fn printable_lines(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// The text of a `tools/call` result: text blocks as they are, other blocks as JSON.
pub fn call_result(result: &CallToolResult) -> String {
    let mut out = String::new();
    for block in &result.content {
        match block.as_text() {
            Some(text) => out.push_str(text),
            None => out.push_str(&block.to_value().to_string()),
        }
        out.push('\n');
    }
    if let Some(structured) = &result.structured_content
        && out.is_empty()
    {
        out.push_str(&serde_json::to_string_pretty(structured).unwrap_or_default());
        out.push('\n');
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
        ].into();
        ready.server_info = Some(mcpdisco::protocol::types::Implementation::new(
            "example", "1.0",
        ));
        let mut failed = ServerReport::empty("broken", ServerStatus::Failed);
        failed.error = Some(mcpdisco::discovery::Failure {
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
    fn first_lines_are_cut_after_100_characters() {
        let shown = |text: &str| {
            let raw = RawJson::from_value(&json!(text));
            first_line(Some(JsonView::of(&raw)))
        };
        let hundred = "é".repeat(100);
        assert_eq!(shown(&format!("\n  \n  {hundred}  \nmore")), hundred);
        let cut = shown(&"é".repeat(101));
        assert_eq!(cut, format!("{}…", "é".repeat(99)));
        assert_eq!(first_line(None), "");
        let number = RawJson::from_value(&json!(7));
        assert_eq!(first_line(Some(JsonView::of(&number))), "");
    }

    #[test]
    fn server_texts_print_on_one_line_without_escape_sequences() {
        let mut ready = ServerReport::empty("odd", ServerStatus::Ready);
        ready.tools = vec![
            json!({"name": "a\nb", "description": "tab\there \u{1b}[2Jcleared"}).into(),
            json!({"name": "plain"}).into(),
        ]
        .into();
        let report = DiscoveryReport {
            servers: vec![ready],
        };
        let text = discover(&report, 0, Style::plain());
        assert!(
            text.contains("    a\u{FFFD}b()    tab here \u{FFFD}[2Jcleared\n"),
            "{text}"
        );
        assert!(text.contains("    plain()\n"), "{text}");
        assert!(!text.contains('\u{1b}'));
        let catalog = catalog(
            &Catalog::build(&report.servers, &Default::default()),
            ListKind::Tools,
            Style::plain(),
        );
        assert!(catalog.starts_with("NAME"), "{catalog}");
        assert!(
            // The namespaced name is made safe for models; the signature shows the name as sent.
            catalog.contains("odd__a_b    a\u{FFFD}b()      tab here"),
            "{catalog}"
        );
    }

    #[test]
    fn call_result_prints_text_blocks() {
        let result = serde_json::from_value(
            json!({"content": [{"type": "text", "text": "5"}, {"type": "image", "data": "x"}]}),
        )
        .unwrap();
        assert_eq!(
            call_result(&result),
            "5\n{\"type\":\"image\",\"data\":\"x\"}\n"
        );
    }
}
