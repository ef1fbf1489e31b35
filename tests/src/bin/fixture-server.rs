//! A tiny MCP server over stdio that misbehaves on request, for transport,
//! session and discovery tests. The first argument picks the behaviour:
//!
//! | mode | behaviour |
//! |---|---|
//! | `well-behaved` | answers initialize, ping, tools/list (3 tools), tools/call; -32601 otherwise |
//! | `exit-at-start` | writes `fatal: missing API_TOKEN` to stderr and exits with status 3 |
//! | `close-stdout` | closes stdout at once and keeps running |
//! | `stderr-flood` | writes 20 MB to stderr, then behaves well |
//! | `ignore-term` | ignores SIGTERM and stdin EOF; behaves well until killed |
//! | `grandchild` | starts a grandchild (`sleep` mode) that would outlive it, reports its pid on stderr |
//! | `noise` | prints non-JSON lines on stdout before every answer |
//! | `invalid-utf8` | prints a line of invalid UTF-8 before every answer |
//! | `oversized` | prints a 1 MiB line before every answer |
//! | `slow-start` | sleeps `SLOW_START_MS` (default 300) before reading stdin, then behaves well |
//! | `env` | answers ping with the values of `FIXTURE_SECRET` and `HOME` and the names of every variable it sees; its `env` tool returns the same |
//! | `echo-secret` | writes `starting with key=$API_KEY` to stderr, then `fatal: bad key $API_KEY`, and exits with status 3 |
//! | `leak` | behaves well, but writes `$API_KEY` into its tool descriptions, its error messages and its tool results |
//! | `silent` | reads stdin and never answers |
//! | `crash-on-second-call` | behaves well, but exits with status 4 (without answering) on its second `tools/call` |
//! | `mute-pings` | behaves well, but never answers `ping` |
//! | `start-once` | with `FIXTURE_START_LOG`: its first start behaves well until its first `tools/call`, where it exits with status 4; every later start exits at once with status 3 |
//! | `tools-in-initialize` | puts its tools in the `initialize` result and declares no capability (non-standard) |
//! | `paged` | behaves well, but lists `FIXTURE_TOOL_COUNT` tools (default 1000) in pages of `FIXTURE_PAGE_SIZE` (default 10) |
//! | `skills` | behaves well, and declares the skills extension: `skills/list` and `resources/read` serve `mcp_tests::skill_fixture` (spoiled by `FIXTURE_SKILL_TAMPER`: `spoil-digest`, `spoil-size` or `spoil-frontmatter`) |
//! | `sleep` | sleeps forever |
//! | `watched` | declares resource subscriptions and logging; lists one resource, `test://watched-resource`, takes `resources/subscribe`, `resources/unsubscribe` and `logging/setLevel`; its tool `touch` sends `notifications/resources/updated` for the resource while it is subscribed, then answers |
//! | `barrier` | with `FIXTURE_START_LOG`: waits until the log holds `FIXTURE_BARRIER` starts (all of them alive at once) before it reads stdin, then behaves well; after 60 s it exits with status 5 |
//!
//! With `FIXTURE_START_LOG=<file>`, every start appends `<mode> <pid>` to that file
//! (a `start-once` start that refuses does not). With `FIXTURE_ATTEMPT_LOG=<file>`,
//! every start appends the same, refused ones included.
//! With `FIXTURE_REQUEST_LOG=<file>`, every message it reads is appended to
//! that file, one line each (a test reads the `_meta` a client sent).
//! With `FIXTURE_TOOLS_FILE=<file>`, the tools listed are that file's JSON array
//! (read at every listing, so a test can change a tool under a running client).

use std::io::{BufRead, Write};
use std::time::Duration;

use mcp_tests::skill_fixture;
use serde_json::{Value, json};

fn tools() -> Value {
    // `FIXTURE_TOOLS_FILE`: the tools are that file's JSON array, read at each listing.
    if let Some(file) = std::env::var_os("FIXTURE_TOOLS_FILE")
        && let Ok(text) = std::fs::read_to_string(file)
        && let Ok(tools) = serde_json::from_str::<Value>(&text)
    {
        return tools;
    }
    json!([
        {"name": "echo", "description": "Echoes its text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "add", "title": "Add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}},
        {"name": "fail", "inputSchema": {"type": "object"}}
    ])
}

