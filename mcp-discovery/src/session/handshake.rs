//! Connecting: detect the era, then `server/discover` (modern) or
//! `initialize` + `notifications/initialized` (legacy).

use std::sync::Arc;

use mcp_protocol::meta::{self, RequestMeta};
use mcp_protocol::version::{Era, ProtocolVersion};
use mcp_protocol::{ErrorCode, RawJson};
use mcp_transport::secret::Masker;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::engine::Engine;
use super::error::{ErrorKind, SessionError};
use super::options::{EraPreference, RequestOptions, SessionOptions};

/// The versions we offer in the legacy handshake, newest first.
pub(crate) const LEGACY_OFFER: ProtocolVersion = ProtocolVersion::V2025_11_25;
/// The modern versions we speak.
pub(crate) const MODERN_VERSIONS: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

/// What the server told us about itself when we connected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerState {
    /// The era in use.
    pub era: Era,
    /// The protocol version in use.
    pub protocol_version: ProtocolVersion,
    /// The server's `Implementation` (`serverInfo`), as sent.
    pub server_info: Value,
    /// The server's capabilities, as sent.
    pub capabilities: Value,
    /// The server's instructions, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Modern only: how long the discover result stays fresh, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Modern only: `public` or `private`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
}

impl ServerState {
    /// The state with known secrets masked in what the server said about itself.
    pub fn masked(mut self, masker: &Masker) -> Self {
        if masker.is_empty() {
            return self;
        }
        masker.mask_value(&mut self.server_info);
        masker.mask_value(&mut self.capabilities);
        self.instructions = self.instructions.map(|text| masker.mask_string(text));
        self
    }
}

/// Builds the modern per-request `_meta` for a version.
pub(crate) fn modern_meta(
    options: &SessionOptions,
    version: ProtocolVersion,
) -> Map<String, Value> {
    let meta = RequestMeta::new(version.as_str(), options.capabilities.clone())
        .client_info(options.client_info.clone());
    match &options.log_level {
        Some(level) => meta.log_level(level),
        None => meta,
    }
    .into_map()
}

