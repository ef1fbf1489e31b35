//! Decoder throughput: our codecs against a validating floor on the same bytes.
//!
//! Cases: one 40 MB `tools/list` response line fed in 8 KiB chunks, and
//! 100 000 small messages in 64 KiB chunks; each as newline JSON and as SSE.
//! The floor gathers the same chunks into lines with the plainest correct
//! reader (one line buffer, `memchr` over the new bytes) and validates each
//! line in place with `serde_json::from_slice::<IgnoredAny>` (it allocates
//! nothing else): the framing and checking any reader must do. The same
//! validation of the texts already split (no framing) and a `Value` tree of
//! each are references, not floors. Our decoders yield
//! messages whose results are kept raw (checked, not parsed); `cargo xtask
//! bench` (case B1) adds typed decoding and compares with rmcp.
//!
//! Every function counts what it decoded and panics on a decoder error or
//! a count other than the messages fed, so a decoder that stops early
//! cannot look faster.

use bytes::BytesMut;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpdisco_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use mcpdisco_transport::codec::sse::SseDecoder;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use std::hint::black_box;
use tokio_util::codec::Decoder;

/// One `tools/list` response of about `target` bytes, compact, without newline.
fn big_tools_list(target: usize) -> String {
    let tool = |i: usize| {
        json!({
            "name": format!("tool_{i}"),
            "title": format!("Tool number {i}"),
            "description": "Does a thing with the given parameters and returns a structured result. ".repeat(3),
            "inputSchema": {"type": "object", "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"path": {"type": "string", "description": "A path"}, "depth": {"type": "integer", "minimum": 0}, "flags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", ""]}}},
                "required": ["path"]},
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
            "execution": {"taskSupport": "optional"}
        })
    };
    let one = serde_json::to_string(&tool(0))
        .unwrap_or_default()
        .len()
        .max(1);
    let tools: Vec<Value> = (0..target / one).map(tool).collect();
    serde_json::to_string(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}))
        .unwrap_or_default()
}

/// 100 000 small messages: pings and short results.
fn small_messages() -> Vec<String> {
    (0..100_000)
        .map(|i| {
            if i % 2 == 0 {
                format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#)
            } else {
                format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"ok {i}"}}]}}}}"#)
            }
        })
        .collect()
}

fn ndjson_bytes(lines: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out
}

fn sse_bytes(lines: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(b"event: message\ndata: ");
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\n\n");
    }
    out
}

/// Feeds `bytes` to our newline decoder in `chunk`s; the messages it yields.
fn ndjson_messages(bytes: &[u8], chunk: usize) -> Result<usize, String> {
    let mut decoder = NdjsonCodec::with_max_frame_len(64 * 1024 * 1024);
    let mut buf = BytesMut::with_capacity(chunk * 2);
    let mut messages = 0;
    for piece in bytes.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Some(frame) = decoder.decode(&mut buf).map_err(|e| e.to_string())? {
            match frame {
                NdjsonFrame::Message(message) => {
                    black_box(&message);
                    messages += 1;
                }
                other => return Err(format!("not a message: {other:?}")),
            }
        }
    }
    Ok(messages)
}

/// Feeds `bytes` to our SSE decoder in `chunk`s and decodes each event's
/// data as the HTTP transport does; the messages.
fn sse_messages(bytes: &[u8], chunk: usize) -> Result<usize, String> {
    let mut decoder = SseDecoder::with_max_event_len(64 * 1024 * 1024);
    let mut buf = BytesMut::with_capacity(chunk * 2);
    let mut messages = 0;
    for piece in bytes.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Some(event) = decoder.decode(&mut buf).map_err(|e| e.to_string())? {
            // As the HTTP transport does: the event's text becomes the message's bytes.
            let data = bytes::Bytes::from(event.data);
            let message =
                mcpdisco_protocol::Message::from_bytes(&data).map_err(|e| e.to_string())?;
            black_box(&message);
            messages += 1;
        }
    }
    Ok(messages)
}

/// The floor: `bytes` fed in `chunk`s to one line buffer, split at
/// newlines (only the new bytes searched), every line validated in place by
/// serde_json, nothing kept; the lines.
fn framed_floor(bytes: &[u8], chunk: usize) -> Result<usize, String> {
    let mut buffer = Vec::with_capacity(chunk * 2);
    // The bytes of `buffer` already searched: they hold no newline.
    let mut searched = 0;
    let mut lines = 0;
    let mut validate = |line: &[u8]| -> Result<(), String> {
        black_box(serde_json::from_slice::<IgnoredAny>(line).map_err(|e| e.to_string())?);
        lines += 1;
        Ok(())
    };
    for piece in bytes.chunks(chunk) {
        buffer.extend_from_slice(piece);
        let mut start = 0;
        while let Some(offset) = memchr::memchr(b'\n', &buffer[searched..]) {
            let end = searched + offset;
            validate(&buffer[start..end])?;
            start = end + 1;
            searched = start;
        }
        buffer.drain(..start);
        searched = buffer.len();
    }
    if !buffer.is_empty() {
        validate(&buffer)?;
    }
    Ok(lines)
}

/// A reference: every text, already split, validated by serde_json, nothing kept.
fn unframed(lines: &[String]) -> Result<usize, String> {
    for line in lines {
        black_box(
            serde_json::from_slice::<IgnoredAny>(line.as_bytes()).map_err(|e| e.to_string())?,
        );
    }
    Ok(lines.len())
}

/// A reference: every text into a `Value` tree.
fn value_tree(lines: &[String]) -> Result<usize, String> {
    for line in lines {
        let value: Value = serde_json::from_slice(line.as_bytes()).map_err(|e| e.to_string())?;
        black_box(&value);
    }
    Ok(lines.len())
}

/// `decoded`, or a panic that fails the bench when it is an error or not `expected`.
fn checked(decoded: Result<usize, String>, expected: usize, what: &str) -> usize {
    match decoded {
        Ok(count) if count == expected => count,
        Ok(count) => panic!("{what}: decoded {count} messages, expected {expected}"),
        Err(error) => panic!("{what}: {error}"),
    }
}

fn bench(c: &mut Criterion) {
    let cases = [
        (
            "one 40 MB line, 8 KiB chunks",
            vec![big_tools_list(40 * 1024 * 1024)],
            8 * 1024,
        ),
        (
            "100k small messages, 64 KiB chunks",
            small_messages(),
            64 * 1024,
        ),
    ];
    for (name, lines, chunk) in cases {
        let ndjson = ndjson_bytes(&lines);
        let sse = sse_bytes(&lines);
        let expected = lines.len();
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.throughput(Throughput::Bytes(ndjson.len() as u64));
        group.bench_function(
            "serde_json IgnoredAny, framed from the chunks (floor)",
            |b| b.iter(|| checked(framed_floor(&ndjson, chunk), expected, "floor")),
        );
        group.bench_function(
            "serde_json IgnoredAny, lines already split (reference)",
            |b| b.iter(|| checked(unframed(&lines), expected, "unframed")),
        );
        group.bench_function("serde_json Value tree (reference, not a floor)", |b| {
            b.iter(|| checked(value_tree(&lines), expected, "value tree"))
        });
        group.bench_function("ndjson codec + message decoding (raw results)", |b| {
            b.iter(|| checked(ndjson_messages(&ndjson, chunk), expected, "ndjson"))
        });
        group.bench_function("sse decoder + message decoding (raw results)", |b| {
            b.iter(|| checked(sse_messages(&sse, chunk), expected, "sse"))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
