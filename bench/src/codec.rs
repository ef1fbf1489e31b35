//! B1: decoding throughput, and peak memory on the largest message.
//!
//! Two workloads: one 40 MiB `tools/list` response line fed in 8 KiB chunks,
//! and 100 000 small messages (pings and short results) fed in 64 KiB chunks.
//!
//! * ours: `FramedRead` with our [`NdjsonCodec`] (as the stdio transport reads
//!   a server's stdout; results stay raw), then the typed list a session
//!   gives: the 40 MB result split into an [`ItemList`] of its tools (slices
//!   of the line, from what the decoder recorded) and every tool read as a
//!   [`Tool`] (schemas kept raw); each small line is already a typed
//!   [`Message`].
//! * rmcp: its stdio transport, `AsyncRwTransport<RoleClient, _, _>`, whose
//!   `receive` yields typed `ServerJsonRpcMessage`s.
//! * raw (the limit): `serde_json::from_slice::<Value>` on the same bytes,
//!   already split into lines.
//!
//! Both readers get the bytes from the same [`ChunkedPipe`]; both have their
//! line bound raised to 64 MiB (the default of each is 16 MiB).

use std::hint::black_box;
use std::time::Instant;

use bytes::Bytes;
use futures::StreamExt;
use mcpdisco_protocol::Message;
use mcpdisco_protocol::types::{ItemList, Tool};
use mcpdisco_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, ServerResult};
use rmcp::transport::Transport as _;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio_util::codec::FramedRead;

use crate::pipe::ChunkedPipe;
use crate::{BenchError, Contender, rss, workload};

/// The bound on one line for every contender: above the 40 MiB message.
pub const MAX_LINE: usize = 64 * 1024 * 1024;
/// The size of the large message.
pub const BIG_MESSAGE: usize = 40 * 1024 * 1024;
/// How many small messages.
pub const SMALL_MESSAGES: usize = 100_000;

/// Which bytes are decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// One 40 MiB `tools/list` response line in 8 KiB chunks.
    Big,
    /// 100 000 small messages in 64 KiB chunks.
    Small,
}

impl Workload {
    /// The size of the reads the pipe hands out.
    pub fn chunk(self) -> usize {
        match self {
            Workload::Big => 8 * 1024,
            Workload::Small => 64 * 1024,
        }
    }

    /// The newline-delimited bytes.
    pub fn bytes(self) -> Bytes {
        match self {
            Workload::Big => Bytes::from(workload::big_tools_list_line(BIG_MESSAGE)),
            Workload::Small => Bytes::from(workload::small_messages(SMALL_MESSAGES)),
        }
    }
}

/// What one process measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CodecResult {
    /// The workload.
    pub workload: Workload,
    /// The contender.
    pub contender: Contender,
    /// Bytes decoded per pass.
    pub bytes: usize,
    /// The longest line, in bytes.
    pub largest_message: usize,
    /// Messages decoded per pass (tools, for the large message).
    pub items: usize,
    /// The duration of each timed pass, in seconds.
    pub seconds: Vec<f64>,
    /// Peak RSS with the input in memory, before any decoding (KiB).
    pub baseline_rss_kib: u64,
    /// Peak RSS after the first pass (KiB).
    pub first_pass_rss_kib: u64,
}

/// Builds the workload, decodes it once (measuring peak memory), then `passes` more times, timed.
pub async fn run(
    contender: Contender,
    workload: Workload,
    passes: usize,
) -> Result<CodecResult, BenchError> {
    let bytes = workload.bytes();
    let lines = split_lines(&bytes);
    let largest_message = lines.iter().map(|line| line.len()).max().unwrap_or(0);
    let baseline_rss_kib = rss::max_rss_kib();
    let items = pass(contender, workload, &bytes, &lines).await?;
    let first_pass_rss_kib = rss::max_rss_kib();
    let mut seconds = Vec::with_capacity(passes);
    for _ in 0..passes {
        let started = Instant::now();
        let decoded = pass(contender, workload, &bytes, &lines).await?;
        seconds.push(started.elapsed().as_secs_f64());
        if decoded != items {
            return Err(BenchError::Unexpected(format!(
                "{contender} decoded {decoded} items, then {items}"
            )));
        }
    }
    Ok(CodecResult {
        workload,
        contender,
        bytes: bytes.len(),
        largest_message,
        items,
        seconds,
        baseline_rss_kib,
        first_pass_rss_kib,
    })
}

/// The lines of `bytes`, without their newlines (what the raw baseline gets for free).
pub fn split_lines(bytes: &Bytes) -> Vec<Bytes> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        if end > start {
            lines.push(bytes.slice(start..end));
        }
        start = end + 1;
    }
    if start < bytes.len() {
        lines.push(bytes.slice(start..));
    }
    lines
}

