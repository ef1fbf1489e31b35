//! The pure core of the handshake: settling the era and the protocol
//! version as a state machine. [`Negotiator::step`] takes what became of
//! the request in flight ([`Event`]) and the time as a value, and answers
//! what to do ([`Action`]); it sends nothing, waits for nothing and reads
//! no clock, so every era decision is tested without a runtime. The runner
//! in [`handshake`](super::handshake) performs the actions over the
//! session's request path and feeds back the events they end in.
//!
//! With [`EraPreference::Auto`]:
//! 1. `server/discover` probes within the probe timeout. A result listing
//!    a modern version we speak: modern, done. A -32022 listing one: the
//!    probe is sent once more, offering it. Any other answer, an error, a
//!    broken but open connection or silence: the server is not modern.
//! 2. `initialize` offers [`LEGACY_OFFER`]; the version the server answers
//!    must be a legacy one we speak, or the connection is closed.
//! 3. `notifications/initialized`, then legacy, done.
//!
//! A slow modern server may answer the probe after it timed out, then
//! refuse `initialize`: with a -32022 naming a modern version, or, when
//! the probe timed out, as a method it does not know (-32601, HTTP 404 or
//! 405; a legacy server never refuses `initialize` so). It is modern after
//! all: it is probed again, strictly (within the `initialize` timeout, no
//! fallback). [`EraPreference::Legacy`] starts at step 2, and
//! [`EraPreference::Modern`] probes strictly and never falls back.

use std::time::Duration;

use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{Discover, Initialize};
use mcpdisco_protocol::types::{DiscoverResult, InitializeResult};
use mcpdisco_protocol::version::{self, Era, ProtocolVersion};
use mcpdisco_protocol::{ErrorCode, RawJson};
use mcpdisco_transport::TransportError;
use tokio::time::Instant;

use super::options::EraPreference;
use super::server_state::{LEGACY_OFFER, MODERN_VERSIONS, Negotiation, ServerState};
use crate::error::{ErrorKind, SessionError};

/// A request of the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outgoing {
    /// `server/discover`, under the modern `_meta` of this version.
    Discover(ProtocolVersion),
    /// `initialize`, offering [`LEGACY_OFFER`].
    Initialize,
}

/// What became of what the negotiator asked for.
#[derive(Debug)]
pub(crate) enum Event {
    /// Begin: the connection is open.
    Start,
    /// The request in flight was answered with this result.
    Answered(RawJson),
    /// The request in flight, or `notifications/initialized`, failed: an
    /// error answer, a broken connection, or no answer by the request's
    /// deadline ([`ErrorKind::Timeout`]).
    Failed(SessionError),
    /// `notifications/initialized` was sent.
    Notified,
}

/// What the runner is to do, in order.
#[derive(Debug)]
pub(crate) enum Action {
    /// Send `request` and wait for it until `deadline`, when it is
    /// cancelled on the server; ends in [`Event::Answered`] or
    /// [`Event::Failed`].
    Send {
        /// Which.
        request: Outgoing,
        /// The latest its answer may come.
        deadline: Instant,
    },
    /// Send `notifications/initialized`; ends in [`Event::Notified`] or
    /// [`Event::Failed`].
    SendInitialized,
    /// Close the connection (however that ends, the next action follows).
    Close,
    /// The handshake is over: the server is this.
    Connected(Box<ServerState>),
    /// The handshake failed.
    Fail(SessionError),
}

/// Where a negotiation is.
#[derive(Debug)]
enum Phase {
    /// Nothing sent yet.
    Idle,
    /// A `server/discover` is in flight.
    Probing(Probe),
    /// `initialize` is in flight. After a probe, `probe` keeps what the
    /// probe found, in case the server turns out modern after all.
    Initializing { probe: Option<Negotiation> },
    /// `notifications/initialized` is being sent; then the server is `state`.
    Notifying {
        state: Box<ServerState>,
        probe: Option<Negotiation>,
    },
    /// Connected or failed.
    Over,
}

/// A `server/discover` in flight.
#[derive(Debug, Clone, Copy)]
struct Probe {
    /// Whether it is the second, after a -32022.
    retried: bool,
    /// Whether only a modern answer will do (no fallback to `initialize`).
    strict: bool,
}

impl Probe {
    /// The first probe of [`EraPreference::Auto`]: anything but a modern
    /// answer means legacy.
    const MAY_FALL_BACK: Self = Self {
        retried: false,
        strict: false,
    };
    /// The first probe of a server that must be modern.
    const STRICT: Self = Self {
        retried: false,
        strict: true,
    };
}

/// The negotiation of one handshake: its phase, and what it has found.
#[derive(Debug)]
pub(crate) struct Negotiator {
    server: String,
    preference: EraPreference,
    probe_timeout: Duration,
    initialize_timeout: Duration,
    phase: Phase,
    record: Negotiation,
}

