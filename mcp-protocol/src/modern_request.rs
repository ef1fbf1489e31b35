//! What a server checks of a modern (2026-07-28) request before it acts on
//! it, without I/O: the `_meta` envelope, the HTTP headers that repeat the
//! body (SEP-2243), the methods the modern era removed, and the HTTP status
//! of a modern error.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::error::{ErrorCode, ErrorObject};
use crate::meta::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY};
use crate::method::RequestMethod;
use crate::methods::{CancelTask, GetTask, UpdateTask};
use crate::raw::{JsonView, RawJson};
use crate::server::unsupported_version;
use crate::version::{Era, ProtocolVersion};

/// The methods of the legacy era that 2026-07-28 removed: a modern request
/// for one of them is -32601, whatever the server does for legacy clients.
pub const REMOVED_IN_MODERN: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Whether `method` is one the modern era removed.
pub fn is_removed_in_modern(method: &str) -> bool {
    REMOVED_IN_MODERN.contains(&method)
}

/// Checks a modern request's `_meta`: an object with a protocol version
/// (text) and the client's capabilities (an object). -32602 names what is missing.
pub fn check_meta(params: Option<&RawJson>) -> Result<(), ErrorObject> {
    let invalid = |reason: &str| Err(ErrorObject::new(ErrorCode::INVALID_PARAMS, reason));
    let Some(meta) = params.and_then(|p| JsonView::of(p).get("_meta")) else {
        return invalid("a modern request needs _meta");
    };
    if !meta.is_object() {
        return invalid("_meta must be an object");
    }
    let [version, capabilities] = meta.pick([PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY]);
    if !version.is_some_and(|v| v.text().starts_with('"')) {
        return invalid("_meta needs io.modelcontextprotocol/protocolVersion");
    }
    if !capabilities.is_some_and(JsonView::is_object) {
        return invalid("_meta needs io.modelcontextprotocol/clientCapabilities (an object)");
    }
    Ok(())
}

/// The protocol version a request's `_meta` names, if any.
pub fn meta_version(params: Option<&RawJson>) -> Option<Cow<'_, str>> {
    crate::meta::RequestMeta::protocol_version_in(params?)
}

/// Whether a POST is in the modern era: its `MCP-Protocol-Version` header
/// is not a legacy version we know, or its body's `_meta` names a version.
pub fn is_modern_post(header_version: Option<&str>, params: Option<&RawJson>) -> bool {
    let header_modern = header_version.is_some_and(|version| {
        ProtocolVersion::parse(version.trim()).is_none_or(|v| v.era() == Era::Modern)
    });
    header_modern || meta_version(params).is_some()
}

/// The headers of a modern POST that repeat its body (trimmed by the caller or not).
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestHeaders<'a> {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a str>,
    /// `Mcp-Method`.
    pub method: Option<&'a str>,
    /// `Mcp-Name`.
    pub name: Option<&'a str>,
}

/// The value `Mcp-Name` must carry for `method`: the tool or prompt name,
/// the resource URI, or (SEP-2663) the task id of `tasks/get`,
/// `tasks/update` and `tasks/cancel`; `None` for methods without one.
pub fn name_of<'a>(method: &str, params: Option<&'a RawJson>) -> Option<Cow<'a, str>> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        GetTask::METHOD | UpdateTask::METHOD | CancelTask::METHOD => "taskId",
        _ => return None,
    };
    JsonView::of(params?).get(key)?.as_str()
}

/// Checks a modern POST: its `_meta` (-32602), then that the headers match
/// the body (-32020: the version, `Mcp-Method`, `Mcp-Name`; values compared
/// exactly, after trimming the spaces around them), then that we speak the
/// version (-32022).
pub fn check_post(
    headers: RequestHeaders<'_>,
    method: &str,
    params: Option<&RawJson>,
) -> Result<(), ErrorObject> {
    check_meta(params)?;
    let mismatch = |what: String| Err(header_mismatch(what));
    let body_version = meta_version(params).unwrap_or_default();
    let body_version = body_version.as_ref();
    match headers.protocol_version.map(str::trim) {
        Some(header) if header != body_version => {
            return mismatch(format!(
                "MCP-Protocol-Version {header:?} does not match _meta's {body_version:?}"
            ));
        }
        None => return mismatch("MCP-Protocol-Version is missing".to_owned()),
        Some(_) => {}
    }
    match headers.method.map(str::trim) {
        Some(header) if header == method => {}
        Some(header) => {
            return mismatch(format!(
                "Mcp-Method {header:?} does not match the method {method:?}"
            ));
        }
        None => return mismatch("Mcp-Method is missing".to_owned()),
    }
    if let Some(name) = name_of(method, params) {
        match headers.name.map(str::trim) {
            Some(header) if header == name.as_ref() => {}
            Some(header) => {
                return mismatch(format!("Mcp-Name {header:?} does not match {name:?}"));
            }
            None => return mismatch("Mcp-Name is missing".to_owned()),
        }
    }
    match ProtocolVersion::parse(body_version) {
        Some(version) if version.era() == Era::Modern => Ok(()),
        _ => Err(unsupported_version(body_version)),
    }
}

