//! Logging to stderr, masked: every log line passes through the masker of
//! the loaded configuration before it is written, whatever wrote it (our
//! crates, a server's stderr forwarded at `-vv`, a library's error text).
//! The masker is reached through a [`LogMasker`] handle that the run keeps
//! and fills once the configuration is read.

use std::io::Write;
use std::sync::Arc;

use mcpdisco_client::transport::secret::Masker;
use mcpdisco_client::transport::sync::RwLock;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// The masker log lines go through, shared between the log writer and the
/// command that learns the secrets; empty until the configuration is read.
#[derive(Debug, Clone, Default)]
pub struct LogMasker(Arc<RwLock<Masker>>);

impl LogMasker {
    /// From now on, log lines are masked with `masker`.
    pub fn set(&self, masker: Masker) {
        *self.0.write() = masker;
    }

    /// From now on, log lines are also masked with `masker`.
    pub fn add(&self, masker: &Masker) {
        let mut current = self.0.write();
        *current = current.union(masker);
    }

    fn mask(&self, text: &str) -> String {
        self.0.read().mask(text).into_owned()
    }
}

/// Starts logging at `verbose` (0 errors, 1 info, 2 and more debug);
/// `RUST_LOG` overrides. Returns the handle that sets the masker.
pub fn init(verbose: u8) -> LogMasker {
    let default = match verbose {
        0 => "error",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let masker = LogMasker::default();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(MaskedStderr {
            masker: masker.clone(),
        })
        .try_init();
    masker
}

/// Makes one [`MaskedLine`] per log event.
struct MaskedStderr {
    masker: LogMasker,
}

impl<'a> MakeWriter<'a> for MaskedStderr {
    type Writer = MaskedLine<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        MaskedLine {
            buffer: Vec::new(),
            masker: &self.masker,
        }
    }
}

/// One event's text, masked as a whole and written to stderr when dropped
/// (so a secret split across the formatter's writes is still found).
struct MaskedLine<'a> {
    buffer: Vec<u8>,
    masker: &'a LogMasker,
}

impl Write for MaskedLine<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl MaskedLine<'_> {
    /// The event's text as it will be written: masked as a whole.
    fn masked(&self) -> String {
        self.masker.mask(&String::from_utf8_lossy(&self.buffer))
    }
}

impl Drop for MaskedLine<'_> {
    fn drop(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let masked = self.masked();
        let _ = std::io::stderr().lock().write_all(masked.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_masked_as_a_whole_with_the_masker_set_later() {
        let writer = MaskedStderr {
            masker: LogMasker::default(),
        };
        let handle = writer.masker.clone();
        let mut line = writer.make_writer();
        line.write_all(b"key=sk-live-").unwrap();
        line.write_all(b"0815abc\n").unwrap();
        assert_eq!(line.masked(), "key=sk-live-0815abc\n");
        handle.set(Masker::new(["sk-live-0815abc"]));
        assert_eq!(line.masked(), "key=***\n");
        line.buffer.clear();
    }
}
