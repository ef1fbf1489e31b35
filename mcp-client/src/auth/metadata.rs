//! Finding the authorization server: protected-resource metadata (RFC 9728)
//! and authorization-server metadata (RFC 8414, OpenID Connect Discovery),
//! with the well-known URLs tried in the order the MCP specification gives.

use serde::{Deserialize, Serialize};

use super::http::{Fetched, origin_and_path};
use crate::error::AuthError;

/// What the MCP server says about its protection (RFC 9728).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ResourceMetadata {
    /// The resource identifier the server answers to.
    #[serde(default)]
    pub resource: Option<String>,
    /// The issuers that can grant tokens for it.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes it knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// What an authorization server says about itself (RFC 8414).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ServerMetadata {
    /// Its issuer identifier; must equal the one its metadata was looked up by.
    pub issuer: String,
    /// Where the user approves.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// Where codes, refresh tokens and credentials become tokens.
    #[serde(default)]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The scopes it knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// PKCE methods; without `S256` we refuse to go on.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// How clients authenticate at the token endpoint.
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Grant types it accepts.
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// Whether a URL may serve as client id (Client ID Metadata Documents).
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether it puts `iss` in authorization responses (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// DPoP proof algorithms it accepts.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Whether PKCE with S256 is supported.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|methods| methods.iter().any(|m| m == "S256"))
    }

    /// Whether the token endpoint accepts client authentication `method`.
    /// RFC 8414's default, when the list is absent, is `client_secret_basic`.
    pub fn supports_auth_method(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }
}

/// The protected-resource metadata URLs to try for `server_url`, in order:
/// the challenge's `resource_metadata` alone when it names one; otherwise
/// the path-based well-known URL, then the root one.
pub fn resource_metadata_urls(
    server_url: &url::Url,
    from_challenge: Option<&str>,
) -> Vec<url::Url> {
    if let Some(url) = from_challenge.and_then(|u| server_url.join(u).ok()) {
        return vec![url];
    }
    let mut urls = Vec::new();
    let path = server_url.path().trim_end_matches('/');
    let mut base = server_url.clone();
    base.set_query(None);
    base.set_fragment(None);
    if !path.is_empty() {
        let mut with_path = base.clone();
        with_path.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
        urls.push(with_path);
    }
    base.set_path("/.well-known/oauth-protected-resource");
    urls.push(base);
    urls
}

/// Whether protected-resource metadata naming `resource` may be used for
/// the server at `server_url`: the same origin, and the resource's path a
/// prefix of the server's (segment-wise). RFC 9728 §3.3 forbids using
/// metadata issued for another resource.
pub fn resource_matches(resource: &str, server_url: &url::Url) -> bool {
    let Ok(named) = url::Url::parse(resource) else {
        return false;
    };
    if named.origin() != server_url.origin() {
        return false;
    }
    let with_slash = |path: &str| {
        if path.ends_with('/') {
            path.to_owned()
        } else {
            format!("{path}/")
        }
    };
    with_slash(server_url.path()).starts_with(&with_slash(named.path()))
}