/// Merges `meta` into `params._meta`, keeping keys already there (a progress token).
pub(crate) fn with_meta(params: Option<Value>, meta: &Map<String, Value>) -> Option<Value> {
    let mut params = params.unwrap_or_else(|| Value::Object(Map::new()));
    if let Some(object) = params.as_object_mut() {
        let entry = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(existing) = entry.as_object_mut() {
            for (key, value) in meta {
                existing.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
    Some(params)
}

/// Connects: returns what the server said about itself.
pub(crate) async fn handshake(
    engine: &Arc<Engine>,
    options: &SessionOptions,
) -> Result<ServerState, SessionError> {
    match options.era {
        EraPreference::Legacy => initialize(engine, options).await,
        EraPreference::Modern => match discover(engine, options, true).await? {
            Some(state) => Ok(state),
            None => Err(SessionError::new(
                engine.server(),
                "server/discover",
                ErrorKind::VersionMismatch {
                    server: "no modern protocol version".into(),
                    offered: MODERN_VERSIONS[0].to_string(),
                },
            )),
        },
        EraPreference::Auto => match discover(engine, options, false).await? {
            Some(state) => Ok(state),
            None => match initialize(engine, options).await {
                // A slow modern server may answer the probe after it timed out, and then
                // refuse `initialize` naming the modern versions: it is modern after all.
                Err(error) if speaks_modern(&error) => {
                    tracing::debug!(server = %engine.server(), "initialize refused in favour of 2026-07-28; discovering again");
                    discover(engine, options, true).await?.ok_or(error)
                }
                other => other,
            },
        },
    }
}

/// Whether an error means "this server is not modern", so a legacy handshake is worth trying.
fn means_legacy(error: &SessionError) -> bool {
    match error.kind() {
        ErrorKind::Timeout { .. }
        | ErrorKind::Server { .. }
        | ErrorKind::ProtocolViolation { .. } => true,
        ErrorKind::Transport(transport) => !transport.is_fatal(),
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

/// Probes with `server/discover`. `Ok(None)` means "not modern" (only when not `strict`).
async fn discover(
    engine: &Arc<Engine>,
    options: &SessionOptions,
    strict: bool,
) -> Result<Option<ServerState>, SessionError> {
    const METHOD: &str = "server/discover";
    let timeout = if strict {
        options.initialize_timeout
    } else {
        options.probe_timeout
    };
    let probe = RequestOptions::with_timeout(timeout);
    let mut version = MODERN_VERSIONS[0];
    // One retry: a -32022 answer names the versions the server supports.
    for attempt in 0..2 {
        let params = with_meta(None, &modern_meta(options, version));
        match engine
            .request(METHOD, params, &probe, timeout, timeout)
            .await
        {
            Ok(raw) => {
                let result = read_result(engine, METHOD, &raw)?;
                let theirs: Vec<String> = result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                return match mcp_protocol::version::choose_version(&MODERN_VERSIONS, &theirs) {
                    Ok(chosen) => Ok(Some(modern_state(chosen, &raw, &result))),
                    Err(_) if !strict => Ok(None),
                    Err(_) => Err(mismatch(engine, METHOD, &theirs)),
                };
            }
            Err(error) => {
                if let Some(supported) = supported_from_error(&error) {
                    match mcp_protocol::version::choose_version(&MODERN_VERSIONS, &supported) {
                        Ok(chosen) if attempt == 0 => {
                            version = chosen;
                            continue;
                        }
                        _ if !strict && supported.iter().any(|v| is_legacy(v)) => return Ok(None),
                        _ => return Err(mismatch(engine, METHOD, &supported)),
                    }
                }
                if !strict && means_legacy(&error) {
                    tracing::debug!(server = %engine.server(), %error, "not a modern server; trying initialize");
                    return Ok(None);
                }
                return Err(error);
            }
        }
    }
    Err(mismatch(engine, METHOD, &[]))
}

/// Whether an error is a -32022 that lists a modern version we speak.
fn speaks_modern(error: &SessionError) -> bool {
    supported_from_error(error).is_some_and(|supported| {
        mcp_protocol::version::choose_version(&MODERN_VERSIONS, &supported).is_ok()
    })
}

fn is_legacy(version: &str) -> bool {
    version
        .parse::<ProtocolVersion>()
        .is_ok_and(|v| v.era() == Era::Legacy)
}

fn mismatch(engine: &Engine, operation: &str, theirs: &[String]) -> SessionError {
    SessionError::new(
        engine.server(),
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

/// A result as a JSON value; handshake results are small and read whole.
fn read_result(engine: &Engine, method: &str, result: &RawJson) -> Result<Value, SessionError> {
    result.to_value().map_err(|error| {
        SessionError::new(
            engine.server(),
            method,
            ErrorKind::ProtocolViolation {
                reason: format!("unreadable result: {error}"),
            },
        )
    })
}

fn modern_state(version: ProtocolVersion, raw: &RawJson, result: &Value) -> ServerState {
    ServerState {
        era: Era::Modern,
        protocol_version: version,
        server_info: meta::server_info_of(raw).unwrap_or(Value::Null),
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        ttl_ms: Some(meta::ttl_ms_of(raw)),
        cache_scope: result
            .get("cacheScope")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// The legacy handshake: `initialize`, check the version, `notifications/initialized`.
pub(crate) async fn initialize(
    engine: &Arc<Engine>,
    options: &SessionOptions,
) -> Result<ServerState, SessionError> {
    const METHOD: &str = "initialize";
    let params = json!({
        "protocolVersion": LEGACY_OFFER.as_str(),
        "capabilities": options.capabilities,
        "clientInfo": options.client_info,
    });
    let result = engine
        .request(
            METHOD,
            Some(params),
            &RequestOptions::with_timeout(options.initialize_timeout),
            options.initialize_timeout,
            options.initialize_timeout,
        )
        .await?;
    let result = read_result(engine, METHOD, &result)?;
    let answered = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            SessionError::new(
                engine.server(),
                METHOD,
                ErrorKind::ProtocolViolation {
                    reason: "initialize result has no protocolVersion".into(),
                },
            )
        })?;
    let offered = ProtocolVersion::ALL
        .iter()
        .copied()
        .filter(|v| v.era() == Era::Legacy)
        .collect::<Vec<_>>();
    let version = match mcp_protocol::version::negotiate_legacy(&offered, answered) {
        Ok(version) => version,
        Err(_) => {
            let error = SessionError::new(
                engine.server(),
                METHOD,
                ErrorKind::VersionMismatch {
                    server: answered.to_owned(),
                    offered: offered
                        .iter()
                        .map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                },
            );
            let _ = engine.close().await;
            return Err(error);
        }
    };
    engine
        .notify_server("notifications/initialized", None)
        .await?;
    Ok(ServerState {
        era: Era::Legacy,
        protocol_version: version,
        server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
        capabilities: result
            .get("capabilities")
            .cloned()
            .unwrap_or_else(|| json!({})),
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
        ttl_ms: None,
        cache_scope: None,
    })
}
