//! B1: decoding throughput, and peak memory on the largest message.
//!
//! Two workloads: one 40 MiB `tools/list` response line fed in 8 KiB chunks,
//! and 100 000 small messages (pings and short results) fed in 64 KiB chunks.
//! Each run decodes to one [`Decoding`] depth, so a row compares the same work:
//!
//! * [`Decoding::Checked`], every byte validated, nothing decoded:
//!   * ours: `FramedRead` with our [`NdjsonCodec`] (as the stdio transport
//!     reads a server's stdout): every message typed, its result checked and
//!     kept as text; the 40 MB result split into an [`ItemList`] of its tools
//!     (slices of the line, from what the decoder recorded), none read;
//!   * the raw floor, the limit ([`floor::framed`]): the same chunks from
//!     the same pipe gathered into lines by the plainest correct reader (one
//!     line buffer, `memchr` over the new bytes), each line validated in
//!     place by serde_json into `IgnoredAny` shapes that count the tools: a
//!     validating pass that allocates nothing but its line buffer;
//! * [`Decoding::CheckedUnframed`] (raw only): the same validation over
//!   lines already split in memory ([`floor::unframed`]): no framing, a
//!   reference.
//! * [`Decoding::Typed`], every item decoded into its type:
//!   * ours: as above, then every tool read as a [`Tool`] (schemas kept
//!     raw), every small result as a [`CallToolResult`];
//!   * rmcp: its stdio transport, `AsyncRwTransport<RoleClient, _, _>`, whose
//!     `receive` yields typed `ServerJsonRpcMessage`s.
//! * [`Decoding::Value`] (raw only): `serde_json::from_slice::<Value>` of
//!   each line, a full parse into a tree: a reference, not a floor.
//!
//! Every reader gets the bytes from the same [`ChunkedPipe`](crate::pipe::ChunkedPipe);
//! ours and rmcp have their line bound raised to 64 MiB (the default of each
//! is 16 MiB). Which of them a build has follows its features (`ours`, `peers`).

use std::time::Instant;

use bytes::Bytes;

use crate::{BenchError, Contender, rss, workload};

pub mod floor;

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

/// How far each message is decoded (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decoding {
    /// Validated, kept as text (ours) or ignored (the raw floor).
    Checked,
    /// As [`Checked`](Self::Checked), from lines already split in memory
    /// (raw only): the floor without its framing, a reference.
    CheckedUnframed,
    /// Every item decoded into its type (ours and rmcp).
    Typed,
    /// Into `serde_json::Value` (raw only): a full parse, not a floor.
    Value,
}

/// The contender × depth pairs this build can run.
pub fn built_runs() -> Vec<(Contender, Decoding)> {
    let mut runs = Vec::new();
    if cfg!(feature = "ours") {
        runs.extend([
            (Contender::Ours, Decoding::Checked),
            (Contender::Ours, Decoding::Typed),
        ]);
    }
    if cfg!(feature = "peers") {
        runs.extend([
            (Contender::Rmcp, Decoding::Typed),
            (Contender::Raw, Decoding::Checked),
            (Contender::Raw, Decoding::CheckedUnframed),
            (Contender::Raw, Decoding::Value),
        ]);
    }
    runs
}

/// What one process measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CodecResult {
    /// The workload.
    pub workload: Workload,
    /// The contender.
    pub contender: Contender,
    /// How far each message was decoded.
    pub decoding: Decoding,
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
    decoding: Decoding,
    workload: Workload,
    passes: usize,
) -> Result<CodecResult, BenchError> {
    let bytes = workload.bytes();
    let lines = split_lines(&bytes);
    let largest_message = lines.iter().map(|line| line.len()).max().unwrap_or(0);
    let baseline_rss_kib = rss::max_rss_kib();
    let items = pass(contender, decoding, workload, &bytes, &lines).await?;
    let first_pass_rss_kib = rss::max_rss_kib();
    let mut seconds = Vec::with_capacity(passes);
    for _ in 0..passes {
        let started = Instant::now();
        let decoded = pass(contender, decoding, workload, &bytes, &lines).await?;
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
        decoding,
        bytes: bytes.len(),
        largest_message,
        items,
        seconds,
        baseline_rss_kib,
        first_pass_rss_kib,
    })
}

/// The lines of `bytes`, without their newlines (what the unframed references get for free).
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
    decoding: Decoding,
    workload: Workload,
    bytes: &Bytes,
    lines: &[Bytes],
) -> Result<usize, BenchError> {
    match (contender, decoding) {
        #[cfg(feature = "ours")]
        (Contender::Ours, Decoding::Checked | Decoding::Typed) => {
            ours::decode(pipe(bytes, workload), workload, decoding).await
        }
        #[cfg(feature = "peers")]
        (Contender::Rmcp, Decoding::Typed) => peers::rmcp(pipe(bytes, workload), workload).await,
        #[cfg(feature = "peers")]
        (Contender::Raw, Decoding::Checked) => {
            floor::framed(
                pipe(bytes, workload),
                workload.chunk(),
                workload == Workload::Big,
            )
            .await
        }
        #[cfg(feature = "peers")]
        (Contender::Raw, Decoding::CheckedUnframed) => floor::unframed(lines),
        #[cfg(feature = "peers")]
        (Contender::Raw, Decoding::Value) => peers::value_tree(lines),
        (contender, decoding) => {
            // Unused in a build without either side.
            let _ = (bytes, lines);
            Err(BenchError::Unexpected(format!(
                "{contender} does not decode to {decoding:?} in this build (features: {})",
                crate::contender::BUILT_WITH
            )))
        }
    }
}

