//! Modern-era (2026-07-28) helpers: the per-request `_meta` keys, `resultType`,
//! and multi-round-trip (`input_required`) results.

use std::borrow::Cow;

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::raw::{JsonView, RawJson};

/// `_meta` key: the protocol version of a modern request.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for a modern request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's `Implementation`.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the log level the client asks for on this request.
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key on results: the server's `Implementation`.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key on notifications: the `subscriptions/listen` request they belong to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key: the progress token of a request.
pub const PROGRESS_TOKEN_KEY: &str = "progressToken";
/// `_meta` key: the W3C trace context's `traceparent` of a request (SEP-414,
/// part of 2026-07-28; accepted in every era).
pub const TRACEPARENT_KEY: &str = "traceparent";
/// `_meta` key: the W3C trace context's `tracestate` of a request (SEP-414).
pub const TRACESTATE_KEY: &str = "tracestate";

/// What kind of result a modern server sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    /// The final result (also what an absent `resultType` means).
    Complete,
    /// The server needs input first: `inputRequests` and/or `requestState`.
    InputRequired,
}

/// A `resultType` this crate does not know, which makes the result invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown resultType {0}")]
pub struct UnknownResultType(pub String);

impl ResultType {
    /// Reads the `resultType` of a raw result (skipping every other member):
    /// absent means complete, an unknown value is an error.
    pub fn of(result: &RawJson) -> Result<Self, UnknownResultType> {
        Self::from_member(&result.member::<Value>("resultType"))
    }

    /// The result type a result's `resultType` member says, as
    /// [`RawJson::member`] read it (for a caller that reads the member for
    /// another kind of result too, such as a task's).
    pub fn from_member(
        member: &Result<Option<Value>, serde_json::Error>,
    ) -> Result<Self, UnknownResultType> {
        match member {
            Ok(None | Some(Value::Null)) => Ok(ResultType::Complete),
            Ok(Some(Value::String(s))) if s == "complete" => Ok(ResultType::Complete),
            Ok(Some(Value::String(s))) if s == "input_required" => Ok(ResultType::InputRequired),
            Ok(Some(other)) => Err(UnknownResultType(other.to_string())),
            Err(error) => Err(UnknownResultType(format!("(unreadable: {error})"))),
        }
    }

    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
        }
    }
}

impl serde::Serialize for ResultType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ResultType {
    /// `complete` or `input_required`; anything else is an error.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
        match text.as_ref() {
            "complete" => Ok(ResultType::Complete),
            "input_required" => Ok(ResultType::InputRequired),
            other => Err(serde::de::Error::custom(UnknownResultType(format!(
                "{other:?}"
            )))),
        }
    }
}

/// Builds the `_meta` object of a modern request.
#[derive(Debug, Clone, Default)]
pub struct RequestMeta {
    entries: Map<String, Value>,
}

impl RequestMeta {
    /// The required entries: protocol version and client capabilities (`{}` for none).
    pub fn new(protocol_version: &str, client_capabilities: Value) -> Self {
        let mut entries = Map::new();
        entries.insert(PROTOCOL_VERSION_KEY.into(), Value::from(protocol_version));
        entries.insert(CLIENT_CAPABILITIES_KEY.into(), client_capabilities);
        Self { entries }
    }

    /// Adds the client's `Implementation`.
    pub fn client_info(mut self, info: Value) -> Self {
        self.entries.insert(CLIENT_INFO_KEY.into(), info);
        self
    }

    /// Adds the log level.
    pub fn log_level(mut self, level: &str) -> Self {
        self.entries
            .insert(LOG_LEVEL_KEY.into(), Value::from(level));
        self
    }

    /// Adds a progress token.
    pub fn progress_token(mut self, token: Value) -> Self {
        self.entries.insert(PROGRESS_TOKEN_KEY.into(), token);
        self
    }

    /// The `_meta` object.
    pub fn into_map(self) -> Map<String, Value> {
        self.entries
    }

    /// Merges these entries into `params._meta`, keeping entries already there.
    pub fn apply(&self, params: &mut Map<String, Value>) {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            for (key, value) in &self.entries {
                meta.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }

    /// Reads the protocol version of a notification's params, if present.
    pub fn protocol_version_of(params: &Value) -> Option<&str> {
        params.get("_meta")?.get(PROTOCOL_VERSION_KEY)?.as_str()
    }

    /// Reads the protocol version of a request's params (as sent), if present.
    pub fn protocol_version_in(params: &RawJson) -> Option<Cow<'_, str>> {
        if !may_hold(params, "_meta") {
            return None;
        }
        JsonView::of(params)
            .get("_meta")?
            .get(PROTOCOL_VERSION_KEY)?
            .as_str()
    }
}

/// Whether `json` may hold the member `key` (plain ASCII) somewhere: false
/// only when its text holds neither the key nor a `\u` escape (which could
/// spell it), so the text need not be read member by member. Most requests
/// carry no `_meta`, and their arguments may be long.
fn may_hold(json: &RawJson, key: &str) -> bool {
    let text = json.as_str();
    text.contains(key) || text.contains("\\u")
}

