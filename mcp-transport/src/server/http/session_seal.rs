//! Sealed session ids: a legacy (2025-11-25) session's id carries what the
//! session needs, sealed with XChaCha20-Poly1305 under keys every replica
//! reads, so any replica that holds the key serves the session with no
//! lookup and no state of its own.
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use mcpdisco_transport::server::http::Subject;
//! use mcpdisco_transport::server::http::session_seal::{SessionClaims, SessionKeys};
//!
//! let keys = SessionKeys::random();
//! let claims = SessionClaims {
//!     protocol_version: "2025-11-25".into(),
//!     client_capabilities: Default::default(),
//!     client_info: None,
//!     route: "/mcp".into(),
//!     subject: Subject::anonymous(),
//!     issued_at: 1_700_000_000,
//! };
//! let id = keys.seal(&claims);
//! let opened = keys.open(&id).unwrap();
//! let now = UNIX_EPOCH + Duration::from_secs(1_700_000_060);
//! assert!(opened.check("/mcp", &Subject::anonymous(), now, Duration::from_secs(3600)).is_ok());
//! ```
//!
//! - An id is `base64url(format ‖ key fingerprint ‖ nonce ‖ ciphertext)`:
//!   one format byte, the first four bytes of the sealing key's SHA-256, a
//!   random 24-byte nonce, and the claims (compact JSON) sealed with the
//!   first two as associated data.
//! - [`SessionKeys`]: the first key seals, every key opens, so keys rotate
//!   without ending sessions (a file of [new, old]).
//! - [`SessionClaims::check`] binds the id to its route and subject and
//!   bounds its age, with the time passed in.
//! - Every refusal is a [`SessionRefusal`]: the server answers it as an
//!   unknown session (404) and logs its reason, which holds no secret.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use mcpdisco_protocol::types::{ClientCapabilities, Implementation};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Subject;

/// The length of a session-sealing key, in bytes.
pub const KEY_LEN: usize = 32;
/// The format byte that begins every sealed id.
const FORMAT: u8 = 1;
/// The bytes of a key's fingerprint in an id.
const FINGERPRINT_LEN: usize = 4;
/// The bytes of an XChaCha20-Poly1305 nonce.
const NONCE_LEN: usize = 24;
/// The longest id opened; a longer one is refused unread.
pub const MAX_ID_LEN: usize = 8 * 1024;

/// Why a session id is refused. The server answers each as an unknown
/// session (404); the message says why, and holds no secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionRefusal {
    /// Not the form of a sealed id (not base64url, too short or too long,
    /// another format).
    #[error("not a sealed session id")]
    Malformed,
    /// Sealed with a key this replica does not hold.
    #[error("sealed with an unknown key")]
    UnknownKey,
    /// Its bytes were changed after sealing (the seal does not open).
    #[error("tampered with (its seal does not open)")]
    Tampered,
    /// Opened on another route or profile.
    #[error("opened on {opened_on}, presented on {presented_on}")]
    OtherRoute {
        /// The route it was opened on.
        opened_on: String,
        /// The route it was presented on.
        presented_on: String,
    },
    /// Presented by another subject than the one who opened it.
    #[error("presented by another subject than the one who opened it")]
    OtherSubject,
    /// Older than the maximum age.
    #[error("older than the maximum age ({}s old, at most {}s)", age.as_secs(), max_age.as_secs())]
    Expired {
        /// How old it is.
        age: Duration,
        /// The maximum age.
        max_age: Duration,
    },
    /// Ended by its `DELETE`.
    #[error("ended by its DELETE")]
    Deleted,
}

/// Why a key file's text is not a set of session keys. Names a line,
/// never a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionKeyError {
    /// A line that is not the standard base64 of 32 bytes.
    #[error("line {line}: not the standard base64 of {KEY_LEN} bytes")]
    BadKey {
        /// The line's number, from 1.
        line: usize,
    },
    /// No key at all.
    #[error("no key (one standard base64 key of {KEY_LEN} bytes per line)")]
    Empty,
}

