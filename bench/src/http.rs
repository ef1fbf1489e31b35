//! B4: `tools/list` over Streamable HTTP, sequentially, against `bench-server
//! http` in its own process; the server counts the TCP connections it accepts.
//! Client and server are pinned as B2's are ([`Placement`]): unpinned, a
//! loopback round trip is bimodal too, and which mode a run lands in decides
//! the result more than the client does.
//!
//! * ours: [`Session`] over [`HttpTransport`] (Streamable HTTP, legacy era).
//! * rmcp: `StreamableHttpClientTransport::from_uri`, its default transport.
//! * raw (the limit): a pooled `reqwest` client posting the request line and
//!   reading the body, with no handshake and no decoding.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[cfg(feature = "ours")]
use mcpdisco_client::policy::{LayerStack, RetryPolicy};
#[cfg(feature = "ours")]
use mcpdisco_client::session::{EraPreference, ListKind, Session, SessionOptions};
#[cfg(feature = "ours")]
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
#[cfg(feature = "peers")]
use rmcp::ServiceExt;
#[cfg(feature = "peers")]
use rmcp::transport::StreamableHttpClientTransport;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout};

use crate::placement::Placement;
#[cfg(feature = "peers")]
use crate::raw_client::tools_list_request;
use crate::server::http::ResponseFormat;
use crate::statistics::LatencySummary;
use crate::{BenchError, Contender};

/// How long the server may take to say where it listens, and to report at the end.
const SERVER_TIMEOUT: Duration = Duration::from_secs(10);

/// One B4 case.
#[derive(Debug, Clone)]
pub struct HttpCase {
    /// Whose client.
    pub contender: Contender,
    /// How the server answers.
    pub format: ResponseFormat,
    /// Timed requests.
    pub requests: usize,
    /// Untimed requests first.
    pub warmup: usize,
    /// The `bench-server` program.
    pub server: PathBuf,
    /// Tools the server lists.
    pub tools: usize,
    /// Where the server runs (the caller has pinned this process to
    /// [`Placement::CLIENT_CPU`]).
    pub placement: Placement,
}

/// What one B4 process measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HttpResult {
    /// Whose client.
    pub contender: Contender,
    /// How the server answered.
    pub format: ResponseFormat,
    /// Where the server ran.
    pub placement: Placement,
    /// Per-request latency.
    pub latency: Option<LatencySummary>,
    /// TCP connections the server accepted over the whole run (handshake,
    /// warm-up, timed requests and close).
    pub connections: u64,
}

/// The `bench-server http` process.
struct ServerProcess {
    child: Child,
    stdout: BufReader<ChildStdout>,
    url: String,
}

impl ServerProcess {
    async fn start(case: &HttpCase) -> Result<Self, BenchError> {
        let format = match case.format {
            ResponseFormat::Json => "json",
            ResponseFormat::Sse => "sse",
        };
        let (program, args) = case.placement.server_command(
            &case.server,
            &[
                "http".to_owned(),
                "--tools".to_owned(),
                case.tools.to_string(),
                "--format".to_owned(),
                format.to_owned(),
            ],
        );
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| BenchError::io("cannot start bench-server http", e))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Unexpected("the server's stdout is not piped".into()))?;
        let mut stdout = BufReader::new(stdout);
        let line = read_line(&mut stdout).await?;
        let url = line
            .strip_prefix("listening ")
            .ok_or_else(|| BenchError::Unexpected(format!("server said {line:?}")))?
            .to_owned();
        Ok(Self { child, stdout, url })
    }

    /// Closes the server's stdin; it reports its connection count and exits.
    async fn stop(mut self) -> Result<u64, BenchError> {
        drop(self.child.stdin.take());
        let line = read_line(&mut self.stdout).await?;
        let connections = line
            .strip_prefix("connections ")
            .and_then(|count| count.parse().ok())
            .ok_or_else(|| BenchError::Unexpected(format!("server said {line:?}")))?;
        match tokio::time::timeout(SERVER_TIMEOUT, self.child.wait()).await {
            Ok(Ok(_)) => Ok(connections),
            Ok(Err(error)) => Err(BenchError::io("waiting for bench-server", error)),
            Err(_) => {
                let _ = self.child.kill().await;
                Err(BenchError::Timeout("bench-server did not exit".into()))
            }
        }
    }
}

async fn read_line(stdout: &mut BufReader<ChildStdout>) -> Result<String, BenchError> {
    let mut line = String::new();
    match tokio::time::timeout(SERVER_TIMEOUT, stdout.read_line(&mut line)).await {
        Ok(Ok(0)) => Err(BenchError::Unexpected("bench-server closed stdout".into())),
        Ok(Ok(_)) => Ok(line.trim_end().to_owned()),
        Ok(Err(error)) => Err(BenchError::io("reading bench-server's stdout", error)),
        Err(_) => Err(BenchError::Timeout("bench-server said nothing".into())),
    }
}

