//! [`HttpClient`]: the pooled HTTP client every HTTP transport shares.

use std::sync::OnceLock;
use std::time::Duration;

use crate::error::TransportError;

/// A pooled HTTP client, shared across requests and servers. Cheap to clone.
///
/// Redirects are followed only within the same origin, so credentials never
/// reach another host.
#[derive(Debug, Clone)]
pub struct HttpClient {
    inner: reqwest::Client,
}

impl HttpClient {
    /// A new client with its own connection pool.
    pub fn new() -> Result<Self, TransportError> {
        let same_origin = reqwest::redirect::Policy::custom(|attempt| {
            let allowed = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if attempt.previous().len() >= 10 || !allowed {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        let builder = super::tls::configure(reqwest::Client::builder()).map_err(|e| {
            TransportError::Config {
                server: String::new(),
                reason: format!("cannot set up TLS: {e}"),
            }
        })?;
        let inner = builder
            .redirect(same_origin)
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(Duration::from_secs(90))
            .tcp_nodelay(true)
            .build()
            .map_err(|e| TransportError::Config {
                server: String::new(),
                reason: format!("cannot build the HTTP client: {e}"),
            })?;
        Ok(Self { inner })
    }

    /// The process-wide shared client.
    pub fn shared() -> Result<Self, TransportError> {
        static SHARED: OnceLock<HttpClient> = OnceLock::new();
        if let Some(client) = SHARED.get() {
            return Ok(client.clone());
        }
        let client = Self::new()?;
        Ok(SHARED.get_or_init(|| client).clone())
    }

    /// The underlying reqwest client, for other requests that should share
    /// its TLS setup and connection pool (such as a JWKS fetch).
    pub fn reqwest(&self) -> &reqwest::Client {
        &self.inner
    }
}
