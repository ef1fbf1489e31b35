//! [`HttpTransport`]: Streamable HTTP with automatic fallback to the legacy
//! HTTP+SSE transport when the server refuses `initialize` with 400, 404 or 405.

use std::sync::OnceLock;

use async_trait::async_trait;
use mcpdisco_protocol::Message;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::Initialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::body;
use super::client::HttpClient;
use super::config::HttpConfig;
use super::kind::HttpKind;
use super::legacy_sse::LegacySseTransport;
use super::streamable::StreamableHttpTransport;
use crate::error::TransportError;
use crate::inbound::Inbound;
use crate::transport::{Transport, TransportInfo};

/// An HTTP connection that picks its transport by the server's answers.
pub struct HttpTransport {
    config: HttpConfig,
    client: HttpClient,
    kind: HttpKind,
    inbound: mpsc::Sender<Inbound>,
    receiver: tokio::sync::Mutex<mpsc::Receiver<Inbound>>,
    streamable: StreamableHttpTransport,
    legacy: tokio::sync::Mutex<Option<LegacySseTransport>>,
    legacy_ready: OnceLock<()>,
    closing: CancellationToken,
}

impl HttpTransport {
    /// A transport of `kind` for `config`. For [`HttpKind::Sse`] the event stream is opened at once.
    pub async fn connect(
        config: HttpConfig,
        client: &HttpClient,
        kind: HttpKind,
    ) -> Result<Self, TransportError> {
        let config = config.with_own_secrets_masked();
        let (inbound, receiver) = body::inbound_channel();
        let streamable =
            StreamableHttpTransport::with_inbound(config.clone(), client, inbound.clone())?;
        let transport = Self {
            config,
            client: client.clone(),
            kind,
            inbound,
            receiver: tokio::sync::Mutex::new(receiver),
            streamable,
            legacy: tokio::sync::Mutex::new(None),
            legacy_ready: OnceLock::new(),
            closing: CancellationToken::new(),
        };
        if kind == HttpKind::Sse {
            transport.switch_to_legacy().await?;
        }
        Ok(transport)
    }

    /// Whether the legacy HTTP+SSE transport is in use.
    pub fn is_legacy_sse(&self) -> bool {
        self.legacy_ready.get().is_some()
    }

    async fn switch_to_legacy(&self) -> Result<(), TransportError> {
        let mut legacy = self.legacy.lock().await;
        if legacy.is_none() {
            let connected = LegacySseTransport::connect_with_inbound(
                self.config.clone(),
                &self.client,
                self.inbound.clone(),
            )
            .await?;
            *legacy = Some(connected);
            let _ = self.legacy_ready.set(());
            tracing::info!(server = %self.config.name, "using the legacy HTTP+SSE transport");
        }
        Ok(())
    }
}

fn is_initialize(message: &Message) -> bool {
    matches!(message, Message::Request(r) if r.method == Initialize::METHOD)
}

impl HttpTransport {
    /// Sends `message`; with `direct`, returns a request's answer when the
    /// Streamable HTTP POST's body held it alone (see [`Transport::send_request`]).
    async fn send_with(
        &self,
        message: Message,
        direct: bool,
    ) -> Result<Option<Message>, TransportError> {
        if self.is_legacy_sse() {
            let legacy = self.legacy.lock().await;
            return match legacy.as_ref() {
                Some(legacy) => legacy.send_message(message).await.map(|()| None),
                None => Err(TransportError::Closed {
                    server: self.config.name.clone(),
                }),
            };
        }
        let fallback =
            (self.kind == HttpKind::Auto && is_initialize(&message)).then(|| message.clone());
        let sent = if direct {
            self.streamable.send_request_message(message).await
        } else {
            self.streamable.send_message(message).await.map(|()| None)
        };
        match sent {
            Err(TransportError::Http {
                status: 400 | 404 | 405,
                ..
            }) if fallback.is_some() => {
                self.switch_to_legacy().await?;
                let legacy = self.legacy.lock().await;
                match (legacy.as_ref(), fallback) {
                    (Some(legacy), Some(message)) => {
                        legacy.send_message(message).await.map(|()| None)
                    }
                    _ => Err(TransportError::Closed {
                        server: self.config.name.clone(),
                    }),
                }
            }
            other => other,
        }
    }
}

#[async_trait]
impl Transport for HttpTransport {
    async fn send(&self, message: Message) -> Result<(), TransportError> {
        self.send_with(message, false).await.map(drop)
    }

    async fn send_request(&self, request: Message) -> Result<Option<Message>, TransportError> {
        self.send_with(request, true).await
    }

    async fn receive(&self) -> Result<Option<Inbound>, TransportError> {
        tokio::select! {
            biased;
            () = self.closing.cancelled() => Ok(None),
            message = async { self.receiver.lock().await.recv().await } => Ok(message),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.closing.cancel();
        if let Some(legacy) = self.legacy.lock().await.as_ref() {
            legacy.close_connection();
        }
        self.streamable.close_connection().await
    }

    fn describe(&self) -> String {
        let kind = if self.is_legacy_sse() { "sse" } else { "http" };
        format!("{kind}: {}", self.config.display_url())
    }

    fn info(&self) -> &dyn TransportInfo {
        self
    }
}

impl TransportInfo for HttpTransport {
    fn peer(&self) -> crate::transport::Peer {
        self.config.peer()
    }

    fn session_id(&self) -> Option<String> {
        if self.is_legacy_sse() {
            return None;
        }
        self.streamable.session_id()
    }
}
