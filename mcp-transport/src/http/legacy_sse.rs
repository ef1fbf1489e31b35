//! The 2024-11-05 HTTP+SSE transport: GET an event stream whose first
//! `endpoint` event names the URL to POST messages to; answers arrive on the
//! stream as `message` events.

use crate::sync::Mutex;

use async_trait::async_trait;
use mcpdisco_protocol::Message;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use super::body::{self, SseStream};
use super::client::HttpClient;
use super::config::HttpConfig;
use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::transport::{Transport, TransportInfo};

/// A legacy HTTP+SSE connection.
pub struct LegacySseTransport {
    config: HttpConfig,
    client: HttpClient,
    endpoint: url::Url,
    headers: HeaderMap,
    reader: Mutex<Option<AbortHandle>>,
    closing: CancellationToken,
    receiver: Option<tokio::sync::Mutex<mpsc::Receiver<Inbound>>>,
}

impl LegacySseTransport {
    /// Opens the event stream and waits (up to the request timeout) for the `endpoint` event.
    pub async fn connect(config: HttpConfig, client: &HttpClient) -> Result<Self, TransportError> {
        let (sender, receiver) = body::inbound_channel();
        let mut transport = Self::connect_with_inbound(config, client, sender).await?;
        transport.receiver = Some(tokio::sync::Mutex::new(receiver));
        Ok(transport)
    }

    pub(crate) async fn connect_with_inbound(
        config: HttpConfig,
        client: &HttpClient,
        inbound: mpsc::Sender<Inbound>,
    ) -> Result<Self, TransportError> {
        let config = config.with_own_secrets_masked();
        let url = config.parsed_url()?;
        let headers = config.credential_headers("GET", &url)?;
        let server = config.name.clone();
        let timeout = config.request_timeout;
        let request = client
            .reqwest()
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream");
        let mut response = match tokio::time::timeout(timeout, request.send()).await {
            Err(_) => {
                return Err(TransportError::Timeout {
                    server,
                    after: timeout,
                });
            }
            Ok(Err(error)) => {
                return Err(body::request_error(&config, error, timeout));
            }
            Ok(Ok(response)) => response,
        };
        if !response.status().is_success() || !body::is_event_stream(&response) {
            let status = response.status();
            let response_headers = response.headers().clone();
            let bytes = body::read_bounded(&config, &mut response, body::ERROR_BODY_LIMIT)
                .await
                .unwrap_or_default();
            if status.is_success() {
                return Err(TransportError::Protocol {
                    server,
                    reason: "the SSE endpoint did not answer with text/event-stream".into(),
                });
            }
            return Err(body::status_error(
                &config,
                status,
                &response_headers,
                &bytes,
            ));
        }
        let (endpoint_tx, endpoint_rx) = oneshot::channel();
        let mut stream = SseStream::new(response, config.max_message_len);
        let reader_server = server.clone();
        let reader_config = config.clone();
        let reader = tokio::spawn(async move {
            let mut endpoint_tx = Some(endpoint_tx);
            loop {
                match stream.next().await {
                    Ok(Some(event)) if event.event.as_deref() == Some("endpoint") => {
                        if let Some(tx) = endpoint_tx.take() {
                            let _ = tx.send(event.data);
                        }
                    }
                    Ok(Some(event)) => {
                        if event.data.is_empty() {
                            continue;
                        }
                        for message in body::parse_messages(&reader_config, event.data.into()) {
                            if inbound.send(Inbound::Message(message)).await.is_err() {
                                return;
                            }
                        }
                    }
                    Ok(None) => return,
                    Err(error) => {
                        tracing::debug!(server = %reader_server, %error, "SSE stream broke off");
                        return;
                    }
                }
            }
        });
        let endpoint = match tokio::time::timeout(timeout, endpoint_rx).await {
            Ok(Ok(endpoint)) => endpoint,
            _ => {
                reader.abort();
                return Err(TransportError::Protocol {
                    server,
                    reason: "the SSE stream sent no endpoint event".into(),
                });
            }
        };
        let endpoint = url
            .join(endpoint.trim())
            .map_err(|e| TransportError::Protocol {
                server: server.clone(),
                reason: format!("the endpoint event is not a URL: {e}"),
            })?;
        if endpoint.origin() != url.origin() {
            reader.abort();
            return Err(TransportError::Protocol {
                server,
                reason: "the endpoint event points to another origin; refusing to send credentials there".into(),
            });
        }
        Ok(Self {
            config,
            client: client.clone(),
            endpoint,
            headers,
            reader: Mutex::new(Some(reader.abort_handle())),
            closing: CancellationToken::new(),
            receiver: None,
        })
    }

    pub(crate) async fn send_message(&self, message: Message) -> Result<(), TransportError> {
        if self.closing.is_cancelled() {
            return Err(TransportError::Closed {
                server: self.config.name.clone(),
            });
        }
        let request = self
            .client
            .reqwest()
            .post(self.endpoint.clone())
            .headers(
                self.config
                    .credential_headers("POST", &self.endpoint)
                    .unwrap_or_else(|_| self.headers.clone()),
            )
            .header(CONTENT_TYPE, "application/json")
            .body(message.to_vec());
        let timeout = self.config.request_timeout;
        let server = &self.config.name;
        let mut response = match tokio::time::timeout(timeout, request.send()).await {
            Err(_) => {
                return Err(TransportError::Timeout {
                    server: server.clone(),
                    after: timeout,
                });
            }
            Ok(Err(error)) => {
                return Err(body::request_error(&self.config, error, timeout));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = body::read_bounded(&self.config, &mut response, body::ERROR_BODY_LIMIT)
            .await
            .unwrap_or_default();
        if status.is_success() {
            Ok(())
        } else {
            Err(body::status_error(&self.config, status, &headers, &bytes))
        }
    }

    pub(crate) fn close_connection(&self) {
        self.closing.cancel();
        if let Some(reader) = self.reader.lock().take() {
            reader.abort();
        }
    }
}

impl Drop for LegacySseTransport {
    fn drop(&mut self) {
        self.close_connection();
    }
}

#[async_trait]
impl Transport for LegacySseTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        self.send_message(message).await
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        let Some(receiver) = &self.receiver else {
            return Ok(None);
        };
        tokio::select! {
            biased;
            () = self.closing.cancelled() => Ok(None),
            message = async { receiver.lock().await.recv().await } => Ok(message),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.close_connection();
        Ok(())
    }

    fn describe(&self) -> String {
        format!("sse: {}", self.config.display_url())
    }

    fn info(&self) -> &dyn TransportInfo {
        self
    }
}

impl TransportInfo for LegacySseTransport {
    fn peer(&self) -> crate::transport::Peer {
        self.config.peer()
    }
}
