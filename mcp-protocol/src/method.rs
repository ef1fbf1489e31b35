//! Typed methods, in the lsp-types pattern: one zero-sized type per method pairs
//! its name with its params and result types, so a session's
//! `request::<ListTools>(params)` can never mix them up.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A request method: its name, its params and its result.
pub trait RequestMethod {
    /// The method name, such as `tools/list`.
    const METHOD: &'static str;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
    /// The result type.
    type Result: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// A notification method: its name and its params.
pub trait NotificationMethod {
    /// The method name, such as `notifications/initialized`.
    const METHOD: &'static str;
    /// The params type.
    type Params: Serialize + DeserializeOwned + Send + Sync + 'static;
}

/// Builds a JSON-RPC request for a typed method.
pub fn request<M: RequestMethod>(
    id: crate::RequestId,
    params: &M::Params,
) -> Result<crate::Request, serde_json::Error> {
    Ok(crate::Request {
        id,
        method: M::METHOD.to_owned(),
        params: Some(serde_json::to_value(params)?),
    })
}

/// Builds a JSON-RPC notification for a typed method.
pub fn notification<M: NotificationMethod>(
    params: &M::Params,
) -> Result<crate::Notification, serde_json::Error> {
    let params = serde_json::to_value(params)?;
    let empty = params.as_object().is_some_and(serde_json::Map::is_empty);
    Ok(crate::Notification {
        method: M::METHOD.to_owned(),
        params: (!empty).then_some(params),
    })
}

/// Decodes a raw result into a typed method's result.
pub fn decode_result<M: RequestMethod>(
    result: serde_json::Value,
) -> Result<M::Result, serde_json::Error> {
    serde_json::from_value(result)
}
