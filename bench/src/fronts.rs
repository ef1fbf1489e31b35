//! B5 under load: `tools/call` round trips through something that stands
//! in front of `bench-server`s, at 1 and 32 concurrent clients, and the
//! front's memory per backend.
//!
//! The fronts:
//! * [`Front::Relay`], the floor: `bench-runner relay`, which copies bytes
//!   between the client's pipe and the server's and parses nothing;
//! * [`Front::EventLoopRelay`], a reference: the same copies from one
//!   thread's event loop (`bench-runner relay --event-loop`);
//! * [`Front::Stdio`]: `mcp-cli serve` over stdio;
//! * [`Front::Http`]: `mcp-cli serve --http` on 127.0.0.1;
//! * [`Front::Peer`]: `mcp-proxy` (crates.io, tower-based, aggregating
//!   stdio backends behind one Streamable HTTP endpoint), on 127.0.0.1.
//!
//! Over stdio there is one connection: its clients are concurrent requests
//! on it. Over HTTP each client is a session of its own. Every client makes
//! its share of the calls in turn; latency is each call's, throughput the
//! timed calls over the timed phase's wall time.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcpdisco_client::policy::{LayerStack, RetryPolicy};
use mcpdisco_client::protocol::types::CallToolParams;
use mcpdisco_client::session::{EraPreference, RequestOptions, Session, SessionOptions};
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::stdio::{StdioConfig, StdioTransport};
use serde_json::json;

use crate::BenchError;
use crate::discovery::ServerSet;
use crate::placement::Placement;
use crate::serve_http::{self, ServeHttp};
use crate::statistics::LatencySummary;

/// How long a front may take to listen, and its backends to be ready.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// What stands between the clients and the servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Front {
    /// A byte relay over stdio (the floor).
    Relay,
    /// The same relay from one thread's event loop (a reference).
    EventLoopRelay,
    /// `mcp-cli serve` over stdio.
    Stdio,
    /// `mcp-cli serve --http`.
    Http,
    /// `mcp-proxy` over Streamable HTTP.
    Peer,
}

/// One case.
#[derive(Debug, Clone)]
pub struct FrontCase {
    /// The front.
    pub front: Front,
    /// Concurrent clients.
    pub clients: usize,
    /// Timed calls, over all clients.
    pub requests: usize,
    /// Untimed calls first, over all clients.
    pub warmup: usize,
    /// Servers behind the front.
    pub servers: usize,
    /// Tools per server.
    pub tools: usize,
    /// `bench-server`.
    pub server: PathBuf,
    /// `mcp-cli`.
    pub cli: PathBuf,
    /// `mcp-proxy`, for [`Front::Peer`].
    pub peer: Option<PathBuf>,
    /// Where configs are written.
    pub scratch: PathBuf,
    /// Where a stdio front and its server run, pinned (the client runs on
    /// [`Placement::CLIENT_CPU`]); left to the scheduler when `None`.
    pub placement: Option<Placement>,
}

/// What one case measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FrontResult {
    /// The front.
    pub front: Front,
    /// Where a stdio front ran, when pinned.
    pub placement: Option<Placement>,
    /// Concurrent clients.
    pub clients: usize,
    /// Per-call latency (timed calls).
    pub latency: Option<LatencySummary>,
    /// Timed calls per second.
    pub throughput_per_s: f64,
    /// The front's resident memory at the end, in KiB (not for the relay's
    /// pipe of one server: its process is the client's child all the same).
    pub front_rss_kib: Option<u64>,
    /// Tools listed through the front before the calls.
    pub tools_listed: usize,
}

fn ours_error(error: impl std::fmt::Display) -> BenchError {
    BenchError::Ours(error.to_string())
}

/// The client's options: the legacy era, retry on (as a host has it), no
/// rate limit (its default would be the whole result).
pub(crate) fn options() -> SessionOptions {
    SessionOptions::default()
        // The era every front speaks.
        .era(EraPreference::Legacy)
        .stack(LayerStack::empty().retry(RetryPolicy::default()))
}

/// The peer running in a process of its own, killed and reaped when dropped.
struct PeerProcess {
    child: Child,
    url: String,
}

impl Drop for PeerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP front running in a process of its own.
enum Running {
    Ours(ServeHttp),
    Peer(PeerProcess),
}

impl Running {
    fn url(&self) -> &str {
        match self {
            Running::Ours(serve) => serve.url(),
            Running::Peer(peer) => &peer.url,
        }
    }

    fn pid(&self) -> u32 {
        match self {
            Running::Ours(serve) => serve.pid(),
            Running::Peer(peer) => peer.child.id(),
        }
    }
}

