//! The identity provider's key set (JWKS): fetched over HTTP (bounded body,
//! timeout, errors naming the URL) and kept as decoding keys by `kid`.
//! Only the keys the gateway verifies with are kept: RSA (RS256) and EC
//! P-256 (ES256) signature keys; the others are skipped.

use std::collections::HashMap;
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

use super::error::ResourceServerError;

/// The largest key set read.
pub const MAX_JWKS_BYTES: usize = 256 * 1024;
/// The longest a fetch of the key set may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// One verification key and the one algorithm it verifies.
#[derive(Clone)]
pub struct VerificationKey {
    /// The key.
    pub key: DecodingKey,
    /// RS256 or ES256.
    pub algorithm: Algorithm,
}

impl std::fmt::Debug for VerificationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerificationKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// The keys of a key set by `kid`.
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    keys: HashMap<String, VerificationKey>,
}

#[derive(Deserialize)]
struct RawKeySet {
    keys: Vec<serde_json::Value>,
}

impl KeySet {
    /// The usable keys of a JWKS document; a key that cannot be read, has
    /// no `kid`, is for encryption, or is of another kind is skipped.
    pub fn parse(document: &[u8]) -> Result<Self, String> {
        let raw: RawKeySet =
            serde_json::from_slice(document).map_err(|error| format!("not a JWKS: {error}"))?;
        let keys = raw
            .keys
            .into_iter()
            .filter_map(|key| serde_json::from_value::<Jwk>(key).ok())
            .filter_map(|jwk| {
                let kid = jwk.common.key_id.clone()?;
                Some((kid, verification_key(&jwk)?))
            })
            .collect();
        Ok(Self { keys })
    }

    /// The key of `kid`.
    pub fn get(&self, kid: &str) -> Option<&VerificationKey> {
        self.keys.get(kid)
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

fn verification_key(jwk: &Jwk) -> Option<VerificationKey> {
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    let algorithm = match (&jwk.algorithm, &jwk.common.key_algorithm) {
        (AlgorithmParameters::RSA(_), None | Some(KeyAlgorithm::RS256)) => Algorithm::RS256,
        (AlgorithmParameters::EllipticCurve(ec), None | Some(KeyAlgorithm::ES256))
            if ec.curve == EllipticCurve::P256 =>
        {
            Algorithm::ES256
        }
        _ => return None,
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(VerificationKey { key, algorithm })
}

/// Fetches and reads the key set at `url`.
pub async fn fetch(client: &reqwest::Client, url: &str) -> Result<KeySet, ResourceServerError> {
    let failed = |reason: String| ResourceServerError::Jwks {
        url: url.to_owned(),
        reason,
    };
    let work = async {
        let mut response = client
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|error| failed(mcpdisco_transport::http::error_chain(error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(failed(format!("HTTP {status}")));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| failed(mcpdisco_transport::http::error_chain(error)))?
        {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(failed(format!(
                    "the key set is over {MAX_JWKS_BYTES} bytes"
                )));
            }
            body.extend_from_slice(&chunk);
        }
        KeySet::parse(&body).map_err(failed)
    };
    tokio::time::timeout(FETCH_TIMEOUT, work)
        .await
        .map_err(|_| failed(format!("no answer within {}s", FETCH_TIMEOUT.as_secs())))?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An EC P-256 public key (RFC 7517 appendix A.1) and an RSA one.
    const JWKS: &str = r#"{"keys": [
        {"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","use":"sig","kid":"ec-1"},
        {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"rsa-1"},
        {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","use":"enc","kid":"rsa-enc"},
        {"kty":"oct","k":"c2VjcmV0","kid":"hmac"},
        {"kty":"RSA","n":"AQAB","e":"AQAB"},
        {"something": "else"}
    ]}"#;

    #[test]
    fn signature_keys_of_both_kinds_are_kept_by_kid_and_the_rest_skipped() {
        let set = KeySet::parse(JWKS.as_bytes()).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.get("ec-1").unwrap().algorithm, Algorithm::ES256);
        assert_eq!(set.get("rsa-1").unwrap().algorithm, Algorithm::RS256);
        assert!(set.get("rsa-enc").is_none());
        assert!(set.get("hmac").is_none());
    }

    #[test]
    fn a_document_that_is_not_a_key_set_says_so() {
        let error = KeySet::parse(b"<html>").unwrap_err();
        assert!(error.starts_with("not a JWKS"), "{error}");
        assert!(KeySet::parse(br#"{"keys": []}"#).unwrap().is_empty());
    }
}
