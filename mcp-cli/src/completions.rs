//! Shell completions: `mcp-cli completions <shell>` writes a static script
//! (clap_complete); `COMPLETE=<shell> mcp-cli` registers dynamic completion,
//! which also completes server names from the config and tool names from the
//! cache. `mcp-cli manpage` writes the roff man page (clap_mangen), which
//! `cargo xtask man` stores.

use std::ffi::OsStr;

use clap::{CommandFactory, Parser};
use clap_complete::engine::CompletionCandidate;
use mcpdisco::cache::{Cache, Fingerprint};
use mcpdisco::protocol::raw::ToolView;

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

/// The configured servers, as the other commands would find them (the
/// auto-detected config; `--config` is not seen while completing).
fn loaded() -> Option<(crate::cli::GlobalOptions, crate::load::Loaded)> {
    let cli = Cli::try_parse_from(["mcp-cli", "servers"]).ok()?;
    let loaded = crate::load::load(&cli.global).ok()?;
    Some((cli.global, loaded))
}

/// Server names that start with what was typed.
pub fn server_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let Some((_, loaded)) = loaded() else {
        return Vec::new();
    };
    loaded
        .servers
        .iter()
        .filter(|server| server.name.starts_with(typed.as_ref()))
        .map(|server| {
            let candidate = CompletionCandidate::new(&server.name);
            match &server.description {
                Some(description) => candidate.help(Some(description.clone().into())),
                None => candidate,
            }
        })
        .collect()
}

/// Tool names from the cache (every configured server's last discovery).
pub fn tool_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let Some((global, loaded)) = loaded() else {
        return Vec::new();
    };
    let Ok(options) = crate::commands::session_options(&global, &loaded) else {
        return Vec::new();
    };
    let cache = match &global.cache_dir {
        Some(dir) => Cache::at(dir),
        None => Cache::open_default(),
    };
    let mut names = Vec::new();
    for server in &loaded.servers {
        let Some(entry) = cache.get(&Fingerprint::of(server, &options)) else {
            continue;
        };
        for tool in &entry.report.tools {
            if let Some(name) = ToolView::of(tool).name()
                && name.starts_with(typed.as_ref())
                && !names.contains(&name.to_string())
            {
                names.push(name.into_owned());
            }
        }
    }
    names.into_iter().map(CompletionCandidate::new).collect()
}