/// The bytes as a pipe hands them out in the workload's chunks.
#[cfg(any(feature = "ours", feature = "peers"))]
fn pipe(bytes: &Bytes, workload: Workload) -> crate::pipe::ChunkedPipe {
    crate::pipe::ChunkedPipe::new(bytes.clone(), workload.chunk())
}

/// Our side: our codec and typed lists.
#[cfg(feature = "ours")]
mod ours {
    use std::hint::black_box;

    use futures::StreamExt;
    use mcpdisco_protocol::Message;
    use mcpdisco_protocol::types::{CallToolResult, ItemList, Tool};
    use mcpdisco_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
    use tokio_util::codec::FramedRead;

    use super::{Decoding, MAX_LINE, Workload};
    use crate::BenchError;
    use crate::pipe::ChunkedPipe;

    /// Decodes every frame, to `decoding`'s depth; returns the tools of the
    /// large message, or the messages.
    pub(super) async fn decode(
        pipe: ChunkedPipe,
        workload: Workload,
        decoding: Decoding,
    ) -> Result<usize, BenchError> {
        let typed = decoding == Decoding::Typed;
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
                    // the result split into its tools without parsing them
                    // (from what the decoder recorded); typed, every tool
                    // then read as a `Tool`, as rmcp decodes them all.
                    let page = response.result.list_page("tools").ok_or_else(|| {
                        BenchError::Unexpected("ours: the result has no tools".into())
                    })?;
                    let tools = ItemList::<Tool>::from_raw(page.items);
                    if typed {
                        for tool in &tools {
                            black_box(tool.map_err(|e| BenchError::Ours(e.to_string()))?);
                        }
                    }
                    items += tools.len();
                    black_box(tools);
                }
                (Workload::Small, Message::Response(response)) if typed => {
                    let result: CallToolResult = response
                        .result
                        .decode()
                        .map_err(|e| BenchError::Ours(e.to_string()))?;
                    items += 1;
                    black_box(result);
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
}

/// The others: rmcp's typed decoding and the `Value` tree.
#[cfg(feature = "peers")]
mod peers {
    use std::hint::black_box;

    use bytes::Bytes;
    use rmcp::RoleClient;
    use rmcp::model::{JsonRpcMessage, ServerResult};
    use rmcp::transport::Transport as _;
    use rmcp::transport::async_rw::AsyncRwTransport;
    use serde_json::Value;

    use super::{MAX_LINE, Workload};
    use crate::BenchError;
    use crate::pipe::ChunkedPipe;

    /// rmcp's stdio transport: typed messages.
    pub(super) async fn rmcp(pipe: ChunkedPipe, workload: Workload) -> Result<usize, BenchError> {
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

    /// Every line into a `serde_json::Value` tree: a reference, not a floor.
    pub(super) fn value_tree(lines: &[Bytes]) -> Result<usize, BenchError> {
        let mut items = 0;
        for line in lines {
            let value: Value = serde_json::from_slice(line)
                .map_err(|e| BenchError::json("value tree: a line", e))?;
            items += match value.pointer("/result/tools").and_then(Value::as_array) {
                Some(tools) if lines.len() == 1 => tools.len(),
                _ => 1,
            };
            black_box(value);
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

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
    async fn every_run_decodes_the_same_small_messages() {
        let bytes = Bytes::from(workload::small_messages(1000));
        let lines = split_lines(&bytes);
        for (contender, decoding) in built_runs() {
            let items = pass(contender, decoding, Workload::Small, &bytes, &lines)
                .await
                .unwrap();
            assert_eq!(items, 1000, "{contender} {decoding:?}");
        }
    }

    #[tokio::test]
    async fn every_run_counts_the_tools_of_a_large_message() {
        let bytes = Bytes::from(workload::big_tools_list_line(200_000));
        let lines = split_lines(&bytes);
        let expected = serde_json::from_slice::<Value>(&bytes).unwrap()["result"]["tools"]
            .as_array()
            .unwrap()
            .len();
        for (contender, decoding) in built_runs() {
            let items = pass(contender, decoding, Workload::Big, &bytes, &lines)
                .await
                .unwrap();
            assert_eq!(items, expected, "{contender} {decoding:?}");
        }
    }

    #[tokio::test]
    async fn a_pair_no_build_runs_is_refused() {
        let bytes = Bytes::from(workload::small_messages(2));
        let lines = split_lines(&bytes);
        let refused = pass(
            Contender::Rmcp,
            Decoding::Checked,
            Workload::Small,
            &bytes,
            &lines,
        )
        .await;
        assert!(refused.is_err());
    }
}
