//! `mcp-example-server`: the example MCP server over stdio or Streamable HTTP.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mcp_example_server::{EraSupport, Server, ServerOptions, serve_http, serve_stdio};

/// A small MCP server: four tools, two resources, a template and two prompts.
#[derive(Debug, Parser)]
#[command(name = "mcp-example-server", version, about)]
struct Cli {
    #[command(subcommand)]
    transport: Transport,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Eras {
    Both,
    Legacy,
    Modern,
}

#[derive(Debug, clap::Args)]
struct Common {
    /// The protocol eras to speak.
    #[arg(long, value_enum, default_value_t = Eras::Both)]
    era: Eras,
    /// Items per list page (every list is one page without it).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    page_size: Option<u32>,
    /// Serve the official conformance suite's test catalog (test_simple_text, …).
    #[arg(long)]
    conformance: bool,
    /// Offer tasks (extension io.modelcontextprotocol/tasks) and the tool
    /// slow_report {seconds}, which runs as one.
    #[arg(long)]
    tasks: bool,
}

#[derive(Debug, Subcommand)]
enum Transport {
    /// Newline-delimited JSON on stdin and stdout.
    Stdio(Common),
    /// Streamable HTTP at http://HOST:PORT/mcp.
    Http {
        #[command(flatten)]
        common: Common,
        /// The address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// The port (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
}

fn options(common: &Common) -> ServerOptions {
    ServerOptions {
        eras: match common.era {
            Eras::Both => EraSupport::Both,
            Eras::Legacy => EraSupport::Legacy,
            Eras::Modern => EraSupport::Modern,
        },
        page_size: common.page_size.map(|n| n as usize),
        conformance: common.conformance,
        tasks: common.tasks,
        ..ServerOptions::default()
    }
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.transport {
        Transport::Stdio(common) => serve_stdio(Server::new(options(&common))).await,
        Transport::Http { common, host, port } => {
            match tokio::net::TcpListener::bind((host.as_str(), port)).await {
                Ok(listener) => {
                    match listener.local_addr() {
                        Ok(address) => eprintln!("listening on http://{address}/mcp"),
                        Err(error) => eprintln!("listening (address unknown: {error})"),
                    }
                    serve_http(listener, Server::new(options(&common)), shutdown_signal()).await;
                    Ok(())
                }
                Err(error) => Err(error),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-example-server: {error}");
            ExitCode::FAILURE
        }
    }
}
