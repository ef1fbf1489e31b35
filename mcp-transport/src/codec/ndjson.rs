//! Newline-delimited JSON, the stdio framing: one compact JSON-RPC message (or
//! batch array) per line.
//!
//! The decoder is a small state machine in the style of tokio's `LinesCodec`:
//! it remembers how far it has searched, so no byte is scanned twice, and a
//! 40 MB line arriving in 8 KiB chunks decodes in linear time. Lines longer
//! than the bound are thrown away as they arrive (never buffered whole) and
//! reported; so are lines that are not JSON, not UTF-8 or not JSON-RPC. None of
//! these is fatal: the stream goes on. `\r\n` and a leading UTF-8 BOM are
//! accepted, blank lines ignored. A line is a slice of the read buffer, not a
//! copy, and a result a slice of its line (see [`take_line`] for what a kept
//! result holds on to).

use std::fmt;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use mcpdisco_protocol::jsonrpc::{DecodeError, on_one_line};
use mcpdisco_protocol::{Incoming, Message, MessageError};
use tokio_util::codec::{Decoder, Encoder};

/// The default bound on one line: 16 MiB.
pub const DEFAULT_MAX_FRAME_LEN: usize = 16 * 1024 * 1024;
/// How much of a skipped line is kept for diagnostics.
const PREVIEW_LEN: usize = 200;
/// How many skipped lines a [`SkipLog`] keeps.
const KEPT_SKIPS: usize = 5;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why a line was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// Longer than the bound.
    Oversized,
    /// Not valid UTF-8.
    InvalidUtf8,
    /// Not JSON; the parser's message.
    NotJson(String),
    /// JSON, but not a JSON-RPC message.
    NotJsonRpc(MessageError),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Oversized => f.write_str("line too long"),
            SkipReason::InvalidUtf8 => f.write_str("invalid UTF-8"),
            SkipReason::NotJson(error) => write!(f, "not JSON ({error})"),
            SkipReason::NotJsonRpc(error) => write!(f, "not JSON-RPC ({error})"),
        }
    }
}

/// A line the decoder skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    /// Why.
    pub reason: SkipReason,
    /// The start of the line, lossily decoded.
    pub preview: String,
    /// The line's length in bytes, without its line end.
    pub len: usize,
}

/// One decoded line.
#[derive(Debug, Clone, PartialEq)]
pub enum NdjsonFrame {
    /// A single message.
    Message(Message),
    /// A JSON array: each element decoded on its own.
    Batch(Vec<Result<Message, MessageError>>),
    /// A line that was skipped.
    Skipped(SkippedLine),
}

/// A count of skipped lines with the first few kept, for diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipLog {
    count: u64,
    oversized: u64,
    first: Vec<SkippedLine>,
}

impl SkipLog {
    /// Records a skipped line.
    pub fn record(&mut self, line: &SkippedLine) {
        self.count += 1;
        if line.reason == SkipReason::Oversized {
            self.oversized += 1;
        }
        if self.first.len() < KEPT_SKIPS {
            self.first.push(line.clone());
        }
    }

    /// How many lines were skipped.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// How many of them were too long.
    pub fn oversized(&self) -> u64 {
        self.oversized
    }

    /// The first few skipped lines.
    pub fn first(&self) -> &[SkippedLine] {
        &self.first
    }
}

impl fmt::Display for SkipLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line(s) skipped", self.count)?;
        for line in &self.first {
            write!(f, "; {}: {:?}", line.reason, line.preview)?;
        }
        Ok(())
    }
}

/// The newline-delimited JSON codec.
#[derive(Debug, Clone)]
pub struct NdjsonCodec {
    max_frame_len: usize,
    /// Bytes of the buffer already searched for a newline.
    scanned: usize,
    /// Whether the stream start (and a possible BOM) is behind us.
    started: bool,
    /// An oversized line is being thrown away: its length so far, and its start.
    discarding: Option<(usize, String)>,
}

impl Default for NdjsonCodec {
    fn default() -> Self {
        Self::new()
    }
}

/// The start of a line: at most [`PREVIEW_LEN`] bytes and never more than the bound,
/// so a line reports the same preview however it was chunked.
fn preview(bytes: &[u8], max_frame_len: usize) -> String {
    let len = bytes.len().min(PREVIEW_LEN).min(max_frame_len);
    String::from_utf8_lossy(&bytes[..len]).into_owned()
}