impl Negotiator {
    /// A negotiation with `server` in the era `preference` asks for; a
    /// probe that may fall back waits `probe_timeout`, every other request
    /// `initialize_timeout`.
    pub(crate) fn new(
        server: &str,
        preference: EraPreference,
        probe_timeout: Duration,
        initialize_timeout: Duration,
    ) -> Self {
        Self {
            server: server.to_owned(),
            preference,
            probe_timeout,
            initialize_timeout,
            phase: Phase::Idle,
            record: Negotiation::default(),
        }
    }

    /// What to do about `event`, which happened at `now`. An event that
    /// means nothing in the current phase (an answer after the end)
    /// changes nothing and asks for nothing.
    pub(crate) fn step(&mut self, event: Event, now: Instant) -> Vec<Action> {
        match (std::mem::replace(&mut self.phase, Phase::Over), event) {
            (Phase::Idle, Event::Start) => match self.preference {
                EraPreference::Auto => self.probe(MODERN_VERSIONS[0], Probe::MAY_FALL_BACK, now),
                EraPreference::Modern => self.probe(MODERN_VERSIONS[0], Probe::STRICT, now),
                EraPreference::Legacy => self.initialize(None, now),
            },
            (Phase::Probing(probe), Event::Answered(raw)) => self.discovered(probe, &raw, now),
            (Phase::Probing(probe), Event::Failed(error)) => self.probe_failed(probe, error, now),
            (Phase::Initializing { probe }, Event::Answered(raw)) => {
                self.initialized(probe, &raw, now)
            }
            (Phase::Initializing { probe }, Event::Failed(error))
            | (Phase::Notifying { probe, .. }, Event::Failed(error)) => {
                self.initialize_failed(probe, error, now)
            }
            (Phase::Notifying { state, .. }, Event::Notified) => vec![Action::Connected(state)],
            (phase, _) => {
                self.phase = phase;
                Vec::new()
            }
        }
    }

    /// Sends a `server/discover` offering `version`.
    fn probe(&mut self, version: ProtocolVersion, probe: Probe, now: Instant) -> Vec<Action> {
        self.record.offered = vec![version.to_string()];
        let timeout = if probe.strict {
            self.initialize_timeout
        } else {
            self.probe_timeout
        };
        self.phase = Phase::Probing(probe);
        vec![Action::Send {
            request: Outgoing::Discover(version),
            deadline: now + timeout,
        }]
    }

    /// The probe was answered: modern if it lists a version we speak.
    fn discovered(&mut self, probe: Probe, raw: &RawJson, now: Instant) -> Vec<Action> {
        let result: DiscoverResult = match self.read::<Discover>(raw) {
            Ok(result) => result,
            Err(error) => return fail(error),
        };
        self.record.probe = Some("answered".into());
        self.record.answered = result.supported_versions.clone();
        match version::choose_version(&MODERN_VERSIONS, &result.supported_versions) {
            Ok(chosen) => {
                let state = ServerState::modern(chosen, raw, result, self.record.clone());
                vec![Action::Connected(Box::new(state))]
            }
            Err(_) if !probe.strict => self.fall_back(now),
            Err(_) => fail(self.mismatch(Discover::METHOD, &result.supported_versions)),
        }
    }

    /// The probe failed: try again with a version a -32022 named, fall back
    /// to `initialize`, or fail.
    fn probe_failed(&mut self, probe: Probe, error: SessionError, now: Instant) -> Vec<Action> {
        self.record.probe = Some(match error.kind() {
            ErrorKind::Server { code, message, .. } => {
                format!("answered with error {code}: {message}")
            }
            ErrorKind::Timeout { after } => {
                self.record.probe_timed_out = true;
                format!("no answer within {after:?}")
            }
            _ => error.to_string(),
        });
        if let Some(supported) = supported_from_error(&error) {
            self.record.answered = supported.clone();
            return match version::choose_version(&MODERN_VERSIONS, &supported) {
                Ok(chosen) if !probe.retried => {
                    let retry = Probe {
                        retried: true,
                        ..probe
                    };
                    self.probe(chosen, retry, now)
                }
                _ if !probe.strict && supported.iter().any(|v| is_legacy(v)) => self.fall_back(now),
                _ => fail(self.mismatch(Discover::METHOD, &supported)),
            };
        }
        if !probe.strict && means_legacy(&error) {
            tracing::debug!(server = %self.server, %error, "not a modern server; trying initialize");
            return self.fall_back(now);
        }
        fail(error)
    }

    /// Not modern: `initialize`, remembering what the probe found.
    fn fall_back(&mut self, now: Instant) -> Vec<Action> {
        let probe = self.record.clone();
        self.initialize(Some(probe), now)
    }

    /// Sends `initialize`.
    fn initialize(&mut self, probe: Option<Negotiation>, now: Instant) -> Vec<Action> {
        self.phase = Phase::Initializing { probe };
        vec![Action::Send {
            request: Outgoing::Initialize,
            deadline: now + self.initialize_timeout,
        }]
    }

