//! TLS for every HTTP client of the workspace: rustls with its `ring`
//! provider and the platform's certificate verifier on Unix, the platform's
//! own TLS on Windows.
//!
//! `ring` rather than rustls's default `aws-lc-rs`: a few handshakes per run
//! are all the crypto a client does, and `ring` takes about a third less
//! CPU to build from cold, with no large C library (see
//! `docs/performance.md`). The configuration is handed to
//! each `reqwest` client ([`configure`]), so nothing process-wide is
//! installed: a host that sets its own rustls default provider keeps it.

/// `builder` with this crate's TLS: rustls with `ring` and the platform
/// verifier, offering HTTP/2 and HTTP/1.1 (Unix); unchanged on Windows,
/// where `reqwest` speaks the platform's TLS.
#[cfg(unix)]
pub fn configure(builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, rustls::Error> {
    Ok(builder.tls_backend_preconfigured(client_config()?))
}

/// `builder` with this crate's TLS: rustls with `ring` and the platform
/// verifier, offering HTTP/2 and HTTP/1.1 (Unix); unchanged on Windows,
/// where `reqwest` speaks the platform's TLS.
#[cfg(not(unix))]
pub fn configure(
    builder: reqwest::ClientBuilder,
) -> Result<reqwest::ClientBuilder, std::convert::Infallible> {
    Ok(builder)
}

/// The rustls configuration of every client: the `ring` provider's safe
/// defaults (TLS 1.2 and 1.3), the platform's verifier (the system's roots,
/// revocation where the platform checks it), no client certificate, and
/// ALPN offering `h2` then `http/1.1` (what `reqwest` offers by itself).
#[cfg(unix)]
pub fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_platform_verifier()?
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// A configuration that trusts no certificate, for a client that only ever
/// speaks plain `http://` (an OpenTelemetry collector on the same host):
/// it skips loading the platform's roots, which costs milliseconds at
/// every start. Any `https://` connection through it fails verification.
#[cfg(unix)]
pub fn plain_http_only_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_uses_ring_and_offers_both_http_versions() {
        let config = client_config().unwrap();
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        let ring = rustls::crypto::ring::default_provider();
        let ours = config.crypto_provider();
        assert_eq!(ours.cipher_suites.len(), ring.cipher_suites.len());
        assert!(
            ours.cipher_suites
                .iter()
                .zip(&ring.cipher_suites)
                .all(|(a, b)| a.suite() == b.suite())
        );
    }

    #[test]
    fn the_plain_http_configuration_trusts_no_root() {
        let config = plain_http_only_config().unwrap();
        let name = rustls::pki_types::ServerName::try_from("example.com").unwrap();
        // A handshake towards any name starts, and would fail at the
        // certificate: there is no root to chain to.
        assert!(rustls::ClientConnection::new(std::sync::Arc::new(config), name).is_ok());
    }

    #[test]
    fn a_client_builds_with_it() {
        configure(reqwest::Client::builder())
            .unwrap()
            .build()
            .unwrap();
    }
}
