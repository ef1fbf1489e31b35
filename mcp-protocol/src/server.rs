//! The server side's protocol rules, without I/O: which era a request is
//! in, which version `initialize` settles on, what a modern result carries,
//! and pagination by offset cursors. Shared by every server of the
//! workspace (the gateway of `mcp-cli serve`, the example server).

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ErrorObject};
use crate::meta::{PROTOCOL_VERSION_KEY, SERVER_INFO_KEY};
use crate::version::{Era, ProtocolVersion};

/// The era a request is in: modern when its `_meta` names a modern version
/// we speak; legacy when it names none. A version we do not speak is a
/// -32022 error listing the modern versions we do.
pub fn request_era(params: Option<&Value>) -> Result<Era, ErrorObject> {
    let Some(asked) = params
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str)
    else {
        return Ok(Era::Legacy);
    };
    match ProtocolVersion::parse(asked) {
        Some(version) if version.era() == Era::Modern => Ok(Era::Modern),
        _ => Err(unsupported_version(asked)),
    }
}

/// The -32022 error for a version we do not speak.
pub fn unsupported_version(asked: &str) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        message: format!("unsupported protocol version {asked}"),
        data: Some(json!({
            "supported": [ProtocolVersion::V2026_07_28.as_str()],
            "requested": asked,
        })),
    }
}

/// The version an `initialize` asking for `asked` settles on: the same when
/// it is a legacy version we speak, else our latest legacy version.
pub fn initialize_version(asked: Option<&str>) -> ProtocolVersion {
    match asked.and_then(ProtocolVersion::parse) {
        Some(version) if version.era() == Era::Legacy => version,
        _ => ProtocolVersion::LATEST_LEGACY,
    }
}

/// Marks a modern result complete and stamps the server's identity in its `_meta`.
pub fn complete_modern(result: &mut Value, server_info: &Value) {
    if let Some(object) = result.as_object_mut() {
        object.insert("resultType".into(), json!("complete"));
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(SERVER_INFO_KEY.into(), server_info.clone());
        }
    }
}

/// One page of a list of `len` items: the range to serve and the next cursor.
/// Cursors are `offset-<n>`; an unknown one is -32602.
pub fn page(
    len: usize,
    cursor: Option<&Value>,
    page_size: Option<usize>,
) -> Result<(std::ops::Range<usize>, Option<String>), ErrorObject> {
    let start = match cursor {
        None | Some(Value::Null) => 0,
        Some(Value::String(cursor)) => cursor
            .strip_prefix("offset-")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < len)
            .ok_or_else(|| {
                ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("invalid cursor {cursor:?}"),
                )
            })?,
        Some(_) => {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                "cursor must be a string",
            ));
        }
    };
    let size = page_size.unwrap_or(usize::MAX).max(1);
    let end = start.saturating_add(size).min(len);
    let next = (end < len).then(|| format!("offset-{end}"));
    Ok((start..end, next))
}

/// A list result: the items under `key`, and `nextCursor` when there is one.
pub fn list_result(key: &str, items: Vec<Value>, next: Option<String>) -> Value {
    let mut result = Map::new();
    result.insert(key.to_owned(), Value::Array(items));
    if let Some(next) = next {
        result.insert("nextCursor".into(), json!(next));
    }
    Value::Object(result)
}

/// A string parameter, or -32602 naming it.
pub fn string_param<'a>(params: &'a Value, name: &str) -> Result<&'a str, ErrorObject> {
    params.get(name).and_then(Value::as_str).ok_or_else(|| {
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("parameter '{name}' must be a string"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras_versions_and_pages() {
        assert_eq!(request_era(None).unwrap(), Era::Legacy);
        let modern = json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}});
        assert_eq!(request_era(Some(&modern)).unwrap(), Era::Modern);
        let future = json!({"_meta": {PROTOCOL_VERSION_KEY: "2099-01-01"}});
        assert_eq!(
            request_era(Some(&future)).unwrap_err().code,
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        );
        assert_eq!(
            initialize_version(Some("2025-03-26")).as_str(),
            "2025-03-26"
        );
        assert_eq!(
            initialize_version(Some("1999-01-01")),
            ProtocolVersion::LATEST_LEGACY
        );
        let (range, next) = page(5, None, Some(2)).unwrap();
        assert_eq!((range, next.as_deref()), (0..2, Some("offset-2")));
        let (range, next) = page(5, Some(&json!("offset-4")), Some(2)).unwrap();
        assert_eq!((range, next), (4..5, None));
        assert!(page(5, Some(&json!("offset-9")), None).is_err());
        let mut result = json!({"tools": []});
        complete_modern(&mut result, &json!({"name": "s"}));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"][SERVER_INFO_KEY]["name"], "s");
    }
}
