//! The JSON-RPC error object and the error codes MCP gives meaning to.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A JSON-RPC error code. Known codes have constants and names; any other integer is kept as is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// -32700: the peer could not parse the JSON text.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// -32600: the JSON is not a valid request.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// -32601: the method does not exist or its capability was not declared.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// -32602: invalid parameters (2026-07-28: also "resource not found").
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// -32603: internal error.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// -32002: resource not found (legacy servers).
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// -32042: URL elicitation required (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    /// -32020: an HTTP header does not match the body (2026-07-28).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// -32021: the request lacks a client capability the server requires (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// -32022: the server does not support the requested protocol version (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);

    /// The code's name, for the codes this crate knows.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::PARSE_ERROR => "parse error",
            Self::INVALID_REQUEST => "invalid request",
            Self::METHOD_NOT_FOUND => "method not found",
            Self::INVALID_PARAMS => "invalid params",
            Self::INTERNAL_ERROR => "internal error",
            Self::RESOURCE_NOT_FOUND => "resource not found",
            Self::URL_ELICITATION_REQUIRED => "URL elicitation required",
            Self::HEADER_MISMATCH => "header mismatch",
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY => "missing required client capability",
            Self::UNSUPPORTED_PROTOCOL_VERSION => "unsupported protocol version",
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        i64::deserialize(deserializer).map(Self)
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description.
    pub message: String,
    /// Extra data defined by the sender.
    pub data: Option<Value>,
}

/// Why an `error` member could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorObjectError {
    /// Not a JSON object.
    #[error("it is not an object")]
    NotAnObject,
    /// `code` is missing or not an integer.
    #[error("\"code\" is missing or not an integer")]
    Code,
    /// `message` is missing or not a string.
    #[error("\"message\" is missing or not a string")]
    Message,
}

impl ErrorObject {
    /// An error with a code and a message, and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The standard answer to a request for a method the client does not offer.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// An error about the resource at `uri`: its `data` is `{"uri": uri}`,
    /// as MCP's resource-not-found errors carry.
    pub fn for_resource(code: ErrorCode, message: impl Into<String>, uri: &str) -> Self {
        let mut data = Map::with_capacity(1);
        data.insert("uri".into(), Value::from(uri));
        Self {
            code,
            message: message.into(),
            data: Some(Value::Object(data)),
        }
    }

    /// Reads an error object from JSON. Never panics.
    pub fn from_value(value: Value) -> Result<Self, ErrorObjectError> {
        let Value::Object(mut object) = value else {
            return Err(ErrorObjectError::NotAnObject);
        };
        let code = object
            .get("code")
            .and_then(Value::as_i64)
            .ok_or(ErrorObjectError::Code)?;
        let message = match object.remove("message") {
            Some(Value::String(s)) => s,
            _ => return Err(ErrorObjectError::Message),
        };
        Ok(Self {
            code: ErrorCode(code),
            message,
            data: object.remove("data"),
        })
    }

    /// The error object as JSON.
    pub fn to_value(&self) -> Value {
        let mut object = Map::with_capacity(3);
        object.insert("code".into(), Value::from(self.code.0));
        object.insert("message".into(), Value::from(self.message.as_str()));
        if let Some(data) = &self.data {
            object.insert("data".into(), data.clone());
        }
        Value::Object(object)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code.0)
    }
}

impl Serialize for ErrorObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        if let Some(data) = &self.data {
            map.serialize_entry("data", data)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ErrorObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mcp_codes_have_names() {
        for (code, name) in [
            (-32002, "resource not found"),
            (-32042, "URL elicitation required"),
            (-32020, "header mismatch"),
            (-32021, "missing required client capability"),
            (-32022, "unsupported protocol version"),
        ] {
            assert_eq!(ErrorCode(code).name(), Some(name));
        }
        assert_eq!(ErrorCode(-32000).name(), None);
        assert_eq!(
            ErrorCode::METHOD_NOT_FOUND.to_string(),
            "-32601 (method not found)"
        );
    }

    #[test]
    fn reads_and_writes_data() {
        let value = json!({"code":-32022,"message":"Unsupported","data":{"supported":["2026-07-28"],"requested":"1999-01-01"}});
        let error = ErrorObject::from_value(value.clone()).unwrap();
        assert_eq!(error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(error.to_value(), value);
        assert_eq!(
            ErrorObject::from_value(json!({"code":"x","message":"m"})),
            Err(ErrorObjectError::Code)
        );
        assert_eq!(
            ErrorObject::from_value(json!({"code":1})),
            Err(ErrorObjectError::Message)
        );
    }
}