    /// `initialize` was answered: a legacy version we speak, then
    /// `notifications/initialized`; any other closes the connection.
    fn initialized(
        &mut self,
        probe: Option<Negotiation>,
        raw: &RawJson,
        now: Instant,
    ) -> Vec<Action> {
        let result: InitializeResult = match self.read::<Initialize>(raw) {
            Ok(result) => result,
            Err(error) => return self.initialize_failed(probe, error, now),
        };
        let offered = ProtocolVersion::ALL
            .iter()
            .copied()
            .filter(|v| v.era() == Era::Legacy)
            .collect::<Vec<_>>();
        self.record.offered = offered.iter().map(ToString::to_string).collect();
        self.record.answered = vec![result.protocol_version.clone()];
        self.record.initialize_extras = result.extra.keys().cloned().collect();
        match version::negotiate_legacy(&offered, &result.protocol_version) {
            Ok(version) => {
                let state = ServerState::legacy(version, result, self.record.clone());
                self.phase = Phase::Notifying {
                    state: Box::new(state),
                    probe,
                };
                vec![Action::SendInitialized]
            }
            Err(_) => {
                let error = SessionError::new(
                    &self.server,
                    Initialize::METHOD,
                    ErrorKind::VersionMismatch {
                        server: result.protocol_version,
                        offered: self.record.offered.join(", "),
                    },
                );
                vec![Action::Close, Action::Fail(error)]
            }
        }
    }

    /// The legacy handshake failed: a slow modern server is probed again,
    /// strictly, with what the first probe found; anything else fails.
    fn initialize_failed(
        &mut self,
        probe: Option<Negotiation>,
        error: SessionError,
        now: Instant,
    ) -> Vec<Action> {
        match probe {
            Some(found)
                if speaks_modern(&error)
                    || (found.probe_timed_out && refuses_initialize(&error)) =>
            {
                tracing::debug!(server = %self.server, "initialize refused in favour of 2026-07-28; discovering again");
                self.record = found;
                self.probe(MODERN_VERSIONS[0], Probe::STRICT, now)
            }
            _ => fail(error),
        }
    }

    /// A handshake result, typed (they are small and read whole).
    fn read<M: RequestMethod>(&self, raw: &RawJson) -> Result<M::Result, SessionError> {
        raw.decode().map_err(|error| {
            SessionError::new(
                &self.server,
                M::METHOD,
                ErrorKind::ProtocolViolation {
                    reason: format!("malformed result: {error}"),
                },
            )
        })
    }

    /// No version both sides speak: `theirs` against everything we offer.
    fn mismatch(&self, operation: &str, theirs: &[String]) -> SessionError {
        SessionError::new(
            &self.server,
            operation,
            ErrorKind::VersionMismatch {
                server: if theirs.is_empty() {
                    "none listed".into()
                } else {
                    theirs.join(", ")
                },
                offered: MODERN_VERSIONS
                    .iter()
                    .map(|v| v.as_str())
                    .chain([LEGACY_OFFER.as_str()])
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        )
    }
}

fn fail(error: SessionError) -> Vec<Action> {
    vec![Action::Fail(error)]
}

/// Whether an error means "this server is not modern", so a legacy handshake is worth trying.
/// A connection that cannot be made at all is not such an error: `initialize` would meet it too.
fn means_legacy(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Timeout { .. }
        | ErrorKind::Server { .. }
        | ErrorKind::ProtocolViolation { .. } => true,
        ErrorKind::Transport(transport) => {
            !transport.is_fatal() && !matches!(transport, TransportError::Connect { .. })
        }
        _ => false,
    }
}

/// The versions listed in a -32022 error's `data.supported`.
fn supported_from_error(error: &SessionError) -> Option<Vec<String>> {
    match error.kind() {
        ErrorKind::Server {
            code,
            data: Some(data),
            ..
        } if *code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Some(
            data.get("supported")?
                .as_array()?
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ),
        _ => None,
    }
}

/// Whether `initialize` was refused as a method the server does not have:
/// -32601, or HTTP 404 or 405 on the modern wire.
fn refuses_initialize(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Server { code, .. } => *code == ErrorCode::METHOD_NOT_FOUND,
        ErrorKind::Transport(TransportError::Http { status, .. }) => matches!(status, 404 | 405),
        _ => false,
    }
}

/// Whether an error is a -32022 that lists a modern version we speak.
fn speaks_modern(error: &SessionError) -> bool {
    supported_from_error(error)
        .is_some_and(|supported| version::choose_version(&MODERN_VERSIONS, &supported).is_ok())
}

/// Whether `version` names a legacy protocol version.
fn is_legacy(version: &str) -> bool {
    version
        .parse::<ProtocolVersion>()
        .is_ok_and(|v| v.era() == Era::Legacy)
}

#[cfg(test)]
mod tests;