/// The authorization-server metadata URLs for `issuer`, in the MCP
/// specification's order: RFC 8414 with path insertion, OpenID Connect with
/// path insertion, OpenID Connect with the path appended; for an issuer
/// without a path, RFC 8414 then OpenID Connect at the root.
pub fn server_metadata_urls(issuer: &url::Url) -> Vec<url::Url> {
    let path = issuer.path().trim_end_matches('/');
    let mut base = issuer.clone();
    base.set_query(None);
    base.set_fragment(None);
    let at = |path: String| {
        let mut url = base.clone();
        url.set_path(&path);
        url
    };
    if path.is_empty() {
        vec![
            at("/.well-known/oauth-authorization-server".into()),
            at("/.well-known/openid-configuration".into()),
        ]
    } else {
        vec![
            at(format!("/.well-known/oauth-authorization-server{path}")),
            at(format!("/.well-known/openid-configuration{path}")),
            at(format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// Whether an authorization server URL may be used: `https`, or `http` to
/// this machine (loopback). The MCP specification requires HTTPS for every
/// authorization-server endpoint; codes, secrets and tokens never travel in
/// clear text to another host, and no other scheme reaches a browser.
pub fn is_secure_endpoint(url: &url::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// The endpoint `value` (named `name`, such as `token_endpoint`) of server
/// `server`'s flow as a URL: present, and [secure](is_secure_endpoint).
pub(crate) fn secure_endpoint(
    server: &str,
    value: Option<&str>,
    name: &str,
) -> Result<url::Url, AuthError> {
    let discovery = |reason: String| AuthError::Discovery {
        server: server.to_owned(),
        reason,
    };
    let value = value
        .ok_or_else(|| discovery(format!("the authorization server metadata has no {name}")))?;
    let url =
        url::Url::parse(value).map_err(|e| discovery(format!("the {name} is not a URL: {e}")))?;
    if !is_secure_endpoint(&url) {
        return Err(discovery(format!(
            "the {name} {} is neither HTTPS nor on this machine; it is not used",
            origin_and_path(&url)
        )));
    }
    Ok(url)
}

/// What a metadata lookup found: the first document served, or none at
/// any of the well-known URLs (each answered 4xx).
#[derive(Debug, Clone)]
pub(crate) enum Lookup<T> {
    /// The document.
    Found(T),
    /// No document: the URLs tried, each with its status, for messages.
    Absent {
        /// `origin/path (HTTP status)` of each URL tried, in order.
        tried: Vec<String>,
    },
}

impl<T> Lookup<T> {
    /// The document, if one was found.
    pub(crate) fn found(&self) -> Option<&T> {
        match self {
            Lookup::Found(document) => Some(document),
            Lookup::Absent { .. } => None,
        }
    }
}

/// `url` and the status it answered, as a lookup records it.
pub(crate) fn tried_entry(url: &url::Url, status: u16) -> String {
    format!("{} (HTTP {status})", origin_and_path(url))
}

/// What one well-known URL answered: the document, or none there (a 4xx:
/// the next URL is tried).
#[derive(Debug)]
pub(crate) enum Answer<T> {
    /// The document.
    Document(T),
    /// None at this URL.
    Missing,
}

/// Reads `fetched`, the answer of protected-resource metadata URL `url`:
/// a 4xx is [`Answer::Missing`]; a 5xx or a body that is not the document
/// is an error.
pub(crate) fn resource_answer(
    server: &str,
    url: &url::Url,
    fetched: &Fetched,
) -> Result<Answer<ResourceMetadata>, AuthError> {
    let discovery = |reason: String| AuthError::Discovery {
        server: server.to_owned(),
        reason: format!(
            "protected resource metadata at {}: {reason}",
            origin_and_path(url)
        ),
    };
    if (400..500).contains(&fetched.status) {
        return Ok(Answer::Missing);
    }
    if !fetched.is_success() {
        return Err(discovery(format!("HTTP {}", fetched.status)));
    }
    fetched.json().map(Answer::Document).map_err(discovery)
}

/// The error for an issuer whose metadata is at none of the `tried` URLs.
pub(crate) fn no_server_metadata(server: &str, issuer: &str, tried: &[String]) -> AuthError {
    AuthError::Discovery {
        server: server.to_owned(),
        reason: format!(
            "no authorization server metadata for {issuer}: tried {}",
            tried.join(", ")
        ),
    }
}

/// `issuer` as a URL whose metadata may be looked up: a URL, and
/// [secure](is_secure_endpoint).
pub(crate) fn issuer_url(server: &str, issuer: &str) -> Result<url::Url, AuthError> {
    let issuer_url = url::Url::parse(issuer).map_err(|e| AuthError::Discovery {
        server: server.to_owned(),
        reason: format!("the authorization server {issuer:?} is not a URL: {e}"),
    })?;
    if !is_secure_endpoint(&issuer_url) {
        return Err(AuthError::Discovery {
            server: server.to_owned(),
            reason: format!(
                "the authorization server {} is neither HTTPS nor on this machine; it is not used",
                origin_and_path(&issuer_url)
            ),
        });
    }
    Ok(issuer_url)
}

/// Reads `fetched`, the answer of authorization-server metadata URL `url`
/// for `issuer` (`tried`: the URLs tried so far, this one included): a 4xx
/// is [`Answer::Missing`]; a 5xx or a body that is not the document is an
/// error, and so is a document whose `issuer` is not `issuer`, character
/// for character (RFC 8414 §3.3).
pub(crate) fn server_answer(
    server: &str,
    issuer: &str,
    url: &url::Url,
    fetched: &Fetched,
    tried: &[String],
) -> Result<Answer<ServerMetadata>, AuthError> {
    let discovery = |reason: String| AuthError::Discovery {
        server: server.to_owned(),
        reason,
    };
    if (400..500).contains(&fetched.status) {
        return Ok(Answer::Missing);
    }
    if !fetched.is_success() {
        return Err(discovery(format!(
            "authorization server metadata: {}",
            tried.join(", ")
        )));
    }
    let metadata: ServerMetadata = fetched
        .json()
        .map_err(|reason| discovery(format!("{}: {reason}", origin_and_path(url))))?;
    if metadata.issuer != issuer {
        return Err(discovery(format!(
            "the metadata at {} names issuer {:?}, not {issuer:?}; it is not used",
            origin_and_path(url),
            metadata.issuer
        )));
    }
    Ok(Answer::Document(metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(list: Vec<url::Url>) -> Vec<String> {
        list.into_iter().map(String::from).collect()
    }

    #[test]
    fn resource_metadata_order() {
        let server = url::Url::parse("https://example.com/public/mcp?x=1").unwrap();
        assert_eq!(
            urls(resource_metadata_urls(&server, None)),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            urls(resource_metadata_urls(
                &server,
                Some("https://example.com/.well-known/oauth-protected-resource/public/mcp")
            )),
            vec!["https://example.com/.well-known/oauth-protected-resource/public/mcp"]
        );
        let root = url::Url::parse("https://example.com/").unwrap();
        assert_eq!(
            urls(resource_metadata_urls(&root, None)),
            vec!["https://example.com/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn resource_must_be_the_server_or_a_parent_on_the_same_origin() {
        let server = url::Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(resource_matches("http://localhost:3000/mcp", &server));
        assert!(resource_matches("http://localhost:3000", &server));
        assert!(resource_matches("http://localhost:3000/", &server));
        assert!(!resource_matches("https://evil.example.com/mcp", &server));
        assert!(!resource_matches("http://localhost:3001/mcp", &server));
        assert!(!resource_matches("http://localhost:3000/mc", &server));
        assert!(!resource_matches("http://localhost:3000/mcp/sub", &server));
        assert!(!resource_matches("not a url", &server));
    }

    #[test]
    fn only_https_or_loopback_endpoints() {
        let secure = |u: &str| is_secure_endpoint(&url::Url::parse(u).unwrap());
        assert!(secure("https://auth.example.com/authorize"));
        assert!(secure("http://localhost:3000/token"));
        assert!(secure("http://127.0.0.1:9/x"));
        assert!(secure("http://[::1]:9/x"));
        assert!(!secure("http://auth.example.com/token"));
        assert!(!secure("file:///etc/passwd"));
        assert!(!secure("javascript:alert(1)"));
        assert!(!secure("myapp://callback"));
    }

    #[test]
    fn endpoints_must_be_present_urls_and_secure() {
        let endpoint = |value| secure_endpoint("docs", value, "token_endpoint");
        assert_eq!(
            endpoint(Some("https://as.example.com/token"))
                .unwrap()
                .as_str(),
            "https://as.example.com/token"
        );
        for refused in [None, Some("not a url"), Some("http://as.example.com/token")] {
            let error = endpoint(refused).unwrap_err().to_string();
            assert!(error.contains("server 'docs'"), "{error}");
            assert!(error.contains("token_endpoint"), "{error}");
        }
    }

    #[test]
    fn server_metadata_order() {
        let with_path = url::Url::parse("https://auth.example.com/tenant1").unwrap();
        assert_eq!(
            urls(server_metadata_urls(&with_path)),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let root = url::Url::parse("https://auth.example.com").unwrap();
        assert_eq!(
            urls(server_metadata_urls(&root)),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn pkce_and_auth_methods() {
        let metadata: ServerMetadata = serde_json::from_str(
            r#"{"issuer":"https://a","code_challenge_methods_supported":["plain","S256"]}"#,
        )
        .unwrap();
        assert!(metadata.supports_s256());
        assert!(metadata.supports_auth_method("client_secret_basic"));
        assert!(!metadata.supports_auth_method("none"));
        let bare: ServerMetadata = serde_json::from_str(r#"{"issuer":"https://a"}"#).unwrap();
        assert!(!bare.supports_s256());
    }
}
