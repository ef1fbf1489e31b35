//! Each command: load, ask `mcp-discovery`, print. No behaviour lives here
//! that a library user would want.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcpdisco::cache::{Cache, CacheMode, RedisStore};
use mcpdisco::catalog::{Catalog, CatalogEntry};
use mcpdisco::config::ServerConfig;
use mcpdisco::connect::{ConnectContext, Connectors, StopGraces, connect_with};
use mcpdisco::discovery::{self, DiscoveryOptions, DiscoveryReport, ServerStatus, StatusSummary};
use mcpdisco::doctor::DoctorOptions;
use mcpdisco::trace::{JsonLinesTrace, Tracer};
use mcpdisco_client::policy::{RateLimit, RetryPolicy};
use mcpdisco_client::protocol::types::CallToolParams;
use mcpdisco_client::session::{ListKind, SessionError, SessionOptions};
use serde_json::{Value, json};
use std::sync::Arc;

use crate::cli::{Command, GlobalOptions};
use crate::load::{Loaded, UsageError, load};
use crate::progress::Progress;
use crate::render;
use crate::style::Style;

/// Exit statuses.
pub mod exit {
    /// Every enabled server is ready.
    pub const OK: u8 = 0;
    /// A usage or configuration error.
    pub const USAGE: u8 = 1;
    /// One or more servers failed; everything else was still printed.
    pub const SERVER_FAILED: u8 = 2;
    /// `discover --verify-pins`: an approved item changed or vanished.
    pub const PINS_CHANGED: u8 = 3;
    /// `call` returned a tool error (`isError`).
    pub const TOOL_ERROR: u8 = 5;
}