/// What a sealed id carries: the session's handshake, where and by whom it
/// was opened, and when.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionClaims {
    /// The protocol version the handshake settled on.
    pub protocol_version: String,
    /// The client's `capabilities` in its `initialize`.
    pub client_capabilities: ClientCapabilities,
    /// The client's `clientInfo` in its `initialize` (`None` when it sent
    /// none that reads as one).
    pub client_info: Option<Implementation>,
    /// The route it was opened on (`/mcp`, `/profiles/<name>/mcp`).
    pub route: String,
    /// Who opened it.
    pub subject: Subject,
    /// When it was issued, in seconds since the Unix epoch.
    pub issued_at: u64,
}

/// The claims as sealed: short names, the subject in base64. The client's
/// capabilities and info are kept as the JSON they were, and read leniently
/// when an id opens ([`SessionClaims::from_wire`]): an id sealed by an older
/// replica still opens on a newer one.
#[derive(Serialize, Deserialize)]
struct Wire {
    v: String,
    c: Value,
    i: Value,
    r: String,
    s: String,
    t: u64,
}

impl SessionClaims {
    /// Whether the claims hold for a request on `route` by `subject` at
    /// `now`, for ids at most `max_age` old.
    pub fn check(
        &self,
        route: &str,
        subject: &Subject,
        now: SystemTime,
        max_age: Duration,
    ) -> Result<(), SessionRefusal> {
        if self.route != route {
            return Err(SessionRefusal::OtherRoute {
                opened_on: self.route.clone(),
                presented_on: route.to_owned(),
            });
        }
        if self.subject != *subject {
            return Err(SessionRefusal::OtherSubject);
        }
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let age = Duration::from_secs(now.saturating_sub(self.issued_at));
        if age > max_age {
            return Err(SessionRefusal::Expired { age, max_age });
        }
        Ok(())
    }

    fn to_wire(&self) -> Wire {
        Wire {
            v: self.protocol_version.clone(),
            c: serde_json::to_value(&self.client_capabilities).unwrap_or(Value::Null),
            i: serde_json::to_value(&self.client_info).unwrap_or(Value::Null),
            r: self.route.clone(),
            s: STANDARD_NO_PAD.encode(self.subject.digest()),
            t: self.issued_at,
        }
    }

    /// The claims of `wire`; `None` when its subject is not one. Capabilities
    /// that do not read as capabilities are none declared; info that does
    /// not read as an implementation is none.
    fn from_wire(wire: Wire) -> Option<Self> {
        let subject = STANDARD_NO_PAD.decode(wire.s).ok()?.try_into().ok()?;
        Some(Self {
            protocol_version: wire.v,
            client_capabilities: serde_json::from_value(wire.c).unwrap_or_default(),
            client_info: serde_json::from_value(wire.i).ok().flatten(),
            route: wire.r,
            subject: Subject::from_digest(subject),
            issued_at: wire.t,
        })
    }
}

/// One key, ready to seal and open, with its fingerprint.
#[derive(Clone)]
struct SessionKey {
    cipher: XChaCha20Poly1305,
    fingerprint: [u8; FINGERPRINT_LEN],
}

impl SessionKey {
    fn new(bytes: &[u8; KEY_LEN]) -> Self {
        let digest = hmac_sha256::Hash::hash(bytes);
        let mut fingerprint = [0; FINGERPRINT_LEN];
        fingerprint.copy_from_slice(&digest[..FINGERPRINT_LEN]);
        Self {
            cipher: XChaCha20Poly1305::new(bytes.into()),
            fingerprint,
        }
    }
}

/// The session-sealing keys: the first seals, every one opens. Never
/// empty; its `Debug` shows how many keys, not what they are.
#[derive(Clone)]
pub struct SessionKeys {
    keys: Vec<SessionKey>,
}

impl std::fmt::Debug for SessionKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionKeys({} keys)", self.keys.len())
    }
}

impl SessionKeys {
    /// One random key: ids open on this process only (one replica).
    pub fn random() -> Self {
        let key: [u8; KEY_LEN] = XChaCha20Poly1305::generate_key(&mut OsRng).into();
        Self {
            keys: vec![SessionKey::new(&key)],
        }
    }

    /// These keys, the first sealing; [`SessionKeyError::Empty`] for none.
    pub fn from_keys(keys: &[[u8; KEY_LEN]]) -> Result<Self, SessionKeyError> {
        if keys.is_empty() {
            return Err(SessionKeyError::Empty);
        }
        Ok(Self {
            keys: keys.iter().map(SessionKey::new).collect(),
        })
    }