/// The -32020 error: a header does not say what the body says.
pub fn header_mismatch(reason: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::HEADER_MISMATCH, reason)
}

/// The -32021 error: handling the request needs client capabilities the
/// client did not declare; `required` is a `ClientCapabilities` object.
pub fn missing_capability(reason: impl Into<String>, required: Value) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message: reason.into(),
        data: Some(json!({ "requiredCapabilities": required })),
    }
}

/// The HTTP status a modern error answer goes out with: 404 for an unknown
/// method, 400 for a request the server refused to act on, 200 otherwise.
pub fn http_status_of(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::METHOD_NOT_FOUND => 404,
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => 400,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: &str) -> RawJson {
        json!({"name": "t", "_meta": {PROTOCOL_VERSION_KEY: version, CLIENT_CAPABILITIES_KEY: {}}})
            .into()
    }

    fn headers<'a>(version: &'a str, method: &'a str, name: Option<&'a str>) -> RequestHeaders<'a> {
        RequestHeaders {
            protocol_version: Some(version),
            method: Some(method),
            name,
        }
    }

    #[test]
    fn meta_must_name_version_and_capabilities() {
        assert!(check_meta(Some(&meta("2026-07-28"))).is_ok());
        for params in [
            json!({}),
            json!({"_meta": []}),
            json!({"_meta": {CLIENT_CAPABILITIES_KEY: {}}}),
            json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}}),
        ] {
            assert_eq!(
                check_meta(Some(&params.clone().into())).unwrap_err().code,
                ErrorCode::INVALID_PARAMS,
                "{params}"
            );
        }
        assert_eq!(
            check_meta(None).unwrap_err().code,
            ErrorCode::INVALID_PARAMS
        );
    }

    #[test]
    fn headers_must_repeat_the_body_exactly() {
        let params = meta("2026-07-28");
        let call = |h| check_post(h, "tools/call", Some(&params)).map_err(|e| e.code);
        assert_eq!(call(headers("2026-07-28", "tools/call", Some("t"))), Ok(()));
        assert_eq!(
            call(headers(" 2026-07-28", " tools/call ", Some("  t  "))),
            Ok(())
        );
        for wrong in [
            headers("2026-07-28", "TOOLS/CALL", Some("t")),
            headers("2026-07-28", "prompts/get", Some("t")),
            headers("2026-07-28", "tools/call", Some("other")),
            headers("2026-07-28", "tools/call", None),
            headers("2025-11-25", "tools/call", Some("t")),
            RequestHeaders {
                method: None,
                ..headers("2026-07-28", "tools/call", Some("t"))
            },
        ] {
            assert_eq!(call(wrong), Err(ErrorCode::HEADER_MISMATCH), "{wrong:?}");
        }
        let list = meta("2026-07-28");
        assert!(
            check_post(
                headers("2026-07-28", "tools/list", None),
                "tools/list",
                Some(&list)
            )
            .is_ok()
        );
    }

    #[test]
    fn task_methods_name_their_task_in_mcp_name() {
        let params = |id: &str| -> RawJson {
            json!({"taskId": id, "_meta": {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}}}).into()
        };
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert_eq!(
                name_of(method, Some(&params("t-1"))).as_deref(),
                Some("t-1")
            );
            let body = params("t-1");
            let check = |name| check_post(headers("2026-07-28", method, name), method, Some(&body));
            assert!(check(Some("t-1")).is_ok(), "{method}");
            assert_eq!(
                check(Some("t-2")).map_err(|e| e.code),
                Err(ErrorCode::HEADER_MISMATCH)
            );
        }
        assert_eq!(name_of("tasks/list", Some(&params("t-1"))), None);
    }

    #[test]
    fn unknown_versions_are_unsupported_after_the_headers() {
        let params = meta("v999.0.0");
        let error = check_post(
            headers("v999.0.0", "server/discover", None),
            "server/discover",
            Some(&params),
        )
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(error.data.unwrap()["requested"], "v999.0.0");
        let mismatched = check_post(
            headers("2026-07-28", "server/discover", None),
            "server/discover",
            Some(&params),
        )
        .unwrap_err();
        assert_eq!(mismatched.code, ErrorCode::HEADER_MISMATCH);
    }

    #[test]
    fn eras_of_posts_and_statuses() {
        assert!(is_modern_post(Some("2026-07-28"), None));
        assert!(is_modern_post(Some("v999"), None));
        assert!(!is_modern_post(Some("2025-11-25"), None));
        assert!(!is_modern_post(None, None));
        assert!(is_modern_post(None, Some(&meta("2026-07-28"))));
        assert!(is_removed_in_modern("initialize") && !is_removed_in_modern("tools/list"));
        assert_eq!(http_status_of(ErrorCode::METHOD_NOT_FOUND), 404);
        assert_eq!(http_status_of(ErrorCode::HEADER_MISMATCH), 400);
        assert_eq!(http_status_of(ErrorCode::INTERNAL_ERROR), 200);
    }
}
