//! Diagnosing one server, step by step, in words a host developer acts on:
//! what `mcp-cli doctor` prints.
//!
//! [`diagnose`] starts the server the way discovery does, watches every
//! step (the config entry, the command on `PATH`, the process, noise on
//! stdout, the era probe, the handshake, each list against its declared
//! capability, stderr, and over HTTP the status, content type and
//! authorization challenge of every response) and returns a checklist with
//! the time of each phase. Every text in it is masked.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdisco_transport::stdio::resolve;
use mcpdisco_transport::trace::{HttpEvent, MemoryTrace, TraceEvent, Tracer};
use serde::Serialize;

use crate::config::{Launch, ServerConfig};
use crate::connect::{ConnectContext, Connectors, StopGraces, options_for};
use crate::discovery::DEFAULT_DEADLINE;
use mcpdisco_client::session::{ErrorKind, ListKind, Session, SessionError, SessionOptions};

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    /// Fine.
    Pass,
    /// Works, but worth knowing (an empty list, noise on stdout).
    Warn,
    /// Broken: the server cannot be used until this is fixed.
    Fail,
    /// Not run, because an earlier step failed or it does not apply.
    Skip,
    /// For information only (the stderr tail).
    Info,
}

/// One line of the checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What was checked: `config`, `command`, `started`, `handshake`, `tools`, ...
    pub name: String,
    /// How it came out.
    pub status: CheckStatus,
    /// What happened.
    pub detail: String,
    /// What to do about it, when something is wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// How long each phase took, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseTimings {
    /// Starting the process or opening the connection.
    pub start_ms: Option<u64>,
    /// Era detection and handshake.
    pub handshake_ms: Option<u64>,
    /// All the lists.
    pub lists_ms: Option<u64>,
}

/// The checklist of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// The server's name.
    pub server: String,
    /// How it is launched, as safe to show.
    pub launch: String,
    /// The checks, in the order they ran.
    pub checks: Vec<Check>,
    /// Where the time went.
    pub timings: PhaseTimings,
}

impl Diagnosis {
    /// Whether no check failed.
    pub fn passed(&self) -> bool {
        self.checks
            .iter()
            .all(|check| check.status != CheckStatus::Fail)
    }
}

/// How [`diagnose`] runs. Built from [`DoctorOptions::default`] and the
/// setters below (a new option is then no breaking change).
#[derive(Clone)]
#[non_exhaustive]
pub struct DoctorOptions {
    /// The session options (policies are kept: a doctor sees what discovery sees).
    pub session: SessionOptions,
    /// The whole diagnosis of one server ends by then.
    pub deadline: Duration,
    /// What starts the server.
    pub connectors: Connectors,
    /// Tokens and the interactive step for HTTP servers that need
    /// authorization. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub auth: Option<mcpdisco_client::auth::AuthContext>,
}

impl Default for DoctorOptions {
    fn default() -> Self {
        Self {
            session: SessionOptions::default(),
            deadline: DEFAULT_DEADLINE,
            connectors: Connectors::builtin(),
            #[cfg(feature = "oauth")]
            auth: None,
        }
    }
}

impl DoctorOptions {
    /// The session options (policies are kept: a doctor sees what discovery sees).
    pub fn session(mut self, session: SessionOptions) -> Self {
        self.session = session;
        self
    }

    /// The whole diagnosis of one server ends by then (default: discovery's,
    /// [`DEFAULT_DEADLINE`]).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// What starts the server.
    pub fn connectors(mut self, connectors: Connectors) -> Self {
        self.connectors = connectors;
        self
    }

