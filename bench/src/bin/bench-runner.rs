//! `bench-runner`: one benchmark case for one contender, in its own process,
//! so that the harness (`cargo xtask bench`) can take its peak memory from the
//! operating system. Prints one line `bench-result {json}`.
//!
//! ```text
//! bench-runner codec --contender ours --decoding typed --workload big --passes 3
//! bench-runner stdio --contender rmcp --method tools --mode inflight --placement split --requests 20000
//! bench-runner discovery --contender raw --servers 50 --index 7 --start-delay-ms 300
//! bench-runner config --servers 50 --start-delay-ms 300 --out servers.json
//! bench-runner http --contender ours --format sse --requests 1000
//! bench-runner gateway --via gateway --cli mcp-cli --scratch dir --requests 2000
//! bench-runner gateway --via gateway --memory --servers 50 --cli mcp-cli --scratch dir
//! bench-runner fleet --replicas 3 --haproxy haproxy --haproxy-libs libs --deploy-config deploy/haproxy.cfg --cli mcp-cli --scratch dir
//! bench-runner measure --timeout-secs 300 -- mcp-cli --config servers.json discover
//! ```
//!
//! Each side is built on its own (features `ours`, `peers`), so a runner
//! refuses a contender its build does not have.
//!
//! `measure` runs any program and prints, after its output, `bench-measure
//! {json}`: its wall time and peak RSS as the OS counts them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use mcp_bench::codec::{Decoding, Workload};
use mcp_bench::discovery::ServerSet;
use mcp_bench::http::HttpCase;
use mcp_bench::placement::Placement;
use mcp_bench::server::http::ResponseFormat;
use mcp_bench::stdio::{Method, Mode, StdioCase};
use mcp_bench::{BenchError, Contender};
use serde::Serialize;

#[derive(Debug, Parser)]
#[command(name = "bench-runner", about = "One benchmark case for one contender")]
struct Cli {
    #[command(subcommand)]
    bench: Bench,
}

#[derive(Debug, Args)]
struct ServerOptions {
    /// The bench-server program (default: beside this program).
    #[arg(long)]
    server: Option<PathBuf>,
    /// Tools per server.
    #[arg(long, default_value_t = 50)]
    tools: usize,
}

#[derive(Debug, Args)]
struct SetOptions {
    /// How many servers.
    #[arg(long)]
    servers: usize,
    /// How long each server takes to start.
    #[arg(long, default_value_t = 0)]
    start_delay_ms: u64,
    /// Where each server notes its start.
    #[arg(long)]
    start_log: Option<PathBuf>,
    #[command(flatten)]
    server: ServerOptions,
}

/// Which tokio runtime a client runs on.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Runtime {
    /// The multi-threaded runtime most hosts run (`#[tokio::main]`).
    MultiThread,
    /// One thread: no hand-offs between threads.
    CurrentThread,
}