fn answer(request: &Value, mode: &str) -> Option<Value> {
    let id = request.get("id")?.clone();
    let method = request.get("method")?.as_str()?;
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" if mode == "tools-in-initialize" => json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
            "capabilities": {},
            "serverInfo": {"name": "fixture-server", "version": "1.0.0"},
            "tools": tools(),
        }),
        "initialize" if mode == "watched" => json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
            "capabilities": {"tools": {}, "resources": {"subscribe": true}, "logging": {}},
            "serverInfo": {"name": "fixture-server", "version": "1.0.0"},
        }),
        "initialize" if mode == "skills" => json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
            "capabilities": {"tools": {}, "resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}},
            "serverInfo": {"name": "fixture-server", "version": "1.0.0"},
        }),
        "initialize" => json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "fixture-server", "version": "1.0.0"},
            "instructions": format!("fixture in mode {mode}"),
        }),
        "ping" if mode == "mute-pings" => return None,
        "ping" if mode == "env" => environment(),
        "ping" => json!({}),
        "tools/list" if mode == "leak" => {
            let mut tools = tools();
            tools[0]["description"] = json!(format!("Echoes its text (key {}).", api_key()));
            json!({"tools": tools})
        }
        "tools/list" if mode == "paged" => paged_tools(&params),
        "skills/list" if mode == "skills" => skill_fixture::list(&skill_tamper()),
        "resources/list" if mode == "skills" => json!({"resources": []}),
        "resources/templates/list" if mode == "skills" => json!({"resourceTemplates": []}),
        "resources/read" if mode == "skills" => {
            let uri = params
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match skill_fixture::read(uri, &skill_tamper()) {
                Some(result) => result,
                None => {
                    return Some(
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "Resource not found"}}),
                    );
                }
            }
        }
        "resources/list" if mode == "watched" => {
            json!({"resources": [{"uri": WATCHED, "name": "watched"}]})
        }
        "resources/templates/list" if mode == "watched" => json!({"resourceTemplates": []}),
        "resources/subscribe" | "resources/unsubscribe" | "logging/setLevel"
            if mode == "watched" =>
        {
            json!({})
        }
        "tools/list" if mode == "watched" => {
            json!({"tools": [{"name": "touch", "inputSchema": {"type": "object"}}]})
        }
        "tools/call" if mode == "watched" => {
            json!({"content": [{"type": "text", "text": "touched"}]})
        }
        "tools/list" => json!({"tools": tools()}),
        "tools/call" if mode == "env" => {
            json!({"content": [{"type": "text", "text": environment().to_string()}], "structuredContent": environment()})
        }
        "tools/call"
            if mode == "leak" && params.get("name").and_then(Value::as_str) == Some("fail") =>
        {
            return Some(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": format!("upstream refused key {}", api_key())}}),
            );
        }
        "tools/call" if mode == "leak" => {
            json!({"content": [{"type": "text", "text": format!("called with key {}", api_key())}]})
        }
        "tools/call" => {
            let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
            match params.get("name").and_then(Value::as_str) {
                Some("echo") => {
                    json!({"content": [{"type": "text", "text": arguments.get("text").cloned().unwrap_or(json!(""))}]})
                }
                Some("add") => {
                    let sum = arguments.get("a").and_then(Value::as_i64).unwrap_or(0)
                        + arguments.get("b").and_then(Value::as_i64).unwrap_or(0);
                    json!({"content": [{"type": "text", "text": sum.to_string()}], "structuredContent": {"sum": sum}})
                }
                _ => json!({"content": [{"type": "text", "text": "tool failed"}], "isError": true}),
            }
        }
        other => {
            return Some(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("Method not found: {other}")}}),
            );
        }
    };
    Some(json!({"result": result, "jsonrpc": "2.0", "id": id}))
}

/// One page of `paged` mode's tools; the cursor is the offset.
fn paged_tools(params: &Value) -> Value {
    let number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let count = number("FIXTURE_TOOL_COUNT", 1000);
    let size = number("FIXTURE_PAGE_SIZE", 10).max(1);
    let start: usize = params
        .get("cursor")
        .and_then(Value::as_str)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let end = (start + size).min(count);
    let tools: Vec<Value> = (start..end)
        .map(|i| json!({"name": format!("tool_{i:04}"), "description": format!("Tool number {i}."), "inputSchema": {"type": "object"}}))
        .collect();
    if end < count {
        json!({"tools": tools, "nextCursor": end.to_string()})
    } else {
        json!({"tools": tools})
    }
}

/// `FIXTURE_SKILL_TAMPER`: how `skills` mode spoils the `SKILL.md` it serves.
fn skill_tamper() -> String {
    std::env::var("FIXTURE_SKILL_TAMPER").unwrap_or_default()
}

fn api_key() -> String {
    std::env::var("API_KEY").unwrap_or_default()
}

/// What the `env` mode reports: two values and every variable name it sees.
fn environment() -> Value {
    let mut names: Vec<String> = std::env::vars_os()
        .map(|(name, _)| name.to_string_lossy().into_owned())
        .collect();
    names.sort();
    json!({
        "secret": std::env::var("FIXTURE_SECRET").ok(),
        "home": std::env::var("HOME").ok(),
        "names": names,
    })
}

/// The resource of `watched` mode.
const WATCHED: &str = "test://watched-resource";

