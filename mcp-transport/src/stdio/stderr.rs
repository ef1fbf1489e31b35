//! Draining a child's stderr: each line passed on where [`StderrLines`]
//! says (to `tracing` by default), the last 64 KiB kept for error messages.
//! Both go through the masker: a server that prints the API key it was
//! given shows `***`.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::sync::Mutex;

use tokio::io::{AsyncRead, AsyncReadExt};

/// How much of stderr is kept.
pub const TAIL_CAPACITY: usize = 64 * 1024;
/// How much of the tail an error message quotes.
const ERROR_TAIL_LEN: usize = 2048;
/// The longest line forwarded to `tracing`.
const LOG_LINE_LEN: usize = 2000;

use crate::secret::Masker;

use super::StderrLines;

/// The end of what a server wrote to stderr, read back masked.
#[derive(Debug, Clone, Default)]
pub struct StderrTail {
    bytes: Arc<Mutex<Kept>>,
    masker: Masker,
}

/// The kept bytes, and whether older ones were dropped.
#[derive(Debug, Default)]
struct Kept {
    bytes: VecDeque<u8>,
    dropped: bool,
}

impl StderrTail {
    /// An empty tail whose text is read through `masker`.
    pub fn with_masker(masker: Masker) -> Self {
        Self {
            bytes: Arc::default(),
            masker,
        }
    }

    /// The masker the tail is read through.
    pub fn masker(&self) -> &Masker {
        &self.masker
    }

    fn push(&self, chunk: &[u8]) {
        let mut kept = self.bytes.lock();
        if chunk.len() > TAIL_CAPACITY {
            kept.dropped = true;
        }
        let chunk = &chunk[chunk.len().saturating_sub(TAIL_CAPACITY)..];
        let overflow = (kept.bytes.len() + chunk.len()).saturating_sub(TAIL_CAPACITY);
        if overflow > 0 {
            kept.dropped = true;
        }
        kept.bytes.drain(..overflow);
        kept.bytes.extend(chunk);
    }

    /// All that is kept (up to 64 KiB), lossily decoded and masked. When
    /// older bytes were dropped, the first few kept ones are left out too:
    /// a secret cut by the drop could otherwise show its end.
    pub fn text(&self) -> String {
        let (all, dropped) = {
            let kept = self.bytes.lock();
            let (a, b) = kept.bytes.as_slices();
            let mut all = Vec::with_capacity(a.len() + b.len());
            all.extend_from_slice(a);
            all.extend_from_slice(b);
            (all, kept.dropped)
        };
        let skip = if dropped {
            self.masker.longest_secret().min(all.len())
        } else {
            0
        };
        self.masker
            .mask_string(String::from_utf8_lossy(&all[skip..]).into_owned())
    }

    /// The last couple of KiB, starting at a line boundary, for error messages.
    pub fn for_error(&self) -> String {
        let text = self.text();
        let trimmed = text.trim_end();
        if trimmed.len() <= ERROR_TAIL_LEN {
            return trimmed.trim_start().to_owned();
        }
        let mut start = trimmed.len() - ERROR_TAIL_LEN;
        while !trimmed.is_char_boundary(start) {
            start += 1;
        }
        let tail = &trimmed[start..];
        match tail.find('\n') {
            Some(newline) => tail[newline + 1..].to_owned(),
            None => tail.to_owned(),
        }
    }
}

/// Reads `stream` to its end, passing each line of `server` on to `lines`
/// and keeping the tail.
pub(crate) async fn drain(
    server: String,
    mut stream: impl AsyncRead + Unpin,
    tail: StderrTail,
    lines: StderrLines,
) {
    let mut chunk = vec![0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    loop {
        let read = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let data = &chunk[..read];
        tail.push(data);
        for &byte in data {
            if byte == b'\n' {
                pass_line(&server, &line, &tail.masker, &lines).await;
                line.clear();
            } else if line.len() < LOG_LINE_LEN + tail.masker.longest_secret() {
                line.push(byte);
            }
        }
    }
    if !line.is_empty() {
        pass_line(&server, &line, &tail.masker, &lines).await;
    }
}

async fn pass_line(server: &str, line: &[u8], masker: &Masker, lines: &StderrLines) {
    let text = String::from_utf8_lossy(line);
    // Masked before the cut, so a secret across it never shows its start.
    let text = masker.mask_prefix(text.trim_end(), LOG_LINE_LEN);
    if !text.is_empty() {
        lines.pass(server, &text).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_bytes_and_cuts_at_a_line() {
        let tail = StderrTail::default();
        for i in 0..20_000 {
            tail.push(format!("line {i}\n").as_bytes());
        }
        let text = tail.text();
        assert!(text.len() <= TAIL_CAPACITY);
        assert!(text.ends_with("line 19999\n"));
        let for_error = tail.for_error();
        assert!(for_error.len() <= 2048);
        assert!(for_error.starts_with("line "), "{for_error:?}");
        assert!(for_error.ends_with("line 19999"));
    }

    #[tokio::test]
    async fn the_tail_is_read_masked() {
        let tail = StderrTail::with_masker(Masker::new(["sk-live-0815abc"]));
        drain(
            "s".into(),
            &b"starting with key=sk-live-0815abc\nfatal: bad key sk-live-0815abc\n"[..],
            tail.clone(),
            StderrLines::Trace,
        )
        .await;
        assert_eq!(
            tail.for_error(),
            "starting with key=***\nfatal: bad key ***"
        );
    }

    #[tokio::test]
    async fn drain_reads_to_the_end() {
        let tail = StderrTail::default();
        drain(
            "s".into(),
            &b"fatal: missing API_TOKEN\n"[..],
            tail.clone(),
            StderrLines::default(),
        )
        .await;
        assert_eq!(tail.for_error(), "fatal: missing API_TOKEN");
    }

    #[tokio::test]
    async fn lines_go_where_they_are_sent_masked_and_the_tail_is_kept() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let lines = StderrLines::call(move |server, line| {
            sink.lock().push(format!("{server}: {line}"));
        });
        let tail = StderrTail::with_masker(Masker::new(["sk-live-0815abc"]));
        drain(
            "s".into(),
            &b"key=sk-live-0815abc\n\nlast without newline"[..],
            tail.clone(),
            lines,
        )
        .await;
        assert_eq!(*seen.lock(), ["s: key=***", "s: last without newline"]);
        assert_eq!(tail.for_error(), "key=***\n\nlast without newline");
    }
}
