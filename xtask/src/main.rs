//! Project automation, run as `cargo xtask <command>`.
//!
//! * `test`: setup, fmt, the dependency budget, the import circles, clippy, tests, fuzz smoke and conformance; ends with one line counting Rust tests, doc tests and
//!   conformance runs, each with its failures, and the steps that failed.
//! * `deps`: the dependency budget of `xtask/deps-budget.toml` (each package's crate count, and the
//!   crates it must never hold, with the path that pulled one in).
//! * `imports`: no source file imports one that imports it back, in any crate (each circle printed
//!   with the names each of its files takes from the next).
//! * `fresh-client`: a project of its own using `mcpdisco-client` with only `stdio` lists the
//!   example server's tools (needs the example server built; `test` runs it after the build).
//! * `conformance`: the MCP conformance suite against our client, for every requirement set, then the
//!   extra client scenarios (outside the sets) one by one, then the server scenarios of every set
//!   against `mcp-example-server http --conformance` (`--servers-only`: just those).
//! * `fuzz --seconds N`: every cargo-fuzz target for N seconds.
//! * `bench`: ours side by side with rmcp and a floor (B1–B9); writes `docs/bench/report.md` (with `--only`, `target/bench-report.md`).
//! * `setup`: the pinned tool installs under `.tools/`.
//! * `deploy`: `deploy/kubernetes/` against the Kubernetes schemas (offline) and
//!   `deploy/haproxy.cfg` by `haproxy -c`, with no stickiness (needs `setup`).
//! * `demo [ARGS…]`: the quick start: the slim `mcp-cli` (`--no-default-features`) runs
//!   `--config examples/mcp_config.json discover` against the example servers.

mod bench;
mod conformance;
mod demo;
mod deploy_check;
mod deps;
mod disk;
mod fresh_client;
mod fuzz;
mod imports;
mod open_files;
mod pipeline;
mod process;
mod release;
mod tally;
mod tools;
mod warnings;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::tools::Tools;
use crate::workspace::Workspace;

/// Command line of `cargo xtask`.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "mcp-discovery project automation")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// The xtask subcommands.
#[derive(Debug, Subcommand)]
enum Cmd {
    /// Run everything CI runs and print the Rust tests, doc tests and conformance runs, passed and failed.
    Test,
    /// Check the dependency budget of xtask/deps-budget.toml.
    Deps,
    /// Check that no source file imports one that imports it back (directly or through a loop).
    Imports,
    /// Build and run a project of its own that lists the example server's tools with
    /// mcpdisco-client and only its `stdio` feature.
    FreshClient,
    /// Run the MCP conformance suite against the conformance client and the example server.
    Conformance {
        /// Client command to test instead of the built `conformance-client` (e.g. `true`).
        #[arg(long)]
        command: Option<String>,
        /// Only the server scenarios, against the built example server.
        #[arg(long)]
        servers_only: bool,
    },
    /// Run each fuzz target for the given time.
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
    },
    /// Benchmark ours against rmcp and a raw floor; print and write docs/bench/report.md (with --only, target/bench-report.md).
    Bench {
        /// Only these cases (b1 … b9, repeatable); all when none is given.
        #[arg(long = "only", value_name = "CASE")]
        only: Vec<String>,
    },
    /// Install the pinned tools into `.tools/`.
    Setup,
    /// Check the deployment files (Kubernetes manifests, haproxy.cfg) offline.
    Deploy,
    /// Write the man page of mcp-cli to target/man/mcp-cli.1.
    Man,
    /// The quick start: discover the example servers with the slim mcp-cli (extra ARGS replace `discover`).
    Demo {
        /// mcp-cli arguments after `--config examples/mcp_config.json`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    open_files::raise();
    let ws = match Workspace::locate() {
        Ok(ws) => ws,
        Err(err) => {
            eprintln!("xtask: {err:#}");
            return ExitCode::FAILURE;
        }
    };
    let tools = Tools::new(&ws);
    match cli.command {
        Cmd::Test => {
            let totals = pipeline::run(&ws, &tools);
            println!("{totals}");
            if totals.failed() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Cmd::Conformance {
            command,
            servers_only,
        } => {
            let options = conformance::Options {
                command,
                servers_only,
            };
            let result = tools
                .setup()
                .and_then(|()| conformance::run(&ws, &tools, &options));
            match result {
                Ok(tally) if tally.failed == 0 => ExitCode::SUCCESS,
                Ok(_) => ExitCode::FAILURE,
                Err(err) => {
                    eprintln!("xtask conformance: {err:#}");
                    eprintln!(
                        "results (if any) in {}",
                        conformance::output_dir(&ws).display()
                    );
                    ExitCode::FAILURE
                }
            }
        }
        Cmd::Deps => report(deps::run(&ws), "deps"),
        Cmd::Imports => report(imports::run(&ws), "imports"),
        Cmd::FreshClient => report(fresh_client::run(&ws), "fresh-client"),
        Cmd::Fuzz { seconds } => report(
            fuzz::run(&ws, &tools, seconds, fuzz::Build::Thorough),
            "fuzz",
        ),
        Cmd::Bench { only } => report(bench::run(&ws, &only), "bench"),
        Cmd::Setup => report(tools.setup(), "setup"),
        Cmd::Deploy => report(deploy_check::run(&ws, &tools), "deploy"),
        Cmd::Man => report(
            release::man(&ws).map(|path| println!("man page: {}", path.display())),
            "man",
        ),
        Cmd::Demo { args } => match demo::run(&ws, &args) {
            Ok(code) => code,
            Err(err) => {
                eprintln!("xtask demo: {err:#}");
                ExitCode::FAILURE
            }
        },
    }
}

fn report(result: anyhow::Result<()>, what: &str) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask {what}: {err:#}");
            ExitCode::FAILURE
        }
    }
}
