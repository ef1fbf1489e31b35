//! DPoP (RFC 9449, the `oauth-extensions` feature): tokens bound to a key
//! this process holds. Each request carries a fresh proof, a JWT signed with
//! the key, naming the method and URL (and, to a resource, the token's hash);
//! a server may demand a nonce, which later proofs carry.
//!
//! [`DpopKey`] is the key and its proofs; [`DpopBinding`] is one client's
//! DPoP: whether its tokens are bound, the key, the nonces, and the token
//! requests sent with a proof.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use base64::Engine;
use hmac_sha256::Hash as Sha256;
use jsonwebtoken::jwk::Jwk;
#[cfg(test)]
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpdisco_transport::sync::RwLock;
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use serde::Serialize;

use super::http::{AuthHttp, AuthRequest, Fetched};
use super::private_key_jwt::random_id;
use super::store::now_secs;
use super::tokens::Current;
use crate::error::AuthError;

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
                    .encode(Sha256::hash(token.as_bytes()))
            }),
            nonce,
        };
        jsonwebtoken::encode(&header, &claims, &self.encoding)
            .map_err(|e| format!("cannot sign a DPoP proof: {e}"))
    }
}

/// The latest DPoP nonces (RFC 9449 §8, §9).
#[derive(Debug, Default)]
struct Nonces {
    authorization_server: Option<String>,
    resource: Option<String>,
}

/// One client's DPoP: whether its tokens are bound (the authorization server
/// offers it, or the resource challenged with `DPoP`), the key (made on first
/// use, or the one stored with the tokens), and the nonces the authorization
/// server and the resource asked for.
#[derive(Debug, Default)]
pub(crate) struct DpopBinding {
    enabled: AtomicBool,
    key: OnceLock<Arc<DpopKey>>,
    nonces: RwLock<Nonces>,
}

impl DpopBinding {
    /// The binding stored tokens start with: their key when they are
    /// DPoP-bound, and the tokens kept only if that key is usable.
    pub(crate) fn for_stored(server: &str, current: Option<Current>) -> (Option<Current>, Self) {
        let Some(current) = current else {
            return (None, Self::default());
        };
        if !current.is_dpop() {
            return (Some(current), Self::default());
        }
        match current
            .entry
            .dpop_key
            .as_ref()
            .map(|key| DpopKey::import(&key.0))
        {
            Some(Ok(key)) => (Some(current), Self::with_key(key)),
            _ => {
                tracing::warn!(server = %server, "a stored DPoP-bound token has no usable key; authorizing again");
                (None, Self::default())
            }
        }
    }

    /// Bound to a key stored with the tokens.
    pub(crate) fn with_key(key: DpopKey) -> Self {
        let binding = Self::default();
        let _ = binding.key.set(Arc::new(key));
        binding.enable();
        binding
    }

    /// Binds the tokens obtained from now on.
    pub(crate) fn enable(&self) {
        self.enabled.store(true, Ordering::Release);
    }

    /// Whether the tokens obtained from now on are bound.
    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// The key, made now if none is held yet.
    pub(crate) fn key(&self) -> Result<Arc<DpopKey>, String> {
        if let Some(key) = self.key.get() {
            return Ok(Arc::clone(key));
        }
        let key = DpopKey::generate()?;
        Ok(Arc::clone(self.key.get_or_init(|| Arc::new(key))))
    }

    /// The key as stored with the tokens bound to it, if one is held.
    pub(crate) fn exported_key(&self) -> Option<String> {
        self.key.get().map(|key| key.export())
    }

    /// The proof of one resource request with `access_token`, carrying the
    /// resource's latest nonce; `None` without a key.
    pub(crate) fn resource_proof(
        &self,
        method: &str,
        url: &url::Url,
        access_token: &str,
    ) -> Option<Result<String, String>> {
        let key = self.key.get()?;
        let nonce = self.nonces.read().resource.clone();
        Some(key.proof(method, url, Some(access_token), nonce.as_deref()))
    }

    /// Keeps the resource's new nonce; `false` when it is the one proofs
    /// already carry (sending again would not help).
    pub(crate) fn take_resource_nonce(&self, nonce: &str) -> bool {
        let mut nonces = self.nonces.write();
        if nonces.resource.as_deref() == Some(nonce) {
            return false;
        }
        nonces.resource = Some(nonce.to_owned());
        true
    }

    /// Sends one token request of server `server` with a proof, and once
    /// more with the authorization server's nonce when it asks for one.
    pub(crate) async fn send_token_request(
        &self,
        http: &dyn AuthHttp,
        server: &str,
        request: AuthRequest,
    ) -> Result<Fetched, AuthError> {
        let unusable = |reason: String| AuthError::Unsupported {
            server: server.to_owned(),
            reason,
        };
        let key = self.key().map_err(unusable)?;
        let mut answered_nonce = false;
        loop {
            let nonce = self.nonces.read().authorization_server.clone();
            let proof = key
                .proof(
                    request.method.as_str(),
                    &request.url,
                    None,
                    nonce.as_deref(),
                )
                .map_err(unusable)?;
            let mut attempt = request.clone();
            attempt.set_header("dpop", proof);
            let response = http.send(attempt).await?;
            let asks_nonce = response.status == 400
                && String::from_utf8_lossy(&response.body).contains("use_dpop_nonce");
            if let Some(nonce) = response.header("dpop-nonce") {
                self.nonces.write().authorization_server = Some(nonce.to_owned());
                if asks_nonce && !answered_nonce {
                    answered_nonce = true;
                    continue;
                }
            }
            return Ok(response);
        }
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
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::hash(b"tok"))
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

    #[test]
    fn a_binding_keeps_its_key_and_each_new_resource_nonce_once() {
        let binding = DpopBinding::default();
        assert!(!binding.is_enabled() && binding.exported_key().is_none());
        let url = url::Url::parse("http://localhost:8123/mcp").unwrap();
        assert!(binding.resource_proof("POST", &url, "tok").is_none());
        let key = binding.key().unwrap();
        assert_eq!(binding.key().unwrap().export(), key.export());
        assert_eq!(binding.exported_key(), Some(key.export()));
        assert!(binding.take_resource_nonce("n1"));
        assert!(!binding.take_resource_nonce("n1"), "the same nonce again");
        let proof = binding
            .resource_proof("POST", &url, "tok")
            .unwrap()
            .unwrap();
        let claims = decode_part(proof.split('.').nth(1).unwrap());
        assert_eq!(claims["nonce"], "n1");
        let stored = DpopBinding::with_key(DpopKey::import(&key.export()).unwrap());
        assert!(stored.is_enabled());
        assert_eq!(stored.exported_key(), Some(key.export()));
    }
}
