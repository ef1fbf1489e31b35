//! [`ChunkedPipe`]: an in-memory pipe that hands out its bytes in fixed-size reads.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, ReadBuf};

/// An [`AsyncRead`] over bytes in memory that returns at most `chunk` bytes per
/// read, the way a pipe hands a reader what the writer wrote in pieces.
#[derive(Debug, Clone)]
pub struct ChunkedPipe {
    data: Bytes,
    position: usize,
    chunk: usize,
}

impl ChunkedPipe {
    /// A pipe that yields `data` in reads of at most `chunk` bytes (at least one).
    pub fn new(data: Bytes, chunk: usize) -> Self {
        Self {
            data,
            position: 0,
            chunk: chunk.max(1),
        }
    }
}

impl AsyncRead for ChunkedPipe {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let left = self.data.len() - self.position;
        let take = left.min(self.chunk).min(buf.remaining());
        let start = self.position;
        buf.put_slice(&self.data[start..start + take]);
        self.position += take;
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn reads_are_bounded_by_the_chunk() {
        let mut pipe = ChunkedPipe::new(Bytes::from_static(b"abcdefghij"), 4);
        let mut buf = [0u8; 16];
        assert_eq!(pipe.read(&mut buf).await.unwrap(), 4);
        assert_eq!(&buf[..4], b"abcd");
        assert_eq!(pipe.read(&mut buf).await.unwrap(), 4);
        assert_eq!(pipe.read(&mut buf).await.unwrap(), 2);
        assert_eq!(&buf[..2], b"ij");
        assert_eq!(pipe.read(&mut buf).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn small_buffers_are_respected() {
        let mut pipe = ChunkedPipe::new(Bytes::from_static(b"abcdef"), 100);
        let mut buf = [0u8; 3];
        assert_eq!(pipe.read(&mut buf).await.unwrap(), 3);
        let mut rest = Vec::new();
        pipe.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest, b"def");
    }
}
