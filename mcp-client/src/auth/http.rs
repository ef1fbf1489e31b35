//! The HTTP client of the authorization flow: metadata, registration and
//! token requests. No redirect is followed (a metadata document or a token
//! endpoint that redirects is refused), every body is bounded and every
//! exchange has a timeout.

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::AuthError;

/// The largest metadata, registration or token response read.
const MAX_BODY: usize = 256 * 1024;
/// How long one exchange may take.
const TIMEOUT: Duration = Duration::from_secs(15);

/// An HTTP response, read whole (bounded).
#[derive(Debug)]
pub(crate) struct Fetched {
    /// The status code.
    pub(crate) status: u16,
    /// The response headers.
    pub(crate) headers: reqwest::header::HeaderMap,
    /// The body.
    pub(crate) body: Vec<u8>,
}

impl Fetched {
    /// Whether the status is 2xx.
    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
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

/// The authorization flow's HTTP client. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct AuthHttp {
    client: reqwest::Client,
    server: String,
}

impl AuthHttp {
    /// A client that follows no redirect, for server `server`'s flow.
    pub(crate) fn new(server: &str) -> Result<Self, AuthError> {
        let tls =
            mcpdisco_transport::http::tls::configure(reqwest::Client::builder()).map_err(|e| {
                AuthError::Http {
                    server: server.to_owned(),
                    reason: format!("cannot set up TLS: {e}"),
                }
            })?;
        let client = tls
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| AuthError::Http {
                server: server.to_owned(),
                reason: format!("cannot build the HTTP client: {}", e.without_url()),
            })?;
        Ok(Self {
            client,
            server: server.to_owned(),
        })
    }

    fn error(&self, url: &url::Url, reason: impl std::fmt::Display) -> AuthError {
        AuthError::Http {
            server: self.server.clone(),
            reason: format!("{}: {reason}", origin_and_path(url)),
        }
    }

    /// Sends `request` and reads the response, bounded in size and time.
    pub(crate) async fn send(
        &self,
        url: &url::Url,
        request: reqwest::RequestBuilder,
    ) -> Result<Fetched, AuthError> {
        let exchange = async {
            let mut response = request
                .send()
                .await
                .map_err(|e| self.error(url, mcpdisco_transport::http::error_chain(e)))?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let mut body = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.error(url, mcpdisco_transport::http::error_chain(e)))?
            {
                if body.len() + chunk.len() > MAX_BODY {
                    return Err(self.error(url, format!("the response exceeds {MAX_BODY} bytes")));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Fetched {
                status,
                headers,
                body,
            })
        };
        tokio::time::timeout(TIMEOUT, exchange)
            .await
            .map_err(|_| self.error(url, format!("no response within {TIMEOUT:?}")))?
    }

    /// `GET url` with `Accept: application/json`.
    pub(crate) async fn get(&self, url: &url::Url) -> Result<Fetched, AuthError> {
        let request = self
            .client
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json");
        self.send(url, request).await
    }

    /// `POST url` with `body` as JSON.
    pub(crate) async fn post_json<T: Serialize>(
        &self,
        url: &url::Url,
        body: &T,
    ) -> Result<Fetched, AuthError> {
        let body = serde_json::to_vec(body)
            .map_err(|e| self.error(url, format!("cannot encode the request: {e}")))?;
        let request = self
            .client
            .post(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        self.send(url, request).await
    }

    /// `GET url` whose answer is a redirect: the `Location` it points to.
    /// How a headless client follows an authorization server that approves
    /// on its own (the conformance suite's, a test's).
    pub(crate) async fn redirect_target(&self, url: &url::Url) -> Result<url::Url, AuthError> {
        let request = self.client.get(url.clone());
        let response = tokio::time::timeout(TIMEOUT, request.send())
            .await
            .map_err(|_| self.error(url, format!("no response within {TIMEOUT:?}")))?
            .map_err(|e| self.error(url, mcpdisco_transport::http::error_chain(e)))?;
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| {
                self.error(
                    url,
                    format!("HTTP {} without a redirect", response.status().as_u16()),
                )
            })?;
        url.join(location)
            .map_err(|e| self.error(url, format!("invalid redirect: {e}")))
    }

    /// Executes one request built by the `oauth2` crate.
    pub(crate) async fn execute(
        &self,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, AuthError> {
        let url = url::Url::parse(&request.uri().to_string())
            .map_err(|e| self.error_plain(format!("invalid token endpoint: {e}")))?;
        let builder = self
            .client
            .request(request.method().clone(), url.clone())
            .headers(request.headers().clone())
            .body(request.body().clone());
        let fetched = self.send(&url, builder).await?;
        let mut response = oauth2::HttpResponse::new(fetched.body);
        *response.status_mut() =
            oauth2::http::StatusCode::from_u16(fetched.status).map_err(|e| self.error(&url, e))?;
        *response.headers_mut() = fetched.headers;
        Ok(response)
    }

    fn error_plain(&self, reason: String) -> AuthError {
        AuthError::Http {
            server: self.server.clone(),
            reason,
        }
    }
}

/// The origin and path of a URL, never its query (which may carry a code).
pub(crate) fn origin_and_path(url: &url::Url) -> String {
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}
