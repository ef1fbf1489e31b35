//! `mcp-cli serve`: the gateway of `mcp-discovery`, over stdio or
//! Streamable HTTP, until stdin ends, SIGTERM or Ctrl-C; then every server
//! is stopped and its process reaped. The config is read again when one of
//! its files or folders changes, or on SIGHUP, and applied without a restart.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcpdisco_client::session::SessionOptions;
use mcpdisco_client::transport::secret::SecretString;
use mcpdisco_client::transport::server::http::HttpServerOptions;
use mcpdisco_client::transport::server::http::session_seal::SessionKeyRing;
use mcpdisco_client::transport::server::stdio::StdioServer;
use mcpdisco_gateway::config_watch::{
    ConfigLoader, ConfigWatch, DEBOUNCE, ReloadOutcome, Trigger, Watched, reload_on_change,
};
use mcpdisco_gateway::http_endpoints::{
    self, Access, HttpEndpointsOptions, SessionKeyFileError, read_session_keys,
};
use mcpdisco_gateway::limits::{
    AllowedHosts, ClientRateLimit, ClientRateLimiter, HostPattern, raise_open_files_limit,
};
#[cfg(feature = "jwt-auth")]
use mcpdisco_gateway::resource_server::ResourceServer;
use mcpdisco_gateway::serve::{Gateway, GatewayOptions};
use mcpdisco_gateway::supervisor::SupervisorOptions;

#[cfg(feature = "oauth")]
use crate::credentials::stored_context;
use crate::error::UsageError;
use crate::exit;
use crate::load::Loaded;

/// How `serve` reads its config again: the paths to watch, and the reading.
pub struct Reloading {
    /// The config's files and folders.
    pub watched: Watched,
    /// Reads the config as it was first read.
    pub load: ConfigLoader,
}

impl std::fmt::Debug for Reloading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reloading")
            .field("watched", &self.watched)
            .finish_non_exhaustive()
    }
}

/// `--session-keys FILE`: the file, and the keys read from it, which every
/// route seals and opens session ids with (replaced on reload).
#[derive(Debug, Clone)]
pub struct SessionKeyFile {
    /// The file.
    pub path: PathBuf,
    /// Its keys as last read.
    pub ring: SessionKeyRing,
}

impl SessionKeyFile {
    /// Reads the keys of `path` (refused when others can read it).
    pub fn read(path: &Path) -> Result<Self, SessionKeyFileError> {
        let keys = read_session_keys(path)?;
        Ok(Self {
            path: path.to_owned(),
            ring: SessionKeyRing::new(keys),
        })
    }

    /// Reads the file again; keeps the keys as they were, with a warning,
    /// when it cannot be used.
    fn reread(&self) {
        match read_session_keys(&self.path) {
            Ok(keys) => self.ring.replace(keys),
            Err(error) => eprintln!("warning: session keys not reloaded: {error}"),
        }
    }
}

/// What `serve` was asked.
#[derive(Debug)]
pub struct ServeOptions {
    /// Streamable HTTP on this address; stdio when `None`.
    pub http: Option<SocketAddr>,
    /// The bearer token HTTP clients must send.
    pub token: Option<String>,
    /// Items per list page.
    pub page_size: usize,
    /// The deadline of each server's start.
    pub start_deadline: Duration,
    /// Between server and item names.
    pub separator: String,
    /// The lock file whose pins hide changed tools, when asked to.
    pub hide_changed_tools: Option<std::path::PathBuf>,
    /// List `search_tools` and `call_tool` instead of every server's tools.
    pub tool_search: bool,
    /// Bearer JWTs from an identity provider, instead of the token
    /// (feature `jwt-auth`).
    #[cfg(feature = "jwt-auth")]
    pub jwt: Option<JwtOptions>,
    /// The gateway's URL as its clients reach it.
    pub public_url: Option<String>,
    /// Over stdio, serve only this profile's view.
    pub profile: Option<String>,
    /// The HTTP limits.
    pub limits: LimitOptions,
    /// Hot reload, unless turned off.
    pub reloading: Option<Reloading>,
    /// The keys of `--session-keys`; a random one when `None`.
    pub session_keys: Option<SessionKeyRing>,
    /// The oldest a session id may be.
    pub session_max_age: Duration,
}

/// `--client-rate-limit`, `--session-store`, `--max-streams`, `--allowed-host`.
#[derive(Debug, Default)]
pub struct LimitOptions {
    /// Requests per second per client subject.
    pub client_rate_limit: Option<ClientRateLimit>,
    /// The Redis the replicas share sessions and the rate limit through.
    pub session_store: Option<String>,
    /// The most SSE streams open at once.
    pub max_streams: Option<usize>,
    /// The `Host` names requests may use (none: the bind's default).
    pub allowed_hosts: Vec<HostPattern>,
}

