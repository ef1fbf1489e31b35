//! [`Envelope`]: the members of a JSON-RPC object that matter, read before
//! the message is classified.
//!
//! Read from bytes, `jsonrpc`, `id` and `method` build no `serde_json::Value`
//! when they are plain: the version `"2.0"`, an integer id, a string without
//! escapes (the common case, compared or copied straight from the text). Any
//! other form is read through a `Value`, so every answer, and every error, is
//! the one [`Message::from_value`] gives. A notification's `params` and
//! `error` become `Value`s (the public types hold them so); a request's
//! params and the result are held as the caller says (`R`), and kept
//! without being parsed.

use std::fmt;
use std::ops::Range;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::message::{
    ErrorResponse, JSONRPC_VERSION, Message, MessageError, Notification, Request, RequestId,
    Response,
};
use crate::error::ErrorObject;
use crate::raw::RawJson;
use crate::raw::key::Key;
use crate::raw::scan::{self, Inner, MemberSpan, Outline};

/// Texts shorter than this have their result checked but not recorded: a
/// list page split from such a result reads it again, which costs about
/// what recording it costs every message.
const RECORD_MIN: usize = 1024;

/// The members of a JSON-RPC object that matter, before classification;
/// `R` is how the result is held until it is kept. Unknown members are ignored.
pub(super) struct Envelope<R> {
    jsonrpc: Option<Version>,
    id: Option<Result<RequestId, MessageError>>,
    method: Option<Result<String, MessageError>>,
    params: Option<R>,
    result: Option<R>,
    error: Option<Value>,
}

/// `jsonrpc`, read.
enum Version {
    /// `"2.0"`.
    Current,
    /// Anything else: its JSON text.
    Other(String),
}

/// The members an envelope reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Name {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
}

impl Name {
    /// The member a key names, if it is one of them.
    fn of(key: &[u8]) -> Option<Self> {
        Some(match key {
            b"jsonrpc" => Name::Jsonrpc,
            b"id" => Name::Id,
            b"method" => Name::Method,
            b"params" => Name::Params,
            b"result" => Name::Result,
            b"error" => Name::Error,
            _ => return None,
        })
    }
}

impl<R> Default for Envelope<R> {
    fn default() -> Self {
        Self {
            jsonrpc: None,
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
        }
    }
}

/// The text between the quotes of a JSON string `text` with no escape in it.
fn plain_string(text: &[u8]) -> Option<&str> {
    let inner = text.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if inner.contains(&b'\\') {
        return None;
    }
    std::str::from_utf8(inner).ok()
}

/// The integer `text` holds when it is at most 18 digits (always an `i64`)
/// with an optional minus sign, and not `-0` (which serde_json reads as a
/// float); `None` otherwise.
fn plain_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(digit - b'0');
    }
    match (negative, value) {
        (false, value) => Some(value),
        (true, 0) => None,
        (true, value) => Some(-value),
    }
}

/// A value `text` holds; `None` when serde_json cannot read it as a `Value`
/// (a lone surrogate, a number out of range).
fn value_in(text: &[u8]) -> Option<Value> {
    serde_json::from_slice(text).ok()
}

impl Version {
    fn of(value: &Value) -> Self {
        match value {
            Value::String(version) if version == JSONRPC_VERSION => Version::Current,
            other => Version::Other(other.to_string()),
        }
    }

    fn read(text: &[u8]) -> Option<Self> {
        if text == br#""2.0""# {
            return Some(Version::Current);
        }
        value_in(text).map(|value| Self::of(&value))
    }
}

fn method_of(value: Value) -> Result<String, MessageError> {
    match value {
        Value::String(method) => Ok(method),
        _ => Err(MessageError::MethodNotString),
    }
}

fn read_method(text: &[u8]) -> Option<Result<String, MessageError>> {
    match plain_string(text) {
        Some(method) => Some(Ok(method.to_owned())),
        None => value_in(text).map(method_of),
    }
}

fn read_id(text: &[u8]) -> Option<Result<RequestId, MessageError>> {
    if let Some(id) = plain_integer(text) {
        return Some(Ok(RequestId::from(id)));
    }
    if let Some(id) = plain_string(text) {
        return Some(Ok(RequestId::from(id)));
    }
    value_in(text).map(|value| RequestId::from_value(&value))
}