/// Runs `command`.
pub async fn run(global: &GlobalOptions, command: &Command) -> Result<ExitCode, UsageError> {
    match command {
        Command::Completions { .. } | Command::Manpage => {
            let written = match command {
                Command::Completions { shell } => crate::completions::write_script(*shell),
                _ => crate::completions::write_man_page(),
            };
            return Ok(match written {
                Ok(()) => ExitCode::from(exit::OK),
                Err(error) => {
                    eprintln!("error: cannot write to stdout: {error}");
                    ExitCode::from(exit::USAGE)
                }
            });
        }
        Command::Registry { command } => return crate::registry::run(global, command).await,
        _ => {}
    }
    let loaded = match command {
        Command::Discover {
            from_registry: Some(query),
            limit,
            ..
        } => crate::registry::servers_from_registry(global, query, *limit).await?,
        _ => load(global)?,
    };
    crate::logging::set_masker(loaded.masker());
    let session = session_options(global, &loaded)?;
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    open_cache(global)?;
    if let Some(warning) = cache(global).as_ref().and_then(Cache::warning) {
        eprintln!("warning: {warning}");
    }
    let style = Style::detect();
    match command {
        Command::Servers => Ok(servers(global, &loaded, style)),
        Command::Warm { if_stale } => Ok(warm(global, &loaded, &session, *if_stale).await),
        Command::Discover { verify_pins, .. } => {
            let report = discover_fresh(global, &loaded, &session, *verify_pins).await;
            let lock = crate::capabilities::lock_path(global, &loaded);
            let pins = crate::capabilities::load_pins(global, &lock).await?;
            let checks = crate::capabilities::checks(&loaded, &pins, &report);
            if global.json {
                let mut document = serde_json::to_value(&report).unwrap_or_default();
                if !checks.is_empty() {
                    document["pins"] = crate::capabilities::statuses_json(&checks);
                }
                print_json(&document);
            } else {
                print!("{}", render::discover(&report, discovery_now(), style));
                for line in crate::capabilities::summary_lines(&checks) {
                    println!("{line}");
                }
            }
            if *verify_pins && crate::capabilities::violated(&checks) {
                return Ok(ExitCode::from(exit::PINS_CHANGED));
            }
            Ok(status_of(&report))
        }
        Command::Export {
            format,
            dir,
            introspect_output,
        } => {
            let report = discover_fresh(global, &loaded, &session, true).await;
            let outputs = if *introspect_output {
                crate::capabilities::introspect_outputs(global, &session, &loaded, &report).await
            } else {
                Default::default()
            };
            crate::capabilities::export(global, &loaded, &report, dir, *format, &outputs)
        }
        Command::Pending { dir } => crate::capabilities::pending(global, dir),
        Command::Approve { server, tools, dir } => {
            // Approval pins what the server offers now: discover it afresh.
            let only = Loaded {
                servers: loaded
                    .servers
                    .iter()
                    .filter(|s| &s.name == server)
                    .cloned()
                    .collect(),
                files: loaded.files.clone(),
                candidates: Vec::new(),
                warnings: Vec::new(),
            };
            let report = discover_fresh(global, &only, &session, true).await;
            crate::capabilities::approve(global, &loaded, dir, server, tools, &report).await
        }
        Command::Revoke { server, tools, dir } => {
            crate::capabilities::revoke(global, &loaded, dir, server, tools).await
        }
        Command::Pins {
            command: crate::cli::PinsCommand::Diff { server },
        } => {
            let report = discover_fresh(global, &loaded, &session, true).await;
            let lock = crate::capabilities::lock_path(global, &loaded);
            let pins = crate::capabilities::load_pins(global, &lock).await?;
            let mut checks = crate::capabilities::checks(&loaded, &pins, &report);
            if let Some(server) = server {
                checks.retain(|(name, _)| name == server);
            }
            Ok(crate::capabilities::diff(global, &checks))
        }
        Command::Tools => Ok(list(global, &loaded, &session, &[ListKind::Tools], style).await),
        Command::Resources => Ok(list(
            global,
            &loaded,
            &session,
            &[ListKind::Resources, ListKind::ResourceTemplates],
            style,
        )
        .await),
        Command::Prompts => Ok(list(global, &loaded, &session, &[ListKind::Prompts], style).await),
        Command::Call { server, tool, args } => {
            let arguments: Value = serde_json::from_str(args)
                .map_err(|error| UsageError::Arguments(error.to_string()))?;
            if !arguments.is_object() {
                return Err(UsageError::Arguments(format!(
                    "got {}",
                    kind_of(&arguments)
                )));
            }
            let server = enabled_server(&loaded, server)?;
            Ok(call(global, &session, server, tool, arguments).await)
        }
        Command::Ping { server } => {
            let server = enabled_server(&loaded, server)?;
            Ok(ping(global, &session, server).await)
        }
        Command::Serve {
            http,
            http_token,
            page_size,
            hide_changed_tools,
        } => {
            let options = crate::serve::ServeOptions {
                http: *http,
                token: http_token.clone(),
                page_size: usize::from(*page_size),
                start_deadline: deadline(global),
                separator: global.separator.clone(),
                hide_changed_tools: hide_changed_tools
                    .then(|| crate::capabilities::lock_path(global, &loaded)),
            };
            let mut session = session.clone();
            if global.rate_limit.is_none() {
                // A gateway forwards its clients' calls: they set the pace.
                session.stack.set_rate_limit(None);
            }
            crate::serve::serve(&loaded, session, options).await
        }
        Command::Login { server, no_browser } => {
            let server = enabled_server(&loaded, server)?;
            crate::login::login(global, &session, server, *no_browser).await
        }
        Command::Logout { server } => {
            let server = enabled_server(&loaded, server)?;
            crate::login::logout(global, server)
        }
        Command::Auth {
            command: crate::cli::AuthCommand::Status,
        } => crate::login::status(global),
        Command::Completions { .. } | Command::Manpage | Command::Registry { .. } => {
            Ok(ExitCode::from(exit::OK))
        }
        Command::Doctor { servers } => {
            let mut chosen = Vec::new();
            for name in servers {
                chosen.push(enabled_server(&loaded, name)?.clone());
            }
            if chosen.is_empty() {
                chosen = loaded.servers.clone();
            }
            Ok(doctor(global, &session, &chosen, style).await)
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn enabled_server<'a>(loaded: &'a Loaded, name: &str) -> Result<&'a ServerConfig, UsageError> {
    let known = || loaded.servers.iter().map(|s| s.name.clone()).collect();
    let server = loaded
        .servers
        .iter()
        .find(|server| server.name == name)
        .ok_or_else(|| UsageError::UnknownServer {
            name: name.to_owned(),
            known: known(),
            files: loaded.files.clone(),
        })?;
    Ok(server)
}

/// The cache of this run: one for the whole process, so a shared store is
/// connected once and its failure is said once.
fn cache(global: &GlobalOptions) -> Option<Cache> {
    static CACHE: std::sync::OnceLock<Option<Cache>> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(|| open_cache(global).ok().flatten())
        .clone()
}

/// Opens the cache `global` asks for; a malformed `--cache` URL is an error.
pub fn open_cache(global: &GlobalOptions) -> Result<Option<Cache>, UsageError> {
    if global.no_cache {
        return Ok(None);
    }
    let dir = match &global.cache_dir {
        Some(dir) => Some(dir.clone()),
        None => Cache::default_dir(),
    };
    Ok(Some(match &global.cache_url {
        Some(url) => {
            let store = RedisStore::open(url, global.cache_prefix.clone())
                .map_err(|error| UsageError::CacheUrl(error.to_string()))?;
            Cache::with_shared(dir, Arc::new(store))
        }
        None => match dir {
            Some(dir) => Cache::at(dir),
            None => Cache::in_memory(),
        },
    }))
}

/// Says once per run that the shared cache was passed over.
fn warn_shared_cache(cache: Option<&Cache>) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Some(warning) = cache.and_then(Cache::shared_warning)
        && !SAID.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        eprintln!("warning: {warning}");
    }
}