/// The client rate limiter `limits` asks for, shared through the store
/// when one is given.
fn client_rate_limiter(
    limits: &LimitOptions,
) -> Result<Option<Arc<ClientRateLimiter>>, UsageError> {
    let Some(limit) = limits.client_rate_limit else {
        return Ok(None);
    };
    #[cfg(feature = "redis")]
    if let Some(url) = &limits.session_store {
        let store = mcpdisco_gateway::limits::redis_buckets::RedisBuckets::open(url, limit.gcra())
            .map_err(|error| UsageError::SessionStore(error.to_string()))?;
        return Ok(Some(Arc::new(ClientRateLimiter::shared(limit, store))));
    }
    // Without `redis`, `--session-store` was refused by `left_out`.
    #[cfg(not(feature = "redis"))]
    let _ = &limits.session_store;
    Ok(Some(Arc::new(ClientRateLimiter::new(limit))))
}

/// `--auth-jwks`, `--auth-issuer`, `--auth-audience`, `--auth-scope`.
#[cfg(feature = "jwt-auth")]
pub type JwtOptions = mcpdisco_gateway::resource_server::ResourceServerOptions;

/// Runs the gateway until it is told to stop.
pub async fn serve(
    loaded: &Loaded,
    session: SessionOptions,
    options: ServeOptions,
) -> Result<ExitCode, UsageError> {
    #[cfg(feature = "jwt-auth")]
    let jwt = options.jwt.is_some();
    #[cfg(not(feature = "jwt-auth"))]
    let jwt = false;
    if let Some(addr) = options.http
        && !addr.ip().is_loopback()
        && options.token.is_none()
        && !jwt
    {
        return Err(UsageError::OpenBind(addr));
    }
    if let Some(profile) = &options.profile
        && !loaded.profiles.contains_key(profile)
    {
        let known: Vec<&str> = loaded.profiles.keys().map(String::as_str).collect();
        let known = if known.is_empty() {
            "none is configured".to_owned()
        } else {
            format!("configured: {}", known.join(", "))
        };
        eprintln!("error: no profile named '{profile}'; {known}");
        return Ok(ExitCode::from(exit::NO_SUCH_PROFILE));
    }
    #[cfg(feature = "jwt-auth")]
    let access = access(options.token.clone(), options.jwt.clone()).await?;
    #[cfg(not(feature = "jwt-auth"))]
    let access = token_access(options.token.clone());
    let rate_limiter = client_rate_limiter(&options.limits)?;
    #[cfg(feature = "redis")]
    let session_store = match &options.limits.session_store {
        Some(url) => Some(
            mcpdisco_gateway::session_store::SessionStore::open(url, options.session_max_age)
                .map_err(|error| UsageError::SessionStore(error.to_string()))?,
        ),
        None => None,
    };
    // Many stdio servers kept alive need many descriptors (macOS starts at 256).
    match raise_open_files_limit() {
        Ok(limit) if limit.after > limit.before => {
            tracing::debug!(
                before = limit.before,
                after = limit.after,
                "raised the open-file limit"
            );
        }
        Ok(_) => {}
        Err(error) => eprintln!("warning: {error}"),
    }
    let stop = stop_signal();
    // Bind first: a busy port is a usage error before any server starts.
    let listener = match options.http {
        Some(addr) => Some(
            tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|source| UsageError::Listen { addr, source })?,
        ),
        None => None,
    };
    let supervisor = SupervisorOptions::default()
        .session(session)
        .start_deadline(options.start_deadline)
        .separator(options.separator)
        .gate(
            options
                .hide_changed_tools
                .map(mcpdisco_gateway::supervisor::hide_changed),
        );
    #[cfg(feature = "oauth")]
    let supervisor = supervisor.auth(stored_context());
    let gateway = Gateway::new(
        loaded.servers.clone(),
        supervisor,
        GatewayOptions::default()
            .page_size(options.page_size)
            .tool_search(options.tool_search)
            .profiles(loaded.profiles.clone()),
    );
    let reloads = options
        .reloading
        .and_then(|reloading| watch(&gateway, reloading));
    let stop_reloads = reloads.map(AbortOnDrop);
    match listener {
        None => {
            let stdio = StdioServer::new("mcp-cli serve");
            let served = async {
                match &options.profile {
                    Some(profile) => gateway.serve_profile(stdio, profile).await,
                    None => gateway.serve(stdio).await,
                }
            };
            tokio::select! {
                () = served => {
                    tracing::info!("stdin ended; stopping");
                }
                () = stop => {}
            }
        }
        Some(listener) => {
            let addr = listener.local_addr().map_err(|source| UsageError::Listen {
                addr: options.http.unwrap_or_else(|| ([127, 0, 0, 1], 0).into()),
                source,
            })?;
            eprintln!("mcp-cli serve: listening on http://{addr}/mcp");
            for profile in gateway.profiles().keys() {
                eprintln!(
                    "mcp-cli serve: profile '{profile}' at http://{addr}/profiles/{profile}/mcp"
                );
            }
            let limits = options.limits;
            let mut server = HttpServerOptions::default()
                .name("mcp-cli serve")
                .max_streams(limits.max_streams)
                .session_max_age(options.session_max_age);
            if let Some(keys) = options.session_keys {
                server = server.session_keys(keys);
            }
            let http = HttpEndpointsOptions::default()
                .server(server)
                .access(access)
                .public_url(options.public_url)
                .allowed_hosts(AllowedHosts::for_bind(addr, limits.allowed_hosts))
                .client_rate_limit(rate_limiter);
            #[cfg(feature = "redis")]
            let http = http.session_store(session_store);
            http_endpoints::serve(&gateway, listener, http, stop).await;
        }
    }
    // No reload may start servers while they are being stopped.
    drop(stop_reloads);
    gateway.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// What HTTP requests must carry: a JWT the identity provider's keys
