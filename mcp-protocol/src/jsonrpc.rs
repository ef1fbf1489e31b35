//! JSON-RPC 2.0: the envelope every MCP message travels in.
//!
//! A [`Message`] is one of four shapes: a request, a notification, a success
//! response or an error response. Classification is done by hand so that it
//! never panics, does not care about field order, and says precisely what is
//! wrong with an invalid message.
//!
//! Decoding reads the envelope's members straight from the bytes (the
//! `envelope` module: the version, an integer id and a plain method name
//! build no `serde_json::Value`). A response's
//! `result` is not parsed at all: it is kept as [`RawJson`], and
//! [`Message::from_bytes`] makes it a slice of the input rather than a copy,
//! so a 40 MB `tools/list` result costs one scan of its bytes.
//!
//! ```
//! use mcpdisco_protocol::jsonrpc::{Message, RequestId};
//!
//! let raw = br#"{"result":{},"jsonrpc":"2.0","id":7}"#;
//! let message = Message::from_slice(raw).unwrap();
//! assert_eq!(message.response_id(), Some(&RequestId::from(7)));
//! ```

use std::ops::Range;

use bytes::Bytes;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::raw::RawJson;
use crate::raw::scan::Outline;

mod envelope;
mod message;

use envelope::Envelope;
pub use message::{
    DecodeError, ErrorResponse, JSONRPC_VERSION, Message, MessageError, Notification, Request,
    RequestId, Response,
};

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Message {
    /// Classifies a JSON value as a message. Never panics; field order does not matter.
    pub fn from_value(value: Value) -> Result<Self, MessageError> {
        let Value::Object(mut object) = value else {
            return Err(MessageError::NotAnObject(type_name(&value)));
        };
        Envelope::of_values(
            object.remove("jsonrpc"),
            object.remove("id"),
            object.remove("method"),
            object.remove("params"),
            object.remove("result"),
            object.remove("error"),
        )
        .classify(|result| RawJson::from_value(&result))
    }

    /// Decodes one message from bytes; the result is copied out of them. A
    /// batch array is refused; use [`Incoming::from_slice`] for those.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_one(bytes, Keep::Copy)
    }

    /// Decodes one message from shared bytes; the result is a slice of them,
    /// not a copy. A batch array is refused; use [`Incoming::from_bytes`].
    pub fn from_bytes(bytes: &Bytes) -> Result<Self, DecodeError> {
        decode_one(bytes, Keep::Share(bytes))
    }

    /// The message as a JSON value, `jsonrpc` first; `null` when its result
    /// cannot be read as a value (nested deeper than serde_json's recursion
    /// limit, or holding a lone surrogate). [`to_vec`](Self::to_vec) never loses anything.
    pub fn to_value(&self) -> Value {
        // A message always serializes; only a result nested deeper than
        // serde_json's recursion limit could fail to read back.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Compact JSON bytes: never contains a newline, so it is safe for newline framing.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        self.write_compact(&mut out);
        out
    }

    /// Appends the compact JSON encoding to `out` without building an
    /// intermediate value. A raw result kept as a server sent it may hold
    /// line breaks between its tokens: they are written as spaces.
    pub fn write_compact(&self, out: &mut Vec<u8>) {
        let start = out.len();
        // Writing into a Vec cannot fail: no I/O, string keys only.
        if self.write_json(&mut *out).is_err() {
            out.truncate(start);
            out.extend_from_slice(b"null");
        }
        on_one_line(&mut out[start..]);
    }

    /// Writes the message as compact JSON, `jsonrpc` first, the bytes
    /// [`Serialize`] writes. A request's params and a response's result are
    /// copied as the text they hold (checked when it was made), not read
    /// again. A raw text may hold line breaks between its tokens; see
    /// [`write_compact`](Self::write_compact) for one line.
    pub fn write_json<W: std::io::Write>(&self, mut out: W) -> std::io::Result<()> {
        match self {
            Message::Request(request) => {
                out.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
                serde_json::to_writer(&mut out, &request.id)?;
                out.write_all(br#","method":"#)?;
                serde_json::to_writer(&mut out, &request.method)?;
                if let Some(params) = &request.params {
                    out.write_all(br#","params":"#)?;
                    out.write_all(params.as_bytes())?;
                }
                out.write_all(b"}")
            }
            Message::Response(response) => {
                out.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
                serde_json::to_writer(&mut out, &response.id)?;
                out.write_all(br#","result":"#)?;
                out.write_all(response.result.as_bytes())?;
                out.write_all(b"}")
            }
            other => Ok(serde_json::to_writer(out, other)?),
        }
    }

    /// The method name of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            _ => None,
        }
    }

    /// The id a response or error response answers.
    pub fn response_id(&self) -> Option<&RequestId> {
        match self {
            Message::Response(r) => Some(&r.id),
            Message::Error(e) => e.id.as_ref(),
            _ => None,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        match self {
            Message::Request(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("method", &r.method)?;
                if let Some(p) = &r.params {
                    map.serialize_entry("params", p)?;
                }
            }
            Message::Notification(n) => {
                map.serialize_entry("method", &n.method)?;
                if let Some(p) = &n.params {
                    map.serialize_entry("params", p)?;
                }
            }
            Message::Response(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("result", &r.result)?;
            }
            Message::Error(e) => {
                if let Some(id) = &e.id {
                    map.serialize_entry("id", id)?;
                }
                map.serialize_entry("error", &e.error)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(value).map_err(D::Error::custom)
    }
}

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Message::Request(r)
    }
}

impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Message::Notification(n)
    }
}

impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Message::Response(r)
    }
}

impl From<ErrorResponse> for Message {
    fn from(e: ErrorResponse) -> Self {
        Message::Error(e)
    }
}

/// What one JSON text decodes to: a single message or a batch (an array).
///
/// A batch keeps a result per element, so one invalid element does not lose the others.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A batch, in order, each element decoded on its own.
    Batch(Vec<Result<Message, MessageError>>),
}

impl Incoming {
    /// Classifies a JSON value as a message or a batch. Never panics.
    pub fn from_value(value: Value) -> Result<Self, MessageError> {
        match value {
            Value::Array(items) if items.is_empty() => Err(MessageError::EmptyBatch),
            Value::Array(items) => Ok(Incoming::Batch(
                items.into_iter().map(Message::from_value).collect(),
            )),
            other => Message::from_value(other).map(Incoming::Single),
        }
    }

    /// Decodes bytes holding one JSON text; results are copied out of them.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, DecodeError> {
        decode_incoming(bytes, Keep::Copy)
    }

    /// Decodes shared bytes holding one JSON text; results are slices of them.
    pub fn from_bytes(bytes: &Bytes) -> Result<Self, DecodeError> {
        decode_incoming(bytes, Keep::Share(bytes))
    }

    /// The valid messages, in order; invalid batch elements are dropped.
    pub fn into_messages(self) -> Vec<Message> {
        match self {
            Incoming::Single(m) => vec![m],
            Incoming::Batch(items) => items.into_iter().filter_map(Result::ok).collect(),
        }
    }
}

/// How a decoded result's text is kept.
#[derive(Clone, Copy)]
enum Keep<'a> {
    /// Copied out of the bytes decoded.
    Copy,
    /// A slice of these bytes, which are the bytes decoded.
    Share(&'a Bytes),
}

impl Keep<'_> {
    /// A result serde_json checked.
    fn raw(self, raw: &RawValue) -> RawJson {
        match self {
            Keep::Copy => RawJson::copy_of(raw),
            Keep::Share(owner) => RawJson::slice_of(owner, raw),
        }
    }

    /// The part `range` of `bytes`, which the scanner checked, with its outline.
    fn scanned(self, bytes: &[u8], range: Range<usize>, outline: Option<Outline>) -> RawJson {
        // The range lies within `bytes` (`Envelope::scanned` checked), and in
        // `Share` those are the owner's bytes.
        let Some(part) = bytes.get(range.clone()) else {
            return RawJson::null();
        };
        let text = match self {
            Keep::Copy => Bytes::copy_from_slice(part),
            Keep::Share(owner) => owner.slice(range),
        };
        RawJson::scanned(text, outline)
    }
}

/// One message from `bytes`, keeping results as `keep` says.
fn decode_one(bytes: &[u8], keep: Keep<'_>) -> Result<Message, DecodeError> {
    // Fastest path: one scan checks the whole text and records where the
    // members are, and those of the result, so a list page is split from the
    // record without reading its text again.
    if let Some(envelope) = Envelope::scanned(bytes) {
        return Ok(envelope.classify(|(range, outline)| keep.scanned(bytes, range, outline))?);
    }
    // Fast path: read the envelope's members straight from the bytes, with no
    // map. It skips unknown members without checking their UTF-8, so a text
    // that is not UTF-8 takes the slow path, which refuses it.
    let envelope = std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| serde_json::from_str::<Envelope<&RawValue>>(text).ok());
    match envelope {
        Some(envelope) => Ok(envelope.classify(|raw| keep.raw(raw))?),
        // Not an object, or not JSON: the slow path says precisely which.
        None => {
            let value: Value = serde_json::from_slice(bytes)?;
            Ok(Message::from_value(value)?)
        }
    }
}

/// A message or a batch from `bytes`, keeping results as `keep` says.
fn decode_incoming(bytes: &[u8], keep: Keep<'_>) -> Result<Incoming, DecodeError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'[') {
        return decode_one(bytes, keep).map(Incoming::Single);
    }
    let elements: Vec<&RawValue> = serde_json::from_slice(bytes)?;
    if elements.is_empty() {
        return Err(MessageError::EmptyBatch.into());
    }
    let messages = elements
        .into_iter()
        .map(|element| classify_element(element.get(), |raw| keep.raw(raw)))
        .collect();
    Ok(Incoming::Batch(messages))
}

/// One element of a batch: valid JSON, since the array was.
fn classify_element(
    text: &str,
    keep: impl Fn(&RawValue) -> RawJson,
) -> Result<Message, MessageError> {
    match serde_json::from_str::<Envelope<&RawValue>>(text) {
        Ok(envelope) => envelope.classify(keep),
        // Not an object: say what it is.
        Err(_) => match serde_json::from_str::<Value>(text) {
            Ok(value) => Message::from_value(value),
            Err(_) => Err(MessageError::NotAnObject("unreadable JSON")),
        },
    }
}

/// JSON text on one line: a line break in JSON text can only stand between
/// tokens (a string writes it as `\n`), where a space means the same.
pub fn on_one_line(text: &mut [u8]) {
    if text.contains(&b'\n') || text.contains(&b'\r') {
        for byte in text.iter_mut().filter(|byte| matches!(byte, b'\n' | b'\r')) {
            *byte = b' ';
        }
    }
}

#[cfg(test)]
#[path = "jsonrpc_tests.rs"]
mod tests;
