//! How the client authenticates at the token endpoint:
//! `client_secret_basic`, `client_secret_post`, `none`, or `private_key_jwt`
//! (whose signed assertion needs the `oauth-extensions` feature).

use oauth2::basic::BasicClient;
use oauth2::{AuthType, ClientSecret, EndpointState};

use super::metadata::ServerMetadata;
use super::settings::AuthSettings;
use super::store::ClientRegistration;
use crate::error::AuthError;

/// One way of authenticating a token request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ClientAuth {
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
    pub(super) fn choose(
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

/// `client` with its authentication at the token endpoint set for `method`:
/// the secret in HTTP Basic or in the body; none otherwise (the id in the
/// body).
pub(super) fn with_client_auth<A, B, C, D, E>(
    client: BasicClient<A, B, C, D, E>,
    registration: &ClientRegistration,
    method: ClientAuth,
) -> BasicClient<A, B, C, D, E>
where
    A: EndpointState,
    B: EndpointState,
    C: EndpointState,
    D: EndpointState,
    E: EndpointState,
{
    match (method, &registration.client_secret) {
        (ClientAuth::SecretBasic, Some(secret)) => client
            .set_client_secret(ClientSecret::new(secret.clone()))
            .set_auth_type(AuthType::BasicAuth),
        (ClientAuth::SecretPost, Some(secret)) => client
            .set_client_secret(ClientSecret::new(secret.clone()))
            .set_auth_type(AuthType::RequestBody),
        _ => client.set_auth_type(AuthType::RequestBody),
    }
}

/// The `client_assertion` parameters of `private_key_jwt`, if that is the
/// method: signed with `settings`' key for `client` at `server_metadata`'s
/// issuer.
pub(super) fn assertion_params(
    server: &str,
    settings: &AuthSettings,
    method: ClientAuth,
    client: &ClientRegistration,
    server_metadata: &ServerMetadata,
) -> Result<Vec<(&'static str, String)>, AuthError> {
    if method != ClientAuth::PrivateKeyJwt {
        return Ok(Vec::new());
    }
    signed_assertion(server, settings, client, server_metadata)
}

#[cfg(feature = "oauth-extensions")]
fn signed_assertion(
    server: &str,
    settings: &AuthSettings,
    client: &ClientRegistration,
    server_metadata: &ServerMetadata,
) -> Result<Vec<(&'static str, String)>, AuthError> {
    use super::private_key_jwt::{JWT_BEARER_ASSERTION, client_assertion};
    let key = settings
        .private_key
        .as_ref()
        .ok_or_else(|| AuthError::Unsupported {
            server: server.to_owned(),
            reason: "private_key_jwt needs auth.privateKey".into(),
        })?;
    let assertion = client_assertion(
        server,
        &client.client_id,
        &server_metadata.issuer,
        key,
        settings.signing_algorithm.as_deref(),
    )?;
    Ok(vec![
        ("client_assertion_type", JWT_BEARER_ASSERTION.to_owned()),
        ("client_assertion", assertion),
    ])
}

#[cfg(not(feature = "oauth-extensions"))]
fn signed_assertion(
    server: &str,
    _: &AuthSettings,
    _: &ClientRegistration,
    _: &ServerMetadata,
) -> Result<Vec<(&'static str, String)>, AuthError> {
    Err(super::feature::AuthFeature::OAuthExtensions
        .missing(server, "private_key_jwt client authentication"))
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

    #[test]
    fn a_private_key_assertion_is_signed_or_names_the_missing_feature() {
        let client = ClientRegistration {
            client_id: "c".into(),
            ..Default::default()
        };
        let settings = AuthSettings::default();
        let none = assertion_params("docs", &settings, ClientAuth::None, &client, &metadata(&[]));
        assert!(none.unwrap().is_empty());
        let error = assertion_params(
            "docs",
            &settings,
            ClientAuth::PrivateKeyJwt,
            &client,
            &metadata(&["private_key_jwt"]),
        )
        .unwrap_err()
        .to_string();
        let expected = if cfg!(feature = "oauth-extensions") {
            "auth.privateKey"
        } else {
            "`oauth-extensions`"
        };
        assert!(error.contains("server 'docs'"), "{error}");
        assert!(error.contains(expected), "{error}");
    }
}