/// A request's `params` with its `_meta` object changed by `edit`: made
/// (`{}`) where the params or their `_meta` are absent, and every other
/// member kept as its text, in order (a new `_meta` goes last). Params that
/// are not an object, or whose `_meta` is not one, are returned unchanged.
pub fn edit_meta(
    params: Option<RawJson>,
    edit: impl FnOnce(&mut Map<String, Value>),
) -> Option<RawJson> {
    let Some(params) = params else {
        let mut meta = Map::new();
        edit(&mut meta);
        let mut object = Map::new();
        object.insert("_meta".to_owned(), Value::Object(meta));
        return Some(RawJson::from_value(&Value::Object(object)));
    };
    let Some(members) = JsonView::of(&params).members() else {
        return Some(params);
    };
    let mut meta = Map::new();
    let mut meta_at = None;
    let mut others = Vec::with_capacity(members.len());
    for (key, value) in members {
        if key == "_meta" {
            match serde_json::from_str::<Map<String, Value>>(value.text()) {
                Ok(existing) => meta = existing,
                Err(_) => return Some(params),
            }
            meta_at = Some(others.len());
        } else {
            others.push((key, value));
        }
    }
    edit(&mut meta);
    let meta_at = meta_at.unwrap_or(others.len());
    let mut out = Vec::with_capacity(params.len() + 64);
    out.push(b'{');
    for index in 0..=others.len() {
        if index == meta_at {
            if index > 0 {
                out.push(b',');
            }
            out.extend_from_slice(br#""_meta":"#);
            // A map of strings to values always writes into a Vec.
            if serde_json::to_writer(&mut out, &meta).is_err() {
                return Some(params);
            }
        }
        let Some((key, value)) = others.get(index) else {
            break;
        };
        if index > 0 || meta_at == 0 {
            out.push(b',');
        }
        // A string always writes into a Vec.
        if serde_json::to_writer(&mut out, key.as_ref()).is_err() {
            return Some(params);
        }
        out.push(b':');
        out.extend_from_slice(value.text().as_bytes());
    }
    out.push(b'}');
    Some(RawJson::scanned(Bytes::from(out), None))
}

/// The W3C trace context a request carries in `params._meta` (SEP-414):
/// `traceparent`, and `tracestate` when set. The texts are carried as they
/// are; reading them as a span context is the telemetry's job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TraceContext {
    /// `00-{trace id}-{parent id}-{flags}`.
    pub traceparent: String,
    /// Vendor entries, when set.
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// The longest `traceparent` or `tracestate` read from a request; longer
    /// ones are ignored (the W3C limits are 55 and 512 characters).
    pub const MAX_LEN: usize = 512;

    /// The trace context of a request's params, when its `_meta` has a
    /// `traceparent` string (of at most [`MAX_LEN`](Self::MAX_LEN) bytes).
    pub fn of_params(params: Option<&RawJson>) -> Option<Self> {
        let params = params.filter(|params| may_hold(params, "_meta"))?;
        let meta = JsonView::of(params).get("_meta")?;
        let [traceparent, tracestate] = meta.pick([TRACEPARENT_KEY, TRACESTATE_KEY]);
        let traceparent = traceparent?
            .as_str()
            .filter(|text| text.len() <= Self::MAX_LEN)?;
        let tracestate = tracestate
            .and_then(JsonView::as_str)
            .filter(|text| text.len() <= Self::MAX_LEN)
            .map(Cow::into_owned);
        Some(Self {
            traceparent: traceparent.into_owned(),
            tracestate,
        })
    }

    /// `params` with this context in its `_meta` (an object made where there
    /// was none), replacing the one there: each attempt carries its own.
    /// Params that are not an object are left as they are.
    pub fn apply(&self, params: Option<RawJson>) -> Option<RawJson> {
        edit_meta(params, |meta| {
            meta.insert(
                TRACEPARENT_KEY.into(),
                Value::from(self.traceparent.as_str()),
            );
            match &self.tracestate {
                Some(state) => {
                    meta.insert(TRACESTATE_KEY.into(), Value::from(state.as_str()));
                }
                None => {
                    meta.remove(TRACESTATE_KEY);
                }
            }
        })
    }

    /// Puts this context into `params._meta` unless it already has a
    /// `traceparent` (what a request says itself wins over, say, an HTTP
    /// header).
    pub fn apply_if_absent(&self, params: Option<RawJson>) -> Option<RawJson> {
        if Self::of_params(params.as_ref()).is_some() {
            return params;
        }
        self.apply(params)
    }
}

/// The server's `Implementation` from a modern result's `_meta`.
pub fn server_info_of(result: &RawJson) -> Option<Value> {
    let mut meta = result.member::<Map<String, Value>>("_meta").ok()??;
    meta.remove(SERVER_INFO_KEY)
}