async fn pass(
    contender: Contender,
    workload: Workload,
    bytes: &Bytes,
    lines: &[Bytes],
) -> Result<usize, BenchError> {
    let pipe = ChunkedPipe::new(bytes.clone(), workload.chunk());
    match contender {
        Contender::Ours => ours(pipe, workload).await,
        Contender::Rmcp => rmcp(pipe, workload).await,
        Contender::Raw => raw(lines),
    }
}

async fn ours(pipe: ChunkedPipe, workload: Workload) -> Result<usize, BenchError> {
    let mut frames = FramedRead::new(pipe, NdjsonCodec::with_max_frame_len(MAX_LINE));
    let mut items = 0;
    while let Some(frame) = frames.next().await {
        let frame = frame.map_err(|e| BenchError::Ours(e.to_string()))?;
        let message = match frame {
            NdjsonFrame::Message(message) => message,
            other => return Err(BenchError::Unexpected(format!("ours: {other:?}"))),
        };
        match (workload, message) {
            (Workload::Big, Message::Response(response)) => {
                // The typed list a session gives (`Session::list_tools`):
                // the result split into its tools without parsing them (from
                // what the decoder recorded), then every tool read as a
                // `Tool`, as rmcp decodes them all.
                let page = response.result.list_page("tools").ok_or_else(|| {
                    BenchError::Unexpected("ours: the result has no tools".into())
                })?;
                let tools = ItemList::<Tool>::from_raw(page.items);
                for tool in &tools {
                    black_box(tool.map_err(|e| BenchError::Ours(e.to_string()))?);
                }
                items += tools.len();
                black_box(tools);
            }
            (Workload::Small, message) => {
                items += 1;
                black_box(message);
            }
            (Workload::Big, other) => {
                return Err(BenchError::Unexpected(format!(
                    "ours: not a response: {:?}",
                    other.method()
                )));
            }
        }
    }
    Ok(items)
}

async fn rmcp(pipe: ChunkedPipe, workload: Workload) -> Result<usize, BenchError> {
    let mut transport = AsyncRwTransport::<RoleClient, _, _>::new(pipe, tokio::io::sink())
        .with_max_line_length(MAX_LINE);
    let mut items = 0;
    while let Some(message) = transport.receive().await {
        match (workload, message) {
            (Workload::Big, JsonRpcMessage::Response(response)) => match response.result {
                ServerResult::ListToolsResult(result) => {
                    items += result.tools.len();
                    black_box(result);
                }
                other => {
                    return Err(BenchError::Unexpected(format!(
                        "rmcp: not a tools/list result: {other:?}"
                    )));
                }
            },
            (Workload::Small, message) => {
                items += 1;
                black_box(message);
            }
            (Workload::Big, _) => {
                return Err(BenchError::Unexpected("rmcp: not a response".into()));
            }
        }
    }
    Ok(items)
}

fn raw(lines: &[Bytes]) -> Result<usize, BenchError> {
    let mut items = 0;
    for line in lines {
        let value: Value =
            serde_json::from_slice(line).map_err(|e| BenchError::json("raw: a line", e))?;
        items += match value.pointer("/result/tools").and_then(Value::as_array) {
            Some(tools) if lines.len() == 1 => tools.len(),
            _ => 1,
        };
        black_box(value);
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_without_newlines() {
        let lines = split_lines(&Bytes::from_static(b"a\n\nbc\nd"));
        assert_eq!(
            lines,
            vec![Bytes::from("a"), Bytes::from("bc"), Bytes::from("d")]
        );
    }

    #[tokio::test]
    async fn every_contender_decodes_the_same_small_messages() {
        let bytes = Bytes::from(workload::small_messages(1000));
        let lines = split_lines(&bytes);
        for contender in [Contender::Ours, Contender::Rmcp, Contender::Raw] {
            let items = pass(contender, Workload::Small, &bytes, &lines)
                .await
                .unwrap();
            assert_eq!(items, 1000, "{contender}");
        }
    }

    #[tokio::test]
    async fn every_contender_counts_the_tools_of_a_large_message() {
        let bytes = Bytes::from(workload::big_tools_list_line(200_000));
        let lines = split_lines(&bytes);
        let expected = serde_json::from_slice::<Value>(&bytes).unwrap()["result"]["tools"]
            .as_array()
            .unwrap()
            .len();
        for contender in [Contender::Ours, Contender::Rmcp, Contender::Raw] {
            let items = pass(contender, Workload::Big, &bytes, &lines)
                .await
                .unwrap();
            assert_eq!(items, expected, "{contender}");
        }
    }
}