#[derive(Debug, Subcommand)]
enum Bench {
    /// B1: decoding throughput and peak memory.
    Codec {
        #[arg(long, value_enum)]
        contender: Contender,
        /// How far each message is decoded.
        #[arg(long, value_enum)]
        decoding: Decoding,
        #[arg(long, value_enum)]
        workload: Workload,
        /// Timed passes after the first (untimed) one.
        #[arg(long, default_value_t = 3)]
        passes: usize,
    },
    /// B2: requests over stdio.
    Stdio {
        #[arg(long, value_enum)]
        contender: Contender,
        #[arg(long, value_enum)]
        method: Method,
        #[arg(long, value_enum)]
        mode: Mode,
        /// Where the server runs; this process runs on CPU 0.
        #[arg(long, value_enum, default_value_t = Placement::Split)]
        placement: Placement,
        /// The tokio runtime the client runs on.
        #[arg(long, value_enum, default_value_t = Runtime::MultiThread)]
        runtime: Runtime,
        /// Timed requests.
        #[arg(long, default_value_t = 5000)]
        requests: usize,
        /// Untimed requests first.
        #[arg(long, default_value_t = 500)]
        warmup: usize,
        /// The raw loop only: check each answer as JSON.
        #[arg(long)]
        check_json: bool,
        #[command(flatten)]
        server: ServerOptions,
    },
    /// B3: rmcp over a whole set at once, or one server of it alone (raw).
    Discovery {
        #[arg(long, value_enum)]
        contender: Contender,
        /// raw: which server of the set.
        #[arg(long, default_value_t = 0)]
        index: usize,
        #[command(flatten)]
        set: SetOptions,
    },
    /// B6: real servers from an `mcpServers` config, all at once (rmcp or the raw floor).
    #[cfg(feature = "peers")]
    Real {
        #[arg(long, value_enum)]
        contender: Contender,
        /// The config (the one `mcp-cli` reads).
        #[arg(long)]
        config: PathBuf,
    },
    /// B3: write a server set as an `mcpServers` config for mcp-cli.
    Config {
        #[command(flatten)]
        set: SetOptions,
        /// The config file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Run a program; after its output print `bench-measure {json}`: wall time and peak RSS.
    Measure {
        /// Kill the program after this many seconds.
        #[arg(long, default_value_t = 300)]
        timeout_secs: u64,
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<OsString>,
    },
    /// B5: the gateway: `tools/call` latency direct or through `mcp-cli serve`, or its memory.
    #[cfg(feature = "ours")]
    Gateway {
        #[arg(long, value_enum)]
        via: mcp_bench::gateway::Via,
        /// Measure the gateway's memory over `--servers` servers instead of latency.
        #[arg(long)]
        memory: bool,
        /// Servers behind the gateway (memory).
        #[arg(long, default_value_t = 1)]
        servers: usize,
        /// Timed calls.
        #[arg(long, default_value_t = 2000)]
        requests: usize,
        /// Untimed calls first.
        #[arg(long, default_value_t = 200)]
        warmup: usize,
        /// The mcp-cli program.
        #[arg(long)]
        cli: PathBuf,
        /// Where the gateway's config is written.
        #[arg(long)]
        scratch: PathBuf,
        #[command(flatten)]
        server: ServerOptions,
    },
    /// B5 under load: `tools/call`s through a front (a byte relay, `mcp-cli
    /// serve` over stdio or HTTP, or `mcp-proxy`) by concurrent clients.
    #[cfg(feature = "ours")]
    Front {
        #[arg(long, value_enum)]
        front: mcp_bench::fronts::Front,
        /// Concurrent clients.
        #[arg(long, default_value_t = 1)]
        clients: usize,
        /// Servers behind the front.
        #[arg(long, default_value_t = 1)]
        servers: usize,
        /// Timed calls, over all clients.
        #[arg(long, default_value_t = 2000)]
        requests: usize,
        /// Untimed calls first, over all clients.
        #[arg(long, default_value_t = 200)]
        warmup: usize,
        /// The mcp-cli program.
        #[arg(long)]
        cli: PathBuf,
        /// The mcp-proxy program (the peer front).
        #[arg(long)]
        peer: Option<PathBuf>,
        /// Where configs are written.
        #[arg(long)]
        scratch: PathBuf,
        /// Pins this client to CPU 0 and a stdio front with its server to
        /// the placement's CPU; left to the scheduler when not given.
        #[arg(long, value_enum)]
        placement: Option<Placement>,
        #[command(flatten)]
        server: ServerOptions,
    },
    /// B9: `tools/call`s by concurrent clients, each its own legacy session,
    /// through HAProxy to `mcp-cli serve --http` replicas, or straight to one.
    #[cfg(feature = "ours")]
    Fleet {
        /// Replicas of `serve --http` (same config, token and key file).
        #[arg(long, default_value_t = 1)]
        replicas: usize,
        /// The haproxy program; without it the clients call the one replica straight.
        #[arg(long, requires_all = ["haproxy_libs", "deploy_config"])]
        haproxy: Option<PathBuf>,
        /// The folder of the libraries haproxy links (`LD_LIBRARY_PATH`).
        #[arg(long, requires = "haproxy")]
        haproxy_libs: Option<PathBuf>,
        /// `deploy/haproxy.cfg`, which HAProxy's config is derived from.
        #[arg(long, requires = "haproxy")]
        deploy_config: Option<PathBuf>,
        /// Concurrent clients.
        #[arg(long, default_value_t = 32)]
        clients: usize,
        /// Timed calls, over all clients.
        #[arg(long, default_value_t = 2000)]
        requests: usize,
        /// Untimed calls first, over all clients.
        #[arg(long, default_value_t = 200)]
        warmup: usize,
        /// The mcp-cli program.
        #[arg(long)]
        cli: PathBuf,
        /// Where configs and the key file are written.
        #[arg(long)]
        scratch: PathBuf,
        #[command(flatten)]
        server: ServerOptions,
    },
    /// The floor of B5: run a program, copying bytes between our stdio and its.
    #[cfg(feature = "ours")]
    Relay {
        /// Copy from one thread's event loop instead of a thread per direction.
        #[arg(long)]
        event_loop: bool,
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<OsString>,
    },
    /// B4: tools/list over Streamable HTTP.
    Http {
        #[arg(long, value_enum)]
        contender: Contender,
        #[arg(long, value_enum)]
        format: ResponseFormat,
        /// Where the server runs; this process runs on CPU 0.
        #[arg(long, value_enum, default_value_t = Placement::Split)]
        placement: Placement,
        /// Timed requests.
        #[arg(long, default_value_t = 1000)]
        requests: usize,
        /// Untimed requests first.
        #[arg(long, default_value_t = 50)]
        warmup: usize,
        #[command(flatten)]
        server: ServerOptions,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.bench) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench-runner: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(bench: Bench) -> Result<(), BenchError> {
    match bench {
        Bench::Codec {
            contender,
            decoding,
            workload,
            passes,
        } => {
            // Decoding is CPU work on one thread: both readers run on the same single-threaded runtime.
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| BenchError::io("cannot start the runtime", e))?;
            report(&runtime.block_on(mcp_bench::codec::run(contender, decoding, workload, passes))?)
        }
        Bench::Stdio {
            contender,
            method,
            mode,
            placement,
            runtime: flavour,
            requests,
            warmup,
            check_json,
            server,
        } => {
            let case = StdioCase {
                contender,
                method,
                mode,
                requests,
                warmup,
                server: server_program(server.server)?,
                tools: server.tools,
                placement,
                check_json,
            };
            // Before the runtime starts its threads, so they are pinned too.
            mcp_bench::placement::pin_this_process(Placement::CLIENT_CPU)?;
            let runtime = match flavour {
                Runtime::MultiThread => runtime()?,
                Runtime::CurrentThread => tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| BenchError::io("cannot start the runtime", e))?,
            };
            report(&runtime.block_on(mcp_bench::stdio::run(case))?)
        }
        Bench::Discovery {
            contender,
            index,
            set,
        } => {
            let set = server_set(set)?;
            match contender {
                #[cfg(feature = "peers")]
                Contender::Rmcp => {
                    report(&runtime()?.block_on(mcp_bench::discovery::rmcp_all(&set))?)
                }
                #[cfg(feature = "peers")]
                Contender::Raw => report(&mcp_bench::discovery::raw_single(&set, index)?),
                Contender::Ours => Err(BenchError::Unexpected(
                    "ours is `mcp-cli discover`, run by the harness".into(),
                )),
                #[allow(unreachable_patterns, reason = "a build with both sides has every arm")]
                other => {
                    let _ = (index, set);
                    Err(other.not_built())
                }
            }
        }
        #[cfg(feature = "peers")]
        Bench::Real { contender, config } => {
            let servers = mcp_bench::real::read_config(&config)?;
            match contender {
                Contender::Rmcp => {
                    report(&runtime()?.block_on(mcp_bench::real::rmcp_all(&servers))?)
                }
                Contender::Raw => report(&mcp_bench::real::raw_all(&servers)?),
                Contender::Ours => Err(BenchError::Unexpected(
                    "ours is `mcp-cli discover`, run by the harness".into(),
                )),
            }
        }
        Bench::Config { set, out } => server_set(set)?.write_config(&out),
        Bench::Measure {
            timeout_secs,
            command,
        } => {
            let Some((program, args)) = command.split_first() else {
                return Err(BenchError::Unexpected("no program to measure".into()));
            };
            let measured =
                mcp_bench::measure::measure(program, args, Duration::from_secs(timeout_secs))?;
            print_line("bench-measure", &measured)
        }
        #[cfg(feature = "ours")]
        Bench::Gateway {
            via,
            memory,
            servers,
            requests,
            warmup,
            cli,
            scratch,
            server,
        } => {
            let case = mcp_bench::gateway::GatewayCase {
                via,
                requests,
                warmup,
                server: server_program(server.server)?,
                cli,
                tools: server.tools,
                servers,
                scratch,
            };
            if memory {
                report(&runtime()?.block_on(mcp_bench::gateway::memory(case))?)
            } else {
                report(&runtime()?.block_on(mcp_bench::gateway::latency(case))?)
            }
        }
        #[cfg(feature = "ours")]
        Bench::Front {
            front,
            clients,
            servers,
            requests,
            warmup,
            cli,
            peer,
            scratch,
            placement,
            server,
        } => {
            let case = mcp_bench::fronts::FrontCase {
                front,
                clients,
                requests,
                warmup,
                servers,
                tools: server.tools,
                server: server_program(server.server)?,
                cli,
                peer,
                scratch,
                placement,
            };
            if placement.is_some() {
                // Before the runtime starts its threads, so they are pinned too.
                mcp_bench::placement::pin_this_process(Placement::CLIENT_CPU)?;
            }
            report(&runtime()?.block_on(mcp_bench::fronts::run(case))?)
        }
        #[cfg(feature = "ours")]
        Bench::Fleet {
            replicas,
            haproxy,
            haproxy_libs,
            deploy_config,
            clients,
            requests,
            warmup,
            cli,
            scratch,
            server,
        } => {
            let haproxy = match (haproxy, haproxy_libs, deploy_config) {
                (Some(binary), Some(libs), Some(deploy_config)) => {
                    Some(mcp_bench::haproxy::HaProxyProgram {
                        binary,
                        libs,
                        deploy_config,
                    })
                }
                _ => None,
            };
            let case = mcp_bench::fleet::FleetCase {
                replicas,
                haproxy,
                clients,
                requests,
                warmup,
                tools: server.tools,
                server: server_program(server.server)?,
                cli,
                scratch,
            };
            report(&runtime()?.block_on(mcp_bench::fleet::run(case))?)
        }
        #[cfg(feature = "ours")]
        Bench::Relay {
            event_loop,
            command,
        } => {
            let Some((program, args)) = command.split_first() else {
                return Err(BenchError::Unexpected("no program to relay".into()));
            };
            let program = std::path::Path::new(program);
            if event_loop {
                mcp_bench::relay::event_loop_relay(program, args)
            } else {
                mcp_bench::relay::relay(program, args)
            }
        }
        Bench::Http {
            contender,
            format,
            placement,
            requests,
            warmup,
            server,
        } => {
            let case = HttpCase {
                contender,
                format,
                requests,
                warmup,
                server: server_program(server.server)?,
                tools: server.tools,
                placement,
            };
            // Before the runtime starts its threads, so they are pinned too.
            mcp_bench::placement::pin_this_process(Placement::CLIENT_CPU)?;
            report(&runtime()?.block_on(mcp_bench::http::run(case))?)
        }
    }
}

