//! The gateway's own work per `tools/call` (B5's hop without its pipes and
//! processes): `serve` in this process on a current-thread runtime, its
//! client end and its one backend each an in-memory byte pipe framed as
//! NDJSON, as stdio frames them. A call is a request line written to the
//! gateway, routed and written to the backend, answered there with a fixed
//! line, and the answer line read back. What the time measures is the
//! gateway's user-space work (decoding, routing, encoding, masking, its
//! tasks' wake-ups), which `B5`'s process rows add on top of their pipes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::server::{Answer, Responder};
use mcpdisco::config::{Launch, ServerConfig};
use mcpdisco::connect::{ConnectContext, Connection, Connector, Connectors};
use mcpdisco_client::error::SessionError;
use mcpdisco_client::session::SessionOptions;
use mcpdisco_gateway::serve::{Gateway, GatewayOptions};
use mcpdisco_gateway::supervisor::SupervisorOptions;
use mcpdisco_transport::server::stdio::StdioServer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// Counts allocations (and their bytes), to report them per call.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` or `realloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with `layout`; passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Calls counted for the allocations per call.
const COUNTED_CALLS: u64 = 10_000;

/// The size of each in-memory pipe's buffer.
const PIPE: usize = 64 * 1024;

/// Connects the one backend: an in-memory pipe whose far end a task answers
/// line by line with the bench server's [`Responder`].
struct PipeConnector;

#[async_trait]
impl Connector for PipeConnector {
    async fn open(
        &self,
        _server: &ServerConfig,
        _context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let (ours, theirs) = tokio::io::duplex(PIPE);
        let (read, write) = tokio::io::split(ours);
        tokio::spawn(answer_lines(theirs));
        Ok(Connection::new(Arc::new(StdioServer::over(
            "backend", read, write,
        ))))
    }
}

/// The backend: each request line answered at once.
async fn answer_lines(pipe: DuplexStream) {
    let responder = Responder::new("backend", 50);
    let (read, mut write) = tokio::io::split(pipe);
    let mut lines = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if let Answer::Reply(mut reply) = responder.answer(&line) {
            reply.push('\n');
            if write.write_all(reply.as_bytes()).await.is_err() {
                return;
            }
        }
    }
}

/// A client of the gateway: writes lines, reads lines.
struct Client {
    write: tokio::io::WriteHalf<DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    line: String,
    next_id: u64,
}

impl Client {
    async fn round_trip(&mut self, request: &str) -> &str {
        self.write
            .write_all(request.as_bytes())
            .await
            .expect("the gateway reads");
        self.line.clear();
        self.read
            .read_line(&mut self.line)
            .await
            .expect("the gateway answers");
        &self.line
    }

    async fn call(&mut self) {
        self.next_id += 1;
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"backend__tool_0","arguments":{{"path":"/"}}}}}}
"#,
            self.next_id
        );
        let answer = self.round_trip(&request).await;
        assert!(answer.contains("done"), "unexpected answer {answer}");
    }
}

/// A gateway over the one backend, and a client that has initialized and
/// seen the backend's tools.
async fn setup() -> (Gateway, Client) {
    let connectors = Connectors::builtin().with("pipe", Arc::new(PipeConnector));
    let server = ServerConfig::new(
        "backend",
        Launch::Custom {
            transport: "pipe".into(),
            settings: serde_json::Map::new(),
        },
    );
    // As `mcp-cli serve` runs when given no rate limit.
    let mut session = SessionOptions::default();
    session.stack.set_rate_limit(None);
    let supervisor = SupervisorOptions::default()
        .connectors(connectors)
        .session(session);
    let gateway = Gateway::new(vec![server], supervisor, GatewayOptions::default());
    let (ours, theirs) = tokio::io::duplex(PIPE);
    let (read, write) = tokio::io::split(theirs);
    let serving = gateway.clone();
    tokio::spawn(async move {
        serving
            .serve(StdioServer::over("client", read, write))
            .await;
    });
    let (read, write) = tokio::io::split(ours);
    let mut client = Client {
        write,
        read: BufReader::new(read),
        line: String::new(),
        next_id: 0,
    };
    client
        .round_trip(concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
            "\n"
        ))
        .await;
    client
        .write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("the gateway reads");
    // Until the backend is ready and its tools are served.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let listed = client
            .round_trip("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n")
            .await;
        if listed.contains("backend__tool_0") {
            break;
        }
        assert!(Instant::now() < deadline, "the backend never got ready");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (gateway, client)
}

/// Counts the allocations of [`COUNTED_CALLS`] calls (the harness's
/// included: the request's `format!`, the backend's answer) and writes them
/// per call to `criterion/serve_hop/allocations.json` in the target folder,
/// where `cargo xtask bench` reads them.
async fn count_allocations(client: &mut Client) {
    let (before, before_bytes) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        ALLOCATED_BYTES.load(Ordering::Relaxed),
    );
    for _ in 0..COUNTED_CALLS {
        client.call().await;
    }
    let per_call = |after: u64, before: u64| (after - before) as f64 / COUNTED_CALLS as f64;
    let allocations = per_call(ALLOCATIONS.load(Ordering::Relaxed), before);
    let bytes = per_call(ALLOCATED_BYTES.load(Ordering::Relaxed), before_bytes);
    eprintln!("serve_hop: {allocations:.1} allocations, {bytes:.0} bytes allocated per call");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| "target".into(), PathBuf::from);
    let dir = target.join("criterion").join("serve_hop");
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::write(
            dir.join("allocations.json"),
            format!(r#"{{"allocations_per_call":{allocations},"bytes_per_call":{bytes}}}"#),
        )
    });
    if let Err(error) = written {
        eprintln!("serve_hop: cannot write {}: {error}", dir.display());
    }
}

fn serve_hop(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (gateway, client) = runtime.block_on(setup());
    let client = tokio::sync::Mutex::new(client);
    runtime.block_on(async { count_allocations(&mut *client.lock().await).await });
    let mut group = c.benchmark_group("serve_hop");
    group.bench_function("tools_call", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut client = client.lock().await;
                let start = Instant::now();
                for _ in 0..iters {
                    client.call().await;
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    runtime.block_on(gateway.shutdown());
}

criterion_group!(benches, serve_hop);
criterion_main!(benches);
