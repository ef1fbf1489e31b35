//! B8: what OpenTelemetry export costs (issue #30). `mcp-cli` discovering
//! [`SERVERS`] bench servers, and a sequential `tools/call` loop through
//! `mcp-cli serve` (B5's case), each with export on (to an OTLP/HTTP sink
//! of this process on 127.0.0.1) and off (no `OTEL_*` variable: the path
//! every other row measures), alternating within each round.
//!
//! Export off costs nothing by construction (no provider is built, the
//! request path has no telemetry layer); export on must stay within 5%.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::measure::measure_with_env;
use super::report::{Row, Unit, median};
use super::{Bench, CASE_TIMEOUT, TOOLS, number};

/// Rounds of each case.
const ROUNDS: usize = 5;
/// Servers discovered at once.
const SERVERS: usize = 10;
/// Calls timed per gateway process, and untimed ones first.
const CALLS: &str = "2000";
const WARMUP: &str = "200";
/// The most export overhead allowed, as a fraction.
const TOLERANCE: f64 = 0.05;
/// The longest an export request may take to arrive whole.
const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest export request body the sink reads.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// An OTLP/HTTP sink: answers every POST 200 and counts the requests. Its
/// threads end with the process (the bench ends it).
struct Sink {
    port: u16,
    requests: Arc<AtomicU64>,
}

impl Sink {
    fn start() -> Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").context("cannot bind the OTLP sink")?;
        let port = listener.local_addr()?.port();
        let requests = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let counted = Arc::clone(&counted);
                thread::spawn(move || {
                    let _ = serve(stream, &counted);
                });
            }
        });
        Ok(Self { port, requests })
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }
}

/// Answers the requests of one keep-alive connection until it closes.
fn serve(stream: TcpStream, requests: &AtomicU64) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        // The request line, then the headers up to the empty line.
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0).min(MAX_BODY);
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        requests.fetch_add(1, Ordering::Relaxed);
        writer.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n",
        )?;
    }
}

/// Runs B8 and adds its rows.
pub(super) fn run(bench: &Bench, rows: &mut Vec<Row>) -> Result<()> {
    let sink = Sink::start()?;
    let endpoint = sink.endpoint();
    let on: [(&str, &str); 1] = [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())];
    discovery(bench, &on, rows)?;
    calls(bench, &on, rows)?;
    if sink.requests() == 0 {
        bail!("export was on, but the OTLP sink received nothing");
    }
    Ok(())
}

fn overhead(on: Option<f64>, off: Option<f64>) -> Option<f64> {
    on.zip(off)
        .filter(|(_, off)| *off > 0.0)
        .map(|(on, off)| on / off - 1.0)
}

fn discovery(bench: &Bench, on: &[(&str, &str)], rows: &mut Vec<Row>) -> Result<()> {
    let servers: serde_json::Map<String, serde_json::Value> = (0..SERVERS)
        .map(|i| {
            (
                format!("s{i}"),
                // A name of its own: the same launch would be counted once.
                json!({"command": bench.server,
                       "args": ["stdio", "--name", format!("s{i}"), "--tools", TOOLS.to_string()]}),
            )
        })
        .collect();
    let config = bench.scratch.join("b8-servers.json");
    fs::write(&config, json!({ "mcpServers": servers }).to_string())
        .with_context(|| format!("cannot write {}", config.display()))?;
    let cache = bench.scratch.join("cache-b8");
    let args: Vec<&OsStr> = vec![
        OsStr::new("--config"),
        config.as_os_str(),
        OsStr::new("--cache-dir"),
        cache.as_os_str(),
        OsStr::new("--refresh"),
        OsStr::new("--json"),
        OsStr::new("discover"),
    ];
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        for (label, env) in [("off", &[][..]), ("on", on)] {
            println!("bench: B8 discovery, export {label} (round {})", round + 1);
            let measured = measure_with_env(
                &bench.runner,
                &bench.cli,
                &args,
                Some(&bench.scratch),
                CASE_TIMEOUT,
                env,
            )?;
            if !measured.success() {
                bail!(
                    "`mcp-cli discover` (export {label}) failed: {}",
                    measured.stderr.trim()
                );
            }
            let wall = measured.wall.as_secs_f64() * 1e3;
            if env.is_empty() {
                without.push(wall);
            } else {
                with.push(wall);
            }
        }
    }
    let (on_ms, off_ms) = (median(&with), median(&without));
    let added = overhead(on_ms, off_ms);
    rows.push(
        Row::new(
            format!(
                "B8 `mcp-cli discover` of {SERVERS} stdio servers, OpenTelemetry export on (ours) vs off (limit): median wall time"
            ),
            Unit::Milliseconds,
            [on_ms, None, off_ms],
        )
        .target("≤ 5% with export on", added.is_some_and(|a| a <= TOLERANCE))
        .with_notes(format!(
            "overhead {}; off is the build every other row runs (no OTEL_* variable: no provider, no telemetry layer); on exports every span and the metrics to a sink on 127.0.0.1 and flushes before exit",
            added.map_or_else(|| "—".to_owned(), |a| format!("{:+.1}%", a * 100.0))
        )),
    );
    Ok(())
}

fn calls(bench: &Bench, on: &[(&str, &str)], rows: &mut Vec<Row>) -> Result<()> {
    let scratch = bench.scratch.join("b8");
    fs::create_dir_all(&scratch)?;
    let cli = bench.cli.display().to_string();
    let scratch_arg = scratch.display().to_string();
    let tools = TOOLS.to_string();
    let args = [
        "--via",
        "gateway",
        "--cli",
        &cli,
        "--scratch",
        &scratch_arg,
        "--requests",
        CALLS,
        "--warmup",
        WARMUP,
        "--tools",
        &tools,
    ];
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        for (label, env) in [("off", &[][..]), ("on", on)] {
            println!(
                "bench: B8 tools/call through the gateway, export {label} (round {})",
                round + 1
            );
            let (_, result) = bench.case_with_env("gateway", &args, env)?;
            let latency = number(&result, "/latency/median_us")?;
            if env.is_empty() {
                without.push(latency);
            } else {
                with.push(latency);
            }
        }
    }
    let (on_us, off_us) = (median(&with), median(&without));
    let added = overhead(on_us, off_us);
    rows.push(
        Row::new(
            "B8 stdio tools/call loop through `mcp-cli serve`, OpenTelemetry export on (ours) vs off (limit): median latency",
            Unit::Microseconds,
            [on_us, None, off_us],
        )
        .target("≤ 5% with export on", added.is_some_and(|a| a <= TOLERANCE))
        .with_notes(format!(
            "overhead {}; each call is a SERVER span, a CLIENT span and an attempt span, two duration histograms, and a traceparent in the backend's _meta",
            added.map_or_else(|| "—".to_owned(), |a| format!("{:+.1}%", a * 100.0))
        )),
    );
    Ok(())
}
