//! [`BenchError`]: what can stop a benchmark run.

/// Why a benchmark or the bench server could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Reading or writing a pipe, a socket or a process failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A message could not be encoded or decoded as JSON.
    #[error("{context}: {source}")]
    Json {
        /// What was being decoded.
        context: String,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// Our session, transport or codec failed.
    #[error("ours: {0}")]
    Ours(String),
    /// rmcp failed.
    #[error("rmcp: {0}")]
    Rmcp(String),
    /// The raw baseline or the HTTP client failed.
    #[error("raw: {0}")]
    Raw(String),
    /// A peer answered something the benchmark did not expect.
    #[error("unexpected answer: {0}")]
    Unexpected(String),
    /// A wait took longer than its bound.
    #[error("timed out: {0}")]
    Timeout(String),
}

impl BenchError {
    /// An I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }

    /// A JSON error with what was being decoded.
    pub fn json(context: impl Into<String>, source: serde_json::Error) -> Self {
        Self::Json {
            context: context.into(),
            source,
        }
    }
}
