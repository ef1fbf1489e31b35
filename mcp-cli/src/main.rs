//! `mcp-cli`: find, connect to and map the capabilities of MCP servers.

use clap::Parser;

/// Find, connect to and map the capabilities of the MCP servers in your config.
#[derive(Debug, Parser)]
#[command(name = "mcp-cli", version, about)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
}
