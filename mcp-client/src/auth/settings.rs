//! What a server's `"auth"` configuration says: [`AuthSettings`] and its
//! [`Grant`]. Plain data, in every build, so a config is read the same way
//! whatever the features; [`AuthSettings::check_features`] says whether this
//! build can act on it.

use mcpdisco_transport::secret::{ExposeSecret, Masker, SecretString};

use super::feature::AuthFeature;
use crate::error::AuthError;

/// Which grant obtains the tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grant {
    /// Authorization code with PKCE: a user approves in a browser.
    #[default]
    AuthorizationCode,
    /// Client credentials: the client is the resource owner (no user).
    ClientCredentials,
    /// A JWT the workload already holds, exchanged for a token (RFC 7523
    /// §2.1; workload identity federation): `assertion` or `assertionFile`.
    /// Needs the `oauth-extensions` feature.
    JwtBearer,
    /// Enterprise-managed authorization: the user's identity provider
    /// exchanges its ID token for an identity assertion grant (ID-JAG), which
    /// the authorization server exchanges for a token. Needs the
    /// `oauth-extensions` feature.
    Enterprise,
}

/// A server's `"auth"` configuration: [`AuthSettings::default()`] (the
/// authorization code grant, nothing pre-registered), then a setter per
/// field. New fields may be added, so the struct cannot be built as a
/// literal outside this crate.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct AuthSettings {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret (confidential clients).
    pub client_secret: Option<SecretString>,
    /// A private key (PEM) for `private_key_jwt` client authentication
    /// (the `oauth-extensions` feature).
    pub private_key: Option<SecretString>,
    /// The JWS algorithm of `private_key` (`RS256`, `ES256`, …); guessed from
    /// the key when absent.
    pub signing_algorithm: Option<String>,
    /// Scopes to ask for when the server's challenge names none.
    pub scopes: Option<Vec<String>>,
    /// A Client ID Metadata Document URL, used as client id where the
    /// authorization server supports them.
    pub client_metadata_url: Option<String>,
    /// The grant.
    pub grant: Grant,
    /// The JWT of the `JwtBearer` grant.
    pub assertion: Option<SecretString>,
    /// A file holding that JWT, read at each use (a projected workload token).
    pub assertion_file: Option<std::path::PathBuf>,
    /// The identity provider's token endpoint (`Enterprise`).
    pub idp_token_endpoint: Option<String>,
    /// The user's ID token from the identity provider (`Enterprise`).
    pub idp_id_token: Option<SecretString>,
    /// Our client id at the identity provider (`Enterprise`).
    pub idp_client_id: Option<String>,
    /// The authorization server the configured credentials belong to. When
    /// set, a server naming another one gets none of them (a secret, a key's
    /// assertion, a workload JWT, an ID token): an MCP server chooses its
    /// authorization server, so it could otherwise collect them.
    pub issuer: Option<String>,
}