impl NdjsonCodec {
    /// A codec with the default 16 MiB line bound.
    pub fn new() -> Self {
        Self::with_max_frame_len(DEFAULT_MAX_FRAME_LEN)
    }

    /// A codec that skips lines longer than `max_frame_len` bytes.
    pub fn with_max_frame_len(max_frame_len: usize) -> Self {
        Self {
            max_frame_len: max_frame_len.max(1),
            scanned: 0,
            started: false,
            discarding: None,
        }
    }

    /// The line bound.
    pub fn max_frame_len(&self) -> usize {
        self.max_frame_len
    }

    /// Decodes one complete line (without its `\n`; a `\r` before it is
    /// JSON whitespace, like any other). `None` for a blank line.
    fn line(&self, line: Bytes) -> Option<NdjsonFrame> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let skipped = |reason| {
            Some(NdjsonFrame::Skipped(SkippedLine {
                reason,
                preview: preview(&line, self.max_frame_len),
                len: line.len(),
            }))
        };
        if line.len() > self.max_frame_len {
            return skipped(SkipReason::Oversized);
        }
        match Incoming::from_bytes(&line) {
            Ok(Incoming::Single(message)) => Some(NdjsonFrame::Message(message)),
            Ok(Incoming::Batch(items)) => Some(NdjsonFrame::Batch(items)),
            Err(DecodeError::Message(error)) => skipped(SkipReason::NotJsonRpc(error)),
            Err(_) if std::str::from_utf8(&line).is_err() => skipped(SkipReason::InvalidUtf8),
            Err(DecodeError::Json(error)) => skipped(SkipReason::NotJson(error.to_string())),
        }
    }
}

/// Lines at least this long take the read buffer with them.
const OWN_BUFFER_MIN: usize = 64 * 1024;

/// Takes the first `len` bytes of `buf` as a line, without copying: decoded
/// results are slices of the line, and the line a slice of the read buffer.
///
/// A slice keeps its whole allocation alive, so a result kept for long holds
/// on to the read buffer it came from:
///
/// * a line shorter than [`OWN_BUFFER_MIN`] shares the buffer with its
///   neighbours; that buffer only doubled while such a line filled more
///   than half of it, so it is under four times that bound (when a kept
///   line shares it, the reader's next `reserve` takes a fresh buffer);
/// * a longer one takes the buffer, and whatever follows it moves to a
///   buffer of its own, so the line's allocation holds the line and nothing
///   that comes later (at most about twice the line).
///
/// The read buffer is dropped after such a line or a discarded oversized one.
fn take_line(buf: &mut BytesMut, len: usize) -> Bytes {
    let line = buf.split_to(len).freeze();
    if len >= OWN_BUFFER_MIN {
        *buf = BytesMut::from(&buf[..]);
    }
    line
}

