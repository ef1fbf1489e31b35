//! Every era decision of the handshake, as a script of events and the
//! actions each one must bring, with no runtime.

use std::time::Duration;

use mcpdisco_protocol::ErrorCode;
use mcpdisco_protocol::version::Era;
use mcpdisco_transport::{ConnectCause, TransportError};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Action, Event, Negotiator, Outgoing};
use crate::error::{ErrorKind, SessionError};
use crate::session::options::EraPreference;
use crate::session::server_state::ServerState;

const PROBE: Duration = Duration::from_millis(300);
const INITIALIZE: Duration = Duration::from_secs(30);
/// How far the clock moves between two events of a script.
const TICK: Duration = Duration::from_millis(40);

/// An action, told in a form a table can spell.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Did {
    /// `server/discover` offering the version, waiting this long.
    Discover(&'static str, Duration),
    /// `initialize`, waiting this long.
    Initialize(Duration),
    /// `notifications/initialized`.
    Initialized,
    /// Closed the connection.
    Close,
    /// Connected in the era, at the version.
    Connected(Era, &'static str),
    /// Failed: the kind of error, and the operation it names (`passed on`:
    /// the error of an event, unchanged).
    Failed(&'static str, &'static str),
}

use Did::*;

/// Events, each with the actions it must bring.
type Script = Vec<(Event, Vec<Did>)>;

fn probe() -> Did {
    Discover("2026-07-28", PROBE)
}

fn strict_probe() -> Did {
    Discover("2026-07-28", INITIALIZE)
}

fn initialize() -> Did {
    Initialize(INITIALIZE)
}

fn negotiator(preference: EraPreference) -> Negotiator {
    Negotiator::new("s", preference, PROBE, INITIALIZE)
}

/// Tells an action at `now` the way the tables spell it.
fn told(action: &Action, now: Instant) -> Did {
    match action {
        Action::Send { request, deadline } => {
            let waits = deadline.saturating_duration_since(now);
            match request {
                Outgoing::Discover(version) => Discover(version.as_str(), waits),
                Outgoing::Initialize => Initialize(waits),
            }
        }
        Action::SendInitialized => Initialized,
        Action::Close => Close,
        Action::Connected(state) => Connected(state.era, state.protocol_version.as_str()),
        Action::Fail(error) => Failed(
            error.kind_name(),
            match error.operation() {
                "server/discover" => "server/discover",
                "initialize" => "initialize",
                _ => "passed on",
            },
        ),
    }
}

/// Plays `script` (each event, then the actions it must bring) from the
/// start, one [`TICK`] apart; returns the state it connected with, if any.
fn play(name: &str, preference: EraPreference, script: Script) -> Option<ServerState> {
    let mut negotiator = negotiator(preference);
    let mut now = Instant::now();
    let mut connected = None;
    for (index, (event, expected)) in script.into_iter().enumerate() {
        let actions = negotiator.step(event, now);
        let seen: Vec<Did> = actions.iter().map(|action| told(action, now)).collect();
        assert_eq!(seen, expected, "{name}: step {index}");
        for action in actions {
            if let Action::Connected(state) = action {
                connected = Some(*state);
            }
        }
        now += TICK;
    }
    connected
}

fn answer(result: Value) -> Event {
    Event::Answered(result.into())
}

fn discovered(versions: &[&str]) -> Event {
    answer(json!({"supportedVersions": versions, "capabilities": {}}))
}

fn initialized(version: &str) -> Event {
    answer(
        json!({"protocolVersion": version, "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}),
    )
}

fn failed(kind: ErrorKind) -> Event {
    Event::Failed(SessionError::new("s", "the request", kind))
}

fn error(code: ErrorCode) -> Event {
    failed(ErrorKind::Server {
        code,
        message: "nope".into(),
        data: None,
    })
}

/// -32022, listing `supported`.
fn unsupported(supported: &[&str]) -> Event {
    failed(ErrorKind::Server {
        code: ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        message: "Unsupported protocol version".into(),
        data: Some(json!({"supported": supported})),
    })
}

fn silence() -> Event {
    failed(ErrorKind::Timeout { after: PROBE })
}

fn transport(error: TransportError) -> Event {
    failed(ErrorKind::Transport(error))
}

fn http(status: u16) -> Event {
    transport(TransportError::Http {
        server: "s".into(),
        status,
        rpc_error: None,
        body: String::new(),
    })
}

/// The legacy handshake after a fallback, ending at `version`.
fn legacy_end(version: &'static str) -> Script {
    vec![
        (initialized(version), vec![Initialized]),
        (Event::Notified, vec![Connected(Era::Legacy, version)]),
    ]
}

/// `first`, then `rest`.
fn joined(mut first: Script, rest: Script) -> Script {
    first.extend(rest);
    first
}

/// `first` (the start and the probe's fate), then the legacy handshake at 2025-11-25.
fn then_legacy(first: Script) -> Script {
    joined(first, legacy_end("2025-11-25"))
}

#[test]
fn every_era_decision() {
    use EraPreference::{Auto, Legacy, Modern};
    let start = || (Event::Start, vec![probe()]);
    let rows: Vec<(&str, EraPreference, Script)> = vec![
        (
            "a modern answer (time, git, FastMCP)",
            Auto,
            vec![
                start(),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "a modern answer listing versions we do not know too",
            Auto,
            vec![
                start(),
                (
                    discovered(&["2099-01-01", "2026-07-28", "2025-11-25"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "-32601 to the probe (everything, filesystem, memory)",
            Auto,
            then_legacy(vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
            ]),
        ),
        (
            "-32602 to the probe",
            Auto,
            then_legacy(vec![
                start(),
                (error(ErrorCode::INVALID_PARAMS), vec![initialize()]),
            ]),
        ),
        (
            "-32600 to the probe",
            Auto,
            then_legacy(vec![
                start(),
                (error(ErrorCode::INVALID_REQUEST), vec![initialize()]),
            ]),
        ),
        (
            "-32603 to the probe",
            Auto,
            then_legacy(vec![
                start(),
                (error(ErrorCode::INTERNAL_ERROR), vec![initialize()]),
            ]),
        ),
        (
            "silence: the probe times out",
            Auto,
            then_legacy(vec![start(), (silence(), vec![initialize()])]),
        ),
        (
            "HTTP 400 to the probe (FastMCP without the modern headers)",
            Auto,
            then_legacy(vec![start(), (http(400), vec![initialize()])]),
        ),
        (
            "a malformed answer to the probe (HTTP protocol error)",
            Auto,
            then_legacy(vec![
                start(),
                (
                    transport(TransportError::Protocol {
                        server: "s".into(),
                        reason: "bad content type".into(),
                    }),
                    vec![initialize()],
                ),
            ]),
        ),
        (
            "a probe answer listing only legacy versions",
            Auto,
            then_legacy(vec![
                start(),
                (discovered(&["2025-06-18"]), vec![initialize()]),
            ]),
        ),
        (
            "-32022 listing a modern version: probed again with it",
            Auto,
            vec![
                start(),
                (unsupported(&["2026-07-28"]), vec![probe()]),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "-32022 twice: no common version",
            Auto,
            vec![
                start(),
                (unsupported(&["2026-07-28"]), vec![probe()]),
                (
                    unsupported(&["2026-07-28"]),
                    vec![Failed("version_mismatch", "server/discover")],
                ),
            ],
        ),
        (
            "-32022 listing only legacy versions",
            Auto,
            then_legacy(vec![
                start(),
                (unsupported(&["2025-11-25"]), vec![initialize()]),
            ]),
        ),
        (
            "-32022 listing only versions we do not know",
            Auto,
            vec![
                start(),
                (
                    unsupported(&["2099-01-01"]),
                    vec![Failed("version_mismatch", "server/discover")],
                ),
            ],
        ),
        (
            "a probe answer without supportedVersions",
            Auto,
            vec![
                start(),
                (
                    answer(json!({"capabilities": {}})),
                    vec![Failed("protocol_violation", "server/discover")],
                ),
            ],
        ),
        (
            "a refused connection: initialize would meet it too",
            Auto,
            vec![
                start(),
                (
                    transport(TransportError::Connect {
                        server: "s".into(),
                        url: "http://127.0.0.1:1/mcp".into(),
                        cause: ConnectCause::Refused,
                        reason: "refused".into(),
                    }),
                    vec![Failed("transport", "passed on")],
                ),
            ],
        ),
        (
            "a closed connection",
            Auto,
            vec![
                start(),
                (
                    transport(TransportError::Closed { server: "s".into() }),
                    vec![Failed("transport", "passed on")],
                ),
            ],
        ),
        (
            "a probe past its timeout, then -32601 to initialize: modern",
            Auto,
            vec![
                start(),
                (silence(), vec![initialize()]),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![strict_probe()]),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "a probe past its timeout, then HTTP 404 to initialize: modern",
            Auto,
            vec![
                start(),
                (silence(), vec![initialize()]),
                (http(404), vec![strict_probe()]),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "a probe past its timeout, then HTTP 405 to initialize: modern",
            Auto,
            vec![
                start(),
                (silence(), vec![initialize()]),
                (http(405), vec![strict_probe()]),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "a probe past its timeout, then -32602 to initialize: its last word",
            Auto,
            vec![
                start(),
                (silence(), vec![initialize()]),
                (
                    error(ErrorCode::INVALID_PARAMS),
                    vec![Failed("server_error", "passed on")],
                ),
            ],
        ),
        (
            "a probe past its timeout, then a re-probe that is refused too",
            Auto,
            vec![
                start(),
                (silence(), vec![initialize()]),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![strict_probe()]),
                (
                    error(ErrorCode::METHOD_NOT_FOUND),
                    vec![Failed("server_error", "passed on")],
                ),
            ],
        ),
        (
            "-32601 to the probe and to initialize: no second probe",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (
                    error(ErrorCode::METHOD_NOT_FOUND),
                    vec![Failed("server_error", "passed on")],
                ),
            ],
        ),
        (
            "initialize refused with -32022 naming the modern version",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (unsupported(&["2026-07-28"]), vec![strict_probe()]),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "initialize refused with -32022 naming only legacy versions",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (
                    unsupported(&["2025-06-18"]),
                    vec![Failed("server_error", "passed on")],
                ),
            ],
        ),
        (
            "an older legacy version answered",
            Auto,
            joined(
                vec![
                    start(),
                    (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                ],
                legacy_end("2024-11-05"),
            ),
        ),
        (
            "an unknown version answered to initialize",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (
                    initialized("1999-01-01"),
                    vec![Close, Failed("version_mismatch", "initialize")],
                ),
            ],
        ),
        (
            "the modern version answered to initialize",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (
                    initialized("2026-07-28"),
                    vec![Close, Failed("version_mismatch", "initialize")],
                ),
            ],
        ),
        (
            "an initialize result without protocolVersion",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (
                    answer(json!({"capabilities": {}})),
                    vec![Failed("protocol_violation", "initialize")],
                ),
            ],
        ),
        (
            "an initialize result without serverInfo or capabilities",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (
                    answer(json!({"protocolVersion": "2025-11-25"})),
                    vec![Initialized],
                ),
                (Event::Notified, vec![Connected(Era::Legacy, "2025-11-25")]),
            ],
        ),
        (
            "notifications/initialized cannot be sent",
            Auto,
            vec![
                start(),
                (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
                (initialized("2025-11-25"), vec![Initialized]),
                (
                    transport(TransportError::Closed { server: "s".into() }),
                    vec![Failed("transport", "passed on")],
                ),
            ],
        ),
        (
            "pinned legacy: initialize first",
            Legacy,
            joined(
                vec![(Event::Start, vec![initialize()])],
                legacy_end("2025-03-26"),
            ),
        ),
        (
            "pinned legacy: a -32601 to initialize is the last word",
            Legacy,
            vec![
                (Event::Start, vec![initialize()]),
                (
                    error(ErrorCode::METHOD_NOT_FOUND),
                    vec![Failed("server_error", "passed on")],
                ),
            ],
        ),
        (
            "pinned modern: a modern answer",
            Modern,
            vec![
                (Event::Start, vec![strict_probe()]),
                (
                    discovered(&["2026-07-28"]),
                    vec![Connected(Era::Modern, "2026-07-28")],
                ),
            ],
        ),
        (
            "pinned modern: -32601 is final",
            Modern,
            vec![
                (Event::Start, vec![strict_probe()]),
                (
                    error(ErrorCode::METHOD_NOT_FOUND),
                    vec![Failed("server_error", "passed on")],
                ),
            ],
        ),
        (
            "pinned modern: silence is final",
            Modern,
            vec![
                (Event::Start, vec![strict_probe()]),
                (silence(), vec![Failed("timeout", "passed on")]),
            ],
        ),
        (
            "pinned modern: only legacy versions listed",
            Modern,
            vec![
                (Event::Start, vec![strict_probe()]),
                (
                    discovered(&["2025-11-25"]),
                    vec![Failed("version_mismatch", "server/discover")],
                ),
            ],
        ),
        (
            "pinned modern: -32022 listing only legacy versions",
            Modern,
            vec![
                (Event::Start, vec![strict_probe()]),
                (
                    unsupported(&["2025-11-25"]),
                    vec![Failed("version_mismatch", "server/discover")],
                ),
            ],
        ),
    ];
    for (name, preference, script) in rows {
        play(name, preference, script);
    }
}

#[test]
fn events_that_mean_nothing_here_change_nothing() {
    let mut negotiator = negotiator(EraPreference::Auto);
    let now = Instant::now();
    // Nothing is asked before the start.
    assert!(negotiator.step(Event::Notified, now).is_empty());
    assert_eq!(negotiator.step(Event::Start, now).len(), 1);
    // No notification was being sent; a second start starts nothing.
    assert!(negotiator.step(Event::Notified, now).is_empty());
    assert!(negotiator.step(Event::Start, now).is_empty());
    // The probe is still in flight.
    let actions = negotiator.step(discovered(&["2026-07-28"]), now);
    assert!(matches!(actions.as_slice(), [Action::Connected(_)]));
    // After the end, a late answer asks for nothing.
    assert!(negotiator.step(discovered(&["2026-07-28"]), now).is_empty());
    assert!(negotiator.step(silence(), now).is_empty());
}

#[test]
fn deadlines_count_from_the_time_of_the_event() {
    let mut negotiator = negotiator(EraPreference::Auto);
    let start = Instant::now();
    let later = start + Duration::from_secs(7);
    let deadline = |actions: Vec<Action>| match actions.as_slice() {
        [Action::Send { deadline, .. }] => *deadline,
        other => panic!("expected one request, got {other:?}"),
    };
    assert_eq!(
        deadline(negotiator.step(Event::Start, start)),
        start + PROBE
    );
    assert_eq!(
        deadline(negotiator.step(silence(), later)),
        later + INITIALIZE
    );
}

#[test]
fn a_modern_state_reads_the_discover_result_and_its_meta() {
    let state = play(
        "modern",
        EraPreference::Auto,
        vec![
            (Event::Start, vec![probe()]),
            (
                answer(json!({
                    "resultType": "complete", "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}, "extensions": {"io.modelcontextprotocol/ui": {}}},
                    "ttlMs": -5, "cacheScope": "private", "instructions": "be kind",
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcp-time", "version": "2026.10.19"}},
                })),
                vec![Connected(Era::Modern, "2026-07-28")],
            ),
        ],
    );
    let state = state.expect("connected");
    assert_eq!(state.server_info.name, "mcp-time");
    // A negative ttlMs is 0.
    assert_eq!(state.ttl_ms, Some(0));
    assert_eq!(state.cache_scope.as_deref(), Some("private"));
    assert_eq!(state.instructions.as_deref(), Some("be kind"));
    assert!(state.has_capability("io.modelcontextprotocol/ui"));
    assert_eq!(state.negotiation.probe.as_deref(), Some("answered"));
    assert_eq!(state.negotiation.offered, ["2026-07-28"]);
    assert_eq!(state.negotiation.answered, ["2026-07-28"]);
}

#[test]
fn a_modern_state_without_server_info_is_unnamed() {
    let state = play(
        "modern, unnamed",
        EraPreference::Auto,
        vec![
            (Event::Start, vec![probe()]),
            (
                discovered(&["2026-07-28"]),
                vec![Connected(Era::Modern, "2026-07-28")],
            ),
        ],
    )
    .expect("connected");
    assert_eq!(state.server_info.name, "");
    assert_eq!(state.ttl_ms, Some(0));
    assert_eq!(state.cache_scope, None);
}

#[test]
fn a_legacy_state_keeps_the_probe_and_the_extras_of_initialize() {
    let state = play(
        "tools in initialize",
        EraPreference::Auto,
        vec![
            (Event::Start, vec![probe()]),
            (error(ErrorCode::METHOD_NOT_FOUND), vec![initialize()]),
            (
                answer(json!({
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "serverInfo": {"name": "fixture-server", "version": "1.0.0"},
                    "tools": [{"name": "echo", "inputSchema": {"type": "object"}}],
                })),
                vec![Initialized],
            ),
            (Event::Notified, vec![Connected(Era::Legacy, "2025-06-18")]),
        ],
    )
    .expect("connected");
    assert_eq!(state.server_info.name, "fixture-server");
    assert_eq!(state.ttl_ms, None);
    let negotiation = &state.negotiation;
    assert_eq!(
        negotiation.probe.as_deref(),
        Some("answered with error -32601 (method not found): nope")
    );
    assert!(!negotiation.probe_timed_out);
    assert_eq!(
        negotiation.offered,
        ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    );
    assert_eq!(negotiation.answered, ["2025-06-18"]);
    assert_eq!(negotiation.initialize_extras, ["tools"]);
}

#[test]
fn a_server_found_modern_after_initialize_keeps_what_the_probe_found() {
    let state = play(
        "slow modern",
        EraPreference::Auto,
        vec![
            (Event::Start, vec![probe()]),
            (silence(), vec![initialize()]),
            (error(ErrorCode::METHOD_NOT_FOUND), vec![strict_probe()]),
            (
                discovered(&["2026-07-28"]),
                vec![Connected(Era::Modern, "2026-07-28")],
            ),
        ],
    )
    .expect("connected");
    let negotiation = &state.negotiation;
    assert!(negotiation.probe_timed_out);
    assert_eq!(negotiation.probe.as_deref(), Some("answered"));
    assert_eq!(negotiation.offered, ["2026-07-28"]);
    assert!(negotiation.initialize_extras.is_empty());
}

#[test]
fn a_timed_out_probe_is_recorded() {
    let mut negotiator = negotiator(EraPreference::Auto);
    let now = Instant::now();
    negotiator.step(Event::Start, now);
    negotiator.step(silence(), now);
    assert!(negotiator.record.probe_timed_out);
    assert_eq!(
        negotiator.record.probe.as_deref(),
        Some("no answer within 300ms")
    );
}

#[test]
fn version_mismatch_names_both_sides() {
    let mut negotiator = negotiator(EraPreference::Auto);
    let now = Instant::now();
    negotiator.step(Event::Start, now);
    negotiator.step(error(ErrorCode::METHOD_NOT_FOUND), now);
    let actions = negotiator.step(initialized("1999-01-01"), now);
    let [Action::Close, Action::Fail(error)] = actions.as_slice() else {
        panic!("expected close and fail, got {actions:?}")
    };
    let ErrorKind::VersionMismatch { server, offered } = error.kind() else {
        panic!("expected a version mismatch, got {error}")
    };
    assert_eq!(server, "1999-01-01");
    assert_eq!(offered, "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25");
    assert!(
        error.to_string().starts_with("server 's': initialize:"),
        "{error}"
    );
}

#[test]
fn a_refused_initialized_after_a_silent_probe_means_modern_with_what_the_probe_found() {
    // The modern wire refuses the notification as it would `initialize`:
    // what `initialize` answered is forgotten.
    let state = play(
        "notification refused",
        EraPreference::Auto,
        vec![
            (Event::Start, vec![probe()]),
            (silence(), vec![initialize()]),
            (
                answer(json!({"protocolVersion": "2025-11-25", "tools": []})),
                vec![Initialized],
            ),
            (http(404), vec![strict_probe()]),
            (
                discovered(&["2026-07-28"]),
                vec![Connected(Era::Modern, "2026-07-28")],
            ),
        ],
    )
    .expect("connected");
    assert!(state.negotiation.initialize_extras.is_empty());
    assert_eq!(state.negotiation.answered, ["2026-07-28"]);
}