impl AuthSettings {
    /// Sets [`client_id`](Self::client_id): a pre-registered client.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets [`client_secret`](Self::client_secret).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(SecretString::from(secret.into()));
        self
    }

    /// Sets [`private_key`](Self::private_key) (PEM), for `private_key_jwt`.
    pub fn private_key(mut self, pem: impl Into<String>) -> Self {
        self.private_key = Some(SecretString::from(pem.into()));
        self
    }

    /// Sets [`signing_algorithm`](Self::signing_algorithm) (`RS256`, `ES256`, …).
    pub fn signing_algorithm(mut self, algorithm: impl Into<String>) -> Self {
        self.signing_algorithm = Some(algorithm.into());
        self
    }

    /// Sets [`scopes`](Self::scopes).
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Sets [`client_metadata_url`](Self::client_metadata_url).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets [`grant`](Self::grant).
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    /// Sets [`assertion`](Self::assertion): the JWT of the `JwtBearer` grant.
    pub fn assertion(mut self, jwt: impl Into<String>) -> Self {
        self.assertion = Some(SecretString::from(jwt.into()));
        self
    }

    /// Sets [`assertion_file`](Self::assertion_file).
    pub fn assertion_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.assertion_file = Some(path.into());
        self
    }

    /// Sets [`idp_token_endpoint`](Self::idp_token_endpoint) (`Enterprise`).
    pub fn idp_token_endpoint(mut self, url: impl Into<String>) -> Self {
        self.idp_token_endpoint = Some(url.into());
        self
    }

    /// Sets [`idp_id_token`](Self::idp_id_token) (`Enterprise`).
    pub fn idp_id_token(mut self, token: impl Into<String>) -> Self {
        self.idp_id_token = Some(SecretString::from(token.into()));
        self
    }

    /// Sets [`idp_client_id`](Self::idp_client_id) (`Enterprise`).
    pub fn idp_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.idp_client_id = Some(client_id.into());
        self
    }

    /// Sets [`issuer`](Self::issuer): the authorization server the credentials belong to.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Whether the settings hold credentials of their own (beyond a public client id).
    pub fn has_credentials(&self) -> bool {
        self.client_secret.is_some()
            || self.private_key.is_some()
            || self.assertion.is_some()
            || self.assertion_file.is_some()
            || self.idp_id_token.is_some()
    }

    /// A masker of the settings' secrets.
    pub fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        for secret in [
            &self.client_secret,
            &self.private_key,
            &self.assertion,
            &self.idp_id_token,
        ]
        .into_iter()
        .flatten()
        {
            builder.secret(secret.expose_secret());
        }
        builder.build()
    }

    /// Whether this build can act on the settings of server `server`: any
    /// needs the `oauth` feature; the JWT bearer and enterprise grants and a
    /// private key need `oauth-extensions`. What it lacks is an
    /// [`AuthError`] naming the server and the feature, never ignored.
    pub fn check_features(&self, server: &str) -> Result<(), AuthError> {
        AuthFeature::OAuth.require(
            server,
            "OAuth authorization (the server's \"auth\" settings)",
        )?;
        let extension = match self.grant {
            Grant::JwtBearer => Some("the JWT bearer grant (auth.grant \"jwt_bearer\")"),
            Grant::Enterprise => {
                Some("enterprise-managed authorization (auth.grant \"enterprise\")")
            }
            Grant::AuthorizationCode | Grant::ClientCredentials => None,
        };
        if let Some(what) = extension {
            AuthFeature::OAuthExtensions.require(server, what)?;
        }
        if self.private_key.is_some() {
            AuthFeature::OAuthExtensions.require(
                server,
                "private_key_jwt client authentication (auth.privateKey)",
            )?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for AuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("private_key", &self.private_key.as_ref().map(|_| "***"))
            .field("assertion", &self.assertion.as_ref().map(|_| "***"))
            .field("idp_id_token", &self.idp_id_token.as_ref().map(|_| "***"))
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_grant(grant: Grant) -> AuthSettings {
        AuthSettings {
            grant,
            ..Default::default()
        }
    }

    fn missing_feature(result: Result<(), AuthError>) -> Option<String> {
        match result {
            Ok(()) => None,
            Err(error) => Some(error.to_string()),
        }
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn the_core_grants_need_only_oauth() {
        for grant in [Grant::AuthorizationCode, Grant::ClientCredentials] {
            assert_eq!(missing_feature(with_grant(grant).check_features("s")), None);
        }
    }

    #[cfg(not(feature = "oauth"))]
    #[test]
    fn without_oauth_any_settings_name_the_feature() {
        for grant in [
            Grant::AuthorizationCode,
            Grant::ClientCredentials,
            Grant::JwtBearer,
            Grant::Enterprise,
        ] {
            let error = missing_feature(with_grant(grant).check_features("docs")).unwrap();
            assert!(error.contains("server 'docs'"), "{error}");
            assert!(error.contains("`oauth`"), "{error}");
        }
    }

    #[cfg(all(feature = "oauth", not(feature = "oauth-extensions")))]
    #[test]
    fn without_extensions_their_grants_and_keys_name_the_feature() {
        let key = AuthSettings {
            private_key: Some("-----BEGIN PRIVATE KEY-----".into()),
            ..Default::default()
        };
        for (settings, what) in [
            (with_grant(Grant::JwtBearer), "jwt_bearer"),
            (with_grant(Grant::Enterprise), "enterprise"),
            (key, "privateKey"),
        ] {
            let error = missing_feature(settings.check_features("docs")).unwrap();
            assert!(error.contains("server 'docs'"), "{error}");
            assert!(error.contains(what), "{error}");
            assert!(error.contains("`oauth-extensions`"), "{error}");
        }
    }

    #[cfg(feature = "oauth-extensions")]
    #[test]
    fn with_extensions_every_grant_and_a_key_are_accepted() {
        for grant in [Grant::JwtBearer, Grant::Enterprise] {
            assert_eq!(missing_feature(with_grant(grant).check_features("s")), None);
        }
        let key = AuthSettings {
            private_key: Some("-----BEGIN PRIVATE KEY-----".into()),
            ..Default::default()
        };
        assert_eq!(missing_feature(key.check_features("s")), None);
    }
}