/// verify (its key set fetched now, so a wrong URL fails at start), the
/// token, or nothing.
#[cfg(feature = "jwt-auth")]
async fn access(token: Option<String>, jwt: Option<JwtOptions>) -> Result<Access, UsageError> {
    if let Some(jwt) = jwt {
        let server = ResourceServer::with_shared_client(jwt)
            .map_err(|error| UsageError::AuthKeys(error.to_string()))?;
        let keys = server
            .load()
            .await
            .map_err(|error| UsageError::AuthKeys(error.to_string()))?;
        tracing::info!(keys, "loaded the identity provider's keys");
        return Ok(Access::Jwt(Arc::new(server)));
    }
    Ok(token_access(token))
}

/// What HTTP requests must carry: the token, or nothing.
fn token_access(token: Option<String>) -> Access {
    token.map_or(Access::Open, |token| {
        Access::Token(SecretString::from(token))
    })
}

/// How `serve` reads the config of `global` again: the files `loaded` read
/// and the `--dir` folders watched, the same selection read again (a file
/// of a folder that cannot be read refuses the whole reload), and the log
/// masker then knows the new servers' secrets too. The session key file,
/// if any, is watched too and read again at each reload.
pub fn reloading(
    global: &crate::cli::GlobalOptions,
    loaded: &Loaded,
    log: &crate::logging::LogMasker,
    session_keys: Option<&SessionKeyFile>,
) -> Result<Reloading, UsageError> {
    let selection = crate::load::selection(global)?;
    let mut files = loaded.files.clone();
    files.extend(session_keys.map(|file| file.path.clone()));
    let watched = Watched::new(files, selection.dirs.clone());
    let log = log.clone();
    let session_keys = session_keys.cloned();
    let load: ConfigLoader = std::sync::Arc::new(move || {
        if let Some(file) = &session_keys {
            file.reread();
        }
        let loaded = selection
            .load(&mcpdisco::config::ProcessEnv)
            .map_err(|error| error.to_string())?;
        if !loaded.skipped.is_empty() {
            return Err(loaded.skipped.join("; "));
        }
        log.add(&loaded.masker());
        Ok(loaded)
    });
    Ok(Reloading { watched, load })
}

/// Starts watching the config for `gateway` (each change applied, or
/// refused with a warning naming the file); `None` when it cannot be
/// watched (said as a warning: `serve` runs on without reloads).
fn watch(gateway: &Gateway, reloading: Reloading) -> Option<tokio::task::JoinHandle<()>> {
    let watch = match ConfigWatch::new(&reloading.watched, DEBOUNCE) {
        Ok(watch) => watch,
        Err(error) => {
            eprintln!("warning: the config will not be reloaded on change: {error}");
            return None;
        }
    };
    Some(tokio::spawn(reload_on_change(
        gateway.clone(),
        watch,
        reloading.load,
        say_reload,
    )))
}

/// Says on stderr what came of a reload.
fn say_reload(outcome: ReloadOutcome) {
    let why = |trigger: &Trigger| match trigger {
        Trigger::Changed(path) => format!("{} changed", path.display()),
        Trigger::Hangup => "SIGHUP".to_owned(),
    };
    match outcome {
        ReloadOutcome::Applied {
            trigger,
            summary,
            warnings,
        } => {
            for warning in warnings {
                eprintln!("warning: {warning}");
            }
            eprintln!(
                "mcp-cli serve: config reloaded ({}): {summary}",
                why(&trigger)
            );
        }
        ReloadOutcome::Refused { trigger, error } => eprintln!(
            "warning: config not reloaded ({}): {error}; the servers keep running as they were",
            why(&trigger)
        ),
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// SIGTERM or Ctrl-C, with the handlers registered now: a signal that
/// arrives before the returned future is first polled still stops the
/// gateway cleanly (servers reaped, telemetry flushed) instead of taking
/// the default action and killing the process.
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::interrupt()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        match signals {
            (Some(mut terminate), Some(mut interrupt)) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt.recv() => {}
                }
            }
            (Some(mut terminate), None) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            (None, _) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("signal received; stopping");
    }
}
