//! The interactive step of the authorization code grant: a user approves at
//! the authorization URL and the browser comes back to the redirect URI.
//! A host implements [`AuthProvider`] to run it its own way (an IDE opening
//! its own tab); [`LoopbackBrowser`] is the command line's way;
//! [`HeadlessRedirect`] follows an authorization server that approves on
//! its own (tests, the conformance suite).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::reqwest_http::ReqwestHttp;
use crate::error::AuthError;

/// Runs the user's part of an authorization.
#[async_trait]
pub trait AuthProvider: Send + Sync + std::fmt::Debug {
    /// Prepares to receive one redirect for server `server` (binds a port,
    /// say) and says at which redirect URI.
    async fn begin(&self, server: &str) -> Result<Box<dyn PendingAuthorization>, AuthError>;
}

/// One authorization in progress.
#[async_trait]
pub trait PendingAuthorization: Send {
    /// The redirect URI the authorization server must send the browser back to.
    fn redirect_uri(&self) -> String;
    /// Shows `authorization_url` to the user and returns the full URL the
    /// browser was redirected to (with `code`, `state`, maybe `iss` or `error`).
    async fn finish(self: Box<Self>, authorization_url: url::Url) -> Result<url::Url, AuthError>;
}

/// Follows the authorization server's redirect with an HTTP GET instead of a
/// browser: for servers that approve without a user.
#[derive(Debug, Clone)]
pub struct HeadlessRedirect {
    redirect_uri: String,
}

impl HeadlessRedirect {
    /// A provider that claims `redirect_uri` (nothing listens there: the
    /// redirect is read, not followed).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
        }
    }
}

struct HeadlessPending {
    redirect_uri: String,
    http: ReqwestHttp,
}

#[async_trait]
impl AuthProvider for HeadlessRedirect {
    async fn begin(&self, server: &str) -> Result<Box<dyn PendingAuthorization>, AuthError> {
        Ok(Box::new(HeadlessPending {
            redirect_uri: self.redirect_uri.clone(),
            http: ReqwestHttp::new(server)?,
        }))
    }
}

#[async_trait]
impl PendingAuthorization for HeadlessPending {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    async fn finish(self: Box<Self>, authorization_url: url::Url) -> Result<url::Url, AuthError> {
        self.http.redirect_target(&authorization_url).await
    }
}

/// What [`LoopbackBrowser`] does with the authorization URL.
pub type OpenUrl = Arc<dyn Fn(&url::Url) + Send + Sync>;

/// Listens on `127.0.0.1` on a random port for the redirect, after showing
/// the authorization URL through `open` (a browser, or a printed line).
#[derive(Clone)]
pub struct LoopbackBrowser {
    open: OpenUrl,
    wait: Duration,
}

impl std::fmt::Debug for LoopbackBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackBrowser")
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl LoopbackBrowser {
    /// A provider that calls `open` with the authorization URL and waits up
    /// to `wait` for the browser to come back.
    pub fn new(open: OpenUrl, wait: Duration) -> Self {
        Self { open, wait }
    }
}

struct LoopbackPending {
    server: String,
    listener: tokio::net::TcpListener,
    redirect_uri: String,
    open: OpenUrl,
    wait: Duration,
}

/// The path the redirect comes back to.
const CALLBACK_PATH: &str = "/callback";
/// The largest request head read from the browser.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

#[async_trait]
impl AuthProvider for LoopbackBrowser {
    async fn begin(&self, server: &str) -> Result<Box<dyn PendingAuthorization>, AuthError> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| AuthError::Unsupported {
                server: server.to_owned(),
                reason: format!("cannot listen on 127.0.0.1 for the redirect: {e}"),
            })?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthError::Unsupported {
                server: server.to_owned(),
                reason: format!("cannot read the redirect port: {e}"),
            })?
            .port();
        Ok(Box::new(LoopbackPending {
            server: server.to_owned(),
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            open: Arc::clone(&self.open),
            wait: self.wait,
        }))
    }
}

