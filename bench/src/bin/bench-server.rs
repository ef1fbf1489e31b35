//! `bench-server`: a minimal legacy-era MCP server that answers `initialize`,
//! `ping` and `tools/list` at once.
//!
//! * `bench-server stdio [--name N] [--tools 50] [--page-size N] [--start-delay-ms 300] [--start-log FILE]`:
//!   newline JSON on stdin/stdout until stdin ends. The delay comes before it
//!   reads anything, like a server that takes time to start; the start log
//!   gets one line per start (name, pid, start time in µs since the epoch),
//!   so a harness can tell whether and when a server ran.
//! * `bench-server http [--tools 50] [--format json|sse]`: Streamable HTTP on
//!   127.0.0.1 at a free port. It prints `listening URL`, serves until stdin
//!   ends, then prints `connections N` (TCP connections accepted) and exits.

use std::io::{BufReader, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use mcp_bench::BenchError;
use mcp_bench::server::Responder;
use mcp_bench::server::http::{HttpServer, ResponseFormat};
use tokio::io::AsyncReadExt;

#[derive(Debug, Parser)]
#[command(
    name = "bench-server",
    about = "A minimal MCP server for the benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Debug, Subcommand)]
enum Mode {
    /// Serve over stdin and stdout.
    Stdio {
        /// The server's name in `serverInfo`.
        #[arg(long, default_value = "bench-server")]
        name: String,
        /// How many tools `tools/list` returns.
        #[arg(long, default_value_t = 50)]
        tools: usize,
        /// List the tools in pages of this many (one page without it).
        #[arg(long)]
        page_size: Option<usize>,
        /// Wait this long before reading anything.
        #[arg(long, default_value_t = 0)]
        start_delay_ms: u64,
        /// Append one line to this file at start.
        #[arg(long)]
        start_log: Option<std::path::PathBuf>,
    },
    /// Serve Streamable HTTP on 127.0.0.1.
    Http {
        /// The server's name in `serverInfo`.
        #[arg(long, default_value = "bench-server")]
        name: String,
        /// How many tools `tools/list` returns.
        #[arg(long, default_value_t = 50)]
        tools: usize,
        /// How requests are answered.
        #[arg(long, value_enum, default_value_t = ResponseFormat::Json)]
        format: ResponseFormat,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.mode {
        Mode::Stdio {
            name,
            tools,
            page_size,
            start_delay_ms,
            start_log,
        } => stdio(name, tools, page_size, start_delay_ms, start_log),
        Mode::Http {
            name,
            tools,
            format,
        } => http(name, tools, format),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench-server: {error}");
            ExitCode::FAILURE
        }
    }
}

fn stdio(
    name: String,
    tools: usize,
    page_size: Option<usize>,
    start_delay_ms: u64,
    start_log: Option<std::path::PathBuf>,
) -> Result<(), BenchError> {
    if let Some(path) = start_log {
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| BenchError::io(format!("cannot open {}", path.display()), e))?;
        let started_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        // One write of the whole line: appends from many servers at once stay whole.
        let line = format!("{name} {} {started_us}\n", std::process::id());
        log.write_all(line.as_bytes())
            .map_err(|e| BenchError::io(format!("cannot write {}", path.display()), e))?;
    }
    let responder = match page_size {
        Some(size) => Responder::new(name, 0).paged(tools, size),
        None => Responder::new(name, tools),
    };
    std::thread::sleep(Duration::from_millis(start_delay_ms));
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut output = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    mcp_bench::server::stdio::serve(&responder, &mut input, &mut output)
        .map_err(|e| BenchError::io("serving stdio", e))
}

fn http(name: String, tools: usize, format: ResponseFormat) -> Result<(), BenchError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BenchError::io("cannot start the runtime", e))?;
    runtime.block_on(async {
        let server = HttpServer::start(Responder::new(name, tools), format).await?;
        say(&format!("listening {}", server.url()))?;
        // Serve until stdin ends; what it carries is ignored, a bounded buffer at a time.
        let mut stdin = tokio::io::stdin();
        let mut buffer = [0u8; 1024];
        loop {
            match stdin.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let connections = server.stop().await?;
        say(&format!("connections {connections}"))
    })
}

fn say(line: &str) -> Result<(), BenchError> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .map_err(|e| BenchError::io("writing stdout", e))
}
