//! The protected resource's metadata (RFC 9728), served at
//! `/.well-known/oauth-protected-resource`: which authorization server
//! issues its tokens, so a client can sign in there.

use serde::Serialize;

/// The path of the metadata document.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The metadata document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtectedResourceMetadata {
    /// The resource's identifier: the URL of its MCP endpoint.
    pub resource: String,
    /// The issuers whose tokens it takes.
    pub authorization_servers: Vec<String>,
    /// How tokens are sent: in the `Authorization` header only.
    pub bearer_methods_supported: Vec<String>,
    /// The scopes it asks for, when it asks for any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
}

impl ProtectedResourceMetadata {
    /// The document of `resource`, whose tokens `issuer` issues.
    pub fn new(resource: String, issuer: &str, scopes: &[String]) -> Self {
        Self {
            resource,
            authorization_servers: vec![issuer.to_owned()],
            bearer_methods_supported: vec!["header".to_owned()],
            scopes_supported: scopes.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_names_the_resource_and_its_issuer() {
        let document = ProtectedResourceMetadata::new(
            "http://127.0.0.1:8080/mcp".into(),
            "https://id.example.test",
            &["mcp:tools".to_owned()],
        );
        assert_eq!(
            serde_json::to_string(&document).unwrap(),
            r#"{"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["https://id.example.test"],"bearer_methods_supported":["header"],"scopes_supported":["mcp:tools"]}"#
        );
        let without = ProtectedResourceMetadata::new("r".into(), "i", &[]);
        assert!(!serde_json::to_string(&without).unwrap().contains("scopes"));
    }
}
