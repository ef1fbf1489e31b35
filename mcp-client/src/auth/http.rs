//! The HTTP seam of the authorization flow: [`AuthHttp`] sends one
//! [`AuthRequest`] (a metadata GET, a registration POST, a token request)
//! and answers its [`Fetched`] response, read whole. The flow knows nothing
//! else of HTTP; production sends through reqwest
//! ([`ReqwestHttp`](super::reqwest_http::ReqwestHttp): no redirect followed,
//! bounded bodies, timeouts), tests answer from a script.

use async_trait::async_trait;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::AuthError;

/// Sends the authorization flow's requests.
#[async_trait]
pub(crate) trait AuthHttp: Send + Sync + std::fmt::Debug {
    /// Sends `request` and reads the whole response. A response is never a
    /// redirect followed; a failed exchange (connection, timeout, a body
    /// past the bound) is an [`AuthError::Http`].
    async fn send(&self, request: AuthRequest) -> Result<Fetched, AuthError>;
}

/// The method of an [`AuthRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    /// `GET`: metadata documents.
    Get,
    /// `POST`: registrations and token requests.
    Post,
}

impl Method {
    /// The method's name on the wire.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// One request of the flow. Its `Debug` shows the method and the URL's
/// origin and path only: the body and headers carry codes and secrets.
#[derive(Clone)]
pub(crate) struct AuthRequest {
    /// The method.
    pub(crate) method: Method,
    /// Where it goes.
    pub(crate) url: url::Url,
    /// Its headers, names in lower case.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// Its body (empty for a `GET`).
    pub(crate) body: Vec<u8>,
}

impl std::fmt::Debug for AuthRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method.as_str(), origin_and_path(&self.url))
    }
}

impl AuthRequest {
    /// `GET url` with `Accept: application/json`.
    pub(crate) fn get(url: url::Url) -> Self {
        Self {
            method: Method::Get,
            url,
            headers: vec![("accept", "application/json".to_owned())],
            body: Vec::new(),
        }
    }

    /// `POST url` with `body` as JSON.
    pub(crate) fn post_json<T: Serialize>(url: url::Url, body: &T) -> Result<Self, String> {
        let body =
            serde_json::to_vec(body).map_err(|e| format!("cannot encode the request: {e}"))?;
        Ok(Self {
            method: Method::Post,
            url,
            headers: vec![
                ("accept", "application/json".to_owned()),
                ("content-type", "application/json".to_owned()),
            ],
            body,
        })
    }

    /// `POST url` with `params` form-encoded.
    pub(crate) fn post_form(url: url::Url, params: &[(&str, String)]) -> Self {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter().map(|(name, value)| (*name, value.as_str())))
            .finish();
        Self {
            method: Method::Post,
            url,
            headers: vec![
                ("accept", "application/json".to_owned()),
                (
                    "content-type",
                    "application/x-www-form-urlencoded".to_owned(),
                ),
            ],
            body: body.into_bytes(),
        }
    }

    /// The value of header `name` (lower case), if set.
    #[cfg(test)]
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }

    /// Sets header `name` (lower case) to `value`, replacing an earlier one.
    pub(crate) fn set_header(&mut self, name: &'static str, value: String) {
        self.headers.retain(|(key, _)| *key != name);
        self.headers.push((name, value));
    }

    /// The form parameters of the body, decoded (for a form POST).
    #[cfg(test)]
    pub(crate) fn form(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(&self.body)
            .into_owned()
            .collect()
    }
}

/// An HTTP response, read whole (bounded). Its `Debug` shows the status
/// and the body's length only: a token response carries tokens.
#[derive(Clone, Default)]
pub(crate) struct Fetched {
    /// The status code.
    pub(crate) status: u16,
    /// The response headers, names in lower case. Only DPoP reads one (its
    /// nonce), under `oauth-extensions`.
    #[cfg_attr(not(feature = "oauth-extensions"), allow(dead_code))]
    pub(crate) headers: Vec<(String, String)>,
    /// The body.
    pub(crate) body: Vec<u8>,
}

impl std::fmt::Debug for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {} ({} bytes)", self.status, self.body.len())
    }
}

impl Fetched {
    /// Whether the status is 2xx.
    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The value of header `name` (lower case), if present.
    #[cfg_attr(not(feature = "oauth-extensions"), allow(dead_code))]
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as `T`.
    pub(crate) fn json<T: DeserializeOwned>(&self) -> Result<T, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("not the expected JSON: {e}"))
    }

    /// The start of the body, for an error message.
    pub(crate) fn preview(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let text: String = text.chars().take(300).collect();
        text.replace(['\n', '\r'], " ")
    }
}

/// The origin and path of a URL, never its query (which may carry a code).
pub(crate) fn origin_and_path(url: &url::Url) -> String {
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_shows_no_query_body_or_header() {
        let url = url::Url::parse("https://as.example.com/token?code=secret-code").unwrap();
        let mut request = AuthRequest::post_form(url, &[("client_secret", "hush".to_owned())]);
        request.set_header("authorization", "Basic hush".to_owned());
        let shown = format!("{request:?}");
        assert_eq!(shown, "POST https://as.example.com/token");
        assert_eq!(
            request.form(),
            vec![("client_secret".into(), "hush".into())]
        );
        assert_eq!(request.header("authorization"), Some("Basic hush"));
    }
}
