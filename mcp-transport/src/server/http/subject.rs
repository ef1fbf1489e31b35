//! Who a request comes from, as the HTTP server and the gateway's limits
//! tell clients apart: a digest of a verified JWT's subject or of a bearer
//! token (never the token itself), or nobody for an open server.

/// Who a request comes from: a digest of the JWT subject or of the bearer
/// token, or nobody. Compared, never shown (its `Debug` hides it).
///
/// - A session is bound to the subject that opened it: the HTTP server
///   takes it from the request's extensions when a layer put it there (a
///   verified JWT's), else from its own static token.
/// - The gateway's client rate limit counts requests by subject, its
///   buckets keyed by [`key`](Self::key).
///
/// ```
/// use mcpdisco_transport::server::http::Subject;
///
/// assert_eq!(Subject::jwt(Some("alice")), Subject::jwt(Some("alice")));
/// assert_ne!(Subject::jwt(Some("alice")), Subject::token("alice"));
/// assert_eq!(format!("{:?}", Subject::token("s3cret")), "Subject(..)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subject([u8; 16]);

impl std::fmt::Debug for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subject(..)")
    }
}

impl Subject {
    /// The subject of a verified JWT (`sub`; `None` for a token with none,
    /// all of which are one subject).
    pub fn jwt(subject: Option<&str>) -> Self {
        match subject {
            Some(subject) => Self::of(b"jwt", subject.as_bytes()),
            None => Self::of(b"jwt-without-subject", b""),
        }
    }

    /// The holder of the bearer token `token`.
    pub fn token(token: &str) -> Self {
        Self::of(b"token", token.as_bytes())
    }

    /// Nobody: a server that asks for no credentials.
    pub fn anonymous() -> Self {
        Self::of(b"anonymous", b"")
    }

    /// Its digest in hex (32 characters), for the keys of a store shared by
    /// replicas: a digest, so no token reaches the store.
    pub fn key(&self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// Its digest, as a sealed session id carries it.
    pub(crate) fn digest(&self) -> [u8; 16] {
        self.0
    }

    /// The subject whose digest is `digest` (read from a sealed id).
    pub(crate) fn from_digest(digest: [u8; 16]) -> Self {
        Self(digest)
    }

    fn of(kind: &[u8], value: &[u8]) -> Self {
        let mut hasher = hmac_sha256::Hash::new();
        hasher.update(kind);
        hasher.update([0]);
        hasher.update(value);
        let digest = hasher.finalize();
        let mut bytes = [0; 16];
        bytes.copy_from_slice(&digest[..16]);
        Self(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_values_are_told_apart() {
        let all = [
            Subject::jwt(Some("alice")),
            Subject::jwt(Some("bob")),
            Subject::jwt(None),
            Subject::token("alice"),
            Subject::token(""),
            Subject::anonymous(),
        ];
        for (index, one) in all.iter().enumerate() {
            for other in &all[index + 1..] {
                assert_ne!(one, other);
                assert_ne!(one.key(), other.key());
            }
        }
        assert_eq!(Subject::token("t").key(), Subject::token("t").key());
    }

    #[test]
    fn the_key_is_the_digest_in_hex_and_holds_no_token() {
        let subject = Subject::token("s3cret-token");
        let key = subject.key();
        assert_eq!(key.len(), 32);
        assert!(key.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert!(!key.contains("s3cret"));
        assert_eq!(Subject::from_digest(subject.digest()), subject);
    }
}