fn serve(mode: &str) {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    let mut calls = 0;
    // `watched` mode: whether its resource is subscribed.
    let mut subscribed = false;
    let request_log = std::env::var_os("FIXTURE_REQUEST_LOG");
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if let Some(log) = &request_log {
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .and_then(|mut file| writeln!(file, "{line}"));
        }
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if mode == "silent" {
            continue;
        }
        if mode == "start-once"
            && request.get("method").and_then(Value::as_str) == Some("tools/call")
        {
            eprintln!("crashing on the first call");
            std::process::exit(4);
        }
        if mode == "crash-on-second-call"
            && request.get("method").and_then(Value::as_str) == Some("tools/call")
        {
            calls += 1;
            if calls == 2 {
                eprintln!("crashing on call {calls}");
                std::process::exit(4);
            }
        }
        if mode == "watched" {
            let method = request.get("method").and_then(Value::as_str);
            let on_watched = request["params"]["uri"] == WATCHED;
            match method {
                Some("resources/subscribe") if on_watched => subscribed = true,
                Some("resources/unsubscribe") if on_watched => subscribed = false,
                Some("tools/call") if subscribed => {
                    let updated = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": WATCHED}});
                    let _ = writeln!(stdout, "{updated}");
                }
                _ => {}
            }
        }
        let Some(reply) = answer(&request, mode) else {
            continue;
        };
        let _ = match mode {
            "noise" => stdout.write_all(b"Starting up... (log noise)\n\n"),
            "invalid-utf8" => stdout.write_all(b"\xff\xfe\xfd not utf-8\n"),
            "oversized" => {
                let mut big = vec![b'x'; 1024 * 1024];
                big.push(b'\n');
                stdout.write_all(&big)
            }
            _ => Ok(()),
        };
        let _ = writeln!(stdout, "{reply}");
        let _ = stdout.flush();
    }
}

fn sleep_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Waits until `FIXTURE_START_LOG` holds `FIXTURE_BARRIER` starts, polling;
/// exits with status 5 after 60 s.
fn wait_for_the_others() {
    let wanted: usize = std::env::var("FIXTURE_BARRIER")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let Some(log) = std::env::var_os("FIXTURE_START_LOG") else {
        eprintln!("fatal: barrier needs FIXTURE_START_LOG");
        std::process::exit(5);
    };
    let started = std::time::Instant::now();
    loop {
        let count = std::fs::read_to_string(&log)
            .map(|text| text.lines().count())
            .unwrap_or(0);
        if count >= wanted {
            return;
        }
        if started.elapsed() > Duration::from_secs(60) {
            eprintln!("fatal: barrier: only {count} of {wanted} servers started");
            std::process::exit(5);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn main() {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "well-behaved".into());
    if let Some(log) = std::env::var_os("FIXTURE_ATTEMPT_LOG") {
        let line = format!("{mode} {}\n", std::process::id());
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut file| file.write_all(line.as_bytes()));
    }
    if mode == "start-once"
        && let Some(log) = std::env::var_os("FIXTURE_START_LOG")
        && std::fs::read_to_string(&log).is_ok_and(|text| !text.is_empty())
    {
        eprintln!("fatal: refusing to start again");
        std::process::exit(3);
    }
    if let Some(log) = std::env::var_os("FIXTURE_START_LOG") {
        // One line per start, so a test can tell whether a server was started at all.
        let line = format!("{mode} {}\n", std::process::id());
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut file| file.write_all(line.as_bytes()));
    }
    match mode.as_str() {
        "exit-at-start" => {
            eprintln!("fatal: missing API_TOKEN");
            std::process::exit(3);
        }
        "echo-secret" => {
            eprintln!("starting with key={}", api_key());
            eprintln!("fatal: bad key {}", api_key());
            std::process::exit(3);
        }
        "close-stdout" => {
            // SAFETY-free: closing our own fd 1 through nix.
            let _ = nix::unistd::close(1);
            sleep_forever();
        }
        "stderr-flood" => {
            let line = [b'e'; 1023];
            let mut stderr = std::io::stderr().lock();
            for _ in 0..(20 * 1024) {
                let _ = stderr.write_all(&line);
                let _ = stderr.write_all(b"\n");
            }
            drop(stderr);
            serve(&mode);
        }
        "ignore-term" => {
            // SAFETY: installing SIG_IGN for SIGTERM has no preconditions.
            unsafe {
                let _ = nix::sys::signal::signal(
                    nix::sys::signal::Signal::SIGTERM,
                    nix::sys::signal::SigHandler::SigIgn,
                );
            }
            serve(&mode);
            sleep_forever();
        }
        "grandchild" => {
            let exe = std::env::current_exe().unwrap_or_else(|_| "fixture-server".into());
            match std::process::Command::new(exe)
                .arg("sleep")
                .stdin(std::process::Stdio::null())
                .spawn()
            {
                Ok(child) => eprintln!("grandchild pid {}", child.id()),
                Err(error) => eprintln!("could not start the grandchild: {error}"),
            }
            serve(&mode);
        }
        "slow-start" => {
            let ms = std::env::var("SLOW_START_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(300);
            std::thread::sleep(Duration::from_millis(ms));
            serve(&mode);
        }
        "sleep" => sleep_forever(),
        "barrier" => {
            wait_for_the_others();
            serve(&mode);
        }
        _ => serve(&mode),
    }
}
