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

    use std::sync::Arc;

    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

    /// A throwaway CA, and a certificate for `example.com` it signed
    /// (`testdata/README.md`).
    const TEST_CA: &[u8] = include_bytes!("testdata/test-ca.pem");
    const EXAMPLE_COM: &[u8] = include_bytes!("testdata/example-com.pem");
    const EXAMPLE_COM_KEY: &[u8] = include_bytes!("testdata/example-com.key");

    /// A TLS server for `example.com`, in memory.
    fn example_com_server() -> rustls::ServerConnection {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = vec![CertificateDer::from_pem_slice(EXAMPLE_COM).unwrap()];
        let key = PrivateKeyDer::from_pem_slice(EXAMPLE_COM_KEY).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        rustls::ServerConnection::new(Arc::new(config)).unwrap()
    }

    /// Runs a handshake between `config` and [`example_com_server`], in
    /// memory; the client's verdict.
    fn handshake(config: rustls::ClientConfig) -> Result<(), rustls::Error> {
        let name = ServerName::try_from("example.com").unwrap();
        let mut client = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
        let mut server = example_com_server();
        // A handshake is a few flights; a bound, not a wait.
        for _ in 0..10 {
            if !client.is_handshaking() {
                return Ok(());
            }
            let mut wire = Vec::new();
            while client.wants_write() {
                client.write_tls(&mut wire).unwrap();
            }
            let mut reader = wire.as_slice();
            while !reader.is_empty() {
                server.read_tls(&mut reader).unwrap();
                server.process_new_packets().unwrap();
            }
            let mut wire = Vec::new();
            while server.wants_write() {
                server.write_tls(&mut wire).unwrap();
            }
            let mut reader = wire.as_slice();
            while !reader.is_empty() {
                client.read_tls(&mut reader).unwrap();
                client.process_new_packets()?;
            }
        }
        panic!("the handshake neither finished nor failed");
    }

    #[test]
    fn the_plain_http_configuration_trusts_no_root() {
        // The same handshake completes for a client that trusts the CA...
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(TEST_CA).unwrap())
            .unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let trusting = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        assert_eq!(handshake(trusting), Ok(()));
        // ...and fails at the certificate for the plain-HTTP one.
        assert_eq!(
            handshake(plain_http_only_config().unwrap()),
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer
            ))
        );
    }

    #[test]
    fn a_client_builds_with_it() {
        configure(reqwest::Client::builder())
            .unwrap()
            .build()
            .unwrap();
    }
}
