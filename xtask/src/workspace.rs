//! Locations inside the workspace and the cargo invocation used for nested builds.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Paths xtask works with, all derived from the workspace root.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Finds the workspace root: the parent of this crate's manifest directory.
    pub fn locate() -> Result<Self> {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest
            .parent()
            .context("xtask has no parent directory")?
            .to_path_buf();
        if !root.join("Cargo.toml").is_file() {
            bail!("no Cargo.toml at workspace root {}", root.display());
        }
        Ok(Self { root })
    }

    /// The workspace root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `.tools/` (git-ignored) where pinned third-party tools are installed.
    pub fn tools_dir(&self) -> PathBuf {
        self.root.join(".tools")
    }

    /// The cargo target directory (honours `CARGO_TARGET_DIR`).
    pub fn target_dir(&self) -> PathBuf {
        match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) if !dir.is_empty() => {
                let dir = PathBuf::from(dir);
                if dir.is_absolute() {
                    dir
                } else {
                    self.root.join(dir)
                }
            }
            _ => self.root.join("target"),
        }
    }

    /// `cargo build` of every binary and test target of the workspace: the
    /// build the test step runs on. Test targets are included so features
    /// resolve as `cargo test --workspace` resolves them (dev-dependencies
    /// too); the binaries built any other way would differ, and each later
    /// step would compile the tree again.
    pub fn build_for_tests(&self) -> Command {
        let mut cmd = self.cargo();
        cmd.args(["build", "--workspace", "--bins", "--tests"]);
        cmd
    }

    /// The binary `name` of the debug build.
    pub fn debug_binary(&self, name: &str) -> PathBuf {
        self.target_dir()
            .join("debug")
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
    }

    /// A `cargo` command (the same cargo that runs xtask) with the workspace root as working directory.
    pub fn cargo(&self) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(&self.root);
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_holds_workspace_manifest_and_xtask() {
        let ws = Workspace::locate().unwrap();
        assert!(ws.root().join("xtask").join("Cargo.toml").is_file());
        assert_eq!(ws.tools_dir(), ws.root().join(".tools"));
    }
}
