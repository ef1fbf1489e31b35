//! One discovery run: every server at once (up to the concurrency), each
//! from the cache or probed under its own deadline, and the sessions
//! closed after (in the background with [`discover_detached`], see
//! [`Closing`]).

use std::time::{Duration, Instant};

use futures::future::join_all;
use mcpdisco_client::session::Session;
#[cfg(feature = "http")]
use mcpdisco_transport::http::HttpClient;
use mcpdisco_transport::secret::Masker;
use tokio::sync::Semaphore;

use super::options::{DiscoveryEvent, DiscoveryOptions};
use super::probe::{ProbeSettings, probe};
use crate::cache::{CacheMode, DEFAULT_STALE_MAX_AGE};
use crate::clock::{millis, now_ms};
#[cfg(feature = "http")]
use crate::config::Launch;
use crate::config::ServerConfig;
use crate::connect::ConnectContext;
use crate::report::{DiscoveryReport, ServerReport, ServerStatus};

/// Discovers every server, in parallel, and reports them in configuration
/// order, once every session is closed and every process reaped (each
/// server's `timings.closeMs` says how long that took; `durationMs` stops at
/// its last answer).
pub async fn discover(servers: &[ServerConfig], options: &DiscoveryOptions) -> DiscoveryReport {
    let (mut report, closing) = discover_detached(servers, options).await;
    for (name, took) in closing.finish().await {
        if let Some(timings) = report
            .servers
            .iter_mut()
            .find(|r| r.name == name)
            .and_then(|r| r.timings.as_mut())
        {
            timings.close_ms = Some(millis(took));
        }
    }
    report
}

/// Like [`discover`], but returns as soon as the last answer is in: the
/// sessions are closed (stdin closed, a short grace, SIGTERM, SIGKILL, the
/// process reaped) in the background by then running tasks, which
/// [`Closing::finish`] waits for. A host shows the report first and waits
/// for the closing before it exits.
pub async fn discover_detached(
    servers: &[ServerConfig],
    options: &DiscoveryOptions,
) -> (DiscoveryReport, Closing) {
    let runner = Runner::new(servers, options);
    let reports = join_all(
        servers
            .iter()
            .map(|server| async { runner.discover_one(server, false).await.0 }),
    )
    .await;
    let closing = Closing {
        tasks: std::mem::take(&mut *runner.closing.lock()),
    };
    (DiscoveryReport { servers: reports }, closing)
}

/// The longest one discovery-only session may take to close; the process
/// is killed after that.
const CLOSE_LIMIT: Duration = Duration::from_secs(10);

/// The sessions a discovery is still closing.
#[derive(Debug, Default)]
pub struct Closing {
    tasks: Vec<tokio::task::JoinHandle<(String, Duration)>>,
}

impl Closing {
    /// How many sessions are being closed.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Waits until every session is closed and its process reaped; how long
    /// each took, by server.
    pub async fn finish(self) -> Vec<(String, Duration)> {
        join_all(self.tasks)
            .await
            .into_iter()
            .filter_map(Result::ok)
            .collect()
    }
}

/// The masker of one server's session: the server's own secrets and the run's.
fn session_masker(server: &ServerConfig, options: &DiscoveryOptions) -> Masker {
    options.session.masker.union(&server.masker())
}

impl Runner<'_> {
    /// What connectors get for this run.
    pub(crate) fn context(&self, options: &DiscoveryOptions) -> ConnectContext {
        let context = ConnectContext::for_session(&options.session).graces(options.graces);
        #[cfg(feature = "http")]
        let context = context.http(self.http.clone());
        #[cfg(feature = "oauth")]
        let context = context.auth(options.auth.clone());
        context
    }
}

/// Shared state of one discovery run.
pub(crate) struct Runner<'a> {
    options: &'a DiscoveryOptions,
    permits: Semaphore,
    /// The pooled client of the run's HTTP servers.
    #[cfg(feature = "http")]
    http: Option<HttpClient>,
    /// Sessions being closed after their last answer.
    closing: mcpdisco_transport::sync::Mutex<Vec<tokio::task::JoinHandle<(String, Duration)>>>,
}

impl<'a> Runner<'a> {
    pub(crate) fn new(servers: &[ServerConfig], options: &'a DiscoveryOptions) -> Self {
        // One pooled client for every HTTP server of the run.
        #[cfg(feature = "http")]
        let http = {
            let needs_http = servers
                .iter()
                .any(|server| server.enabled && matches!(server.launch, Launch::Http { .. }));
            match &options.http {
                Some(client) => Some(client.clone()),
                None if needs_http => HttpClient::shared().ok(),
                None => None,
            }
        };
        #[cfg(not(feature = "http"))]
        let _ = servers;
        Self {
            options,
            permits: Semaphore::new(options.concurrency.max(1)),
            #[cfg(feature = "http")]
            http,
            closing: Default::default(),
        }
    }