/// Runs one case.
pub async fn run(case: HttpCase) -> Result<HttpResult, BenchError> {
    let server = ServerProcess::start(&case).await?;
    let latencies = match case.contender {
        #[cfg(feature = "ours")]
        Contender::Ours => ours(&case, &server.url).await,
        #[cfg(feature = "peers")]
        Contender::Rmcp => rmcp(&case, &server.url).await,
        #[cfg(feature = "peers")]
        Contender::Raw => raw(&case, &server.url).await,
        #[allow(unreachable_patterns, reason = "a build with both sides has every arm")]
        other => Err(other.not_built()),
    };
    let connections = server.stop().await?;
    Ok(HttpResult {
        contender: case.contender,
        format: case.format,
        placement: case.placement,
        latency: LatencySummary::of(&latencies?),
        connections,
    })
}

/// Runs `request` `warmup` times untimed, then `requests` times timed.
async fn timed<F, Fut>(case: &HttpCase, mut request: F) -> Result<Vec<Duration>, BenchError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<usize, BenchError>>,
{
    for _ in 0..case.warmup {
        check(request().await?, case.tools)?;
    }
    let mut latencies = Vec::with_capacity(case.requests);
    for _ in 0..case.requests {
        let started = Instant::now();
        let listed = request().await?;
        latencies.push(started.elapsed());
        check(listed, case.tools)?;
    }
    Ok(latencies)
}

fn check(listed: usize, tools: usize) -> Result<(), BenchError> {
    if listed == tools {
        Ok(())
    } else {
        Err(BenchError::Unexpected(format!(
            "listed {listed} tools, expected {tools}"
        )))
    }
}

#[cfg(feature = "ours")]
async fn ours(case: &HttpCase, url: &str) -> Result<Vec<Duration>, BenchError> {
    let ours_error = |error: String| BenchError::Ours(error);
    let client = HttpClient::new().map_err(|e| ours_error(e.to_string()))?;
    let transport = HttpTransport::connect(
        HttpConfig::new("bench", url),
        &client,
        HttpKind::StreamableHttp,
    )
    .await
    .map_err(|e| ours_error(e.to_string()))?;
    let options = SessionOptions::default()
        .era(EraPreference::Legacy)
        // The bench measures the client, not a policy: no rate limit (its
        // default of 10 requests per second would be the whole result).
        // Retry stays on, as a host has it.
        .stack(LayerStack::empty().retry(RetryPolicy::default()));
    let session = Session::connect("bench", transport, options)
        .await
        .map_err(|e| ours_error(e.to_string()))?;
    let latencies = timed(case, || async {
        session
            .list_page(ListKind::Tools, None)
            .await
            .map(|page| page.items.len())
            .map_err(|e| ours_error(e.to_string()))
    })
    .await;
    let closed = session.close().await;
    let latencies = latencies?;
    closed.map_err(|e| ours_error(e.to_string()))?;
    Ok(latencies)
}

#[cfg(feature = "peers")]
async fn rmcp(case: &HttpCase, url: &str) -> Result<Vec<Duration>, BenchError> {
    let rmcp_error = |error: String| BenchError::Rmcp(error);
    let transport = StreamableHttpClientTransport::from_uri(url);
    let service = ().serve(transport).await.map_err(|e| rmcp_error(e.to_string()))?;
    let latencies = timed(case, || async {
        service
            .list_tools(None)
            .await
            .map(|result| result.tools.len())
            .map_err(|e| rmcp_error(e.to_string()))
    })
    .await;
    let cancelled = service.cancel().await;
    let latencies = latencies?;
    cancelled.map_err(|e| rmcp_error(e.to_string()))?;
    Ok(latencies)
}

#[cfg(feature = "peers")]
async fn raw(case: &HttpCase, url: &str) -> Result<Vec<Duration>, BenchError> {
    let client = reqwest::Client::new();
    let mut id = 0u64;
    timed(case, || {
        id += 1;
        let request = client
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(tools_list_request(id));
        let tools = case.tools;
        async move {
            let response = request
                .send()
                .await
                .map_err(|e| BenchError::Raw(e.to_string()))?;
            if !response.status().is_success() {
                return Err(BenchError::Raw(format!("status {}", response.status())));
            }
            let body = response
                .bytes()
                .await
                .map_err(|e| BenchError::Raw(e.to_string()))?;
            // No decoding: the limit only moves the bytes.
            Ok(if body.is_empty() { 0 } else { tools })
        }
    })
    .await
}
