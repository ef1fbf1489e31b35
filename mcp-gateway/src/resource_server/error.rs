//! [`ResourceServerError`]: why the resource server cannot be set up.

/// The resource server's errors (its setup; a refused token is a [`Challenge`](super::Challenge)).
#[derive(Debug, thiserror::Error)]
pub enum ResourceServerError {
    /// The key set could not be fetched or read.
    #[error("the JWKS at {url} cannot be used: {reason}")]
    Jwks {
        /// Its URL.
        url: String,
        /// Why.
        reason: String,
    },
}