impl Decoder for NdjsonCodec {
    type Item = NdjsonFrame;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<NdjsonFrame>, std::io::Error> {
        loop {
            if !self.started {
                if buf.is_empty() || (buf.len() < BOM.len() && BOM.starts_with(buf)) {
                    return Ok(None);
                }
                if buf.starts_with(BOM) {
                    buf.advance(BOM.len());
                }
                self.started = true;
            }
            let Some(offset) = memchr::memchr(b'\n', &buf[self.scanned..]) else {
                if let Some((len, _)) = &mut self.discarding {
                    *len += buf.len();
                    // Drop the buffer, not just its contents: it grew to hold the oversized line.
                    *buf = BytesMut::new();
                    self.scanned = 0;
                } else if buf.len() > self.max_frame_len {
                    // Too long already: keep its start for the report, drop the rest as it comes.
                    self.discarding = Some((buf.len(), preview(buf, self.max_frame_len)));
                    *buf = BytesMut::new();
                    self.scanned = 0;
                } else {
                    self.scanned = buf.len();
                }
                return Ok(None);
            };
            let end = self.scanned + offset;
            let line = take_line(buf, end);
            buf.advance(1);
            self.scanned = 0;
            if let Some((len, start)) = self.discarding.take() {
                return Ok(Some(NdjsonFrame::Skipped(SkippedLine {
                    reason: SkipReason::Oversized,
                    preview: start,
                    len: len + end,
                })));
            }
            if let Some(frame) = self.line(line) {
                return Ok(Some(frame));
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<NdjsonFrame>, std::io::Error> {
        if let Some(frame) = self.decode(buf)? {
            return Ok(Some(frame));
        }
        self.scanned = 0;
        if let Some((len, start)) = self.discarding.take() {
            buf.clear();
            return Ok(Some(NdjsonFrame::Skipped(SkippedLine {
                reason: SkipReason::Oversized,
                preview: start,
                len,
            })));
        }
        if buf.is_empty() {
            return Ok(None);
        }
        // A last line without a newline.
        let len = buf.len();
        Ok(self.line(take_line(buf, len)))
    }
}

impl Encoder<&Message> for NdjsonCodec {
    type Error = std::io::Error;

    fn encode(&mut self, message: &Message, buf: &mut BytesMut) -> Result<(), std::io::Error> {
        let start = buf.len();
        let mut writer = buf.writer();
        message.write_json(&mut writer)?;
        let buf = writer.into_inner();
        // A raw result passed on as a server sent it may break lines between tokens.
        on_one_line(&mut buf[start..]);
        buf.put_u8(b'\n');
        Ok(())
    }
}

impl Encoder<Message> for NdjsonCodec {
    type Error = std::io::Error;

    fn encode(&mut self, message: Message, buf: &mut BytesMut) -> Result<(), std::io::Error> {
        self.encode(&message, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::{Notification, Request, RequestId, Response};
    use proptest::prelude::*;
    use serde_json::json;

    fn decode_chunks(codec: &mut NdjsonCodec, chunks: &[&[u8]]) -> Vec<NdjsonFrame> {
        let mut buf = BytesMut::new();
        let mut frames = Vec::new();
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            while let Some(frame) = codec.decode(&mut buf).unwrap() {
                frames.push(frame);
            }
        }
        while let Some(frame) = codec.decode_eof(&mut buf).unwrap() {
            frames.push(frame);
        }
        frames
    }

    fn decode(bytes: &[u8]) -> Vec<NdjsonFrame> {
        decode_chunks(&mut NdjsonCodec::new(), &[bytes])
    }

    fn ping(id: i64) -> Message {
        Message::Request(Request {
            id: RequestId::from(id),
            method: "ping".into(),
            params: None,
        })
    }

    #[test]
    fn crlf_bom_blank_lines_and_missing_final_newline() {
        let frames = decode(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n  \n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        assert_eq!(
            frames,
            vec![NdjsonFrame::Message(ping(1)), NdjsonFrame::Message(ping(2))]
        );
    }

    #[test]
    fn noise_and_invalid_utf8_are_skipped_and_reported() {
        let frames = decode(b"Server starting...\n\xff\xfe bad\n{\"not\":\"rpc\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        assert_eq!(frames.len(), 4);
        let reasons: Vec<_> = frames
            .iter()
            .filter_map(|f| match f {
                NdjsonFrame::Skipped(s) => Some(s.reason.clone()),
                _ => None,
            })
            .collect();
        assert!(matches!(reasons[0], SkipReason::NotJson(_)));
        assert_eq!(reasons[1], SkipReason::InvalidUtf8);
        assert_eq!(
            reasons[2],
            SkipReason::NotJsonRpc(MessageError::MissingVersion)
        );
        assert_eq!(frames[3], NdjsonFrame::Message(ping(1)));
        let mut log = SkipLog::default();
        for frame in &frames {
            if let NdjsonFrame::Skipped(s) = frame {
                log.record(s);
            }
        }
        assert_eq!(log.count(), 3);
        assert_eq!(log.first()[0].preview, "Server starting...");
        assert!(log.to_string().starts_with("3 line(s) skipped; not JSON"));
    }

    #[test]
    fn oversized_line_is_skipped_without_buffering_and_the_stream_goes_on() {
        let mut codec = NdjsonCodec::with_max_frame_len(64);
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{{\"pad\":\"{}\"}}}}\n",
            "a".repeat(500)
        );
        let mut buf = BytesMut::new();
        let mut frames = Vec::new();
        for chunk in big.as_bytes().chunks(16) {
            buf.extend_from_slice(chunk);
            while let Some(frame) = codec.decode(&mut buf).unwrap() {
                frames.push(frame);
            }
            assert!(
                buf.len() <= 64 + 16,
                "the decoder buffered {} bytes",
                buf.len()
            );
        }
        buf.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
        while let Some(frame) = codec.decode(&mut buf).unwrap() {
            frames.push(frame);
        }
        let NdjsonFrame::Skipped(skipped) = &frames[0] else {
            panic!("{frames:?}")
        };
        assert_eq!(skipped.reason, SkipReason::Oversized);
        assert_eq!(skipped.len, big.len() - 1);
        assert!(skipped.preview.starts_with("{\"jsonrpc\""));
        assert_eq!(frames[1], NdjsonFrame::Message(ping(9)));
    }

    #[test]
    fn a_line_longer_than_the_bound_in_one_chunk_is_skipped_too() {
        let mut codec = NdjsonCodec::with_max_frame_len(10);
        let frames = decode_chunks(&mut codec, &[b"[1,2,3,4,5,6,7,8]\n"]);
        assert!(matches!(&frames[0], NdjsonFrame::Skipped(s) if s.reason == SkipReason::Oversized));
    }

    #[test]
    fn array_line_is_a_batch() {
        let frames = decode(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},{\"bad\":1}]\n");
        let NdjsonFrame::Batch(items) = &frames[0] else {
            panic!("{frames:?}")
        };
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0],
            Ok(Message::Response(Response {
                id: 1.into(),
                result: json!({}).into()
            }))
        );
        assert!(items[1].is_err());
    }

    #[test]
    fn a_long_line_takes_its_buffer_and_a_short_one_shares_it() {
        let mut buf = BytesMut::with_capacity(4 * OWN_BUFFER_MIN);
        buf.extend_from_slice(&vec![b'x'; OWN_BUFFER_MIN]);
        buf.extend_from_slice(b"next");
        let start = buf.as_ptr();
        let line = take_line(&mut buf, OWN_BUFFER_MIN);
        assert_eq!(line.as_ptr(), start, "shared, not copied");
        assert_eq!(&buf[..], b"next");
        let line_range = line.as_ptr_range();
        assert!(
            !line_range.contains(&buf.as_ptr()),
            "what follows the line lives in another allocation"
        );
        let mut buf = BytesMut::with_capacity(1024);
        buf.extend_from_slice(b"small\nrest");
        let start = buf.as_ptr();
        let line = take_line(&mut buf, 5);
        assert_eq!(&line[..], b"small");
        assert_eq!(line.as_ptr(), start, "shared, not copied");
        assert_eq!(&buf[..], b"\nrest");
    }

    #[test]
    fn results_are_slices_of_the_read_buffer_which_is_reused_once_they_are_dropped() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\r\n";
        let mut codec = NdjsonCodec::new();
        let mut buf = BytesMut::with_capacity(8 * 1024);
        let allocation = buf.as_ptr() as usize..buf.as_ptr() as usize + buf.capacity();
        for _ in 0..1000 {
            // As `FramedRead` reads: into the buffer's spare room.
            buf.reserve(line.len());
            buf.extend_from_slice(line);
            let Some(NdjsonFrame::Message(Message::Response(response))) =
                codec.decode(&mut buf).unwrap()
            else {
                panic!("not a response");
            };
            assert_eq!(response.result.as_str(), "{\"content\":[]}");
            let result = response.result.as_bytes().as_ptr() as usize;
            assert!(allocation.contains(&result), "a slice, not a copy");
        }
        assert!(
            allocation.contains(&(buf.as_ptr() as usize)),
            "the read buffer was reused, not replaced"
        );
    }

    #[test]
    fn bytes_searched_once_are_not_searched_again() {
        let mut codec = NdjsonCodec::new();
        let mut buf = BytesMut::new();
        for _ in 0..100 {
            buf.extend_from_slice(&[b' '; 100]);
            assert_eq!(codec.decode(&mut buf).unwrap(), None);
            assert_eq!(
                codec.scanned,
                buf.len(),
                "the next search starts after these"
            );
        }
        buf.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
        assert!(matches!(
            codec.decode(&mut buf).unwrap(),
            Some(NdjsonFrame::Message(_))
        ));
        assert_eq!(codec.scanned, 0);
    }

    #[test]
    fn discarding_an_oversized_line_releases_its_buffer() {
        let mut codec = NdjsonCodec::with_max_frame_len(1024);
        let mut buf = BytesMut::new();
        buf.extend_from_slice(&vec![b'a'; 64 * 1024]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        assert_eq!(buf.capacity(), 0);
        buf.extend_from_slice(b"aaa\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
        assert!(matches!(
            codec.decode(&mut buf).unwrap(),
            Some(NdjsonFrame::Skipped(_))
        ));
        assert!(matches!(
            codec.decode(&mut buf).unwrap(),
            Some(NdjsonFrame::Message(_))
        ));
    }

    #[test]
    fn encoding_is_one_compact_line() {
        let message = Message::Notification(Notification {
            method: "n".into(),
            params: Some(json!({"text": "multi\nline"})),
        });
        let mut buf = BytesMut::new();
        NdjsonCodec::new().encode(&message, &mut buf).unwrap();
        assert_eq!(
            &buf[..],
            b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"text\":\"multi\\nline\"}}\n"
        );
    }

    #[test]
    fn a_raw_result_with_line_breaks_between_its_tokens_is_still_one_line() {
        let result =
            mcpdisco_protocol::RawJson::parse("{\r\n  \"text\": \"a\\nb\",\n  \"n\": [1,\n2]\n}")
                .unwrap();
        let message = Message::Response(Response {
            id: RequestId::from(7),
            result: result.clone(),
        });
        let mut buf = BytesMut::new();
        NdjsonCodec::new().encode(&message, &mut buf).unwrap();
        let line = &buf[..buf.len() - 1];
        assert_eq!(buf.last(), Some(&b'\n'));
        assert!(!line.contains(&b'\n') && !line.contains(&b'\r'));
        let [NdjsonFrame::Message(Message::Response(decoded))] = &decode(&buf)[..] else {
            panic!("one message: {:?}", String::from_utf8_lossy(&buf));
        };
        assert_eq!(
            decoded.result.to_value().unwrap(),
            result.to_value().unwrap()
        );
        assert!(!message.to_vec().contains(&b'\n'), "and Message::to_vec");
    }

    fn arb_message() -> impl Strategy<Value = Message> {
        let text = "[a-zA-Z0-9 \\n\u{e9}\u{4e16}\"\\\\]{0,20}";
        prop_oneof![
            (any::<i64>(), "[a-z/]{1,20}", text).prop_map(|(id, method, t)| Message::Request(
                Request {
                    id: id.into(),
                    method,
                    params: Some(json!({"t": t}).into()),
                }
            )),
            (text, "[a-z/]{1,20}").prop_map(|(id, method)| Message::Notification(Notification {
                method: format!("{method}{id}"),
                params: None,
            })),
            (text, text).prop_map(|(id, t)| Message::Response(Response {
                id: id.into(),
                result: json!([t, 1.5, null]).into()
            })),
        ]
    }

    proptest! {
        #[test]
        fn encode_then_decode_in_any_chunking_returns_the_input(
            messages in proptest::collection::vec(arb_message(), 1..8),
            cuts in proptest::collection::vec(0usize..2000, 0..10),
        ) {
            let mut bytes = BytesMut::new();
            let mut codec = NdjsonCodec::new();
            for message in &messages {
                codec.encode(message, &mut bytes).unwrap();
            }
            let bytes = bytes.freeze();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut start = 0;
            for cut in cuts {
                chunks.push(&bytes[start..cut]);
                start = cut;
            }
            chunks.push(&bytes[start..]);
            let whole = decode_chunks(&mut NdjsonCodec::new(), &[&bytes]);
            let chunked = decode_chunks(&mut NdjsonCodec::new(), &chunks);
            prop_assert_eq!(&whole, &chunked);
            let expected: Vec<NdjsonFrame> = messages.into_iter().map(NdjsonFrame::Message).collect();
            prop_assert_eq!(whole, expected);
        }

        #[test]
        fn arbitrary_bytes_in_any_chunking_give_the_same_frames(
            bytes in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), any::<u8>()], 0..300),
            cut in 0usize..300,
        ) {
            let cut = cut.min(bytes.len());
            let whole = decode_chunks(&mut NdjsonCodec::with_max_frame_len(32), &[&bytes]);
            let split = decode_chunks(&mut NdjsonCodec::with_max_frame_len(32), &[&bytes[..cut], &bytes[cut..]]);
            prop_assert_eq!(whole, split);
        }
    }
}
