//! [`RegistryError`]: why the registry could not be used.

/// Why the registry could not be used. No message holds a credential.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RegistryError {
    /// The options are wrong (a registry URL that is not one, say).
    #[error("registry: {0}")]
    Usage(String),
    /// No answer: the connection failed or took too long.
    #[error("registry {url} cannot be reached: {message}")]
    Unreachable {
        /// The request.
        url: String,
        /// Why.
        message: String,
    },
    /// An answer with an error status.
    #[error("registry {url} answered {status}: {body}")]
    Status {
        /// The request.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the body, control characters removed.
        body: String,
    },
    /// An answer that is not what the API describes.
    #[error("registry {url}: {message}")]
    Malformed {
        /// The request.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A bundle that could not be downloaded, verified or unpacked.
    #[error("bundle {url}: {message}")]
    Bundle {
        /// Where it is.
        url: String,
        /// What went wrong.
        message: String,
    },
}