fn set(case: &FrontCase) -> ServerSet {
    ServerSet {
        program: case.server.clone(),
        servers: case.servers,
        tools: case.tools,
        start_delay_ms: 0,
        start_log: None,
    }
}

/// `mcp-cli serve`'s config: the set, health pings off.
fn write_ours(case: &FrontCase) -> Result<PathBuf, BenchError> {
    let path = case
        .scratch
        .join(format!("fronts-ours-{}.json", case.servers));
    serve_http::write_config(&set(case), &path)?;
    Ok(path)
}

/// `mcp-proxy`'s TOML config: the set, namespaced `<server>__<tool>` like ours.
fn write_peer(case: &FrontCase, port: u16) -> Result<PathBuf, BenchError> {
    let set = set(case);
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let mut toml = format!(
        "[proxy]\nname = \"bench-peer\"\nseparator = \"__\"\n\n[proxy.listen]\nhost = \"127.0.0.1\"\nport = {port}\n"
    );
    for index in 0..case.servers {
        let args: Vec<String> = set.args(index).iter().map(|a| quoted(a)).collect();
        toml.push_str(&format!(
            "\n[[backends]]\nname = {}\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\n",
            quoted(&ServerSet::name(index)),
            quoted(&case.server.display().to_string()),
            args.join(", ")
        ));
    }
    let path = case
        .scratch
        .join(format!("fronts-peer-{}.toml", case.servers));
    std::fs::write(&path, toml)
        .map_err(|e| BenchError::io(format!("cannot write {}", path.display()), e))?;
    Ok(path)
}

/// A free loopback port.
pub(crate) fn free_port() -> Result<u16, BenchError> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| BenchError::io("cannot find a free port", e))?;
    listener
        .local_addr()
        .map(|addr| addr.port())
        .map_err(|e| BenchError::io("cannot find a free port", e))
}

