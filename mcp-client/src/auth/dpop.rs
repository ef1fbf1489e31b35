//! DPoP (RFC 9449): tokens bound to a key this process holds. Each request
//! carries a fresh proof, a JWT signed with the key, naming the method and
//! URL (and, to a resource, the token's hash); a server may demand a nonce,
//! which later proofs carry.

use base64::Engine;
use jsonwebtoken::jwk::Jwk;
#[cfg(test)]
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::client_auth::random_id;
use super::store::now_secs;

/// A DPoP key pair (P-256, ES256) for the life of one client.
pub(crate) struct DpopKey {
    encoding: EncodingKey,
    jwk: Jwk,
    /// The key as PKCS#8 DER, to be stored with the tokens bound to it.
    der: Vec<u8>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct ProofClaims<'a> {
    jti: String,
    htm: &'a str,
    htu: String,
    iat: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nonce: Option<&'a str>,
}

impl DpopKey {
    /// A new random key.
    pub(crate) fn generate() -> Result<Self, String> {
        let secret = p256::SecretKey::random(&mut rand::rngs::OsRng);
        let der = secret
            .to_pkcs8_der()
            .map_err(|e| format!("cannot encode the DPoP key: {e}"))?;
        Self::from_der(der.as_bytes().to_vec())
    }

    fn from_der(der: Vec<u8>) -> Result<Self, String> {
        let encoding = EncodingKey::from_ec_der(&der);
        let jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256)
            .map_err(|e| format!("cannot describe the DPoP key: {e}"))?;
        Ok(Self { encoding, jwk, der })
    }

    /// The key as stored (PKCS#8 DER, base64).
    pub(crate) fn export(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.der)
    }

    /// A stored key back.
    pub(crate) fn import(text: &str) -> Result<Self, String> {
        let der = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|e| format!("the stored DPoP key is not base64: {e}"))?;
        p256::SecretKey::from_pkcs8_der(&der)
            .map_err(|e| format!("the stored DPoP key cannot be read: {e}"))?;
        Self::from_der(der)
    }

    /// The key's JWK SHA-256 thumbprint (RFC 7638), what a bound token's `cnf.jkt` names.
    #[cfg(test)]
    fn thumbprint(&self) -> String {
        self.jwk
            .thumbprint(ThumbprintHash::SHA256)
            .unwrap_or_default()
    }

    /// A proof for one request: `method` to `url` (its query and fragment
    /// left out), with the hash of `access_token` for a resource request and
    /// the server's `nonce` when it asked for one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &url::Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, String> {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(self.jwk.clone());
        let claims = ProofClaims {
            jti: random_id(),
            htm: method,
            htu: format!("{}{}", url.origin().ascii_serialization(), url.path()),
            iat: now_secs(),
            ath: access_token.map(|token| {
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .encode(Sha256::digest(token.as_bytes()))
            }),
            nonce,
        };
        jsonwebtoken::encode(&header, &claims, &self.encoding)
            .map_err(|e| format!("cannot sign a DPoP proof: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_part(part: &str) -> serde_json::Value {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn proofs_name_method_url_token_and_nonce_with_a_fresh_id() {
        let key = DpopKey::generate().unwrap();
        let url = url::Url::parse("http://localhost:8123/mcp?x=1#f").unwrap();
        let first = key.proof("POST", &url, Some("tok"), Some("n1")).unwrap();
        let second = key.proof("POST", &url, Some("tok"), None).unwrap();
        let parts: Vec<&str> = first.split('.').collect();
        let header = decode_part(parts[0]);
        let claims = decode_part(parts[1]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "http://localhost:8123/mcp");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(
            claims["ath"],
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(b"tok"))
        );
        let again = decode_part(second.split('.').nth(1).unwrap());
        assert_ne!(claims["jti"], again["jti"]);
        assert!(again.get("nonce").is_none());
        assert_eq!(key.thumbprint().len(), 43);
        let again = DpopKey::import(&key.export()).unwrap();
        assert_eq!(
            again.thumbprint(),
            key.thumbprint(),
            "a stored key is the same key"
        );
        assert!(DpopKey::import("not a key").is_err());
    }
}
