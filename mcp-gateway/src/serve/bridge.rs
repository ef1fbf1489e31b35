//! Requests from servers to the client (`sampling/createMessage`,
//! `elicitation/create`, `roots/list`), passed on to the gateway's client.
//!
//! A server's request goes to the client whose call that server is serving
//! (the newest such call, when there are several), provided that client
//! declared the capability; otherwise to the newest connected legacy client
//! that declared it (`roots/list` often comes outside any call). A legacy
//! client is asked over its connection; a modern request is answered
//! `input_required` and the question waits for the client's retry
//! ([`super::input`]). Nobody to ask is -32601, as if the gateway had not
//! declared the capability. A client that does not answer within the
//! gateway's `client_request_timeout` is an error to the server.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{CreateMessage, Elicit, ListRoots};
use mcpdisco_protocol::types::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    ListRootsResult, MetaParams,
};
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use mcpdisco_transport::sync::Mutex;
use tokio::sync::mpsc;
use tokio::time::Instant;

use self::records::CallRecords;
use super::client::ClientLink;
use super::input::{self, InputAsk};
use crate::supervisor::HandlerFactory;
use mcpdisco_client::session::ClientHandler;

mod records;

/// Who is waiting on a call, and how to ask them.
#[derive(Clone)]
pub(crate) enum Caller {
    /// A legacy client, asked over its connection.
    Connection(Arc<ClientLink>),
    /// A modern request, asked through `input_required`.
    Input {
        /// Questions for the request's driver.
        asks: mpsc::Sender<InputAsk>,
        /// What the request's `_meta` declared.
        capabilities: Arc<ClientCapabilities>,
    },
}

/// The same caller: the same client connection, or the same modern
/// request's question channel.
impl PartialEq for Caller {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Connection(one), Self::Connection(other)) => Arc::ptr_eq(one, other),
            (Self::Input { asks: one, .. }, Self::Input { asks: other, .. }) => {
                one.same_channel(other)
            }
            _ => false,
        }
    }
}

impl Caller {
    fn declares(&self, method: &str) -> bool {
        match self {
            Self::Connection(link) => link.capabilities().allow_request(method),
            Self::Input { capabilities, .. } => capabilities.allow_request(method),
        }
    }
}

/// Routes servers' requests to the gateway's clients.
pub(crate) struct Bridge {
    calls: Mutex<CallRecords<Caller>>,
    clients: Mutex<Vec<Weak<ClientLink>>>,
    seq: AtomicU64,
    timeout: Duration,
}

/// Keeps a call on record while it runs (and, ended, for its linger).
pub(crate) struct CallGuard {
    bridge: Arc<Bridge>,
    seq: u64,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.bridge.calls.lock().end(self.seq, Instant::now());
    }
}

impl Bridge {
    /// A bridge whose clients get `timeout` to answer.
    pub(crate) fn new(timeout: Duration) -> Self {
        Self {
            calls: Mutex::new(CallRecords::default()),
            clients: Mutex::new(Vec::new()),
            seq: AtomicU64::new(0),
            timeout,
        }
    }

    /// The handlers of the supervised servers' sessions.
    pub(crate) fn handlers(self: &Arc<Self>) -> HandlerFactory {
        let bridge = Arc::downgrade(self);
        Arc::new(move |server: &str| {
            Arc::new(ServerHandler {
                server: server.to_owned(),
                bridge: bridge.clone(),
            }) as Arc<dyn ClientHandler>
        })
    }

    /// Records that `caller` waits on a call to `server`, until the guard drops.
    pub(crate) fn enter(self: &Arc<Self>, server: &str, caller: Caller) -> CallGuard {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        self.calls.lock().enter(seq, server, caller, Instant::now());
        CallGuard {
            bridge: Arc::clone(self),
            seq,
        }
    }

    /// A connected client, asked when no call of it is running.
    pub(crate) fn add_client(&self, link: &Arc<ClientLink>) {
        let mut clients = self.clients.lock();
        clients.retain(|client| client.strong_count() > 0);
        clients.push(Arc::downgrade(link));
    }

    /// The connected clients.
    pub(crate) fn clients(&self) -> Vec<Arc<ClientLink>> {
        self.clients
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// The legacy clients with a call to `server` in progress (or just
    /// ended: its server's last log messages may still be on their way), each once.
    pub(crate) fn legacy_callers(&self, server: &str) -> Vec<Arc<ClientLink>> {
        let mut callers: Vec<Arc<ClientLink>> = Vec::new();
        for call in self
            .calls
            .lock()
            .newest_first(Instant::now())
            .filter(|call| call.server == server)
        {
            if let Caller::Connection(link) = &call.caller
                && !callers.iter().any(|known| Arc::ptr_eq(known, link))
            {
                callers.push(Arc::clone(link));
            }
        }
        callers
    }

    /// Asks the right client to answer `server`'s request `M`.
    async fn forward<M: RequestMethod>(
        &self,
        server: &str,
        params: M::Params,
    ) -> Result<M::Result, ErrorObject> {
        let method = M::METHOD;
        let caller = self
            .calls
            .lock()
            .newest_first(Instant::now())
            .find(|call| !call.ended && call.server == server && call.caller.declares(method))
            .map(|call| call.caller.clone())
            .or_else(|| {
                self.clients
                    .lock()
                    .iter()
                    .rev()
                    .filter_map(Weak::upgrade)
                    .find(|link| link.is_legacy() && link.capabilities().allow_request(method))
                    .map(Caller::Connection)
            });
        let Some(caller) = caller else {
            return Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("{method}: no client of the gateway declared this capability"),
            ));
        };
        let answer = match caller {
            Caller::Connection(link) => {
                tokio::time::timeout(self.timeout, link.request::<M>(&params)).await
            }
            Caller::Input { asks, .. } => {
                tokio::time::timeout(self.timeout, input::ask::<M>(&asks, &params)).await
            }
        };
        answer.unwrap_or_else(|_| {
            Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "{method}: the gateway's client did not answer within {:?}",
                    self.timeout
                ),
            ))
        })
    }
}

/// The handler of one server's sessions.
struct ServerHandler {
    server: String,
    bridge: Weak<Bridge>,
}

impl ServerHandler {
    /// Passes the server's request `M` on to the right client, typed both
    /// ways (the client's answer is read into `M`'s result).
    async fn forward<M: RequestMethod>(&self, params: M::Params) -> Result<M::Result, ErrorObject> {
        let Some(bridge) = self.bridge.upgrade() else {
            return Err(ErrorObject::method_not_found(M::METHOD));
        };
        bridge.forward::<M>(&self.server, params).await
    }
}

#[async_trait]
impl ClientHandler for ServerHandler {
    async fn list_roots(&self, params: MetaParams) -> Result<ListRootsResult, ErrorObject> {
        self.forward::<ListRoots>(params).await
    }

    async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        self.forward::<CreateMessage>(params).await
    }

    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.forward::<Elicit>(params).await
    }
}
