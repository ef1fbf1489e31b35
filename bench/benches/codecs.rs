//! Decoder throughput: our codecs against raw `serde_json::from_slice` on the same bytes.
//!
//! Cases: one 40 MB `tools/list` response line fed in 8 KiB chunks, and
//! 100 000 small messages in 64 KiB chunks; each as newline JSON and as SSE.
//! The baseline parses the same JSON texts, already split, into `Value`. Our
//! decoders yield messages whose results are kept raw (checked, not parsed);
//! `cargo xtask bench` (case B1) adds typed decoding and compares with rmcp.

use bytes::BytesMut;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpdisco_transport::codec::ndjson::NdjsonCodec;
use mcpdisco_transport::codec::sse::SseDecoder;
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

fn feed<D: Decoder>(decoder: &mut D, bytes: &[u8], chunk: usize) -> usize {
    let mut buf = BytesMut::with_capacity(chunk * 2);
    let mut frames = 0;
    for piece in bytes.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Ok(Some(frame)) = decoder.decode(&mut buf) {
            black_box(&frame);
            frames += 1;
        }
    }
    frames
}

fn sse_messages(bytes: &[u8], chunk: usize) -> usize {
    // The SSE decoder yields text; the HTTP transport then parses each event's data.
    let mut decoder = SseDecoder::with_max_event_len(64 * 1024 * 1024);
    let mut buf = BytesMut::with_capacity(chunk * 2);
    let mut messages = 0;
    for piece in bytes.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Ok(Some(event)) = decoder.decode(&mut buf) {
            // As the HTTP transport does: the event's text becomes the message's bytes.
            let data = bytes::Bytes::from(event.data);
            if let Ok(message) = mcpdisco_protocol::Message::from_bytes(&data) {
                black_box(&message);
                messages += 1;
            }
        }
    }
    messages
}

fn raw(lines: &[String]) -> usize {
    let mut parsed = 0;
    for line in lines {
        if let Ok(value) = serde_json::from_slice::<Value>(line.as_bytes()) {
            black_box(&value);
            parsed += 1;
        }
    }
    parsed
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
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.throughput(Throughput::Bytes(ndjson.len() as u64));
        group.bench_function("raw serde_json::from_slice (limit)", |b| {
            b.iter(|| raw(&lines))
        });
        group.bench_function("ndjson codec + message decoding (raw results)", |b| {
            b.iter(|| {
                feed(
                    &mut NdjsonCodec::with_max_frame_len(64 * 1024 * 1024),
                    &ndjson,
                    chunk,
                )
            })
        });
        group.bench_function("sse decoder + message decoding (raw results)", |b| {
            b.iter(|| sse_messages(&sse, chunk))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
