//! The server side's protocol rules, without I/O: which era a request is
//! in, which version `initialize` settles on, what a modern result carries,
//! and pagination by offset cursors. Shared by every server of the
//! workspace (the gateway of `mcp-cli serve`, the example server).

use serde_json::{Map, Value, json};

use crate::error::{ErrorCode, ErrorObject};
use crate::meta::{RequestMeta, ResultType, SERVER_INFO_KEY};
use crate::raw::RawJson;
use crate::types::{Implementation, ItemList, ListResult};
use crate::version::{Era, ProtocolVersion};

/// The era a request is in: modern when its `_meta` names a modern version
/// we speak; legacy when it names none. A version we do not speak is a
/// -32022 error listing the modern versions we do.
pub fn request_era(params: Option<&RawJson>) -> Result<Era, ErrorObject> {
    let Some(asked) = params.and_then(RequestMeta::protocol_version_in) else {
        return Ok(Era::Legacy);
    };
    match ProtocolVersion::parse(&asked) {
        Some(version) if version.era() == Era::Modern => Ok(Era::Modern),
        _ => Err(unsupported_version(&asked)),
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

/// Marks a modern result complete and stamps the server's identity in its
/// `_meta`; a result that already says its type (`input_required`) is left as it is.
pub fn complete_modern(result: &mut Value, server_info: &Implementation) {
    let Some(object) = result.as_object_mut() else {
        return;
    };
    if object.contains_key(RESULT_TYPE_KEY) {
        return;
    }
    let info = match serde_json::to_value(server_info) {
        Ok(info) => info,
        Err(_) => Value::Object(Map::new()),
    };
    object.insert(
        RESULT_TYPE_KEY.into(),
        Value::from(ResultType::Complete.as_str()),
    );
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(SERVER_INFO_KEY.into(), info);
    }
}

/// The member of a modern result that says what kind of result it is.
const RESULT_TYPE_KEY: &str = "resultType";

/// One page of a list of `len` items: the range to serve and the next cursor.
/// Cursors are `offset-<n>`; an unknown one is -32602.
pub fn page(
    len: usize,
    cursor: Option<&str>,
    page_size: Option<usize>,
) -> Result<(std::ops::Range<usize>, Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .strip_prefix("offset-")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < len)
            .ok_or_else(|| {
                ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("invalid cursor {cursor:?}"),
                )
            })?,
    };
    let size = page_size.unwrap_or(usize::MAX).max(1);
    let end = start.saturating_add(size).min(len);
    let next = (end < len).then(|| format!("offset-{end}"));
    Ok((start..end, next))
}

/// The page at `cursor` of `items` as a list result (see [`page`]): the
/// page shares the items' text, and writes it as it is.
pub fn list_page<L: ListResult>(
    items: &ItemList<L::Item>,
    cursor: Option<&str>,
    page_size: Option<usize>,
) -> Result<L, ErrorObject> {
    let (range, next) = page(items.len(), cursor, page_size)?;
    Ok(L::page(items.slice(range), next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RawJson;
    use crate::meta::PROTOCOL_VERSION_KEY;
    use crate::types::{ListToolsResult, Tool};

    fn tool(name: &str) -> Tool {
        Tool::new(name, RawJson::empty_object())
    }

    #[test]
    fn eras_versions_and_pages() {
        assert_eq!(request_era(None).unwrap(), Era::Legacy);
        let modern = json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}}).into();
        assert_eq!(request_era(Some(&modern)).unwrap(), Era::Modern);
        let future = json!({"_meta": {PROTOCOL_VERSION_KEY: "2099-01-01"}}).into();
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
        let (range, next) = page(5, Some("offset-4"), Some(2)).unwrap();
        assert_eq!((range, next), (4..5, None));
        assert!(page(5, Some("offset-9"), None).is_err());
        let tools = ItemList::encode(["a", "b", "c"].map(tool)).unwrap();
        let tools: ListToolsResult = list_page(&tools, Some("offset-1"), Some(1)).unwrap();
        let names: Vec<&str> = tools.tools.valid().map(|t| t.name.as_str()).collect();
        assert_eq!(
            (names, tools.next_cursor.as_deref()),
            (vec!["b"], Some("offset-2"))
        );
        let mut result = json!({"tools": []});
        complete_modern(&mut result, &Implementation::new("s", "1"));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"][SERVER_INFO_KEY]["name"], "s");
        let mut input = json!({"resultType": "input_required"});
        complete_modern(&mut input, &Implementation::new("s", "1"));
        assert_eq!(input, json!({"resultType": "input_required"}));
    }
}
