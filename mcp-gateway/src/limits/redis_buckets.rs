//! The client subjects' buckets in Redis (`--session-store redis://…`), so
//! `--client-rate-limit` counts one subject across every replica. One
//! Lua script (`EVAL`) makes the GCRA decision atomically on Redis's own clock
//! (replicas' clocks never meet), and the key expires when its bucket has
//! refilled. One multiplexed connection, opened at first use and again
//! after a failure, each command bounded by a timeout.

use std::time::Duration;

use mcpdisco_client::policy::Gcra;
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::sync::Mutex;

use super::LimitError;
use super::client_rate::Subject;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// How long one decision may take.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);
/// The keys' prefix.
const PREFIX: &str = "mcp-gateway:rate:";

/// GCRA in Redis. KEYS[1]: the subject's bucket; ARGV[1]: the interval,
/// ARGV[2]: the tolerance (microseconds). Answers 0 when the request may
/// go (and takes its token), else the microseconds until it may.
const SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local due = tonumber(redis.call('GET', KEYS[1])) or now
if due < now then due = now end
if now < due - tolerance then return due - tolerance - now end
local arrival = due + interval
redis.call('SET', KEYS[1], string.format('%.0f', arrival), 'PX', math.ceil((arrival - now) / 1000) + 1)
return 0
";

/// A Redis client for `--session-store`, the URL as it may be shown
/// (its password masked), and the masker of that password.
pub struct StoreClient {
    /// The client (nothing connected yet).
    pub client: redis::Client,
    /// The URL, its password masked.
    pub shown: String,
    /// Masks the password in what Redis says.
    pub masker: Masker,
}

impl StoreClient {
    /// The client of `url` (`redis://[user:password@]HOST:PORT[/DB]`).
    pub fn open(url: &str) -> Result<Self, LimitError> {
        let parsed = url::Url::parse(url).map_err(|error| {
            LimitError::Store(format!("the session store URL is not a URL: {error}"))
        })?;
        if parsed.scheme() != "redis" {
            return Err(LimitError::Store(format!(
                "the session store URL must start with redis:// (found {}://)",
                parsed.scheme()
            )));
        }
        let mut masker = Masker::builder();
        if let Some(password) = parsed.password() {
            masker.secret(password);
        }
        let masker = masker.build();
        let mut shown = parsed.clone();
        if parsed.password().is_some() {
            let _ = shown.set_password(Some("***"));
        }
        let shown = shown.to_string();
        let client = redis::Client::open(url).map_err(|error| {
            LimitError::Store(format!(
                "session store {shown}: {}",
                masker.mask(&error.to_string())
            ))
        })?;
        Ok(Self {
            client,
            shown,
            masker,
        })
    }
}

/// Subjects' buckets in one Redis database.
pub struct RedisBuckets {
    client: redis::Client,
    shown: String,
    masker: Masker,
    interval_us: u64,
    tolerance_us: u64,
    connection: Mutex<Option<redis::aio::MultiplexedConnection>>,
}

impl std::fmt::Debug for RedisBuckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBuckets")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

impl RedisBuckets {
    /// Buckets for `gcra` at `url` (`redis://[user:password@]HOST:PORT[/DB]`).
    /// Nothing is connected until the first decision.
    pub fn open(url: &str, gcra: Gcra) -> Result<Self, LimitError> {
        let StoreClient {
            client,
            shown,
            masker,
        } = StoreClient::open(url)?;
        let micros = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1);
        Ok(Self {
            client,
            shown,
            masker,
            interval_us: micros(gcra.interval()),
            tolerance_us: u64::try_from(gcra.tolerance().as_micros()).unwrap_or(u64::MAX),
            connection: Mutex::new(None),
        })
    }

    /// The store's URL, its password masked.
    pub fn describe(&self) -> &str {
        &self.shown
    }

    /// Whether `subject` may send a request now: `Ok(None)` (its token
    /// taken), or `Ok(Some(wait))` until it may.
    pub async fn check(&self, subject: &Subject) -> Result<Option<Duration>, LimitError> {
        let mut connection = self.connection().await?;
        let key = format!("{PREFIX}{}", subject.key());
        let mut eval = redis::cmd("EVAL");
        eval.arg(SCRIPT)
            .arg(1)
            .arg(key)
            .arg(self.interval_us)
            .arg(self.tolerance_us);
        let answer =
            tokio::time::timeout(RESPONSE_TIMEOUT, eval.query_async::<u64>(&mut connection)).await;
        match answer {
            Ok(Ok(0)) => Ok(None),
            Ok(Ok(wait)) => Ok(Some(Duration::from_micros(wait))),
            Ok(Err(error)) => Err(self.failed(&error.to_string())),
            Err(_) => Err(self.failed("no answer in time")),
        }
    }

    /// Forgets the connection (the next decision opens another) and says why.
    fn failed(&self, reason: &str) -> LimitError {
        self.connection.lock().take();
        LimitError::Store(format!(
            "session store {}: {}",
            self.shown,
            self.masker.mask(reason)
        ))
    }

    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, LimitError> {
        if let Some(connection) = self.connection.lock().clone() {
            return Ok(connection);
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT));
        let connecting = self
            .client
            .get_multiplexed_async_connection_with_config(&config);
        let connection = match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok(connection)) => connection,
            Ok(Err(error)) => return Err(self.failed(&error.to_string())),
            Err(_) => return Err(self.failed("no connection in time")),
        };
        *self.connection.lock() = Some(connection.clone());
        Ok(connection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_redis_urls_are_taken_and_no_password_is_shown() {
        let limit = Gcra::new(1.0, 1);
        assert!(RedisBuckets::open("http://127.0.0.1:6379", limit).is_err());
        assert!(RedisBuckets::open("not a url", limit).is_err());
        let store = RedisBuckets::open("redis://:hunter2@127.0.0.1:6379/0", limit).unwrap();
        assert!(
            !store.describe().contains("hunter2"),
            "{}",
            store.describe()
        );
        assert!(!format!("{store:?}").contains("hunter2"));
    }
}
