//! `private_key_jwt` client authentication (the `oauth-extensions`
//! feature): an RFC 7523 assertion, signed with the configured key, that
//! authenticates the client at the token endpoint.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpdisco_transport::secret::{ExposeSecret, SecretString};
use serde::Serialize;

use super::store::now_secs;
use crate::error::AuthError;

/// The client assertion type of `private_key_jwt` (RFC 7523 §2.2).
pub(crate) const JWT_BEARER_ASSERTION: &str =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

#[derive(Serialize)]
struct AssertionClaims<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    iat: u64,
    exp: u64,
    jti: String,
}

/// A `private_key_jwt` assertion for `client_id` at `audience` (the token
/// endpoint's issuer), valid for five minutes.
pub(crate) fn client_assertion(
    server: &str,
    client_id: &str,
    audience: &str,
    key: &SecretString,
    algorithm: Option<&str>,
) -> Result<String, AuthError> {
    let unusable = |reason: String| AuthError::Unsupported {
        server: server.to_owned(),
        reason,
    };
    let pem = key.expose_secret().as_bytes();
    let algorithm = match algorithm {
        Some(name) => name
            .parse::<Algorithm>()
            .map_err(|_| unusable(format!("unknown signing algorithm {name:?}")))?,
        None if key.expose_secret().contains("RSA") => Algorithm::RS256,
        None => Algorithm::ES256,
    };
    let encoding_key = match algorithm {
        Algorithm::RS256
        | Algorithm::RS384
        | Algorithm::RS512
        | Algorithm::PS256
        | Algorithm::PS384
        | Algorithm::PS512 => EncodingKey::from_rsa_pem(pem),
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
        other => {
            return Err(unusable(format!(
                "{other:?} needs a shared secret, not a key"
            )));
        }
    }
    .map_err(|e| unusable(format!("the private key cannot be read: {e}")))?;
    let now = now_secs();
    let claims = AssertionClaims {
        iss: client_id,
        sub: client_id,
        aud: audience,
        iat: now,
        exp: now + 300,
        jti: random_id(),
    };
    jsonwebtoken::encode(&Header::new(algorithm), &claims, &encoding_key)
        .map_err(|e| unusable(format!("cannot sign the client assertion: {e}")))
}

/// A random identifier (128 bits from a CSPRNG, URL-safe).
pub(crate) fn random_id() -> String {
    oauth2::CsrfToken::new_random().secret().clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assertion(key: &str, algorithm: Option<&str>) -> String {
        match client_assertion("docs", "c", "https://as", &key.into(), algorithm) {
            Ok(_) => panic!("{key:?} should not sign"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn an_unusable_key_or_algorithm_is_an_error_naming_the_server() {
        let unreadable = assertion("not a key", None);
        assert!(unreadable.contains("server 'docs'"), "{unreadable}");
        assert!(unreadable.contains("cannot be read"), "{unreadable}");
        assert!(assertion("not a key", Some("XY999")).contains("unknown signing algorithm"));
        assert!(assertion("not a key", Some("HS256")).contains("shared secret"));
    }

    #[test]
    fn ids_are_random_and_url_safe() {
        let (first, second) = (random_id(), random_id());
        assert_ne!(first, second);
        assert!(
            first
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }
}