    /// Tokens and the interactive step for HTTP servers that need
    /// authorization. The `oauth` feature.
    #[cfg(feature = "oauth")]
    pub fn auth(mut self, auth: impl Into<Option<mcpdisco_client::auth::AuthContext>>) -> Self {
        self.auth = auth.into();
        self
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

struct Checklist {
    checks: Vec<Check>,
}

impl Checklist {
    fn add(
        &mut self,
        name: &str,
        status: CheckStatus,
        detail: impl Into<String>,
        hint: Option<String>,
    ) {
        self.checks.push(Check {
            name: name.to_owned(),
            status,
            detail: detail.into(),
            hint,
        });
    }

    fn skip(&mut self, names: &[&str], why: &str) {
        for name in names {
            self.add(name, CheckStatus::Skip, why, None);
        }
    }
}

/// Diagnoses `server`: never fails, a failure is a failed check.
pub async fn diagnose(server: &ServerConfig, options: &DoctorOptions) -> Diagnosis {
    let mut list = Checklist { checks: Vec::new() };
    let mut timings = PhaseTimings::default();
    let masker = options.session.masker.union(&server.masker());

    let place = match server.line {
        Some(line) => format!("{}:{line}", server.source.display()),
        None if server.source.as_os_str().is_empty() => "built in code".to_owned(),
        None => server.source.display().to_string(),
    };
    list.add(
        "config",
        CheckStatus::Pass,
        format!("read from {place}"),
        None,
    );
    if !server.enabled {
        list.add(
            "enabled",
            CheckStatus::Fail,
            "the server is disabled in its config",
            Some("set \"enabled\": true (or remove \"disabled\") to use it".into()),
        );
        return finish(server, list, timings);
    }
    if !check_launch(server, &mut list) {
        list.skip(&["started", "handshake"], "the server cannot be started");
        return finish(server, list, timings);
    }

    let trace = Arc::new(MemoryTrace::default());
    let tracer = Tracer::new(trace.clone(), masker.clone());
    let mut session_options = options_for(server, &options.session);
    session_options.tracer = Some(tracer.clone());
    session_options.deadline = Some(tokio::time::Instant::now() + options.deadline);
    let context = ConnectContext {
        #[cfg(feature = "http")]
        http: None,
        graces: StopGraces::default(),
        tracer: Some(tracer),
        masker: masker.clone(),
        #[cfg(feature = "oauth")]
        auth: options.auth.clone(),
    };
    let deadline = options.deadline;
    let started = Instant::now();
    let opened = tokio::time::timeout(deadline, options.connectors.open(server, &context)).await;
    timings.start_ms = Some(millis(started.elapsed()));
    let connection = match opened {
        Ok(Ok(connection)) => connection,
        Ok(Err(error)) => {
            list.add(
                "started",
                CheckStatus::Fail,
                error.to_string(),
                start_hint(server, &error),
            );
            http_checks(&trace, &mut list);
            list.skip(&["handshake"], "the server did not start");
            return finish(server, list, timings);
        }
        Err(_) => {
            list.add(
                "started",
                CheckStatus::Fail,
                format!("not started within {deadline:?}"),
                None,
            );
            return finish(server, list, timings);
        }
    };
    list.add(
        "started",
        CheckStatus::Pass,
        match &server.launch {
            Launch::Http { .. } => {
                "the HTTP transport is ready (it connects per request)".to_owned()
            }
            _ => format!("in {} ms", timings.start_ms.unwrap_or(0)),
        },
        None,
    );

    let handshake_started = Instant::now();
    let remaining = deadline.saturating_sub(started.elapsed());
    let session_options = connection.session_options(session_options);
    let connecting = Session::connect_shared(&server.name, connection.transport(), session_options);
    let session = tokio::time::timeout(remaining, connecting).await;
    timings.handshake_ms = Some(millis(handshake_started.elapsed()));
    noise_check(&connection, &masker, &mut list);
    let session = match session {
        Ok(Ok(session)) => session,
        Ok(Err(error)) => {
            list.add(
                "handshake",
                CheckStatus::Fail,
                error.to_string(),
                handshake_hint(&error),
            );
            http_checks(&trace, &mut list);
            stderr_check(&connection.stderr_tail(), &mut list);
            connection.close().await;
            return finish(server, list, timings);
        }
        Err(_) => {
            list.add(
                "handshake",
                CheckStatus::Fail,
                format!("no answer within {deadline:?}"),
                Some("the server started but never answered: does it speak MCP on this transport? Is it waiting for input, or writing its answers somewhere else?".into()),
            );
            http_checks(&trace, &mut list);
            stderr_check(&connection.stderr_tail(), &mut list);
            connection.close().await;
            return finish(server, list, timings);
        }
    };
    let state = session.state();
    let negotiation = &state.negotiation;
    if let Some(probe) = &negotiation.probe {
        let detail = if probe == "answered" {
            "server/discover answered: the server speaks 2026-07-28".to_owned()
        } else {
            format!("server/discover {probe}: not a 2026-07-28 server, so initialize follows")
        };
        list.add(
            "era probe",
            CheckStatus::Pass,
            masker.mask_string(detail),
            None,
        );
    }
    list.add(
        "handshake",
        CheckStatus::Pass,
        format!(
            "{} {} (offered {}; the server answered {}) in {} ms",
            state.era,
            state.protocol_version,
            negotiation.offered.join(", "),
            if negotiation.answered.is_empty() {
                "nothing".to_owned()
            } else {
                negotiation.answered.join(", ")
            },
            timings.handshake_ms.unwrap_or(0)
        ),
        None,
    );

    let lists_started = Instant::now();
    for kind in ListKind::ALL {
        let remaining = deadline.saturating_sub(started.elapsed());
        let checked = tokio::time::timeout(
            remaining,
            list_check(&session, kind, &negotiation.initialize_extras, &mut list),
        )
        .await;
        if checked.is_err() {
            list.add(
                kind.items_key(),
                CheckStatus::Fail,
                format!(
                    "{} did not finish within the {deadline:?} deadline",
                    kind.method()
                ),
                None,
            );
            break;
        }
    }
    timings.lists_ms = Some(millis(lists_started.elapsed()));
    http_checks(&trace, &mut list);
    stderr_check(&connection.stderr_tail(), &mut list);
    let _ = session.close().await;
    finish(server, list, timings)
}

fn finish(server: &ServerConfig, list: Checklist, timings: PhaseTimings) -> Diagnosis {
    Diagnosis {
        server: server.name.clone(),
        launch: server.summary(),
        checks: list.checks,
        timings,
    }
}

/// The command on `PATH` (stdio) or the URL (HTTP); false when it cannot start.
fn check_launch(server: &ServerConfig, list: &mut Checklist) -> bool {
    match &server.launch {
        Launch::Stdio {
            command, cwd, env, ..
        } => {
            // Found as the launcher finds it (the server's own PATH first;
            // PATHEXT on Windows), so the two never disagree.
            match resolve::program_file(command, env, Some(cwd)) {
                Ok(found) => {
                    list.add(
                        "command",
                        CheckStatus::Pass,
                        format!("{command} is {}", found.display()),
                        None,
                    );
                    true
                }
                Err(_) => {
                    list.add(
                        "command",
                        CheckStatus::Fail,
                        format!("{command} is not found on PATH"),
                        Some(command_hint(command)),
                    );
                    false
                }
            }
        }
        Launch::Http { .. } => {
            list.add("endpoint", CheckStatus::Pass, server.summary(), None);
            true
        }
        Launch::Custom { transport, .. } => {
            list.add(
                "transport",
                CheckStatus::Pass,
                format!("custom transport \"{transport}\""),
                None,
            );
            true
        }
    }
}

fn command_hint(command: &str) -> String {
    let name = Path::new(command)
        .file_name()
        .map_or(command.to_owned(), |n| n.to_string_lossy().into_owned());
    match name.as_str() {
        "npx" | "npm" | "node" => {
            "install Node.js (which brings npx), or give the full path of npx in \"command\"; on Windows the command is npx.cmd".into()
        }
        "uvx" | "uv" => "install uv (https://docs.astral.sh/uv/), or give the full path of uvx in \"command\"".into(),
        "docker" => "install Docker, or give the full path of docker in \"command\"".into(),
        "python" | "python3" => "install Python, or give the full path of the interpreter in \"command\"".into(),
        _ => "install it, put its directory on PATH (the server's \"env\" may set PATH), or give its full path in \"command\"".into(),
    }
}

fn start_hint(server: &ServerConfig, error: &SessionError) -> Option<String> {
    match (error.kind(), &server.launch) {
        (ErrorKind::SpawnFailed { .. }, Launch::Stdio { command, .. }) => {
            Some(command_hint(command))
        }
        (ErrorKind::Transport(_), Launch::Http { .. }) => {
            Some("check that the server runs and listens at that URL".into())
        }
        _ => None,
    }
}

fn handshake_hint(error: &SessionError) -> Option<String> {
    Some(match error.kind() {
        ErrorKind::Exited { .. } => {
            "the server exited while starting: its stderr (above) usually says why, often a missing environment variable or argument".into()
        }
        ErrorKind::Timeout { .. } => {
            "the server did not answer: does it speak MCP on stdio, or does it wait for something (a login, a network)?".into()
        }
        ErrorKind::VersionMismatch { .. } => {
            "the server speaks no protocol version we speak: update the server".into()
        }
        ErrorKind::Transport(
            mcpdisco_transport::TransportError::Http {
                status: 401 | 403, ..
            }
            | mcpdisco_transport::TransportError::Unauthorized { .. },
        ) => "the server wants authorization: configure credentials (a header, or OAuth)".into(),
        ErrorKind::Auth(mcpdisco_client::auth::AuthError::Required { server }) => {
            format!("the server requires OAuth: run `mcp-cli login {server}`")
        }
        ErrorKind::Auth(_) => {
            "authorization failed: check the server's auth settings, then `mcp-cli login` again"
                .into()
        }
        ErrorKind::Transport(mcpdisco_transport::TransportError::Protocol { reason, .. })
            if reason.contains("text/html") =>
        {
            "the URL serves a web page, not MCP: a login wall, a proxy, or the wrong path".into()
        }
        ErrorKind::Server { .. } => "the server refused the handshake; its message says why".into(),
        ErrorKind::Transport(mcpdisco_transport::TransportError::Connect { .. }) => {
            "nothing answers at that address: is the server running, and is the URL right?".into()
        }
        ErrorKind::Transport(mcpdisco_transport::TransportError::CrossOriginRedirect { .. }) => {
            "use the URL the server redirects to, if you trust that origin with your credentials".into()
        }
        _ => return None,
    })
}

/// Lines on stdout that were not JSON-RPC: a server that logs to stdout.
fn noise_check(
    connection: &crate::connect::Connection,
    masker: &mcpdisco_transport::secret::Masker,
    list: &mut Checklist,
) {
    let Some(skipped) = connection.details().skipped_lines() else {
        return;
    };
    if skipped.count() == 0 {
        list.add(
            "stdout",
            CheckStatus::Pass,
            "only JSON-RPC messages on stdout",
            None,
        );
        return;
    }
    let first = skipped
        .first()
        .first()
        .map(|line| mcpdisco_transport::stdio::masked_preview(masker, line))
        .unwrap_or_default();
    list.add(
        "stdout",
        CheckStatus::Warn,
        format!(
            "{} line(s) on stdout were not JSON-RPC and were skipped ({} over the size limit); the first: {first:?}",
            skipped.count(),
            skipped.oversized()
        ),
        Some("a server must write only MCP messages to stdout; logs belong on stderr".into()),
    );
}

async fn list_check(
    session: &Session,
    kind: ListKind,
    initialize_extras: &[String],
    list: &mut Checklist,
) {
    let name = match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::ResourceTemplates => "templates",
        ListKind::Prompts => "prompts",
        ListKind::Skills => "skills",
    };
    let in_initialize = initialize_extras
        .iter()
        .any(|extra| extra == kind.items_key());
    if !session.has_capability(kind.capability()) {
        let (status, hint) = if in_initialize {
            (
                CheckStatus::Warn,
                Some(format!(
                    "the server put \"{}\" in its initialize result, which is not standard and is ignored; it must declare the \"{}\" capability and answer {}",
                    kind.items_key(),
                    kind.capability(),
                    kind.method()
                )),
            )
        } else {
            (CheckStatus::Skip, None)
        };
        list.add(
            name,
            status,
            format!(
                "0 {name}: the server did not declare the \"{}\" capability",
                kind.capability()
            ),
            hint,
        );
        return;
    }
    match session.list_complete(kind).await {
        Ok(listed) if listed.items.is_empty() => list.add(
            name,
            CheckStatus::Warn,
            format!(
                "0 {name}: the server declared \"{}\" and listed none",
                kind.capability()
            ),
            None,
        ),
        Ok(listed) => list.add(
            name,
            CheckStatus::Pass,
            format!("{} listed in {} page(s)", listed.items.len(), listed.pages),
            None,
        ),
        Err(error) if error.server_code().is_some() => list.add(
            name,
            CheckStatus::Warn,
            error.to_string(),
            Some(format!(
                "the server declared \"{}\" but refused {}",
                kind.capability(),
                kind.method()
            )),
        ),
        Err(error) => list.add(name, CheckStatus::Fail, error.to_string(), None),
    }
}

/// What HTTP showed: a login page, an authorization challenge, odd statuses.
fn http_checks(trace: &MemoryTrace, list: &mut Checklist) {
    let responses: Vec<(&'static str, u16, Option<String>, Option<String>)> = trace
        .events()
        .into_iter()
        .filter_map(|event| match event {
            TraceEvent::Http {
                event:
                    HttpEvent::Response {
                        method,
                        status,
                        content_type,
                        www_authenticate,
                        ..
                    },
                ..
            } => Some((method, status, content_type, www_authenticate)),
            _ => None,
        })
        .collect();
    if responses.is_empty() {
        return;
    }
    let statuses: Vec<String> = responses
        .iter()
        .map(|(method, status, content_type, _)| {
            format!(
                "{method} {status} {}",
                content_type.as_deref().unwrap_or("(no content type)")
            )
        })
        .collect();
    let challenge = responses.iter().find_map(|(_, status, _, challenge)| {
        matches!(status, 401 | 403).then(|| challenge.clone().unwrap_or_default())
    });
    let html = responses.iter().any(|(_, status, content_type, _)| {
        (200..300).contains(status)
            && content_type
                .as_deref()
                .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/html"))
    });
    if let Some(challenge) = challenge {
        const KEY: &str = "resource_metadata=";
        let metadata = challenge
            .find(KEY)
            .map(|at| {
                let value = challenge[at + KEY.len()..]
                    .split(',')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_matches('"');
                format!("; its resource metadata is at {value}")
            })
            .unwrap_or_default();
        list.add(
            "http",
            CheckStatus::Fail,
            format!("the server answered 401/403 (WWW-Authenticate: {challenge}){metadata}; responses: {}", statuses.join(", ")),
            Some("the server requires authorization: add credentials (a header such as Authorization, or OAuth)".into()),
        );
    } else if html {
        list.add(
            "http",
            CheckStatus::Fail,
            format!("the server answered with a web page; responses: {}", statuses.join(", ")),
            Some("a login page or a proxy's page: check the URL, and whether a VPN or login is needed".into()),
        );
    } else {
        list.add(
            "http",
            CheckStatus::Pass,
            format!("responses: {}", statuses.join(", ")),
            None,
        );
    }
}

fn stderr_check(tail: &str, list: &mut Checklist) {
    let tail = tail.trim();
    if tail.is_empty() {
        return;
    }
    let lines: Vec<&str> = tail.lines().collect();
    let shown = lines[lines.len().saturating_sub(5)..].join("\n");
    list.add(
        "stderr",
        CheckStatus::Info,
        format!("{} line(s), the last:\n{shown}", lines.len()),
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command_check(server: &ServerConfig) -> (bool, Check) {
        let mut list = Checklist { checks: Vec::new() };
        let started = check_launch(server, &mut list);
        (started, list.checks.remove(0))
    }

    #[test]
    fn commands_are_found_on_the_servers_path() {
        let dir = tempfile::tempdir().unwrap();
        let name = if cfg!(windows) {
            "my-server.exe"
        } else {
            "my-server"
        };
        let tool = dir.path().join(name);
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let on_path = |command: &str| {
            let mut server = ServerConfig::stdio("s", command, Vec::<String>::new(), "/");
            if let Launch::Stdio { env, .. } = &mut server.launch {
                let path = dir.path().display().to_string();
                env.insert("PATH".into(), path.into());
            }
            server
        };
        let (started, check) = command_check(&on_path("my-server"));
        assert!(started);
        assert_eq!(check.status, CheckStatus::Pass);
        assert_eq!(check.detail, format!("my-server is {}", tool.display()));
        let (started, check) = command_check(&on_path("not-there-at-all"));
        assert!(!started);
        assert_eq!(check.status, CheckStatus::Fail);
        assert_eq!(check.detail, "not-there-at-all is not found on PATH");
        assert!(check.hint.is_some_and(|hint| hint.contains("on PATH")));
        assert!(command_hint("npx").contains("npx.cmd"));
    }
}