impl<R> Envelope<R> {
    /// Classifies a message's members given as values.
    pub(super) fn of_values(
        jsonrpc: Option<Value>,
        id: Option<Value>,
        method: Option<Value>,
        params: Option<R>,
        result: Option<R>,
        error: Option<Value>,
    ) -> Self {
        Self {
            jsonrpc: jsonrpc.as_ref().map(Version::of),
            id: id.as_ref().map(RequestId::from_value),
            method: method.map(method_of),
            params,
            result,
            error,
        }
    }

    /// Reads the member `name` (not the result) from its JSON text; `None`
    /// when serde_json cannot read it.
    fn read(&mut self, name: Name, text: &[u8]) -> Option<()> {
        match name {
            Name::Jsonrpc => self.jsonrpc = Some(Version::read(text)?),
            Name::Id => self.id = Some(read_id(text)?),
            Name::Method => self.method = Some(read_method(text)?),
            Name::Error => self.error = Some(value_in(text)?),
            Name::Params | Name::Result => {}
        }
        Some(())
    }

    /// The message these members make, its params and result kept by `keep`.
    pub(super) fn classify(self, keep: impl Fn(R) -> RawJson) -> Result<Message, MessageError> {
        match self.jsonrpc {
            None => return Err(MessageError::MissingVersion),
            Some(Version::Current) => {}
            Some(Version::Other(version)) => return Err(MessageError::WrongVersion(version)),
        }
        let params = match self.params.map(&keep) {
            None => None,
            Some(p) if matches!(p.as_bytes().first(), Some(b'{' | b'[')) => Some(p),
            Some(_) => return Err(MessageError::InvalidParams),
        };
        if let Some(method) = self.method {
            let method = method?;
            if self.result.is_some() {
                return Err(MessageError::MethodAndResponse("result"));
            }
            if self.error.is_some() {
                return Err(MessageError::MethodAndResponse("error"));
            }
            return match self.id {
                None => Ok(Message::Notification(Notification {
                    method,
                    // A notification's params are a `Value` (they are small,
                    // and read where they arrive); text that reads as none
                    // (a lone surrogate) is refused as a request's would be
                    // when its params are read.
                    params: params
                        .map(|p| p.to_value())
                        .transpose()
                        .map_err(|_| MessageError::InvalidParams)?,
                })),
                Some(id) => Ok(Message::Request(Request {
                    id: id?,
                    method,
                    params,
                })),
            };
        }
        match (self.result, self.error) {
            (Some(_), Some(_)) => Err(MessageError::ResultAndError),
            (Some(result), None) => Ok(Message::Response(Response {
                id: self.id.ok_or(MessageError::MissingId)??,
                result: keep(result),
            })),
            (None, Some(error)) => {
                let id = match self.id {
                    None | Some(Err(MessageError::NullId)) => None,
                    Some(id) => Some(id?),
                };
                let error = ErrorObject::from_value(error)
                    .map_err(|e| MessageError::InvalidErrorObject(e.to_string()))?;
                Ok(Message::Error(ErrorResponse { id, error }))
            }
            (None, None) => Err(MessageError::Unclassifiable),
        }
    }
}

/// A scanned result: its range in the text, and its members when it is an
/// object and they were recorded.
pub(super) type ScannedResult = (Range<usize>, Option<Outline>);

impl Envelope<ScannedResult> {
    /// The envelope of `bytes` read by the one-pass scanner; `None` when the
    /// scanner gives up or a member does not read as a value (serde_json then
    /// decides, and says why).
    #[inline]
    pub(super) fn scanned(bytes: &[u8]) -> Option<Self> {
        let record = bytes.len() >= RECORD_MIN;
        let mut envelope = Envelope::default();
        let mut readable = true;
        scan::object_members(
            bytes,
            |key| record && key == b"result",
            |member| readable = readable && envelope.scanned_member(bytes, member).is_some(),
        )
        .ok()?;
        readable.then_some(envelope)
    }