#[async_trait]
impl PendingAuthorization for LoopbackPending {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    async fn finish(self: Box<Self>, authorization_url: url::Url) -> Result<url::Url, AuthError> {
        (self.open)(&authorization_url);
        let server = self.server.clone();
        // Only the redirect of this authorization ends the wait (its state).
        let expected_state = authorization_url
            .query_pairs()
            .find(|(key, _)| key == "state")
            .map(|(_, value)| value.into_owned());
        let waited = tokio::time::timeout(self.wait, async {
            loop {
                let Ok((mut stream, _)) = self.listener.accept().await else {
                    continue;
                };
                let Some(target) = read_request_target(&mut stream).await else {
                    continue;
                };
                let Ok(url) = url::Url::parse(&format!("http://127.0.0.1{target}")) else {
                    continue;
                };
                let state = url
                    .query_pairs()
                    .find(|(key, _)| key == "state")
                    .map(|(_, value)| value.into_owned());
                if url.path() == CALLBACK_PATH && expected_state.is_some() && state != expected_state {
                    let _ = stream
                        .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                    continue;
                }
                if url.path() != CALLBACK_PATH {
                    let _ = stream
                        .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                    continue;
                }
                let page = "<!doctype html><title>mcp-cli</title><p>You can close this tab and return to the terminal.</p>";
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
                return url;
            }
        })
        .await;
        waited.map_err(|_| AuthError::Rejected {
            server,
            reason: format!(
                "no redirect came back within {}s; run the login again",
                self.wait.as_secs()
            ),
        })
    }
}

/// The request target of an HTTP/1 request line, read within a bound and a timeout.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_HEAD {
            let n = stream.read(&mut buffer).await.ok()?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buffer[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .ok()??;
    let text = String::from_utf8_lossy(&head);
    let line = text.lines().next()?;
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?, parts.next()?);
    (method == "GET" && target.starts_with('/')).then(|| target.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn loopback_returns_the_callback_url_and_answers_the_browser() {
        let seen = Arc::new(mcpdisco_transport::sync::Mutex::new(None));
        let record = Arc::clone(&seen);
        let provider = LoopbackBrowser::new(
            Arc::new(move |url: &url::Url| *record.lock() = Some(url.to_string())),
            Duration::from_secs(10),
        );
        let pending = provider.begin("s").await.unwrap();
        let redirect = pending.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:"));
        let browser = {
            let redirect = redirect.clone();
            tokio::spawn(async move {
                let addr = redirect
                    .trim_start_matches("http://")
                    .trim_end_matches(CALLBACK_PATH)
                    .to_owned();
                let mut stray = tokio::net::TcpStream::connect(&addr).await.unwrap();
                stray
                    .write_all(b"GET /favicon.ico HTTP/1.1\r\n\r\n")
                    .await
                    .unwrap();
                // Another authorization's redirect (a wrong state) does not end the wait.
                let mut forged = tokio::net::TcpStream::connect(&addr).await.unwrap();
                forged
                    .write_all(b"GET /callback?code=evil&state=other HTTP/1.1\r\n\r\n")
                    .await
                    .unwrap();
                let mut refused = String::new();
                forged.read_to_string(&mut refused).await.unwrap();
                assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
                let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
                stream
                    .write_all(b"GET /callback?code=abc&state=xyz HTTP/1.1\r\nHost: x\r\n\r\n")
                    .await
                    .unwrap();
                let mut answer = String::new();
                stream.read_to_string(&mut answer).await.unwrap();
                answer
            })
        };
        let url = pending
            .finish(url::Url::parse("https://as.example/authorize?x=1&state=xyz").unwrap())
            .await
            .unwrap();
        assert_eq!(url.query(), Some("code=abc&state=xyz"));
        assert!(browser.await.unwrap().starts_with("HTTP/1.1 200 OK"));
        assert_eq!(
            seen.lock().as_deref(),
            Some("https://as.example/authorize?x=1&state=xyz")
        );
    }
}