    /// Discovers one server: from the cache when allowed and fresh, else by asking it.
    /// With `keep_session`, a server that was asked stays connected.
    pub(crate) async fn discover_one(
        &self,
        server: &ServerConfig,
        keep_session: bool,
    ) -> (ServerReport, Option<Session>) {
        let options = self.options;
        if !server.enabled {
            let report = ServerReport::disabled(&server.name);
            options.notify(DiscoveryEvent::Finished { report: &report });
            return (report, None);
        }
        let started = Instant::now();
        let cache = match options.cache_mode {
            CacheMode::Off => None,
            CacheMode::Use | CacheMode::Refresh => options.cache.as_ref(),
        };
        let key = cache.map(|_| options.fingerprint(server));
        let cached = match (cache, &key, options.cache_mode) {
            (Some(cache), Some(key), CacheMode::Use) => cache.lookup_fresh(key, now_ms()).await,
            _ => None,
        };
        if let Some(entry) = cached {
            let mut report = entry.report;
            // Another server with the same launch configuration may have stored it.
            report.name = server.name.clone();
            report.from_cache = true;
            report.fetched_at_ms = Some(entry.fetched_at_ms);
            report.duration_ms = millis(started.elapsed());
            let report = server.filters.apply(report);
            options.notify(DiscoveryEvent::Finished { report: &report });
            return (report, None);
        }

        // Waiting for a slot does not count against the server's deadline.
        let _permit = self.permits.acquire().await.ok();
        options.notify(DiscoveryEvent::Started {
            server: &server.name,
        });
        let deadline = options.deadline_of(server);
        let mut session = crate::connect::options_for(server, &options.session);
        session.request_timeout = session.request_timeout.min(deadline);
        session.initialize_timeout = session.initialize_timeout.min(deadline);
        // Retries stay within the server's own deadline.
        session.deadline = Some(tokio::time::Instant::now() + deadline);
        let probing = probe(
            server,
            ProbeSettings {
                connectors: &options.connectors,
                context: self.context(options),
                session,
                deadline,
                keep_session,
            },
        );
        // The server's span: its requests' spans go under it.
        #[cfg(feature = "otel")]
        let span = mcpdisco_client::telemetry::SpanScope::server(
            options.session.stack.telemetry_handle(),
            &server.name,
            &session_masker(server, options),
        );
        #[cfg(feature = "otel")]
        let probed = span.run(probing).await;
        #[cfg(not(feature = "otel"))]
        let probed = probing.await;
        #[cfg(feature = "otel")]
        if let Some(failure) = probed.report.error.as_ref() {
            span.fail(
                &failure.kind,
                &failure.message,
                &session_masker(server, options),
            );
        }
        let mut report = probed.report;
        // The report is complete at the last answer; closing runs on, without the slot.
        report.duration_ms = millis(started.elapsed());
        if let Some(session) = probed.to_close {
            let name = server.name.clone();
            self.closing.lock().push(tokio::spawn(async move {
                let closing = Instant::now();
                match tokio::time::timeout(CLOSE_LIMIT, session.close()).await {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => {
                        tracing::debug!(server = %name, %error, "closing after discovery")
                    }
                    // Dropping the session kills what is left of the process.
                    Err(_) => tracing::warn!(server = %name, "closing took too long; killed"),
                }
                let took = closing.elapsed();
                tracing::debug!(server = %name, close_ms = took.as_millis() as u64, "closed");
                (name, took)
            }));
        }
        // Everything the session passed on is masked already; the failure
        // texts discovery writes itself (a timeout quotes stderr) are masked here.
        report.mask_failures(&session_masker(server, options));

        if let (Some(cache), Some(key)) = (cache, &key) {
            let stale_max_age = server.stale_max_age.unwrap_or(DEFAULT_STALE_MAX_AGE);
            if probed.saw_list_changed {
                cache.invalidate(key);
            } else if let Err(error) = cache.store_retained(key, &report, stale_max_age).await {
                tracing::warn!(server = %server.name, %error, "could not store the discovery result");
            }
            // A failed refresh: the last good catalog, stale, rather than nothing.
            if options.serve_stale
                && !probed.saw_list_changed
                && let Some(failure) = report
                    .error
                    .clone()
                    .filter(|_| report.status == ServerStatus::Failed)
                && let Some(entry) = cache.lookup(key).await
                && entry.is_servable_stale(now_ms(), stale_max_age)
            {
                tracing::info!(server = %server.name, error = %failure.message, "refresh failed; serving the last good catalog, stale");
                let mut stale = entry.report.into_stale(failure);
                stale.name = server.name.clone();
                stale.from_cache = true;
                stale.fetched_at_ms = Some(entry.fetched_at_ms);
                stale.duration_ms = report.duration_ms;
                report = stale;
            }
        }
        // Cached whole; filtered as the host sees it (the gateway hides the same items).
        let report = server.filters.apply(report);
        options.notify(DiscoveryEvent::Finished { report: &report });
        (report, probed.session)
    }
}
