//! [`StderrLines`]: where the lines a stdio server writes to stderr go.
//! Part of a [`StdioConfig`](super::StdioConfig), so there without the
//! `stdio` feature too.

use std::sync::Arc;

/// Where the lines a server writes to stderr go, each masked and cut at
/// 2000 bytes. The tail quoted in error messages is kept whichever is chosen.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum StderrLines {
    /// To `tracing`, at debug level, target
    /// `mcpdisco_transport::stdio::stderr`, with the server's name.
    #[default]
    Trace,
    /// To this process's stderr, each line after `[server] `: what a
    /// command-line host shows its user.
    Forward,
    /// To a function, given the server's name and the line.
    Call(LineSink),
}

/// A function given each stderr line: the server's name, then the line.
pub type LineSink = Arc<dyn Fn(&str, &str) + Send + Sync>;

impl StderrLines {
    /// Lines go to `line`, given the server's name and the line.
    pub fn call(line: impl Fn(&str, &str) + Send + Sync + 'static) -> Self {
        Self::Call(Arc::new(line))
    }

    /// Passes one masked line on.
    #[cfg(feature = "stdio")]
    pub(super) async fn pass(&self, server: &str, line: &str) {
        match self {
            Self::Trace => {
                tracing::debug!(target: "mcpdisco_transport::stdio::stderr", server, "{line}");
            }
            Self::Forward => {
                use tokio::io::AsyncWriteExt as _;
                let text = format!("[{server}] {line}\n");
                // Our own stderr gone: nothing left to show the line to.
                let _ = tokio::io::stderr().write_all(text.as_bytes()).await;
            }
            Self::Call(call) => call(server, line),
        }
    }
}

impl std::fmt::Debug for StderrLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Trace => "Trace",
            Self::Forward => "Forward",
            Self::Call(_) => "Call(..)",
        })
    }
}
