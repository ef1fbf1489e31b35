//! B2: request latency and throughput over stdio against `bench-server`.
//!
//! * ours: [`Session`] over [`StdioTransport`], pinned to the legacy era
//!   (the server is legacy-only, and rmcp speaks `initialize`).
//! * rmcp: `().serve(TokioChildProcess)`, then its `Peer`.
//! * raw (the limit): [`RawClient`], blocking writes and reads of lines.
//!
//! Sequential runs time each request (median, p99); in-flight runs keep 64
//! requests outstanding and time the whole batch (requests per second).

#[cfg(feature = "peers")]
use std::path::Path;
use std::path::PathBuf;
#[cfg(feature = "peers")]
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[cfg(feature = "ours")]
use mcpdisco_client::policy::{LayerStack, RetryPolicy};
#[cfg(feature = "ours")]
use mcpdisco_client::session::{EraPreference, Session, SessionOptions};
#[cfg(feature = "ours")]
use mcpdisco_transport::stdio::{StdioConfig, StdioTransport};
#[cfg(feature = "peers")]
use rmcp::model::{ClientRequest, PingRequest};
#[cfg(feature = "peers")]
use rmcp::service::RunningService;
#[cfg(feature = "peers")]
use rmcp::transport::TokioChildProcess;
#[cfg(feature = "peers")]
use rmcp::{Peer, RoleClient, ServiceExt};

use crate::placement::Placement;
#[cfg(feature = "peers")]
use crate::raw_client::{RawClient, RawReader, RawWriter, ping_request, tools_list_request};
use crate::statistics::LatencySummary;
use crate::{BenchError, Contender};

/// Requests kept outstanding in the in-flight mode.
pub const IN_FLIGHT: usize = 64;

/// Which request is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// `ping`.
    Ping,
    /// `tools/list` (the server has `--tools` tools).
    Tools,
}

/// How requests are issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One at a time; each one timed.
    Sequential,
    /// [`IN_FLIGHT`] outstanding at once; the batch timed.
    Inflight,
}

/// One B2 case.
#[derive(Debug, Clone)]
pub struct StdioCase {
    /// Whose client.
    pub contender: Contender,
    /// Which request.
    pub method: Method,
    /// How requests are issued.
    pub mode: Mode,
    /// Timed requests.
    pub requests: usize,
    /// Untimed requests first.
    pub warmup: usize,
    /// The `bench-server` program.
    pub server: PathBuf,
    /// How many tools the server lists.
    pub tools: usize,
    /// Where the server runs (the caller has pinned this process to
    /// [`Placement::CLIENT_CPU`]).
    pub placement: Placement,
    /// The raw loop only: check each answer as JSON (serde_json into
    /// `IgnoredAny`), as a client that validates its input must. The floor
    /// such a client can reach.
    pub check_json: bool,
}

impl StdioCase {
    /// The program and arguments that start the server where the placement says.
    fn server_command(&self) -> (String, Vec<String>) {
        self.placement
            .server_command(&self.server, &server_args(self.tools))
    }
}

/// What one B2 process measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StdioResult {
    /// Whose client.
    pub contender: Contender,
    /// Which request.
    pub method: Method,
    /// How requests were issued.
    pub mode: Mode,
    /// Where the server ran.
    pub placement: Placement,
    /// Timed requests.
    pub requests: usize,
    /// Sequential: per-request latency.
    pub latency: Option<LatencySummary>,
    /// In flight: the time for all requests, in seconds.
    pub seconds: Option<f64>,
    /// In flight: requests per second.
    pub requests_per_second: Option<f64>,
}

/// The arguments that start `bench-server` over stdio.
pub fn server_args(tools: usize) -> Vec<String> {
    vec!["stdio".into(), "--tools".into(), tools.to_string()]
}

/// Runs one case.
pub async fn run(case: StdioCase) -> Result<StdioResult, BenchError> {
    match case.contender {
        #[cfg(feature = "peers")]
        Contender::Raw => {
            let blocking = case.clone();
            let outcome = tokio::task::spawn_blocking(move || raw(&blocking))
                .await
                .map_err(|e| BenchError::Raw(format!("the raw loop panicked: {e}")))??;
            Ok(result(&case, outcome))
        }
        #[cfg(not(feature = "peers"))]
        Contender::Raw => Err(Contender::Raw.not_built()),
        Contender::Ours | Contender::Rmcp => {
            let client = Client::connect(case.contender, case.server_command()).await?;
            let outcome = drive(&client, &case).await;
            let closed = client.close().await;
            let outcome = outcome?;
            closed?;
            Ok(result(&case, outcome))
        }
    }
}

/// What a run produced before it is reported.
enum Outcome {
    Latencies(Vec<Duration>),
    Batch(Duration),
}

