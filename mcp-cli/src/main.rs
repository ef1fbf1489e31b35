//! `mcp-cli`: see what every MCP server in your configuration offers.
//!
//! A thin front end: it parses arguments, calls `mcp-discovery` and prints.
//! It holds no process-global state: what the commands of a run share is a
//! `Context` value passed to them, and the policy defaults are the library's.
//! Text from servers is printed through `render::printable_str` (one line, no
//! control characters), so no server can inject escape sequences.
//! Exit status: 0 when every enabled server is ready, 1 for a usage or
//! config error, 2 when a server failed (everything else is still printed),
//! 3 when `discover --verify-pins` found an approved item changed or gone,
//! 5 when `call` returned a tool error.

mod capabilities;
mod cli;
mod closing;
mod columns;
mod commands;
mod completions;
mod context;
#[cfg(feature = "oauth")]
mod credentials;
mod dynamic_completion;
mod environment;
mod error;
mod exit;
mod listing;
mod load;
mod logging;
#[cfg(feature = "oauth")]
mod login;
mod opened;
mod output;
mod progress;
#[cfg(feature = "registry")]
mod registry;
mod render;
mod serve;
mod skills;
mod style;
mod task;
#[cfg(feature = "otel")]
mod telemetry;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::closing::PendingCloses;

fn main() -> ExitCode {
    completions::complete_if_asked();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    let log = logging::init(cli.global.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(exit::USAGE);
        }
    };
    // The exporters send through this runtime.
    #[cfg(feature = "otel")]
    let otel = {
        let _entered = runtime.enter();
        telemetry::Otel::from_env(&cli.global)
    };
    #[cfg(not(feature = "otel"))]
    say_no_export();
    let closing = PendingCloses::default();
    let code = runtime.block_on(async {
        #[cfg(feature = "otel")]
        let telemetry = otel.as_ref().map(telemetry::Otel::telemetry);
        #[cfg(not(feature = "otel"))]
        let telemetry = None;
        let run = commands::run(&cli.global, &cli.command, &log, &closing, telemetry);
        let code = match run.await {
            Ok(code) => code,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::from(exit::USAGE)
            }
        };
        // What was printed came first; every server is stopped before we exit.
        closing.finish().await;
        code
    });
    // Every span and the last metrics go out before we exit, sent by the
    // runtime's tasks while it still runs.
    #[cfg(feature = "otel")]
    if let Some(otel) = otel {
        otel.shutdown();
    }
    // Sessions are closed by now; anything a failed close left behind is killed on drop.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    code
}

/// In a build without `otel`, an export the environment asks for
/// (`OTEL_EXPORTER_OTLP_*ENDPOINT`) cannot be made: a warning says so.
#[cfg(not(feature = "otel"))]
fn say_no_export() {
    let asked = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
    .into_iter()
    .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
    if asked {
        eprintln!(
            "warning: OTEL_EXPORTER_OTLP_ENDPOINT is set, but OpenTelemetry export needs feature `otel` of mcpdisco-cli, which this build left out: nothing is exported"
        );
    }
}
