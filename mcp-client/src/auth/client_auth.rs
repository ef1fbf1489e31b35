//! How the client authenticates at the token endpoint:
//! `client_secret_basic`, `client_secret_post`, `none`, or `private_key_jwt`
//! (whose signed assertion needs the `oauth-extensions` feature).

use base64::Engine;

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

/// What a token request carries to authenticate a client: an
/// `Authorization` header, form parameters, or both.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Credentials {
    /// The `Authorization` header's value (HTTP Basic).
    pub(super) authorization: Option<String>,
    /// The form parameters (`client_id`, maybe `client_secret`).
    pub(super) params: Vec<(&'static str, String)>,
}

/// How `registration` authenticates by `method`: the id and secret in HTTP
/// Basic (each form-encoded first, RFC 6749 §2.3.1), or the id and secret
/// in the form; otherwise the id in the form (a public client, or one whose
/// `private_key_jwt` assertion [`assertion_params`] adds).
pub(super) fn credentials(registration: &ClientRegistration, method: ClientAuth) -> Credentials {
    let id = registration.client_id.clone();
    match (method, &registration.client_secret) {
        (ClientAuth::SecretBasic, Some(secret)) => {
            let encode = |text: &str| {
                url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>()
            };
            let pair = format!("{}:{}", encode(&id), encode(secret));
            Credentials {
                authorization: Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                )),
                params: Vec::new(),
            }
        }
        (ClientAuth::SecretPost, Some(secret)) => Credentials {
            authorization: None,
            params: vec![("client_id", id), ("client_secret", secret.clone())],
        },
        _ => Credentials {
            authorization: None,
            params: vec![("client_id", id)],
        },
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
    fn a_secret_goes_in_basic_or_the_form_and_a_public_client_sends_its_id() {
        let client = ClientRegistration {
            client_id: "id:1".into(),
            client_secret: Some("s&2".into()),
            ..Default::default()
        };
        let basic = credentials(&client, ClientAuth::SecretBasic);
        // base64("id%3A1:s%262")
        assert_eq!(
            basic.authorization.as_deref(),
            Some("Basic aWQlM0ExOnMlMjYy")
        );
        assert!(basic.params.is_empty());
        let post = credentials(&client, ClientAuth::SecretPost);
        assert_eq!(post.authorization, None);
        assert_eq!(
            post.params,
            vec![
                ("client_id", "id:1".to_owned()),
                ("client_secret", "s&2".to_owned())
            ]
        );
        for method in [ClientAuth::None, ClientAuth::PrivateKeyJwt] {
            assert_eq!(
                credentials(&client, method).params,
                vec![("client_id", "id:1".to_owned())],
                "{method:?} sends no secret"
            );
        }
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
