//! `cargo xtask bench`: runs the criterion benches and prints where the reports are.

use std::time::Duration;

use anyhow::Result;

use crate::process;
use crate::workspace::Workspace;

const BENCH_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Runs `cargo bench -p mcp-transport`.
pub fn run(ws: &Workspace) -> Result<()> {
    let mut cmd = ws.cargo();
    cmd.args(["bench", "-p", "mcp-transport"]);
    println!("bench: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, BENCH_TIMEOUT)?;
    let report = ws
        .target_dir()
        .join("criterion")
        .join("report")
        .join("index.html");
    println!("bench: criterion reports in {}", report.display());
    Ok(())
}
