//! [`Context`]: what the commands of one run share once the configuration
//! is read (the options, the servers, the session options, the cache, the
//! style of stdout, the servers still closing), and what they do with it
//! alike: discover, connect to one server, find a server by name.

#[cfg(feature = "redis")]
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[cfg(feature = "redis")]
use mcpdisco::cache::RedisStore;
use mcpdisco::cache::{Cache, CacheMode};
use mcpdisco::config::ServerConfig;
use mcpdisco::connect::{ConnectOptions, connect};
use mcpdisco::discovery::{self, DiscoveryOptions, DiscoveryReport};
use mcpdisco_client::session::{ErrorKind, Session, SessionError, SessionOptions};

use crate::cli::GlobalOptions;
use crate::closing::PendingCloses;
#[cfg(feature = "oauth")]
use crate::credentials::stored_context;
use crate::error::UsageError;
use crate::load::Loaded;
use crate::logging::LogMasker;
use crate::progress::Progress;
use crate::style::Style;

/// What the commands of a run share.
pub struct Context<'a> {
    /// The options shared by every command.
    pub global: &'a GlobalOptions,
    /// The configuration read.
    pub loaded: Loaded,
    /// The options of every session: policies and the trace.
    pub session: SessionOptions,
    /// The cache of this run: opened once, so a shared store is connected
    /// once and its failure is said once.
    pub cache: Option<Cache>,
    /// How stdout is written.
    pub style: Style,
    /// The servers discovery stopped but did not wait for.
    closing: &'a PendingCloses,
    /// Whether a passed-over shared cache was already said.
    shared_cache_warned: AtomicBool,
}

impl<'a> Context<'a> {
    /// The context of `loaded`: log lines masked with its secrets from now
    /// on (through the run's `log` handle), its warnings said, the cache `global` asks for opened (a
    /// malformed `--cache` URL is an error).
    pub fn new(
        global: &'a GlobalOptions,
        loaded: Loaded,
        session: SessionOptions,
        log: &LogMasker,
        closing: &'a PendingCloses,
    ) -> Result<Self, UsageError> {
        log.set(loaded.masker());
        for warning in &loaded.warnings {
            eprintln!("warning: {warning}");
        }
        let cache = open_cache(global)?;
        if let Some(warning) = cache.as_ref().and_then(Cache::warning) {
            eprintln!("warning: {warning}");
        }
        Ok(Self {
            global,
            loaded,
            session,
            cache,
            style: Style::detect(),
            closing,
            shared_cache_warned: AtomicBool::new(false),
        })
    }

    /// The deadline of each server: `--timeout`, else discovery's default.
    pub fn deadline(&self) -> Duration {
        self.global
            .timeout
            .map_or(discovery::DEFAULT_DEADLINE, Duration::from_secs_f64)
    }

    /// The configured server named `name`, or a usage error naming the others.
    pub fn server(&self, name: &str) -> Result<&ServerConfig, UsageError> {
        Ok(self.loaded.server(name)?)
    }

    /// The options of a discovery as the global options ask for it.
    pub fn discovery_options(&self) -> DiscoveryOptions {
        let global = self.global;
        let cache_mode = if global.no_cache {
            CacheMode::Off
        } else if global.refresh {
            CacheMode::Refresh
        } else {
            CacheMode::Use
        };
        let options = DiscoveryOptions::default()
            .concurrency(usize::from(global.concurrency))
            .deadline(self.deadline())
            .session(self.session.clone())
            .cache(self.cache.clone())
            .cache_mode(cache_mode)
            .serve_stale(!global.no_stale);
        #[cfg(feature = "oauth")]
        let options = options.auth(stored_context());
        options
    }

    /// Discovers `servers`, with a progress display on a terminal. With
    /// `fresh`, every server is asked again (the cache is refreshed, not
    /// read): what is reviewed, approved or verified against the pins is
    /// what servers offer now.
    pub async fn discover(&self, servers: &[ServerConfig], fresh: bool) -> DiscoveryReport {
        let mut options = self.discovery_options();
        if fresh && options.cache_mode == CacheMode::Use {
            options.cache_mode = CacheMode::Refresh;
        }
        // What is reviewed, approved or verified is never stale data: a server
        // that cannot be asked now fails.
        if fresh {
            options.serve_stale = false;
        }
        let enabled = servers.iter().filter(|s| s.enabled).count();
        let progress = Progress::start(enabled);
        options.observer = progress.as_ref().map(Progress::observer);
        // The report is shown when the last answer is in; the servers are
        // stopped meanwhile, and the run waits for them before it exits.
        let (report, closing) = discovery::discover_detached(servers, &options).await;
        self.closing.push(closing);
        if let Some(progress) = progress {
            progress.finish();
        }
        self.warn_shared_cache();
        report
    }

    /// Says once per run that the shared cache was passed over.
    pub fn warn_shared_cache(&self) {
        if let Some(warning) = self.cache.as_ref().and_then(Cache::shared_warning)
            && !self.shared_cache_warned.swap(true, Ordering::Relaxed)
        {
            eprintln!("warning: {warning}");
        }
    }

    /// A session with `server`, within its deadline (its own `timeout`,
    /// else `--timeout`, else discovery's default).
    pub async fn connect(&self, server: &ServerConfig) -> Result<Session, SessionError> {
        let deadline = server.timeout.unwrap_or_else(|| self.deadline());
        let mut session_options = self.session.clone();
        session_options.deadline = Some(tokio::time::Instant::now() + deadline);
        if let Some(seconds) = self.global.timeout {
            session_options.request_timeout = Duration::from_secs_f64(seconds);
        }
        let options = ConnectOptions::default().session(session_options);
        #[cfg(feature = "oauth")]
        let options = options.auth(stored_context());
        let connecting = connect(server, &options);
        match tokio::time::timeout(deadline, connecting).await {
            Ok(result) => result,
            Err(_) => Err(SessionError::new(
                &server.name,
                "connect",
                ErrorKind::Timeout { after: deadline },
            )),
        }
    }
}

/// Opens the cache `global` asks for; a malformed `--cache` URL is an error.
pub fn open_cache(global: &GlobalOptions) -> Result<Option<Cache>, UsageError> {
    if global.no_cache {
        return Ok(None);
    }
    let dir = match &global.cache_dir {
        Some(dir) => Some(dir.clone()),
        None => Cache::default_dir(),
    };
    Ok(Some(match &global.cache_url {
        #[cfg(feature = "redis")]
        Some(url) => {
            let store = RedisStore::open(url, global.cache_prefix.clone())
                .map_err(|error| UsageError::CacheUrl(error.to_string()))?;
            Cache::with_shared(dir, Arc::new(store))
        }
        #[cfg(not(feature = "redis"))]
        Some(_) => return Err(UsageError::left_out("--cache", "redis")),
        None => match dir {
            Some(dir) => Cache::at(dir),
            None => Cache::in_memory(),
        },
    }))
}
