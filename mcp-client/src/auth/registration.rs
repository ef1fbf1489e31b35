//! The client's identity at an authorization server, in the specification's
//! order: a pre-registered id from the config, a Client ID Metadata Document
//! URL, a registration kept from before, a dynamic registration (RFC 7591);
//! and to which authorization server the configured credentials may go.

use mcpdisco_transport::secret::ExposeSecret;
use serde::{Deserialize, Serialize};

use super::client::OAuthClient;
use super::discovery::foreign_issuer;
use super::http::{AuthRequest, Fetched};
use super::metadata::{self, ServerMetadata};
use super::store::{ClientRegistration, StoredCredentials};
use crate::error::AuthError;

/// A dynamic registration request (RFC 7591 §2), as a native client.
#[derive(Serialize)]
struct RegistrationRequest<'a> {
    client_name: &'a str,
    redirect_uris: [&'a str; 1],
    grant_types: [&'static str; 2],
    response_types: [&'static str; 1],
    token_endpoint_auth_method: &'static str,
    application_type: &'static str,
}

/// A dynamic registration's answer (RFC 7591 §3.2.1).
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

impl OAuthClient {
    /// The client configured for this server (`auth.clientId`, with its
    /// secret), if any.
    pub(super) fn configured_client(&self) -> Option<ClientRegistration> {
        let client_id = self.settings.client_id.clone()?;
        Some(ClientRegistration {
            client_id,
            client_secret: self
                .settings
                .client_secret
                .as_ref()
                .map(|s| s.expose_secret().to_owned()),
            token_endpoint_auth_method: None,
            redirect_uri: None,
        })
    }

    /// The issuer the configured credentials belong to (`auth.issuer`),
    /// when credentials are configured and the config says whose they are:
    /// discovery refuses another one before any request to it.
    pub(super) fn credentials_issuer(&self) -> Option<String> {
        self.settings
            .has_credentials()
            .then(|| self.settings.issuer.clone())
            .flatten()
    }

    /// Refuses to send the configured credentials to `issuer` when they
    /// belong to another authorization server (`auth.issuer`); warns when
    /// the config does not say whose they are.
    pub(super) fn check_credentials_issuer(&self, issuer: &str) -> Result<(), AuthError> {
        if !self.settings.has_credentials() {
            return Ok(());
        }
        match &self.settings.issuer {
            Some(expected) if expected != issuer => {
                Err(foreign_issuer(&self.server, issuer, expected))
            }
            Some(_) => Ok(()),
            None => {
                tracing::warn!(
                    server = %self.server,
                    %issuer,
                    "sending the configured credentials to the authorization server the MCP server names; set auth.issuer to allow only yours"
                );
                Ok(())
            }
        }
    }

    /// The clients this server's settings and `entry` know of.
    pub(super) fn known_clients(&self, entry: &StoredCredentials) -> KnownClients {
        KnownClients {
            configured: self.configured_client(),
            metadata_document: self.settings.client_metadata_url.clone(),
            has_private_key: self.settings.private_key.is_some(),
            stored: entry.client.clone(),
            client_name: self.context.client_name.clone(),
        }
    }
}

/// The clients the settings and the store know of, for one authorization.
#[derive(Debug, Clone, Default)]
pub(super) struct KnownClients {
    /// The configured client (`auth.clientId`, its secret).
    pub(super) configured: Option<ClientRegistration>,
    /// The Client ID Metadata Document URL (`auth.clientMetadataUrl`).
    pub(super) metadata_document: Option<String>,
    /// Whether a private key is configured (`private_key_jwt`).
    pub(super) has_private_key: bool,
    /// The registration kept from before.
    pub(super) stored: Option<ClientRegistration>,
    /// The name a new registration gives.
    pub(super) client_name: String,
}

/// Who the client is at an authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Identity {
    /// A client known already.
    Known(ClientRegistration),
    /// None yet: register at this endpoint (RFC 7591).
    Register(url::Url),
}

/// The client's identity for server `server` at the authorization server
/// of `server_metadata`, redirected to `redirect_uri`, in the
/// specification's order: configured, a metadata document URL (where the
/// server takes one), a registration kept from before for this redirect
/// URI, a new registration.
pub(super) fn identity(
    server: &str,
    known: &KnownClients,
    server_metadata: &ServerMetadata,
    redirect_uri: &str,
) -> Result<Identity, AuthError> {
    if let Some(client) = &known.configured {
        return Ok(Identity::Known(client.clone()));
    }
    if let Some(url) = &known.metadata_document
        && server_metadata.client_id_metadata_document_supported == Some(true)
    {
        let method = if known.has_private_key {
            "private_key_jwt"
        } else {
            "none"
        };
        return Ok(Identity::Known(ClientRegistration {
            client_id: url.clone(),
            token_endpoint_auth_method: Some(method.into()),
            ..Default::default()
        }));
    }
    if let Some(client) = &known.stored
        && client.redirect_uri.as_deref() == Some(redirect_uri)
    {
        return Ok(Identity::Known(client.clone()));
    }
    let Some(endpoint) = &server_metadata.registration_endpoint else {
        return Err(AuthError::Unsupported {
            server: server.to_owned(),
            reason: "the authorization server offers neither dynamic client registration nor client ID metadata documents: set auth.clientId (and auth.clientSecret) in the config".into(),
        });
    };
    let url = metadata::secure_endpoint(server, Some(endpoint), "registration_endpoint")?;
    Ok(Identity::Register(url))
}

/// The dynamic registration (RFC 7591) of a native client named
/// `client_name`, redirected to `redirect_uri`, at `endpoint`.
pub(super) fn registration_request(
    server: &str,
    endpoint: url::Url,
    server_metadata: &ServerMetadata,
    client_name: &str,
    redirect_uri: &str,
) -> Result<AuthRequest, AuthError> {
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| server_metadata.supports_auth_method(m))
        .unwrap_or("client_secret_basic");
    let request = RegistrationRequest {
        client_name,
        redirect_uris: [redirect_uri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: method,
        application_type: "native",
    };
    AuthRequest::post_json(endpoint, &request).map_err(|reason| AuthError::Http {
        server: server.to_owned(),
        reason: format!("client registration: {reason}"),
    })
}

/// The client a registration's answer `fetched` names, for `redirect_uri`.
pub(super) fn registered_client(
    server: &str,
    fetched: &Fetched,
    redirect_uri: &str,
) -> Result<ClientRegistration, AuthError> {
    let refused = |reason: String| AuthError::Refused {
        server: server.to_owned(),
        reason: format!("client registration: {reason}"),
    };
    if !fetched.is_success() {
        return Err(refused(format!(
            "HTTP {}: {}",
            fetched.status,
            fetched.preview()
        )));
    }
    let registered: Registered = fetched.json().map_err(refused)?;
    Ok(ClientRegistration {
        client_id: registered.client_id,
        client_secret: registered.client_secret,
        token_endpoint_auth_method: registered.token_endpoint_auth_method,
        redirect_uri: Some(redirect_uri.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_request_is_the_rfc_7591_document() {
        let request = RegistrationRequest {
            client_name: "mcp-discovery",
            redirect_uris: ["http://127.0.0.1:1/callback"],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "none",
            application_type: "native",
        };
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"client_name":"mcp-discovery","redirect_uris":["http://127.0.0.1:1/callback"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none","application_type":"native"}"#
        );
    }
}
