//! The runner of the session store in Redis: it feeds [`FleetState`] the
//! events of this replica (through the transport's [`SessionRelay`] and
//! the gateway's log levels) and of the fleet (its pub/sub channel), and
//! performs the actions: writes in Redis, and deliveries, endings and
//! levels on this replica's connections.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use futures::StreamExt as _;
use mcpdisco_protocol::Message;
use mcpdisco_transport::server::http::session_relay::{SessionDoor, SessionKey, SessionRelay};
use mcpdisco_transport::sync::Mutex;
use tokio::sync::mpsc;

use super::fleet_event::Envelope;
use super::fleet_state::{Action, Event, FleetState};
use super::{SessionHooks, SharedSessions};
use crate::limits::LimitError;
use crate::limits::StoreState;
use crate::limits::redis_buckets::StoreClient;

/// The channel every replica listens on.
const CHANNEL: &str = "mcp-gateway:session-events";
/// The keys of deleted sessions, and of log levels.
const DELETED_PREFIX: &str = "mcp-gateway:session:deleted:";
const LEVEL_PREFIX: &str = "mcp-gateway:session:level:";
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// How long one command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_millis(500);
/// How long a question asked on a request's way may take.
const QUERY_TIMEOUT: Duration = Duration::from_millis(250);
/// Writes waiting for the runner, at most (more are dropped).
const QUEUE: usize = 1024;

/// The session store of a fleet in one Redis database.
pub struct SessionStore {
    store: StoreClient,
    /// This replica, to skip its own events.
    replica: u64,
    /// How long a log level is kept (the ids' max age).
    max_age: Duration,
    state: Mutex<FleetState>,
    doors: Mutex<Vec<SessionDoor>>,
    hooks: Mutex<Option<Arc<dyn SessionHooks>>>,
    connection: Mutex<Option<redis::aio::MultiplexedConnection>>,
    writes: mpsc::Sender<Action>,
    queued: Mutex<Option<mpsc::Receiver<Action>>>,
}

impl std::fmt::Debug for SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionStore")
            .field("url", &self.store.shown)
            .finish_non_exhaustive()
    }
}

impl SessionStore {
    /// The store at `url` (`redis://[user:password@]HOST:PORT[/DB]`) for
    /// session ids of `max_age` at most. Nothing is connected until
    /// [`start`](Self::start).
    pub fn open(url: &str, max_age: Duration) -> Result<Arc<Self>, LimitError> {
        let store = StoreClient::open(url)?;
        let (writes, queued) = mpsc::channel(QUEUE);
        Ok(Arc::new(Self {
            store,
            replica: fastrand::u64(..),
            max_age,
            state: Mutex::new(FleetState::default()),
            doors: Mutex::new(Vec::new()),
            hooks: Mutex::new(None),
            connection: Mutex::new(None),
            writes,
            queued: Mutex::new(Some(queued)),
        }))
    }

    /// Starts the runner (once; later calls do nothing), on the current
    /// runtime, until it stops.
    pub fn start(self: &Arc<Self>) {
        let Some(queued) = self.queued.lock().take() else {
            return;
        };
        tokio::spawn(run(Arc::downgrade(self), queued));
    }

    /// The store's URL, its password masked.
    pub fn describe(&self) -> &str {
        &self.store.shown
    }

    /// `Up` while Redis answers, else `Degraded` (deletions and
    /// notifications stay on this replica).
    pub fn state(&self) -> StoreState {
        if self.state.lock().is_connected() {
            StoreState::Up
        } else {
            StoreState::Degraded
        }
    }

    /// The store as the HTTP server's relay.
    pub fn relay(self: &Arc<Self>) -> Arc<dyn SessionRelay> {
        Arc::clone(self) as Arc<dyn SessionRelay>
    }

    /// Sets what the store does to this replica's connections on word from the fleet.
    pub(crate) fn hooks(&self, hooks: Arc<dyn SessionHooks>) {
        *self.hooks.lock() = Some(hooks);
    }

    /// Feeds `event` to the state, and queues or performs its actions.
    fn step(&self, event: Event) {
        let actions = self.state.lock().step(event, unix_now());
        for action in actions {
            self.act(action);
        }
    }

