//! The stdio child-process transport ([`StdioTransport`], feature `stdio`),
//! and what a host needs to describe one without starting it (always
//! there): its settings ([`StdioConfig`], [`EnvPolicy`]), how its command is
//! found ([`resolve`]), and how a skipped stdout line is shown
//! ([`masked_preview`]).
//!
//! The server runs as a child process in its own process group; messages are
//! newline-delimited JSON on its stdin and stdout. Its stderr is drained
//! continuously, each line passed on masked ([`StderrLines`]: to `tracing`
//! by default) and its tail kept for errors. When the
//! process exits or closes stdout, every pending and later call fails at once
//! with the exit status and the end of stderr. Closing shuts the whole group
//! down and reaps it; dropping kills it.

mod config;
#[cfg(feature = "stdio")]
mod process;
pub mod resolve;
#[cfg(feature = "stdio")]
mod stderr;
mod stderr_lines;
#[cfg(feature = "stdio")]
mod transport;

pub use config::{
    ALSO_INHERITED, EnvPolicy, SDK_INHERITED_UNIX, SDK_INHERITED_WINDOWS, StdioConfig,
    is_inherited_by_default,
};
#[cfg(feature = "stdio")]
pub use stderr::StderrTail;
pub use stderr_lines::{LineSink, StderrLines};
#[cfg(feature = "stdio")]
pub use transport::StdioTransport;

/// The start of a skipped line, masked. A preview that was cut loses its
/// last few bytes too, so a secret across the cut never shows its start.
pub fn masked_preview(
    masker: &crate::secret::Masker,
    line: &crate::codec::ndjson::SkippedLine,
) -> String {
    if line.len > line.preview.len() {
        masker.mask_prefix(
            &line.preview,
            line.preview.len().saturating_sub(masker.longest_secret()),
        )
    } else {
        masker.mask_string(line.preview.clone())
    }
}
