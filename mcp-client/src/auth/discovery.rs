//! Discovery for one refused request: which resource the server is and
//! which authorization server grants its tokens, in the order the MCP
//! specification gives (the challenge's `resource_metadata`, else the
//! well-known protected-resource URLs; before RFC 9728, the server's own
//! origin as issuer). The authorization server's own metadata is
//! [`metadata::lookup_server_metadata`]'s, and what to do without any is
//! [`fallback`](super::fallback)'s.

use super::challenge::Challenge;
use super::http::AuthHttp;
use super::metadata::{self, Lookup, ResourceMetadata};
use crate::error::AuthError;

/// What discovery found about the protected resource.
pub(super) struct ProtectedResource {
    /// The resource as the server names it, verbatim (no URL
    /// normalization), else the endpoint's [canonical](canonical_resource) URL.
    pub(super) resource: String,
    /// The authorization server's issuer.
    pub(super) issuer: String,
    /// The protected-resource metadata, or the URLs that had none (a
    /// server from before RFC 9728).
    pub(super) metadata: Lookup<ResourceMetadata>,
}

/// The resource identifier of an MCP endpoint (RFC 8707, the MCP canonical
/// server URI): scheme, host, port and path; never its credentials, query
/// or fragment, which may hold secrets and must not reach an authorization
/// server.
pub fn canonical_resource(url: &url::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

/// The 2025-03-26 authorization base URL of an MCP endpoint: its origin,
/// the path discarded (`https://api.example.com/v1/mcp` →
/// `https://api.example.com`). The issuer of a server without
/// protected-resource metadata.
pub(super) fn authorization_base(endpoint: &url::Url) -> String {
    endpoint.origin().ascii_serialization()
}

/// Discovers the resource and the authorization server of server `server`
/// at `endpoint`, which refused a request with `challenge`.
pub(super) async fn protected_resource(
    http: &AuthHttp,
    server: &str,
    endpoint: &url::Url,
    challenge: &Challenge,
) -> Result<ProtectedResource, AuthError> {
    let urls = metadata::resource_metadata_urls(endpoint, challenge.resource_metadata.as_deref());
    let lookup = metadata::fetch_resource_metadata(http, server, &urls).await?;
    let found = lookup.found();
    let resource = match found.and_then(|m| m.resource.as_ref()) {
        Some(named) if metadata::resource_matches(named, endpoint) => named.clone(),
        Some(named) => {
            return Err(AuthError::Discovery {
                server: server.to_owned(),
                reason: format!(
                    "the protected resource metadata is for {named}, not this server; no token is requested for it"
                ),
            });
        }
        None => canonical_resource(endpoint),
    };
    let issuer = match found.and_then(|m| m.authorization_servers.first()) {
        Some(issuer) => issuer.clone(),
        // Before RFC 9728 (2025-03-26): the authorization base URL.
        None => authorization_base(endpoint),
    };
    Ok(ProtectedResource {
        resource,
        issuer,
        metadata: lookup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_resource_keeps_no_credentials_query_or_fragment() {
        let url = url::Url::parse("https://user:secret@example.com:8443/mcp?key=1#top").unwrap();
        assert_eq!(canonical_resource(&url), "https://example.com:8443/mcp");
    }

    #[test]
    fn the_authorization_base_is_the_origin_without_the_path() {
        let url = url::Url::parse("https://user:secret@api.example.com/v1/mcp?key=1").unwrap();
        assert_eq!(authorization_base(&url), "https://api.example.com");
        let local = url::Url::parse("http://localhost:3000/mcp").unwrap();
        assert_eq!(authorization_base(&local), "http://localhost:3000");
    }
}