    /// Performs a local action, or queues a write for the runner.
    fn act(&self, action: Action) {
        match action {
            Action::EndHere(session) => {
                let session = SessionKey::from_stored(session);
                for door in self.doors.lock().iter() {
                    door.end(&session);
                }
            }
            Action::DeliverHere { session, message } => {
                let Ok(message) = Message::from_slice(message.as_bytes()) else {
                    return;
                };
                let session = SessionKey::from_stored(session);
                let doors = self.doors.lock().clone();
                for door in doors {
                    if door.deliver(&session, message.clone()) {
                        break;
                    }
                }
            }
            Action::ApplyLevel { session, level } => {
                let hooks = self.hooks.lock().clone();
                if let Some(hooks) = hooks {
                    hooks.apply_level(&session, &level);
                }
            }
            Action::UnsubscribeHere { session, uri } => {
                let hooks = self.hooks.lock().clone();
                if let Some(hooks) = hooks {
                    hooks.unsubscribe(&session, &uri);
                }
            }
            Action::Reconnect { .. } => {}
            write => {
                if self.writes.try_send(write).is_err() {
                    tracing::debug!("the session store's queue is full; a write is dropped");
                }
            }
        }
    }

    /// Asks Redis for the text at `key`, when it answers; `None` otherwise.
    async fn query(&self, key: String) -> Option<String> {
        let mut connection = self.connection.lock().clone()?;
        let mut command = redis::cmd("GET");
        command.arg(key);
        let get = command.query_async::<Option<String>>(&mut connection);
        match tokio::time::timeout(QUERY_TIMEOUT, get).await {
            Ok(Ok(value)) => value,
            Ok(Err(error)) => {
                let error = self.store.masker.mask(&error.to_string()).into_owned();
                tracing::debug!(%error, "the session store did not answer a question");
                None
            }
            Err(_) => None,
        }
    }

    /// Performs one write on `connection`.
    async fn write(
        &self,
        connection: &mut redis::aio::MultiplexedConnection,
        action: Action,
    ) -> Result<(), String> {
        let command = match action {
            Action::Publish(event) => {
                let envelope = Envelope {
                    from: self.replica,
                    event,
                };
                let mut command = redis::cmd("PUBLISH");
                command.arg(CHANNEL).arg(envelope.encode());
                command
            }
            Action::RecordDeleted { session, ttl } => {
                let expires_at = unix_now().saturating_add(ttl.as_secs());
                let mut command = redis::cmd("SET");
                command
                    .arg(format!("{DELETED_PREFIX}{session}"))
                    .arg(expires_at)
                    .arg("EX")
                    .arg(ttl.as_secs().max(1));
                command
            }
            Action::RecordLevel { session, level } => {
                let mut command = redis::cmd("SET");
                command
                    .arg(format!("{LEVEL_PREFIX}{session}"))
                    .arg(level)
                    .arg("EX")
                    .arg(self.max_age.as_secs().max(1));
                command
            }
            _ => return Ok(()),
        };
        let sent = command.query_async::<redis::Value>(connection);
        match tokio::time::timeout(COMMAND_TIMEOUT, sent).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(self.store.masker.mask(&error.to_string()).into_owned()),
            Err(_) => Err("no answer in time".to_owned()),
        }
    }
}

#[async_trait]
impl SessionRelay for SessionStore {
    fn attach(&self, door: SessionDoor) {
        let mut doors = self.doors.lock();
        doors.retain(|door| !door.is_closed());
        doors.push(door);
    }

    async fn was_deleted(&self, session: &SessionKey) -> bool {
        if self.state.lock().is_deleted(session.as_str(), unix_now()) {
            return true;
        }
        let stored = self
            .query(format!("{DELETED_PREFIX}{}", session.as_str()))
            .await;
        match stored.and_then(|expires_at| expires_at.parse::<u64>().ok()) {
            Some(expires_at) => {
                self.state
                    .lock()
                    .learned_deleted(session.as_str(), expires_at);
                true
            }
            None => false,
        }
    }

    fn deleted(&self, session: &SessionKey, expires_at: SystemTime) {
        let expires_at = expires_at
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        self.step(Event::DeletedHere {
            session: session.as_str().to_owned(),
            expires_at,
        });
    }

