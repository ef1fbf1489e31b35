//! Peak memory of the newline-JSON decoder on one large message.
//!
//! Writes one `tools/list` response line of the given size (MB, default 40) to
//! a temporary file, then streams it through [`NdjsonCodec`] in 8 KiB chunks,
//! decodes the typed `ListToolsResult` from the raw result, and prints the
//! process's peak RSS growth against the message size.
//! `cargo run --release -p mcp-transport --example codec_peak_rss -- 40` (add `raw` for the
//! `serde_json::from_slice` baseline on the same bytes).

use std::io::{Read, Write};

use bytes::BytesMut;
use mcpdisco_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use nix::sys::resource::{UsageWho, getrusage};
use tokio_util::codec::Decoder;

fn max_rss_bytes() -> i64 {
    getrusage(UsageWho::RUSAGE_SELF).map_or(0, |usage| usage.max_rss() * 1024)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let megabytes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    let path = std::env::temp_dir().join(format!("mcp-peak-rss-{}.jsonl", std::process::id()));
    let mut size = 0;
    {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        file.write_all(br#"{"jsonrpc":"2.0","id":1,"result":{"tools":["#)?;
        let mut i = 0;
        while size < megabytes * 1024 * 1024 {
            let tool = format!(
                r#"{}{{"name":"tool_{i}","description":"{}","inputSchema":{{"type":"object","properties":{{"path":{{"type":"string"}}}}}}}}"#,
                if i == 0 { "" } else { "," },
                "d".repeat(200)
            );
            size += tool.len();
            file.write_all(tool.as_bytes())?;
            i += 1;
        }
        file.write_all(b"]}}\n")?;
    }
    let before = max_rss_bytes();
    if std::env::args().nth(2).as_deref() == Some("raw") {
        // The baseline: the same bytes, whole, parsed by serde_json into a Value.
        let bytes = std::fs::read(&path)?;
        let value: serde_json::Value = serde_json::from_slice(&bytes)?;
        let tools = value["result"]["tools"].as_array().map_or(0, Vec::len);
        drop(value);
        std::fs::remove_file(&path)?;
        let growth = max_rss_bytes() - before;
        println!(
            "raw serde_json::from_slice, {tools} tools: peak RSS grew by {:.1} MB = {:.2}x the message",
            growth as f64 / 1e6,
            growth as f64 / size as f64
        );
        return Ok(());
    }
    let mut file = std::fs::File::open(&path)?;
    let mut codec = NdjsonCodec::with_max_frame_len(usize::MAX / 2);
    let mut buf = BytesMut::new();
    let mut chunk = vec![0u8; 8 * 1024];
    let mut tools = 0;
    loop {
        let read = file.read(&mut chunk)?;
        if read == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..read]);
        while let Some(frame) = codec.decode(&mut buf)? {
            if let NdjsonFrame::Message(message) = frame {
                if let mcpdisco_protocol::Message::Response(response) = &message {
                    // Typed decoding, straight from the raw result.
                    let list: mcpdisco_protocol::types::ListToolsResult =
                        response.result.decode()?;
                    tools = list.tools.len();
                }
                drop(message);
            }
        }
    }
    std::fs::remove_file(&path)?;
    let growth = max_rss_bytes() - before;
    let message = i64::try_from(size).unwrap_or(i64::MAX);
    println!(
        "message {:.1} MB ({tools} tools): peak RSS grew by {:.1} MB = {:.2}x the message",
        message as f64 / 1e6,
        growth as f64 / 1e6,
        growth as f64 / message as f64
    );
    Ok(())
}