    /// Reads one scanned member of `bytes`.
    fn scanned_member(&mut self, bytes: &[u8], member: MemberSpan) -> Option<()> {
        let MemberSpan {
            key,
            key_escaped,
            value,
            inner,
        } = member;
        let name = if key_escaped {
            Name::of(scan::key_in(bytes, key, true)?.as_bytes())
        } else {
            Name::of(bytes.get(key)?)
        };
        match name {
            None => Some(()),
            Some(Name::Params) => {
                bytes.get(value.clone())?;
                self.params = Some((value, None));
                Some(())
            }
            Some(Name::Result) => {
                bytes.get(value.clone())?;
                let outline = match inner {
                    Inner::Members(members) => Some(Outline {
                        base: value.start,
                        members,
                    }),
                    _ => None,
                };
                self.result = Some((value, outline));
                Some(())
            }
            Some(name) => self.read(name, bytes.get(value)?),
        }
    }
}

impl<'de, R: Deserialize<'de>> Deserialize<'de> for Envelope<R> {
    /// Reads the members as serde_json borrows them (`R` for the result, the
    /// others as their text); only serde_json's deserializer can.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EnvelopeVisitor<R>(std::marker::PhantomData<R>);

        impl<'de, R: Deserialize<'de>> serde::de::Visitor<'de> for EnvelopeVisitor<R> {
            type Value = Envelope<R>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Envelope<R>, A::Error> {
                let mut envelope = Envelope::default();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match Name::of(key.as_str().as_bytes()) {
                        Some(Name::Result) => envelope.result = Some(map.next_value()?),
                        Some(Name::Params) => envelope.params = Some(map.next_value()?),
                        Some(name) => {
                            let text: &'de RawValue = map.next_value()?;
                            envelope
                                .read(name, text.get().as_bytes())
                                .ok_or_else(|| A::Error::custom("a member is not readable"))?;
                        }
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(envelope)
            }
        }

        deserializer.deserialize_map(EnvelopeVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_members_are_read_from_the_text_and_others_through_a_value() {
        assert!(matches!(Version::read(br#""2.0""#), Some(Version::Current)));
        assert!(matches!(
            Version::read(br#""\u0032.0""#),
            Some(Version::Current)
        ));
        assert!(matches!(Version::read(b"2.0"), Some(Version::Other(v)) if v == "2.0"));
        assert_eq!(
            read_method(br#""tools/list""#),
            Some(Ok("tools/list".into()))
        );
        assert_eq!(read_method(br#""a\"b""#), Some(Ok("a\"b".into())));
        assert_eq!(read_method(b"7"), Some(Err(MessageError::MethodNotString)));
        assert_eq!(read_method(br#""\ud800""#), None, "a lone surrogate");
        for (text, id) in [
            ("7", Ok(RequestId::from(7))),
            ("-7", Ok(RequestId::from(-7))),
            (
                "999999999999999999",
                Ok(RequestId::from(999_999_999_999_999_999_i64)),
            ),
            ("9223372036854775807", Ok(RequestId::from(i64::MAX))),
            ("-9223372036854775808", Ok(RequestId::from(i64::MIN))),
            (r#""7""#, Ok(RequestId::from("7"))),
            (r#""\u0037""#, Ok(RequestId::from("7"))),
            ("null", Err(MessageError::NullId)),
            (
                "-0",
                Err(MessageError::InvalidId(
                    "a number that is not a 64-bit integer",
                )),
            ),
            (
                "1.0",
                Err(MessageError::InvalidId(
                    "a number that is not a 64-bit integer",
                )),
            ),
            (
                "9223372036854775808",
                Err(MessageError::InvalidId(
                    "a number that is not a 64-bit integer",
                )),
            ),
            ("[]", Err(MessageError::InvalidId("an array"))),
        ] {
            assert_eq!(read_id(text.as_bytes()), Some(id), "{text}");
        }
        assert_eq!(read_id(b"1e400"), None, "out of serde_json's range");
    }

    #[test]
    fn only_a_long_text_has_its_result_recorded() {
        let short = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        let Some(Envelope {
            result: Some((_, outline)),
            ..
        }) = Envelope::scanned(short)
        else {
            panic!("not scanned");
        };
        assert!(outline.is_none());
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[],"pad":"{}"}}}}"#,
            "x".repeat(RECORD_MIN)
        );
        let Some(Envelope {
            result: Some((_, Some(outline))),
            ..
        }) = Envelope::scanned(long.as_bytes())
        else {
            panic!("not recorded");
        };
        assert_eq!(outline.members.len(), 2);
    }
}