    fn forward(&self, session: &SessionKey, message: &Message) {
        let Ok(message) = String::from_utf8(message.to_vec()) else {
            return;
        };
        self.step(Event::Forward {
            session: session.as_str().to_owned(),
            message,
        });
    }
}

#[async_trait]
impl SharedSessions for SessionStore {
    fn set_level(&self, session: &str, level: &str) {
        self.step(Event::LevelSetHere {
            session: session.to_owned(),
            level: level.to_owned(),
        });
    }

    async fn level(&self, session: &str) -> Option<String> {
        let known = self.state.lock().level(session).map(str::to_owned);
        if known.is_some() {
            return known;
        }
        let stored = self.query(format!("{LEVEL_PREFIX}{session}")).await?;
        self.state.lock().learned_level(session, &stored);
        Some(stored)
    }

    fn unsubscribed(&self, session: &str, uri: &str) {
        self.step(Event::UnsubscribedHere {
            session: session.to_owned(),
            uri: uri.to_owned(),
        });
    }
}

/// Connects, listens and writes until the store is dropped; connects
/// again after a failure, backing off.
async fn run(store: std::sync::Weak<SessionStore>, mut queued: mpsc::Receiver<Action>) {
    loop {
        let Some(held) = store.upgrade() else {
            return;
        };
        let wait = match connect(&held).await {
            Ok((messages, connection)) => {
                let failure = serve(&held, messages, connection, &mut queued).await;
                let Some(reason) = failure else {
                    return;
                };
                tracing::warn!(store = held.describe(), %reason, "the session store failed; sessions are per replica until it answers");
                failed(&held)
            }
            Err(reason) => {
                if held.state.lock().is_connected() {
                    tracing::warn!(store = held.describe(), %reason, "the session store failed");
                }
                failed(&held)
            }
        };
        drop(held);
        tokio::time::sleep(wait).await;
    }
}

/// The store failed: the wait before connecting again.
fn failed(store: &SessionStore) -> Duration {
    store.connection.lock().take();
    let actions = store.state.lock().step(Event::Failed, unix_now());
    actions
        .into_iter()
        .find_map(|action| match action {
            Action::Reconnect { after } => Some(after),
            _ => None,
        })
        .unwrap_or(super::fleet_state::MAX_BACKOFF)
}

/// The channel's messages and a connection for the rest, bounded in time.
async fn connect(
    store: &SessionStore,
) -> Result<(redis::aio::PubSubStream, redis::aio::MultiplexedConnection), String> {
    let client = &store.store.client;
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(COMMAND_TIMEOUT));
    let both = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(CHANNEL).await?;
        let connection = client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        Ok::<_, redis::RedisError>((pubsub.into_on_message(), connection))
    };
    match tokio::time::timeout(CONNECT_TIMEOUT * 2, both).await {
        Ok(Ok(connected)) => Ok(connected),
        Ok(Err(error)) => Err(store.store.masker.mask(&error.to_string()).into_owned()),
        Err(_) => Err("no connection in time".to_owned()),
    }
}

/// Listens and writes until the connection fails (`Some(why)`) or the
/// queue closes (`None`).
async fn serve(
    store: &SessionStore,
    mut messages: redis::aio::PubSubStream,
    mut connection: redis::aio::MultiplexedConnection,
    queued: &mut mpsc::Receiver<Action>,
) -> Option<String> {
    *store.connection.lock() = Some(connection.clone());
    let was_degraded = !store.state.lock().is_connected();
    let flushed = store.state.lock().step(Event::Connected, unix_now());
    if was_degraded {
        tracing::info!(store = store.describe(), "the session store answers");
    }
    for write in flushed {
        if let Err(reason) = store.write(&mut connection, write).await {
            return Some(reason);
        }
    }
    loop {
        tokio::select! {
            message = messages.next() => {
                let Some(message) = message else {
                    return Some("the connection closed".to_owned());
                };
                let Some(envelope) = Envelope::decode(message.get_payload_bytes()) else {
                    continue;
                };
                if envelope.from != store.replica {
                    store.step(Event::Heard(envelope.event));
                }
            }
            write = queued.recv() => {
                let write = write?;
                if let Err(reason) = store.write(&mut connection, write).await {
                    return Some(reason);
                }
            }
        }
    }
}

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}