/// A cache lifetime hint: `ttlMs`, where absent, negative or not an integer means 0.
pub fn ttl_ms_of(result: &RawJson) -> u64 {
    result
        .member::<Value>("ttlMs")
        .ok()
        .flatten()
        .and_then(|ttl| ttl.as_i64())
        .map_or(0, |ttl| u64::try_from(ttl).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(value: Value) -> RawJson {
        RawJson::from_value(&value)
    }

    #[test]
    fn a_member_is_looked_for_only_where_the_text_may_spell_it() {
        let version = |text: &str| {
            RequestMeta::protocol_version_in(&RawJson::parse(text.to_owned()).unwrap())
                .map(Cow::into_owned)
        };
        let meta = format!(r#"{{"_meta":{{"{PROTOCOL_VERSION_KEY}":"v"}}}}"#);
        assert_eq!(version(&meta).as_deref(), Some("v"));
        let escaped = meta.replace("_meta", "\\u005fmeta");
        assert_eq!(version(&escaped).as_deref(), Some("v"), "{escaped}");
        assert_eq!(version(r#"{"name":"_meta","x":{"_meta":1}}"#), None);
        assert!(!may_hold(
            &RawJson::parse(r#"{"a":"\n"}"#).unwrap(),
            "_meta"
        ));
        assert!(may_hold(
            &RawJson::parse(r#"{"a":"\u0041"}"#).unwrap(),
            "_meta"
        ));
    }

    #[test]
    fn edit_meta_changes_only_meta_and_keeps_every_other_member_as_sent() {
        let add = |meta: &mut Map<String, Value>| {
            meta.insert("k".into(), json!(1));
        };
        // Members kept as their text (spacing, order, escapes); `_meta` where it was.
        let sent = RawJson::parse(r#"{"b": [1, 2], "_meta": {"x": "y"}, "a\u0041": {}}"#).unwrap();
        let edited = edit_meta(Some(sent), add).unwrap();
        assert_eq!(
            edited.as_str(),
            r#"{"b":[1, 2],"_meta":{"x":"y","k":1},"aA":{}}"#
        );
        // `_meta` first, last, alone, absent, and no params at all.
        for (sent, expected) in [
            (r#"{"_meta":{},"n":1}"#, r#"{"_meta":{"k":1},"n":1}"#),
            (r#"{"n":1,"_meta":{}}"#, r#"{"n":1,"_meta":{"k":1}}"#),
            (r#"{"_meta":{}}"#, r#"{"_meta":{"k":1}}"#),
            (r#"{"n":1}"#, r#"{"n":1,"_meta":{"k":1}}"#),
            ("{}", r#"{"_meta":{"k":1}}"#),
        ] {
            let edited = edit_meta(Some(RawJson::parse(sent).unwrap()), add).unwrap();
            assert_eq!(edited.as_str(), expected, "{sent}");
            assert!(RawJson::parse(edited.as_str().to_owned()).is_ok());
        }
        assert_eq!(
            edit_meta(None, add).unwrap().as_str(),
            r#"{"_meta":{"k":1}}"#
        );
        // Not an object, or a `_meta` that is not one: unchanged.
        for sent in ["[1]", r#"{"_meta":3,"n":1}"#] {
            let edited = edit_meta(Some(RawJson::parse(sent).unwrap()), add).unwrap();
            assert_eq!(edited.as_str(), sent);
        }
    }

    #[test]
    fn result_type_absent_means_complete_and_unknown_is_invalid() {
        assert_eq!(
            ResultType::of(&raw(json!({"content": []}))),
            Ok(ResultType::Complete)
        );
        assert_eq!(
            ResultType::of(&raw(json!({"resultType": "complete"}))),
            Ok(ResultType::Complete)
        );
        assert_eq!(
            ResultType::of(&raw(json!({"resultType": "input_required"}))),
            Ok(ResultType::InputRequired)
        );
        assert_eq!(
            ResultType::of(&raw(json!({"resultType": "later"})))
                .unwrap_err()
                .to_string(),
            "unknown resultType \"later\""
        );
        assert!(ResultType::of(&raw(json!({"resultType": 3}))).is_err());
    }

    #[test]
    fn meta_builder_keeps_existing_entries() {
        let meta = RequestMeta::new("2026-07-28", json!({}))
            .client_info(json!({"name": "c", "version": "1"}));
        let mut params = json!({"_meta": {"progressToken": 7}})
            .as_object()
            .cloned()
            .unwrap();
        meta.apply(&mut params);
        let params = Value::Object(params);
        assert_eq!(params["_meta"]["progressToken"], 7);
        assert_eq!(
            RequestMeta::protocol_version_of(&params),
            Some("2026-07-28")
        );
        assert_eq!(params["_meta"][CLIENT_INFO_KEY]["name"], "c");
    }

    #[test]
    fn ttl_absent_or_negative_is_zero() {
        assert_eq!(ttl_ms_of(&raw(json!({}))), 0);
        assert_eq!(ttl_ms_of(&raw(json!({"ttlMs": -5}))), 0);
        assert_eq!(ttl_ms_of(&raw(json!({"ttlMs": 60000}))), 60000);
        assert_eq!(ttl_ms_of(&raw(json!({"ttlMs": "soon"}))), 0);
        assert_eq!(
            server_info_of(&raw(json!({"_meta": {SERVER_INFO_KEY: {"name": "s"}}}))).unwrap()["name"],
            "s"
        );
    }
}
