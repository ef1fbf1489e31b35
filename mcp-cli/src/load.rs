//! The CLI's flags as a [`SourceSelection`]; which files are read and how
//! they merge is the library's (`mcpdisco::config::SourceSelection`).

use mcpdisco::config::{LoadedConfig, ProcessEnv, SourceSelection};

use crate::cli::GlobalOptions;
use crate::error::UsageError;

/// What was read: the library's [`LoadedConfig`].
pub type Loaded = LoadedConfig;

/// The selection the global flags make: `--config`, `--dir`, `--all-hosts`,
/// `--server`, `--inherit-env`, looking for hosts' configs from the current
/// directory and the home folder.
pub fn selection(global: &GlobalOptions) -> Result<SourceSelection, UsageError> {
    let cwd = std::env::current_dir().map_err(UsageError::CurrentDir)?;
    Ok(SourceSelection::new(cwd, dirs::home_dir())
        .files(global.configs.iter().cloned())
        .dirs(global.dirs.iter().cloned())
        .all_hosts(global.all_hosts)
        .servers(global.servers.iter().cloned())
        .inherit_env(global.inherit_env))
}

/// Reads the configs named by `--config`, the folders of `--dir`, every
/// host's config with `--all-hosts`, or else the first config
/// auto-detection finds.
pub fn load(global: &GlobalOptions) -> Result<Loaded, UsageError> {
    Ok(selection(global)?.load(&ProcessEnv)?)
}
