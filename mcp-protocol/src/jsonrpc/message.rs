//! The JSON-RPC 2.0 message types: ids, requests, notifications,
//! responses and errors, and why bytes are not a message. Pure types; their
//! decoding lives in the parent module and `envelope`.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::error::ErrorObject;
use crate::raw::RawJson;

/// The only JSON-RPC version MCP speaks.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request id: an integer or a string. `1` and `"1"` are different ids.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(IdRepr);

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IdRepr {
    Number(i64),
    String(String),
}

impl RequestId {
    /// The id as an integer, if it is one.
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            IdRepr::Number(n) => Some(*n),
            IdRepr::String(_) => None,
        }
    }

    /// The id as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            IdRepr::Number(_) => None,
            IdRepr::String(s) => Some(s),
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match &self.0 {
            IdRepr::Number(n) => Value::from(*n),
            IdRepr::String(s) => Value::from(s.as_str()),
        }
    }

    /// Reads an id from a JSON value; `null`, fractions and other types are refused.
    pub fn from_value(value: &Value) -> Result<Self, MessageError> {
        match value {
            Value::Null => Err(MessageError::NullId),
            Value::String(s) => Ok(Self(IdRepr::String(s.clone()))),
            Value::Number(n) => {
                n.as_i64()
                    .map(|n| Self(IdRepr::Number(n)))
                    .ok_or(MessageError::InvalidId(
                        "a number that is not a 64-bit integer",
                    ))
            }
            Value::Bool(_) => Err(MessageError::InvalidId("a boolean")),
            Value::Array(_) => Err(MessageError::InvalidId("an array")),
            Value::Object(_) => Err(MessageError::InvalidId("an object")),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self(IdRepr::Number(n))
    }
}

impl From<i32> for RequestId {
    fn from(n: i32) -> Self {
        Self(IdRepr::Number(i64::from(n)))
    }
}

impl From<u32> for RequestId {
    fn from(n: u32) -> Self {
        Self(IdRepr::Number(i64::from(n)))
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self(IdRepr::String(s))
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self(IdRepr::String(s.to_owned()))
    }
}

/// Shows `92` for an integer and `"92"` for a string, so the two never look alike.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            IdRepr::Number(n) => write!(f, "{n}"),
            IdRepr::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            IdRepr::Number(n) => serializer.serialize_i64(*n),
            IdRepr::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(&value).map_err(D::Error::custom)
    }
}

/// A request: it has an id and expects exactly one response.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id the response will carry.
    pub id: RequestId,
    /// The method name, such as `tools/list`.
    pub method: String,
    /// The parameters as the peer wrote them (an object or an array), when
    /// present; read them with the method's `Params` type
    /// ([`RawJson::decode`]).
    pub params: Option<RawJson>,
}

/// A notification: no id, no response.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name, such as `notifications/initialized`.
    pub method: String,
    /// The parameters: an object or an array, when present.
    pub params: Option<Value>,
}

/// A success response.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result as the peer wrote it; decode it with the method's result type.
    pub result: RawJson,
}

/// An error response. Its id may be absent or `null` when the peer could not
/// tell which request failed (real servers do this for session errors).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorResponse {
    /// The id of the request this answers, when the peer knew it.
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

/// Any JSON-RPC 2.0 message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A success response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

/// What is wrong with a JSON value that is not a valid JSON-RPC 2.0 message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// The value is not a JSON object.
    #[error("message is not a JSON object but {0}")]
    NotAnObject(&'static str),
    /// `jsonrpc` is missing.
    #[error("message has no \"jsonrpc\" member")]
    MissingVersion,
    /// `jsonrpc` is present but not `"2.0"`.
    #[error("\"jsonrpc\" is {0}, expected \"2.0\"")]
    WrongVersion(String),
    /// `method` is present but not a string.
    #[error("\"method\" is not a string")]
    MethodNotString,
    /// `params` is present but neither an object nor an array.
    #[error("\"params\" must be an object or an array")]
    InvalidParams,
    /// The id is `null` where one is required.
    #[error("id is null")]
    NullId,
    /// The id is missing on a success response.
    #[error("response has no id")]
    MissingId,
    /// The id is of a type JSON-RPC does not allow.
    #[error("id is {0}, expected a string or an integer")]
    InvalidId(&'static str),
    /// A request also carries `result` or `error`.
    #[error("message has both \"method\" and \"{0}\"")]
    MethodAndResponse(&'static str),
    /// A response carries both `result` and `error`.
    #[error("response has both result and error")]
    ResultAndError,
    /// The object has none of `method`, `result` and `error`.
    #[error("message has no \"method\", \"result\" or \"error\"")]
    Unclassifiable,
    /// The error member is malformed.
    #[error("error object is invalid: {0}")]
    InvalidErrorObject(String),
    /// A batch array is empty.
    #[error("batch is empty")]
    EmptyBatch,
}

/// Why bytes could not be decoded into messages.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not JSON.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The JSON is not JSON-RPC 2.0.
    #[error("invalid JSON-RPC message: {0}")]
    Message(#[from] MessageError),
}