/// The multi-threaded runtime a user's program would have.
fn runtime() -> Result<tokio::runtime::Runtime, BenchError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BenchError::io("cannot start the runtime", e))
}

fn server_set(set: SetOptions) -> Result<ServerSet, BenchError> {
    Ok(ServerSet {
        program: server_program(set.server.server)?,
        servers: set.servers,
        tools: set.server.tools,
        start_delay_ms: set.start_delay_ms,
        start_log: set.start_log,
    })
}

/// The given program, or `bench-server` beside this one.
fn server_program(given: Option<PathBuf>) -> Result<PathBuf, BenchError> {
    if let Some(path) = given {
        return Ok(path);
    }
    let me = std::env::current_exe().map_err(|e| BenchError::io("where am I", e))?;
    let beside = me.parent().unwrap_or(Path::new(".")).join("bench-server");
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(BenchError::Unexpected(format!(
            "no bench-server at {}; pass --server",
            beside.display()
        )))
    }
}

fn report(result: &impl Serialize) -> Result<(), BenchError> {
    print_line("bench-result", result)
}

/// Prints `tag {json}` on its own line.
fn print_line(tag: &str, value: &impl Serialize) -> Result<(), BenchError> {
    use std::io::Write;
    let json = serde_json::to_string(value).map_err(|e| BenchError::json(tag.to_owned(), e))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "\n{tag} {json}")
        .and_then(|()| stdout.flush())
        .map_err(|e| BenchError::io("writing stdout", e))
}
