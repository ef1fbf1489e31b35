//! [`HttpKind`]: which HTTP transport a server speaks, as its config says.

/// Which HTTP transport to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpKind {
    /// Streamable HTTP, falling back to HTTP+SSE when `initialize` is refused with 400, 404 or 405.
    #[default]
    Auto,
    /// Streamable HTTP only.
    StreamableHttp,
    /// The legacy 2024-11-05 HTTP+SSE transport only.
    Sse,
}
