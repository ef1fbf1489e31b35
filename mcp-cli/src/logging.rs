//! Logging to stderr, masked: every log line passes through the masker of
//! the loaded configuration before it is written, whatever wrote it (our
//! crates, a server's stderr forwarded at `-vv`, a library's error text).

use std::io::Write;
use std::sync::OnceLock;

use mcpdisco::sync::RwLock;

use mcpdisco::secret::Masker;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// The masker log lines go through; empty until the configuration is loaded.
static MASKER: OnceLock<RwLock<Masker>> = OnceLock::new();

fn masker_cell() -> &'static RwLock<Masker> {
    MASKER.get_or_init(|| RwLock::new(Masker::default()))
}

/// From now on, log lines are masked with `masker`.
pub fn set_masker(masker: Masker) {
    *masker_cell().write() = masker;
}

fn current_masker() -> Masker {
    masker_cell().read().clone()
}

/// Starts logging at `verbose` (0 errors, 1 info, 2 and more debug); `RUST_LOG` overrides.
pub fn init(verbose: u8) {
    let default = match verbose {
        0 => "error",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(MaskedStderr)
        .try_init();
}

/// Makes one [`MaskedLine`] per log event.
struct MaskedStderr;

impl<'a> MakeWriter<'a> for MaskedStderr {
    type Writer = MaskedLine;

    fn make_writer(&'a self) -> Self::Writer {
        MaskedLine { buffer: Vec::new() }
    }
}

/// One event's text, masked as a whole and written to stderr when dropped
/// (so a secret split across the formatter's writes is still found).
struct MaskedLine {
    buffer: Vec<u8>,
}

impl Write for MaskedLine {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for MaskedLine {
    fn drop(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.buffer);
        let masked = current_masker().mask(&text).into_owned();
        let _ = std::io::stderr().lock().write_all(masked.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_masked_as_a_whole() {
        let masker = Masker::new(["sk-live-0815abc"]);
        let mut line = MaskedLine { buffer: Vec::new() };
        line.write_all(b"key=sk-live-").unwrap();
        line.write_all(b"0815abc\n").unwrap();
        let text = String::from_utf8_lossy(&line.buffer).into_owned();
        assert_eq!(masker.mask(&text), "key=***\n");
        line.buffer.clear();
    }
}
