//! B1's floors for checked decoding: serde_json into [`IgnoredAny`] shapes,
//! which validate every byte and allocate nothing.
//!
//! * [`framed`], the limit: reads the pipe's chunks into one line buffer with
//!   the plainest correct code (`memchr` for newlines, searching only the new
//!   bytes), then validates each line where it lies. It does the framing work
//!   any reader of a pipe must do: the copy out of the pipe, and for a line
//!   longer than a read, gathering it into one growing buffer.
//! * [`unframed`], a reference: the same validation over lines already split
//!   in memory, so no framing at all.

use bytes::{Buf, BytesMut};
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::BenchError;

/// A line, read for its shape only: the tools of a list result, counted.
#[derive(Deserialize)]
struct LineShape {
    #[serde(default)]
    result: Option<ResultShape>,
}

/// A result, read for its `tools` only.
#[derive(Deserialize)]
struct ResultShape {
    #[serde(default)]
    tools: Option<CountedArray>,
}

/// An array whose elements are validated and counted, never kept.
struct CountedArray(usize);

impl<'de> Deserialize<'de> for CountedArray {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Counter;
        impl<'de> serde::de::Visitor<'de> for Counter {
            type Value = CountedArray;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<CountedArray, A::Error> {
                let mut count = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    count += 1;
                }
                Ok(CountedArray(count))
            }
        }
        deserializer.deserialize_seq(Counter)
    }
}

/// One line validated: the tools of a list when `count_tools`, else one;
/// a blank line counts none.
fn validated(line: &[u8], count_tools: bool) -> Result<usize, BenchError> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(0);
    }
    let shape: LineShape =
        serde_json::from_slice(line).map_err(|e| BenchError::json("floor: a line", e))?;
    Ok(match shape.result.and_then(|result| result.tools) {
        Some(CountedArray(tools)) if count_tools => tools,
        _ => 1,
    })
}

/// The limit of [`Decoding::Checked`](super::Decoding::Checked): `reader`'s
/// bytes, read `chunk` at a time into one line buffer and split at newlines,
/// each line validated in place. Counts as [`unframed`] does.
pub async fn framed(
    mut reader: impl AsyncRead + Unpin,
    chunk: usize,
    count_tools: bool,
) -> Result<usize, BenchError> {
    let mut buffer = BytesMut::with_capacity(chunk);
    // The bytes of `buffer` already searched: they hold no newline.
    let mut searched = 0;
    let mut items = 0;
    loop {
        buffer.reserve(chunk);
        let read = reader
            .read_buf(&mut buffer)
            .await
            .map_err(|e| BenchError::io("floor: reading the pipe", e))?;
        let mut start = 0;
        while let Some(offset) = memchr::memchr(b'\n', &buffer[searched..]) {
            let end = searched + offset;
            items += validated(&buffer[start..end], count_tools)?;
            start = end + 1;
            searched = start;
        }
        if read == 0 {
            // The end: a last line without its newline.
            return Ok(items + validated(&buffer[start..], count_tools)?);
        }
        buffer.advance(start);
        searched = buffer.len();
    }
}

/// A reference for [`Decoding::Checked`](super::Decoding::Checked), no
/// limit: every line, already split, validated; the tools of a list are
/// counted when it is the only line, any other line counts one.
pub fn unframed(lines: &[bytes::Bytes]) -> Result<usize, BenchError> {
    let count_tools = lines.len() == 1;
    lines
        .iter()
        .try_fold(0, |items, line| Ok(items + validated(line, count_tools)?))
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::pipe::ChunkedPipe;

    async fn framed_in(text: &'static [u8], chunk: usize) -> Result<usize, BenchError> {
        framed(
            ChunkedPipe::new(Bytes::from_static(text), chunk),
            chunk,
            false,
        )
        .await
    }

    #[tokio::test]
    async fn lines_are_found_in_any_chunking() {
        let text = b"{\"id\":1}\n\n{\"id\":2}\r\n  \n{\"result\":{\"tools\":[1,2]}}";
        for chunk in [1, 2, 3, 7, 64] {
            assert_eq!(framed_in(text, chunk).await.unwrap(), 3, "chunk {chunk}");
        }
        let tools = framed(
            ChunkedPipe::new(Bytes::from_static(b"{\"result\":{\"tools\":[1,2]}}\n"), 4),
            4,
            true,
        );
        assert_eq!(tools.await.unwrap(), 2);
    }

    #[tokio::test]
    async fn every_byte_of_every_line_is_validated() {
        // Invalid JSON inside a tool, in a string escape, after the value,
        // and in a line cut by the chunking.
        for bad in [
            &b"{\"id\":1}\n{\"result\":{\"tools\":[{\"a\":[1,2,]}]}}\n"[..],
            b"{\"result\":{\"tools\":[{\"a\":\"\\q\"}]}}",
            b"{\"id\":1} x\n",
            b"{\"id\":1}\n{\"id\"\n:2}\n",
        ] {
            let bad: &'static [u8] = bad;
            assert!(framed_in(bad, 3).await.is_err(), "{bad:?}");
            assert!(
                unframed(&crate::codec::split_lines(&Bytes::from_static(bad))).is_err(),
                "{bad:?}"
            );
        }
    }
}
