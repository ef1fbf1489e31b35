//! A `text/event-stream` decoder that follows the WHATWG parsing rules.
//!
//! It handles the `data` (joined across lines), `event`, `id` and `retry`
//! fields, comment lines, LF, CRLF and CR line endings (also a CR at the end
//! of one chunk followed by LF in the next), and a leading BOM. Decoding is
//! linear: no byte is scanned twice. Events whose data is empty (the priming
//! events of 2025-11-25) are still yielded when they carry an `id` or a
//! `retry`, so the caller can keep them; [`SseEvent::is_priming`] tells them apart.
//! An event larger than the bound is dropped and counted, and the stream goes on.

use std::time::Duration;

use bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

/// The default bound on one event's size: 16 MiB.
pub const DEFAULT_MAX_EVENT_LEN: usize = 16 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event` field, if any (`message` is the default meaning).
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The `id` field of this event, if it had one.
    pub id: Option<String>,
    /// The `retry` field of this event, if it had a valid one.
    pub retry: Option<Duration>,
}

impl SseEvent {
    /// A priming event: no data, only an id (or a retry). It carries no message.
    pub fn is_priming(&self) -> bool {
        self.data.is_empty()
    }

    /// Writes the event as `text/event-stream` text, ending with a blank line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if let Some(event) = &self.event {
            out.push_str("event: ");
            out.push_str(event);
            out.push('\n');
        }
        if let Some(id) = &self.id {
            out.push_str("id: ");
            out.push_str(id);
            out.push('\n');
        }
        if let Some(retry) = self.retry {
            out.push_str(&format!("retry: {}\n", retry.as_millis()));
        }
        if self.data.is_empty() {
            out.push_str("data: \n");
        } else {
            for line in self.data.split('\n') {
                out.push_str("data: ");
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push('\n');
        out
    }
}

/// The SSE decoder. Its error type is `std::io::Error`, which it never produces
/// itself: malformed input is skipped as the WHATWG rules say.
#[derive(Debug)]
pub struct SseDecoder {
    max_event_len: usize,
    /// Bytes of `buf` already searched for a line end.
    scanned: usize,
    /// Whether the stream start (and a possible BOM) is behind us.
    started: bool,
    /// The previous line ended with CR: a leading LF belongs to it.
    after_cr: bool,
    /// The current line was too long and is being thrown away up to its end.
    discarding_line: bool,
    /// The current event grew too large and will be dropped at its end.
    oversized: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    id: Option<String>,
    retry: Option<Duration>,
    dropped: u64,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl SseDecoder {
    /// A decoder with the default event bound.
    pub fn new() -> Self {
        Self::with_max_event_len(DEFAULT_MAX_EVENT_LEN)
    }

    /// A decoder that drops events larger than `max_event_len` bytes.
    pub fn with_max_event_len(max_event_len: usize) -> Self {
        Self {
            max_event_len: max_event_len.max(1),
            scanned: 0,
            started: false,
            after_cr: false,
            discarding_line: false,
            oversized: false,
            event: None,
            data: String::new(),
            has_data: false,
            id: None,
            retry: None,
            dropped: 0,
        }
    }

    /// How many events were dropped for being too large.
    pub fn dropped_events(&self) -> u64 {
        self.dropped
    }

    fn field(&mut self, line: &[u8]) {
        if line.first() == Some(&b':') {
            return; // a comment
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &line[..0]),
        };
        // Valid UTF-8 is the rule: checked by the fast validator, and only
        // text that fails it takes the (much slower) replacing decoder.
        let value = match std::str::from_utf8(value) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(value),
        };
        match name {
            b"data" => {
                if self.oversized {
                    return;
                }
                if self.data.len() + value.len() + 1 > self.max_event_len {
                    self.oversized = true;
                    self.data = String::new();
                    return;
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.event = Some(value.into_owned()),
            b"id" if !value.contains('\0') => self.id = Some(value.into_owned()),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = SseEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data),
            id: self.id.take(),
            retry: self.retry.take(),
        };
        self.has_data = false;
        if std::mem::replace(&mut self.oversized, false) {
            self.dropped += 1;
            tracing::warn!(
                limit = self.max_event_len,
                "dropped an oversized server-sent event"
            );
            // Its id still counts for resumption.
            return event.id.map(|id| SseEvent {
                id: Some(id),
                ..SseEvent::default()
            });
        }
        if !event.data.is_empty() || event.id.is_some() || event.retry.is_some() {
            Some(event)
        } else {
            None
        }
    }

    /// Processes one complete line (without its terminator). Returns an event when it was a blank line.
    fn line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            self.dispatch()
        } else {
            self.field(line);
            None
        }
    }
}

impl Decoder for SseDecoder {
    type Item = SseEvent;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<SseEvent>, std::io::Error> {
        loop {
            if !self.started {
                if buf.len() < BOM.len() && BOM.starts_with(buf) && !buf.is_empty() {
                    return Ok(None); // maybe a BOM, wait for more
                }
                if buf.is_empty() {
                    return Ok(None);
                }
                if buf.starts_with(BOM) {
                    buf.advance(BOM.len());
                }
                self.started = true;
            }
            if self.after_cr && !buf.is_empty() {
                if buf[0] == b'\n' {
                    buf.advance(1);
                }
                self.after_cr = false;
            }
            let Some(offset) = memchr::memchr2(b'\n', b'\r', &buf[self.scanned..]) else {
                self.scanned = buf.len();
                // A line longer than the bound: throw away what we have, remember to skip the rest.
                if buf.len() > self.max_event_len {
                    buf.clear();
                    self.scanned = 0;
                    self.discarding_line = true;
                    self.oversized = true;
                }
                return Ok(None);
            };
            let end = self.scanned + offset;
            let terminator = buf[end];
            let line = buf.split_to(end + 1);
            self.scanned = 0;
            if terminator == b'\r' {
                self.after_cr = true;
            }
            if std::mem::replace(&mut self.discarding_line, false) {
                continue;
            }
            if let Some(event) = self.line(&line[..end]) {
                return Ok(Some(event));
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<SseEvent>, std::io::Error> {
        if let Some(event) = self.decode(buf)? {
            return Ok(Some(event));
        }
        // WHATWG: an incomplete event at the end of the stream is discarded.
        buf.clear();
        self.scanned = 0;
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode_all(chunks: &[&[u8]], max: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::with_max_event_len(max);
        let mut buf = BytesMut::new();
        let mut events = Vec::new();
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            while let Some(event) = decoder.decode(&mut buf).unwrap() {
                events.push(event);
            }
        }
        while let Some(event) = decoder.decode_eof(&mut buf).unwrap() {
            events.push(event);
        }
        events
    }

    fn decode_str(text: &str) -> Vec<SseEvent> {
        decode_all(&[text.as_bytes()], DEFAULT_MAX_EVENT_LEN)
    }

    #[test]
    fn priming_event_then_message_as_server_everything_sends() {
        let events =
            decode_str("id: 1a\ndata: \n\nevent: message\nid: 2b\ndata: {\"jsonrpc\":\"2.0\"}\n\n");
        assert_eq!(events.len(), 2);
        assert!(events[0].is_priming());
        assert_eq!(events[0].id.as_deref(), Some("1a"));
        assert_eq!(events[1].event.as_deref(), Some("message"));
        assert_eq!(events[1].data, "{\"jsonrpc\":\"2.0\"}");
    }

    #[test]
    fn crlf_without_ids_as_fastmcp_sends() {
        let events = decode_str(
            "event: message\r\ndata: {\"a\":1}\r\n\r\nevent: message\r\ndata: {\"b\":2}\r\n\r\n",
        );
        assert_eq!(
            events.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["{\"a\":1}", "{\"b\":2}"]
        );
        assert!(events.iter().all(|e| e.id.is_none()));
    }

    #[test]
    fn multi_line_data_comments_retry_cr_and_bom() {
        let events = decode_str(
            "\u{feff}: comment\rretry: 500\rdata: one\rdata:two\r\rretry: x\rdata: three\r\r",
        );
        assert_eq!(events[0].data, "one\ntwo");
        assert_eq!(events[0].retry, Some(Duration::from_millis(500)));
        assert_eq!(events[1].data, "three");
        assert_eq!(events[1].retry, None);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters_and_valid_text_is_kept() {
        let events = decode_all(
            &[b"id: \xffa\ndata: caf\xc3\xa9 \xc3(\ndata: \xe2\x82\n\n"],
            DEFAULT_MAX_EVENT_LEN,
        );
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].id.as_deref(), Some("\u{fffd}a"));
        assert_eq!(events[0].data, "caf\u{e9} \u{fffd}(\n\u{fffd}");
    }

    #[test]
    fn field_without_colon_and_id_with_nul() {
        let events = decode_str("data\nid: a\0b\n\n");
        assert_eq!(events, vec![]);
        let events = decode_str("data\ndata\n\n");
        assert_eq!(events[0].data, "\n");
    }

    #[test]
    fn cr_split_across_chunks_is_one_line_end() {
        let events = decode_all(&[b"data: a\r", b"\n\r", b"\ndata: b\n\n"], 1024);
        assert_eq!(
            events.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }

    #[test]
    fn oversized_event_is_dropped_and_stream_goes_on() {
        let big = "x".repeat(100);
        let text = format!("id: 7\ndata: {big}\n\ndata: {big}{big}\n\ndata: ok\n\n");
        let mut decoder = SseDecoder::with_max_event_len(64);
        let mut buf = BytesMut::from(text.as_bytes());
        let mut events = Vec::new();
        while let Some(event) = decoder.decode(&mut buf).unwrap() {
            events.push(event);
        }
        assert_eq!(decoder.dropped_events(), 2);
        assert_eq!(
            events[0],
            SseEvent {
                id: Some("7".into()),
                ..SseEvent::default()
            }
        );
        assert_eq!(events.last().unwrap().data, "ok");
    }

    #[test]
    fn incomplete_event_at_eof_is_discarded() {
        assert!(decode_str("data: half").is_empty());
    }

    fn arb_event() -> impl Strategy<Value = SseEvent> {
        (
            proptest::option::of("[a-z]{1,8}"),
            "[ -~]{1,40}(\n[ -~]{0,20}){0,3}",
            proptest::option::of("[a-zA-Z0-9-]{1,12}"),
            proptest::option::of(0u64..100_000),
        )
            .prop_map(|(event, data, id, retry)| SseEvent {
                event,
                data: data.trim_start().to_owned().replace("\n ", "\nx"),
                id,
                retry: retry.map(Duration::from_millis),
            })
            .prop_filter("data must not be empty", |e| !e.data.is_empty())
    }

    proptest! {
        #[test]
        fn any_chunking_yields_the_same_events(events in proptest::collection::vec(arb_event(), 1..6), cuts in proptest::collection::vec(0usize..400, 0..12)) {
            let text: String = events.iter().map(SseEvent::to_text).collect();
            let bytes = text.as_bytes();
            let whole = decode_all(&[bytes], DEFAULT_MAX_EVENT_LEN);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut start = 0;
            for cut in cuts {
                chunks.push(&bytes[start..cut]);
                start = cut;
            }
            chunks.push(&bytes[start..]);
            prop_assert_eq!(&decode_all(&chunks, DEFAULT_MAX_EVENT_LEN), &whole);
            prop_assert_eq!(whole, events);
        }
    }
}
