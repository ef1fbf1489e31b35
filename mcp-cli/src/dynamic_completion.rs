//! Dynamic completion (`COMPLETE=<shell> mcp-cli`) of server names from the
//! config and tool names from the cache. The command line's definition
//! names these completers; they read the auto-detected config and the
//! default cache themselves (`--config` is not seen while completing).

use std::ffi::OsStr;

use clap_complete::engine::CompletionCandidate;
use mcpdisco::cache::{Cache, Fingerprint};
use mcpdisco::config::{LoadedConfig, ProcessEnv, SourceSelection};
use mcpdisco::protocol::raw::ToolView;
use mcpdisco_client::session::SessionOptions;

use crate::environment;

/// The configured servers, as the other commands would find them without flags.
fn loaded() -> Option<LoadedConfig> {
    let cwd = std::env::current_dir().ok()?;
    SourceSelection::new(cwd, dirs::home_dir())
        .load(&ProcessEnv)
        .ok()
}

/// Server names that start with what was typed.
pub fn server_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    let Some(loaded) = loaded() else {
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
    let Some(loaded) = loaded() else {
        return Vec::new();
    };
    // Entries are keyed by what decides a server's answers; the session's
    // policies and trace are not part of it, so the defaults find them.
    let options = SessionOptions::default();
    let cache = match std::env::var_os(environment::CACHE_DIR).filter(|dir| !dir.is_empty()) {
        Some(dir) => Cache::at(dir),
        None => Cache::open_default(),
    };
    let mut names = Vec::new();
    for server in &loaded.servers {
        let Some(entry) = cache.get(&Fingerprint::of(server, &options)) else {
            continue;
        };
        for tool in entry.report.tools.raw() {
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