    /// The keys of a key file's text: one standard base64 key of 32 bytes
    /// per line; blank lines and lines starting with `#` are ignored.
    pub fn parse(text: &str) -> Result<Self, SessionKeyError> {
        let mut keys = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let key = STANDARD
                .decode(line)
                .ok()
                .and_then(|bytes| <[u8; KEY_LEN]>::try_from(bytes).ok())
                .ok_or(SessionKeyError::BadKey { line: index + 1 })?;
            keys.push(key);
        }
        Self::from_keys(&keys)
    }

    /// How many keys open ids.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: there is at least one key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The sealed id of `claims`, under the first key (a fresh nonce each time).
    pub fn seal(&self, claims: &SessionClaims) -> String {
        self.seal_wire(&claims.to_wire())
    }

    /// Seals claims as they are written into an id.
    fn seal_wire(&self, wire: &Wire) -> String {
        let key = &self.keys[0];
        let plaintext = serde_json::to_vec(wire).unwrap_or_default();
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let mut header = [0; 1 + FINGERPRINT_LEN];
        header[0] = FORMAT;
        header[1..].copy_from_slice(&key.fingerprint);
        let payload = Payload {
            msg: &plaintext,
            aad: &header,
        };
        // Sealing fails only for a message over 256 GiB.
        let sealed = key.cipher.encrypt(&nonce, payload).unwrap_or_default();
        let mut id = Vec::with_capacity(header.len() + NONCE_LEN + sealed.len());
        id.extend_from_slice(&header);
        id.extend_from_slice(&nonce);
        id.extend_from_slice(&sealed);
        URL_SAFE_NO_PAD.encode(id)
    }

    /// The claims of a sealed id, if one of the keys sealed it and nobody
    /// changed it since; any input is refused or opened, never a panic.
    pub fn open(&self, id: &str) -> Result<SessionClaims, SessionRefusal> {
        if id.len() > MAX_ID_LEN {
            return Err(SessionRefusal::Malformed);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(id)
            .map_err(|_| SessionRefusal::Malformed)?;
        let header_len = 1 + FINGERPRINT_LEN;
        if bytes.len() < header_len + NONCE_LEN || bytes[0] != FORMAT {
            return Err(SessionRefusal::Malformed);
        }
        let (header, rest) = bytes.split_at(header_len);
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let key = self
            .keys
            .iter()
            .find(|key| key.fingerprint[..] == header[1..])
            .ok_or(SessionRefusal::UnknownKey)?;
        let payload = Payload {
            msg: sealed,
            aad: header,
        };
        let plaintext = key
            .cipher
            .decrypt(XNonce::from_slice(nonce), payload)
            .map_err(|_| SessionRefusal::Tampered)?;
        // Sealed by us, so well formed; a key shared with other software is not.
        serde_json::from_slice::<Wire>(&plaintext)
            .ok()
            .and_then(SessionClaims::from_wire)
            .ok_or(SessionRefusal::Malformed)
    }
}

/// The keys a server seals and opens with now, replaced on reload (a
/// rotation) while sessions go on. Cheap to clone: clones share the keys.
#[derive(Clone, Debug)]
pub struct SessionKeyRing {
    current: std::sync::Arc<crate::sync::Mutex<std::sync::Arc<SessionKeys>>>,
}

impl Default for SessionKeyRing {
    /// One random key (see [`SessionKeys::random`]).
    fn default() -> Self {
        Self::new(SessionKeys::random())
    }
}

impl SessionKeyRing {
    /// A ring holding `keys`.
    pub fn new(keys: SessionKeys) -> Self {
        Self {
            current: std::sync::Arc::new(crate::sync::Mutex::new(std::sync::Arc::new(keys))),
        }
    }

    /// The keys now.
    pub fn keys(&self) -> std::sync::Arc<SessionKeys> {
        std::sync::Arc::clone(&self.current.lock())
    }

    /// Replaces the keys (for every clone of this ring).
    pub fn replace(&self, keys: SessionKeys) {
        *self.current.lock() = std::sync::Arc::new(keys);
    }
}

#[cfg(test)]
mod tests;