fn result(case: &StdioCase, outcome: Outcome) -> StdioResult {
    let (latency, seconds) = match outcome {
        Outcome::Latencies(latencies) => (LatencySummary::of(&latencies), None),
        Outcome::Batch(elapsed) => (None, Some(elapsed.as_secs_f64())),
    };
    StdioResult {
        contender: case.contender,
        method: case.method,
        mode: case.mode,
        placement: case.placement,
        requests: case.requests,
        latency,
        seconds,
        requests_per_second: seconds
            .filter(|s| *s > 0.0)
            .map(|s| case.requests as f64 / s),
    }
}

/// A connected client: ours or rmcp.
enum Client {
    #[cfg(feature = "ours")]
    Ours(Session),
    #[cfg(feature = "peers")]
    Rmcp(RunningService<RoleClient, ()>),
}

/// A cheap handle for issuing requests from many tasks.
#[derive(Clone)]
enum Handle {
    #[cfg(feature = "ours")]
    Ours(Session),
    #[cfg(feature = "peers")]
    Rmcp(Peer<RoleClient>),
}

impl Client {
    async fn connect(
        contender: Contender,
        (program, args): (String, Vec<String>),
    ) -> Result<Self, BenchError> {
        match contender {
            #[cfg(feature = "ours")]
            Contender::Ours => {
                let config = StdioConfig::new("bench", program).args(args);
                let transport = StdioTransport::spawn(config).map_err(ours_error)?;
                let session = Session::connect("bench", transport, legacy_options())
                    .await
                    .map_err(ours_error)?;
                Ok(Self::Ours(session))
            }
            #[cfg(feature = "peers")]
            Contender::Rmcp => {
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                let transport = TokioChildProcess::new(command).map_err(rmcp_error)?;
                let service = ().serve(transport).await.map_err(rmcp_error)?;
                Ok(Self::Rmcp(service))
            }
            Contender::Raw => Err(BenchError::Unexpected(
                "the raw baseline has no session".into(),
            )),
            #[allow(unreachable_patterns, reason = "a build with both sides has every arm")]
            other => Err(other.not_built()),
        }
    }

    fn handle(&self) -> Handle {
        match self {
            #[cfg(feature = "ours")]
            Client::Ours(session) => Handle::Ours(session.clone()),
            #[cfg(feature = "peers")]
            Client::Rmcp(service) => Handle::Rmcp(service.peer().clone()),
        }
    }

    async fn close(self) -> Result<(), BenchError> {
        match self {
            #[cfg(feature = "ours")]
            Client::Ours(session) => session.close().await.map_err(ours_error),
            #[cfg(feature = "peers")]
            Client::Rmcp(service) => service.cancel().await.map(drop).map_err(rmcp_error),
        }
    }
}

impl Handle {
    async fn request(&self, method: Method, tools: usize) -> Result<(), BenchError> {
        let listed = match (self, method) {
            #[cfg(feature = "ours")]
            (Handle::Ours(session), Method::Ping) => {
                return session.ping().await.map_err(ours_error);
            }
            // The typed list, as a caller meets it: its tools are decoded
            // only when read (rmcp's are decoded as they arrive).
            #[cfg(feature = "ours")]
            (Handle::Ours(session), Method::Tools) => {
                session.list_tools().await.map_err(ours_error)?.len()
            }
            #[cfg(feature = "peers")]
            (Handle::Rmcp(peer), Method::Ping) => {
                return peer
                    .send_request(ClientRequest::PingRequest(PingRequest::default()))
                    .await
                    .map(drop)
                    .map_err(rmcp_error);
            }
            #[cfg(feature = "peers")]
            (Handle::Rmcp(peer), Method::Tools) => {
                peer.list_tools(None).await.map_err(rmcp_error)?.tools.len()
            }
        };
        if listed == tools {
            Ok(())
        } else {
            Err(BenchError::Unexpected(format!(
                "listed {listed} tools, expected {tools}"
            )))
        }
    }
}

async fn drive(client: &Client, case: &StdioCase) -> Result<Outcome, BenchError> {
    let handle = client.handle();
    for _ in 0..case.warmup {
        handle.request(case.method, case.tools).await?;
    }
    match case.mode {
        Mode::Sequential => {
            let mut latencies = Vec::with_capacity(case.requests);
            for _ in 0..case.requests {
                let started = Instant::now();
                handle.request(case.method, case.tools).await?;
                latencies.push(started.elapsed());
            }
            Ok(Outcome::Latencies(latencies))
        }
        Mode::Inflight => {
            let started = Instant::now();
            let mut tasks = Vec::with_capacity(IN_FLIGHT);
            for worker in 0..IN_FLIGHT {
                let handle = handle.clone();
                let (method, tools) = (case.method, case.tools);
                let share = share(case.requests, worker);
                tasks.push(tokio::spawn(async move {
                    for _ in 0..share {
                        handle.request(method, tools).await?;
                    }
                    Ok::<(), BenchError>(())
                }));
            }
            for task in tasks {
                task.await
                    .map_err(|e| BenchError::Unexpected(format!("a request task failed: {e}")))??;
            }
            Ok(Outcome::Batch(started.elapsed()))
        }
    }
}