fn deadline(global: &GlobalOptions) -> Duration {
    global
        .timeout
        .map_or(discovery::DEFAULT_DEADLINE, Duration::from_secs_f64)
}

/// Requests per second to each server when `--rate-limit` is not given.
const DEFAULT_RATE_LIMIT: f64 = 10.0;

/// The session options every command uses: policies and the trace.
pub(crate) fn session_options(
    global: &GlobalOptions,
    loaded: &Loaded,
) -> Result<SessionOptions, UsageError> {
    let mut options = SessionOptions::default();
    options
        .stack
        .set_retry((global.retries > 0).then(|| RetryPolicy {
            max_retries: global.retries,
            ..RetryPolicy::default()
        }));
    options.stack.set_rate_limit(Some(RateLimit {
        requests_per_second: global.rate_limit.unwrap_or(DEFAULT_RATE_LIMIT),
        burst: global.burst,
    }));
    if let Some(path) = &global.trace {
        let sink = JsonLinesTrace::create(path).map_err(|source| UsageError::Trace {
            path: path.clone(),
            source,
        })?;
        options.tracer = Some(Tracer::new(Arc::new(sink), loaded.masker()));
    }
    Ok(options)
}

fn options(global: &GlobalOptions) -> DiscoveryOptions {
    DiscoveryOptions {
        concurrency: usize::from(global.concurrency),
        deadline: deadline(global),
        cache: cache(global),
        cache_mode: if global.no_cache {
            CacheMode::Off
        } else if global.refresh {
            CacheMode::Refresh
        } else {
            CacheMode::Use
        },
        auth: crate::login::stored_context(),
        serve_stale: !global.no_stale,
        ..DiscoveryOptions::default()
    }
}

/// Discovers the loaded servers, with a progress display on a terminal.
async fn discover(
    global: &GlobalOptions,
    loaded: &Loaded,
    session: &SessionOptions,
) -> DiscoveryReport {
    discover_fresh(global, loaded, session, false).await
}

