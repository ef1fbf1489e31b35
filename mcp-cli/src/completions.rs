//! Shell completions: `mcp-cli completions <shell>` writes a fixed script
//! (clap_complete); `COMPLETE=<shell> mcp-cli` registers dynamic completion,
//! which also completes server names from the config and tool names from the
//! cache (`dynamic_completion`). `mcp-cli manpage` writes the roff man page
//! (clap_mangen), which `cargo xtask man` stores.

use clap::CommandFactory;

use crate::cli::Cli;

/// Writes the completion script for `shell` to stdout.
pub fn write_script(shell: clap_complete::Shell) -> std::io::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mcp-cli", &mut script);
    write_out(&script)
}

/// Writes the man page to stdout.
pub fn write_man_page() -> std::io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    write_out(&page)
}

/// Writes `bytes` to stdout; a reader that went away (`| head`) is not an error.
fn write_out(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Answers a dynamic completion request (`COMPLETE=<shell>` in the
/// environment) and exits; returns when there is none.
pub fn complete_if_asked() {
    clap_complete::CompleteEnv::with_factory(Cli::command).complete();
}