/// How many of `total` requests worker `worker` of [`IN_FLIGHT`] sends.
fn share(total: usize, worker: usize) -> usize {
    total / IN_FLIGHT + usize::from(worker < total % IN_FLIGHT)
}

#[cfg(feature = "ours")]
fn legacy_options() -> SessionOptions {
    SessionOptions::default()
        .era(EraPreference::Legacy)
        // The bench measures the client, not a policy: no rate limit (its
        // default of 10 requests per second would be the whole result).
        // Retry stays on, as a host has it.
        .stack(LayerStack::empty().retry(RetryPolicy::default()))
}

#[cfg(feature = "ours")]
fn ours_error(error: impl std::fmt::Display) -> BenchError {
    BenchError::Ours(error.to_string())
}

#[cfg(feature = "peers")]
fn rmcp_error(error: impl std::fmt::Display) -> BenchError {
    BenchError::Rmcp(error.to_string())
}

#[cfg(feature = "peers")]
fn request_line(method: Method, id: u64) -> String {
    match method {
        Method::Ping => ping_request(id),
        Method::Tools => tools_list_request(id),
    }
}

#[cfg(feature = "peers")]
fn raw(case: &StdioCase) -> Result<Outcome, BenchError> {
    let (program, args) = case.server_command();
    let mut client = RawClient::spawn(Path::new(&program), &args)?;
    let mut id = 0u64;
    for _ in 0..case.warmup {
        id += 1;
        client.exchange(&request_line(case.method, id))?;
    }
    let outcome = match case.mode {
        Mode::Sequential => {
            let mut latencies = Vec::with_capacity(case.requests);
            for _ in 0..case.requests {
                id += 1;
                let line = request_line(case.method, id);
                let started = Instant::now();
                let answer = client.exchange(&line)?;
                if case.check_json {
                    check_json(answer)?;
                }
                latencies.push(started.elapsed());
            }
            Outcome::Latencies(latencies)
        }
        Mode::Inflight => {
            let started = Instant::now();
            let RawClient { writer, reader, .. } = &mut client;
            raw_in_flight(
                writer,
                reader,
                case.method,
                case.requests,
                id,
                case.check_json,
            )?;
            Outcome::Batch(started.elapsed())
        }
    };
    client.close()?;
    Ok(outcome)
}

/// Reads `answer` as JSON and throws it away: what checking costs.
#[cfg(feature = "peers")]
fn check_json(answer: &[u8]) -> Result<(), BenchError> {
    serde_json::from_slice::<serde::de::IgnoredAny>(answer)
        .map(|_| ())
        .map_err(|e| BenchError::Raw(format!("an answer is not JSON: {e}")))
}

/// Keeps [`IN_FLIGHT`] requests outstanding: a writer thread sends one more
/// request for each response the reader sees.
#[cfg(feature = "peers")]
fn raw_in_flight(
    writer: &mut RawWriter,
    reader: &mut RawReader,
    method: Method,
    total: usize,
    first_id: u64,
    check: bool,
) -> Result<(), BenchError> {
    let (credit, credits) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let sending = scope.spawn(move || -> Result<(), BenchError> {
            let mut sent = 0usize;
            let mut id = first_id;
            while sent < total.min(IN_FLIGHT) {
                id += 1;
                writer.send(&request_line(method, id))?;
                sent += 1;
            }
            writer.flush()?;
            while sent < total {
                // Ends when the reader is done or failed (the sender is dropped).
                if credits.recv().is_err() {
                    break;
                }
                let mut allowed = 1;
                while credits.try_recv().is_ok() {
                    allowed += 1;
                }
                for _ in 0..allowed.min(total - sent) {
                    id += 1;
                    writer.send(&request_line(method, id))?;
                    sent += 1;
                }
                writer.flush()?;
            }
            Ok(())
        });
        let received = (|| {
            for _ in 0..total {
                let answer = reader.receive()?;
                if check {
                    check_json(answer)?;
                }
                // The writer may have finished sending: a closed channel is fine.
                let _ = credit.send(());
            }
            Ok::<(), BenchError>(())
        })();
        drop(credit);
        let sent = sending
            .join()
            .map_err(|_| BenchError::Raw("the writer thread panicked".into()))?;
        received.and(sent)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_total() {
        for total in [0, 1, 63, 64, 65, 20_000] {
            let sum: usize = (0..IN_FLIGHT).map(|worker| share(total, worker)).sum();
            assert_eq!(sum, total);
        }
    }

    #[test]
    #[cfg(feature = "peers")]
    fn raw_in_flight_keeps_the_window_and_reads_every_response() {
        let mut client = RawClient::spawn(Path::new("cat"), &[]).unwrap();
        let RawClient { writer, reader, .. } = &mut client;
        raw_in_flight(writer, reader, Method::Ping, 1000, 0, true).unwrap();
        assert!(client.close().unwrap().success());
    }
}