/// Like `discover`; with `fresh`, every server is asked again (the cache is
/// refreshed, not read): what is reviewed, approved or verified against the
/// pins is what servers offer now.
async fn discover_fresh(
    global: &GlobalOptions,
    loaded: &Loaded,
    session: &SessionOptions,
    fresh: bool,
) -> DiscoveryReport {
    let mut options = options(global);
    if fresh && options.cache_mode == CacheMode::Use {
        options.cache_mode = CacheMode::Refresh;
    }
    // What is reviewed, approved or verified is never stale data: a server
    // that cannot be asked now fails.
    if fresh {
        options.serve_stale = false;
    }
    options.session = session.clone();
    let enabled = loaded.servers.iter().filter(|s| s.enabled).count();
    let progress = Progress::start(enabled);
    options.observer = progress.as_ref().map(Progress::observer);
    // The report is shown when the last answer is in; the servers are
    // stopped meanwhile, and `finish_closing` waits for them before exit.
    let (report, closing) = discovery::discover_detached(&loaded.servers, &options).await;
    PENDING_CLOSES.lock().push(closing);
    if let Some(progress) = progress {
        progress.finish();
    }
    warn_shared_cache(options.cache.as_ref());
    report
}

/// `warm`: refreshes the cache and prints the statistics.
async fn warm(
    global: &GlobalOptions,
    loaded: &Loaded,
    session: &SessionOptions,
    if_stale: bool,
) -> ExitCode {
    let mut options = options(global);
    options.session = session.clone();
    if options.cache.is_none() {
        eprintln!("warning: --no-cache: the servers are asked, but nothing is stored");
    }
    let mode = if if_stale {
        discovery::WarmMode::IfStale
    } else {
        discovery::WarmMode::All
    };
    let (stats, report) = discovery::warm(&loaded.servers, &options, mode).await;
    warn_shared_cache(options.cache.as_ref());
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

/// Sessions still closing after the discoveries of this run.
static PENDING_CLOSES: mcpdisco::sync::Mutex<Vec<discovery::Closing>> =
    mcpdisco::sync::Mutex::new(Vec::new());

/// Waits until every server this run discovered is stopped and reaped.
pub async fn finish_closing() {
    let pending: Vec<discovery::Closing> = std::mem::take(&mut *PENDING_CLOSES.lock());
    for closing in pending {
        for (server, took) in closing.finish().await {
            tracing::debug!(%server, close_ms = took.as_millis() as u64, "stopped");
        }
    }
}

fn discovery_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn status_of(report: &DiscoveryReport) -> ExitCode {
    if report.summary().failed > 0 {
        ExitCode::from(exit::SERVER_FAILED)
    } else {
        ExitCode::from(exit::OK)
    }
}

/// Writes `value` as pretty JSON to stdout, streamed through one buffer.
/// Items keep the text their server sent (compact, as sent) inside it.
pub(crate) fn print_json(value: &impl serde::Serialize) {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    if let Err(error) = written {
        // A closed pipe (`| head`) is not worth a message.
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write JSON: {error}");
        }
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
    summary: &'a StatusSummary,
    failed: Vec<Value>,
}

async fn list(
    global: &GlobalOptions,
    loaded: &Loaded,
    session: &SessionOptions,
    kinds: &[ListKind],
    style: Style,
) -> ExitCode {
    let report = discover(global, loaded, session).await;
    let catalog = Catalog::with_separator(&report.servers, &global.separator);
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
            summary: &catalog.summary,
            failed,
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
    status_of(&report)
}

fn servers(global: &GlobalOptions, loaded: &Loaded, style: Style) -> ExitCode {
    let options = options(global);
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

pub(crate) async fn connect_to(
    global: &GlobalOptions,
    session: &SessionOptions,
    server: &ServerConfig,
) -> Result<mcpdisco_client::session::Session, SessionError> {
    let deadline = server.timeout.unwrap_or_else(|| deadline(global));
    let mut session_options = session.clone();
    session_options.deadline = Some(tokio::time::Instant::now() + deadline);
    if let Some(seconds) = global.timeout {
        session_options.request_timeout = Duration::from_secs_f64(seconds);
    }
    let context = ConnectContext {
        http: None,
        graces: StopGraces::default(),
        tracer: session_options.tracer.clone(),
        masker: session_options.masker.clone(),
        auth: crate::login::stored_context(),
    };
    let connectors = Connectors::builtin();
    let connecting = connect_with(&connectors, server, &context, &session_options);
    match tokio::time::timeout(deadline, connecting).await {
        Ok(result) => result,
        Err(_) => Err(SessionError::new(
            &server.name,
            "connect",
            mcpdisco_client::session::ErrorKind::Timeout { after: deadline },
        )),
    }
}

fn disabled(server: &ServerConfig) -> Option<ExitCode> {
    if server.enabled {
        return None;
    }
    eprintln!(
        "error: server '{}' is disabled in {}",
        server.name,
        server.source.display()
    );
    Some(ExitCode::from(exit::USAGE))
}

async fn call(
    global: &GlobalOptions,
    session: &SessionOptions,
    server: &ServerConfig,
    tool: &str,
    arguments: Value,
) -> ExitCode {
    if let Some(code) = disabled(server) {
        return code;
    }
    let session = match connect_to(global, session, server).await {
        Ok(session) => session,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(exit::SERVER_FAILED);
        }
    };
    let result = session
        .call_tool(CallToolParams::new(tool, Some(arguments)))
        .await;
    let _ = session.close().await;
    match result {
        Ok(result) => {
            if global.json {
                print_json(&result);
            } else {
                print!("{}", render::call_result(&result));
            }
            if result.is_error() {
                if !global.json {
                    eprintln!(
                        "error: tool '{tool}' on server '{}' reported an error",
                        server.name
                    );
                }
                ExitCode::from(exit::TOOL_ERROR)
            } else {
                ExitCode::from(exit::OK)
            }
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(exit::SERVER_FAILED)
        }
    }
}

async fn ping(global: &GlobalOptions, session: &SessionOptions, server: &ServerConfig) -> ExitCode {
    if let Some(code) = disabled(server) {
        return code;
    }
    let started = Instant::now();
    let session = match connect_to(global, session, server).await {
        Ok(session) => session,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(exit::SERVER_FAILED);
        }
    };
    let connected = started.elapsed();
    let pinged = Instant::now();
    let result = session.ping().await;
    let round_trip = pinged.elapsed();
    let (era, version) = (session.era(), session.protocol_version());
    let _ = session.close().await;
    match result {
        Ok(()) => {
            if global.json {
                print_json(&json!({
                    "server": server.name,
                    "ok": true,
                    "era": era,
                    "protocolVersion": version.as_str(),
                    "connectMs": connected.as_millis() as u64,
                    "roundTripMs": round_trip.as_secs_f64() * 1000.0,
                }));
            } else {
                println!(
                    "server '{}' answered in {:.1} ms ({era} {}, connected in {} ms)",
                    server.name,
                    round_trip.as_secs_f64() * 1000.0,
                    version.as_str(),
                    connected.as_millis()
                );
            }
            ExitCode::from(exit::OK)
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(exit::SERVER_FAILED)
        }
    }
}

async fn doctor(
    global: &GlobalOptions,
    session: &SessionOptions,
    servers: &[ServerConfig],
    style: Style,
) -> ExitCode {
    let options = DoctorOptions {
        session: session.clone(),
        deadline: deadline(global),
        auth: crate::login::stored_context(),
        ..DoctorOptions::default()
    };
    let diagnoses = futures::future::join_all(servers.iter().map(|server| {
        let options = options.clone();
        async move {
            let deadline = server.timeout.unwrap_or(options.deadline);
            let options = DoctorOptions {
                deadline,
                ..options
            };
            mcpdisco::doctor::diagnose(server, &options).await
        }
    }))
    .await;
    if global.json {
        print_json(&json!({"servers": diagnoses}));
    } else {
        print!("{}", render::diagnoses(&diagnoses, style));
    }
    if diagnoses.iter().all(|diagnosis| diagnosis.passed()) {
        ExitCode::from(exit::OK)
    } else {
        ExitCode::from(exit::SERVER_FAILED)
    }
}
