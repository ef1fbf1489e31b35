//! [`HttpConfig`]: how to reach one HTTP server (URL, headers, credentials,
//! masker, timeouts and bounds), and the headers it sends with each request.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::credentials::RequestCredentials;
use crate::error::TransportError;
use crate::secret::{ExposeSecret, Masker, SecretString, SecretUrl};
use crate::trace::Tracer;

/// How to reach one HTTP server: [`HttpConfig::new`], then a setter per
/// field. New fields may be added, so the struct cannot be built as a
/// literal outside this crate.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    /// The server's name, for errors and logs.
    pub name: String,
    /// The endpoint URL (it may carry credentials).
    pub url: SecretUrl,
    /// Extra headers sent on every request.
    pub headers: Vec<(String, SecretString)>,
    /// A bearer token sent as `Authorization: Bearer …` on every request.
    pub bearer_token: Option<SecretString>,
    /// Headers computed for each request (an OAuth layer's current token, a
    /// DPoP proof); they override `bearer_token` and `headers` of the same name.
    pub credentials: Option<Arc<dyn RequestCredentials>>,
    /// Masks known secrets in every text this transport passes on from the
    /// server or the HTTP library (error bodies, error messages, logs).
    pub masker: Masker,
    /// Where HTTP events (status, content type, session id, challenges,
    /// redirects, SSE event ids) are reported: the observer hook of the trace.
    pub tracer: Option<Tracer>,
    /// How long one HTTP exchange may take before its response headers arrive.
    pub request_timeout: Duration,
    /// Whether to open the GET stream for server-initiated messages after the legacy handshake.
    pub open_get_stream: bool,
    /// The bound on one JSON body or SSE event.
    pub max_message_len: usize,
    /// The most reconnections of one broken SSE stream.
    pub max_resumptions: u32,
}

impl HttpConfig {
    /// A configuration with defaults for `url`.
    pub fn new(name: impl Into<String>, url: impl Into<SecretUrl>) -> Self {
        Self {
            name: name.into(),
            url: url.into(),
            headers: Vec::new(),
            bearer_token: None,
            credentials: None,
            masker: Masker::default(),
            tracer: None,
            request_timeout: Duration::from_secs(60),
            open_get_stream: true,
            max_message_len: crate::codec::sse::DEFAULT_MAX_EVENT_LEN,
            max_resumptions: 5,
        }
    }

    /// Adds a header sent on every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers
            .push((name.into(), SecretString::from(value.into())));
        self
    }

    /// Sets [`bearer_token`](Self::bearer_token): `Authorization: Bearer …` on every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(SecretString::from(token.into()));
        self
    }

    /// Sets [`credentials`](Self::credentials): headers computed for each request.
    pub fn credentials(mut self, credentials: Arc<dyn RequestCredentials>) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Sets [`masker`](Self::masker): known secrets masked in what is passed on.
    pub fn masker(mut self, masker: Masker) -> Self {
        self.masker = masker;
        self
    }

    /// Sets [`tracer`](Self::tracer): where HTTP events are reported.
    pub fn tracer(mut self, tracer: Tracer) -> Self {
        self.tracer = Some(tracer);
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout): the wait for response headers.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`open_get_stream`](Self::open_get_stream).
    pub fn open_get_stream(mut self, open: bool) -> Self {
        self.open_get_stream = open;
        self
    }

    /// Sets [`max_message_len`](Self::max_message_len): the bound on one body or event.
    pub fn max_message_len(mut self, bytes: usize) -> Self {
        self.max_message_len = bytes;
        self
    }

    /// Sets [`max_resumptions`](Self::max_resumptions).
    pub fn max_resumptions(mut self, resumptions: u32) -> Self {
        self.max_resumptions = resumptions;
        self
    }

    /// The masker of this configuration's own secrets: the URL's userinfo
    /// and query values, every header value, the bearer token.
    pub fn own_masker(&self) -> Masker {
        let mut builder = Masker::builder();
        builder.url(self.url.expose_secret());
        for (_, value) in &self.headers {
            let value = value.expose_secret();
            builder.secret(value);
            if let Some((_, token)) = value.split_once(' ') {
                builder.secret(token);
            }
        }
        if let Some(token) = &self.bearer_token {
            builder.secret(token.expose_secret());
        }
        builder.build()
    }

    /// The configuration with its own secrets joined to its masker; every
    /// transport starts from this.
    pub(crate) fn with_own_secrets_masked(mut self) -> Self {
        self.masker = self.masker.union(&self.own_masker());
        self
    }

    /// The URL with its credentials replaced by `***`, for messages.
    pub fn display_url(&self) -> String {
        self.url.redacted().to_owned()
    }

    /// The configured headers and bearer token, then what `credentials` adds
    /// for this request, marked sensitive so they never reach logs.
    pub(crate) fn credential_headers(
        &self,
        method: &str,
        url: &url::Url,
    ) -> Result<reqwest::header::HeaderMap, TransportError> {
        let mut headers = self.static_credential_headers()?;
        if let Some(credentials) = &self.credentials {
            for (name, mut value) in credentials.headers(method, url) {
                value.set_sensitive(true);
                headers.insert(name, value);
            }
        }
        Ok(headers)
    }

    fn static_credential_headers(&self) -> Result<reqwest::header::HeaderMap, TransportError> {
        use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
        let config_error = |reason: String| TransportError::Config {
            server: self.name.clone(),
            reason,
        };
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| config_error(format!("invalid header name {name:?}")))?;
            let mut value = HeaderValue::from_str(value.expose_secret())
                .map_err(|_| config_error(format!("invalid value for header {name}")))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        if let Some(token) = &self.bearer_token {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
                .map_err(|_| config_error("the bearer token is not a valid header value".into()))?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        Ok(headers)
    }

    /// The server's host and port, for telemetry (never its userinfo).
    pub fn peer(&self) -> crate::transport::Peer {
        match url::Url::parse(self.url.expose_secret()) {
            Ok(url) => crate::transport::Peer::of_url(&url),
            Err(_) => crate::transport::Peer::Unknown,
        }
    }

    pub(crate) fn parsed_url(&self) -> Result<url::Url, TransportError> {
        url::Url::parse(self.url.expose_secret()).map_err(|e| TransportError::Config {
            server: self.name.clone(),
            reason: format!("invalid URL {}: {e}", self.display_url()),
        })
    }
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpConfig")
            .field("name", &self.name)
            .field("url", &self.display_url())
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(k, _)| (k.as_str(), "***"))
                    .collect::<Vec<_>>(),
            )
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "***"))
            .field("credentials", &self.credentials.is_some())
            .field("request_timeout", &self.request_timeout)
            .field("open_get_stream", &self.open_get_stream)
            .finish_non_exhaustive()
    }
}
