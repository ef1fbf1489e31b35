//! How the client authenticates at the token endpoint:
//! `client_secret_basic`, `client_secret_post`, `none` or `private_key_jwt`
//! (an RFC 7523 assertion signed with the configured key).

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcpdisco_transport::secret::{ExposeSecret, SecretString};
use serde::Serialize;

use super::AuthError;
use super::metadata::ServerMetadata;
use super::store::{ClientRegistration, now_secs};

/// The client assertion type of `private_key_jwt` (RFC 7523 §2.2).
pub(crate) const JWT_BEARER_ASSERTION: &str =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// One way of authenticating a token request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientAuth {
    /// HTTP Basic with the id and secret.
    SecretBasic,
    /// The id and secret in the form body.
    SecretPost,
    /// The id only (a public client).
    None,
    /// A signed JWT assertion.
    PrivateKeyJwt,
}

impl ClientAuth {
    /// The method for `client` at `metadata`'s server: what the registration
    /// said, else a private key's JWT, else a secret by the server's
    /// preference (basic first), else none.
    pub(crate) fn choose(
        client: &ClientRegistration,
        has_private_key: bool,
        metadata: &ServerMetadata,
    ) -> ClientAuth {
        let by_name = |name: &str| match name {
            _ if !metadata.supports_auth_method(name) && client.client_secret.is_some() => None,
            "client_secret_basic" => Some(ClientAuth::SecretBasic),
            "client_secret_post" => Some(ClientAuth::SecretPost),
            "none" => Some(ClientAuth::None),
            "private_key_jwt" => Some(ClientAuth::PrivateKeyJwt),
            _ => None,
        };
        if let Some(method) = client
            .token_endpoint_auth_method
            .as_deref()
            .and_then(by_name)
        {
            return method;
        }
        if has_private_key {
            return ClientAuth::PrivateKeyJwt;
        }
        if client.client_secret.is_some() {
            if metadata.supports_auth_method("client_secret_basic") {
                return ClientAuth::SecretBasic;
            }
            if metadata.supports_auth_method("client_secret_post") {
                return ClientAuth::SecretPost;
            }
            if !metadata.supports_auth_method("none") {
                return ClientAuth::SecretBasic;
            }
        }
        ClientAuth::None
    }
}

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

    fn metadata(methods: &[&str]) -> ServerMetadata {
        ServerMetadata {
            issuer: "https://as".into(),
            token_endpoint_auth_methods_supported: Some(
                methods.iter().map(|m| (*m).to_owned()).collect(),
            ),
            ..Default::default()
        }
    }

    #[test]
    fn registration_method_wins_then_key_then_secret_then_none() {
        let mut client = ClientRegistration {
            client_id: "c".into(),
            client_secret: Some("s".into()),
            token_endpoint_auth_method: Some("client_secret_post".into()),
            ..Default::default()
        };
        let all = metadata(&["client_secret_basic", "client_secret_post", "none"]);
        assert_eq!(
            ClientAuth::choose(&client, false, &all),
            ClientAuth::SecretPost
        );
        client.token_endpoint_auth_method = None;
        assert_eq!(
            ClientAuth::choose(&client, false, &all),
            ClientAuth::SecretBasic
        );
        assert_eq!(
            ClientAuth::choose(&client, false, &metadata(&["client_secret_post"])),
            ClientAuth::SecretPost
        );
        assert_eq!(
            ClientAuth::choose(&client, true, &all),
            ClientAuth::PrivateKeyJwt
        );
        assert_eq!(
            ClientAuth::choose(&client, false, &metadata(&["none"])),
            ClientAuth::None,
            "a secret the server has no use for is not sent"
        );
        client.client_secret = None;
        assert_eq!(ClientAuth::choose(&client, false, &all), ClientAuth::None);
    }
}