/// Starts an HTTP front and waits until it listens.
fn start_http(case: &FrontCase) -> Result<Running, BenchError> {
    match case.front {
        Front::Http => {
            let config = write_ours(case)?;
            let flags: [&str; 0] = [];
            ServeHttp::start(&case.cli, &config, &flags).map(Running::Ours)
        }
        Front::Peer => {
            let program = case.peer.as_ref().ok_or_else(|| {
                BenchError::Unexpected("the peer front needs --peer (mcp-proxy)".into())
            })?;
            let port = free_port()?;
            let config = write_peer(case, port)?;
            let child = Command::new(program)
                .arg("--config")
                .arg(&config)
                .env("RUST_LOG", "error")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| BenchError::io(format!("cannot start {}", program.display()), e))?;
            let running = PeerProcess {
                child,
                url: format!("http://127.0.0.1:{port}/"),
            };
            let deadline = Instant::now() + READY_TIMEOUT;
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                if Instant::now() > deadline {
                    return Err(BenchError::Unexpected(format!(
                        "{} never listened on port {port}",
                        program.display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(Running::Peer(running))
        }
        Front::Relay | Front::EventLoopRelay | Front::Stdio => {
            Err(BenchError::Unexpected("not an HTTP front".into()))
        }
    }
}

/// A stdio front's session, and its process id.
async fn connect_stdio(case: &FrontCase) -> Result<(Session, Option<u32>), BenchError> {
    let (name, program, args) = match case.front {
        Front::Relay | Front::EventLoopRelay => {
            let me = std::env::current_exe()
                .map_err(|e| BenchError::io("cannot find bench-runner itself", e))?;
            let mut args = vec!["relay".to_owned()];
            if case.front == Front::EventLoopRelay {
                args.push("--event-loop".to_owned());
            }
            args.push("--".to_owned());
            args.push(case.server.display().to_string());
            args.extend(set(case).args(0));
            ("relay", me, args)
        }
        _ => {
            let config = write_ours(case)?;
            let args = vec![
                "serve".to_owned(),
                "--config".to_owned(),
                config.display().to_string(),
                "--page-size".to_owned(),
                "1000".to_owned(),
            ];
            ("gateway", case.cli.clone(), args)
        }
    };
    // Pinned, the front starts on its CPU and its server inherits it.
    let (program, args) = match case.placement {
        Some(placement) => placement.server_command(&program, &args),
        None => (program.display().to_string(), args),
    };
    let config = StdioConfig::new(name, program).args(args);
    let transport = StdioTransport::spawn(config).map_err(ours_error)?;
    let pid = transport.pid();
    let session = Session::connect("bench", transport, options())
        .await
        .map_err(ours_error)?;
    Ok((session, pid))
}

/// A session of its own over Streamable HTTP to `url`, with `token` as its
/// bearer token when there is one.
pub(crate) async fn connect_http(
    url: &str,
    token: Option<&str>,
    options: SessionOptions,
) -> Result<Session, BenchError> {
    // A client of its own, as a separate host has.
    let client = HttpClient::new().map_err(ours_error)?;
    let mut config = HttpConfig::new("bench", url);
    if let Some(token) = token {
        config = config.bearer_token(token);
    }
    let transport = HttpTransport::connect(config, &client, HttpKind::StreamableHttp)
        .await
        .map_err(ours_error)?;
    Session::connect("bench", transport, options)
        .await
        .map_err(ours_error)
}

/// The tool called: the first server's first tool, namespaced (the relay
/// passes the server's own name).
pub(crate) fn tool(front: Front) -> String {
    match front {
        Front::Relay | Front::EventLoopRelay => "tool_0".to_owned(),
        _ => format!("{}__tool_0", ServerSet::name(0)),
    }
}

async fn call(session: &Session, name: &str) -> Result<(), BenchError> {
    let result = session
        .call_tool(
            CallToolParams::new(name, json!({"path": "/"}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .map_err(ours_error)?;
    if result.content.first().and_then(|block| block.as_text()) == Some("done") {
        Ok(())
    } else {
        Err(BenchError::Unexpected(format!(
            "unexpected result {result:?}"
        )))
    }
}

/// Lists every tool through `session` until the front serves them all.
pub(crate) async fn ready(session: &Session, expected: usize) -> Result<usize, BenchError> {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        let listed = session.list_tools().await.map_err(ours_error)?.len();
        if listed >= expected {
            return Ok(listed);
        }
        if Instant::now() > deadline {
            return Err(BenchError::Unexpected(format!(
                "the front listed {listed} tools, expected {expected}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `calls` calls by each of `sessions` (one per client, or the one
/// connection cloned), all at once; each call's latency.
pub(crate) async fn drive(
    sessions: &[Session],
    front: Front,
    calls: usize,
) -> Result<Vec<Duration>, BenchError> {
    let name = tool(front);
    let tasks = sessions.iter().map(|session| {
        let session = session.clone();
        let name = name.clone();
        tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(calls);
            for _ in 0..calls {
                let started = Instant::now();
                call(&session, &name).await?;
                latencies.push(started.elapsed());
            }
            Ok::<_, BenchError>(latencies)
        })
    });
    let mut all = Vec::new();
    for outcome in futures::future::join_all(tasks).await {
        let latencies = outcome.map_err(|e| BenchError::Unexpected(e.to_string()))??;
        all.extend(latencies);
    }
    Ok(all)
}

fn rss_kib(pid: Option<u32>) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
}

/// Runs one case: connect, wait until every tool is served, the untimed
/// calls, then the timed ones.
pub async fn run(case: FrontCase) -> Result<FrontResult, BenchError> {
    let clients = case.clients.max(1);
    let (sessions, pid, _running) = match case.front {
        Front::Relay | Front::EventLoopRelay | Front::Stdio => {
            let (session, pid) = connect_stdio(&case).await?;
            (vec![session; clients], pid, None)
        }
        Front::Http | Front::Peer => {
            let running = start_http(&case)?;
            let mut sessions = Vec::with_capacity(clients);
            for _ in 0..clients {
                sessions.push(connect_http(running.url(), None, options()).await?);
            }
            let pid = running.pid();
            (sessions, Some(pid), Some(running))
        }
    };
    let expected = if matches!(case.front, Front::Relay | Front::EventLoopRelay) {
        case.tools
    } else {
        case.servers * case.tools
    };
    let listed = match sessions.first() {
        Some(session) => ready(session, expected).await?,
        None => 0,
    };
    drive(&sessions, case.front, case.warmup.div_ceil(clients)).await?;
    let started = Instant::now();
    let latencies = drive(&sessions, case.front, case.requests.div_ceil(clients)).await?;
    let elapsed = started.elapsed().as_secs_f64();
    let front_rss_kib = rss_kib(pid);
    // Over stdio the sessions are one connection: the first close ends it.
    for session in &sessions {
        let _ = session.close().await;
    }
    Ok(FrontResult {
        front: case.front,
        placement: case.placement,
        clients,
        throughput_per_s: if elapsed > 0.0 {
            latencies.len() as f64 / elapsed
        } else {
            0.0
        },
        latency: LatencySummary::of(&latencies),
        front_rss_kib,
        tools_listed: listed,
    })
}
