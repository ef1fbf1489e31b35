//! [`ReqwestHttp`]: the production [`AuthHttp`], over reqwest. No redirect
//! is followed (a metadata document or a token endpoint that redirects is
//! refused), every body is bounded and every exchange has a timeout.

use std::time::Duration;

use async_trait::async_trait;

use super::http::{AuthHttp, AuthRequest, Fetched, Method, origin_and_path};
use crate::error::AuthError;

/// The largest metadata, registration or token response read.
const MAX_BODY: usize = 256 * 1024;
/// How long one exchange may take.
const TIMEOUT: Duration = Duration::from_secs(15);
/// Headers whose values are secrets (kept out of reqwest's `Debug`).
const SENSITIVE: [&str; 2] = ["authorization", "dpop"];

/// The authorization flow's HTTP client. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct ReqwestHttp {
    client: reqwest::Client,
    server: String,
}

impl ReqwestHttp {
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

    /// The reqwest request of `request`.
    fn build(&self, request: AuthRequest) -> Result<reqwest::RequestBuilder, AuthError> {
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &request.headers {
            let mut value = reqwest::header::HeaderValue::from_str(value)
                .map_err(|e| self.error(&request.url, format!("header {name}: {e}")))?;
            value.set_sensitive(SENSITIVE.contains(name));
            headers.insert(*name, value);
        }
        let builder = match request.method {
            Method::Get => self.client.get(request.url),
            Method::Post => self.client.post(request.url).body(request.body),
        };
        Ok(builder.headers(headers))
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
}

#[async_trait]
impl AuthHttp for ReqwestHttp {
    /// Sends `request` and reads the response, bounded in size and time.
    async fn send(&self, request: AuthRequest) -> Result<Fetched, AuthError> {
        let url = request.url.clone();
        let builder = self.build(request)?;
        let exchange = async {
            let mut response = builder
                .send()
                .await
                .map_err(|e| self.error(&url, mcpdisco_transport::http::error_chain(e)))?;
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
                })
                .collect();
            let mut body = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.error(&url, mcpdisco_transport::http::error_chain(e)))?
            {
                if body.len() + chunk.len() > MAX_BODY {
                    return Err(self.error(&url, format!("the response exceeds {MAX_BODY} bytes")));
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
            .map_err(|_| self.error(&url, format!("no response within {TIMEOUT:?}")))?
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A server on 127.0.0.1 that reads one request and answers `answer`
    /// (head and body); its handle yields the request as received.
    async fn one_answer(answer: Vec<u8>) -> (url::Url, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url =
            url::Url::parse(&format!("http://{}/token", listener.local_addr().unwrap())).unwrap();
        let served = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut received = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                let read = stream.read(&mut buffer).await.unwrap();
                received.extend_from_slice(&buffer[..read]);
                let text = String::from_utf8_lossy(&received).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text[..end]
                        .lines()
                        .find_map(|line| {
                            let (name, value) = line.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    if received.len() >= end + 4 + length || read == 0 {
                        break;
                    }
                }
            }
            stream.write_all(&answer).await.unwrap();
            stream.shutdown().await.ok();
            String::from_utf8_lossy(&received).to_string()
        });
        (url, served)
    }

    #[tokio::test]
    async fn a_request_goes_out_whole_and_its_answer_comes_back() {
        let body = b"{\"ok\":true}";
        let mut answer = format!(
            "HTTP/1.1 200 OK\r\nDPoP-Nonce: n1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        answer.extend_from_slice(body);
        let (url, served) = one_answer(answer).await;
        let mut request = AuthRequest::post_form(url, &[("grant_type", "refresh_token".into())]);
        request.set_header("authorization", "Basic secret".into());
        let fetched = ReqwestHttp::new("docs")
            .unwrap()
            .send(request)
            .await
            .unwrap();
        assert_eq!(fetched.status, 200);
        assert_eq!(fetched.header("dpop-nonce"), Some("n1"));
        assert_eq!(fetched.body, body);
        let received = served.await.unwrap().to_ascii_lowercase();
        assert!(received.starts_with("post /token "), "{received}");
        assert!(
            received.contains("authorization: basic secret"),
            "{received}"
        );
        assert!(
            received.contains("content-type: application/x-www-form-urlencoded"),
            "{received}"
        );
        assert!(received.ends_with("grant_type=refresh_token"), "{received}");
    }

    #[tokio::test]
    async fn a_redirect_is_answered_not_followed() {
        let answer = b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        let (url, _) = one_answer(answer.to_vec()).await;
        let fetched = ReqwestHttp::new("docs")
            .unwrap()
            .send(AuthRequest::get(url))
            .await
            .unwrap();
        assert_eq!(fetched.status, 302);
    }

    #[tokio::test]
    async fn a_body_past_the_bound_is_an_error() {
        let mut answer = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            MAX_BODY + 1
        )
        .into_bytes();
        answer.extend(std::iter::repeat_n(b'x', MAX_BODY + 1));
        let (url, _) = one_answer(answer).await;
        let refused = ReqwestHttp::new("docs")
            .unwrap()
            .send(AuthRequest::get(url))
            .await
            .unwrap_err()
            .to_string();
        assert!(refused.contains("server 'docs'"), "{refused}");
        assert!(refused.contains("exceeds"), "{refused}");
    }
}
