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

    /// `cargo build` of every target of the workspace (libraries, binaries,
    /// tests, examples), linted by clippy as it compiles (see
    /// [`Workspace::cargo_through_clippy`]): the build the test and
    /// conformance steps run on. Test targets are included so features
    /// resolve as `cargo test --workspace` resolves them (dev-dependencies
    /// too); the binaries built any other way would differ, and each later
    /// step would compile the tree again.
    pub fn build_for_tests(&self) -> Result<Command> {
        let mut cmd = self.cargo_through_clippy()?;
        cmd.args(["build", "--workspace", "--all-targets"]);
        Ok(cmd)
    }

    /// A `cargo` command that compiles the workspace's own crates with
    /// `clippy-driver` (`RUSTC_WORKSPACE_WRAPPER`, exactly as `cargo clippy`
    /// does, but building instead of only checking): one compilation gives
    /// both clippy's findings and the code the tests run, where `cargo
    /// clippy` then `cargo build` would type-check every crate and its
    /// dependencies twice. Every command sharing that build must come from
    /// here, or cargo compiles the workspace's crates again.
    pub fn cargo_through_clippy(&self) -> Result<Command> {
        let mut cmd = self.cargo();
        cmd.env("RUSTC_WORKSPACE_WRAPPER", clippy_driver()?);
        Ok(cmd)
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
        no_incremental_on_ci(&mut cmd);
        cmd
    }
}

/// The `clippy-driver` of the toolchain that runs xtask (next to its `rustc`).
pub fn clippy_driver() -> Result<PathBuf> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .context("cannot run rustc to find its sysroot")?;
    if !output.status.success() {
        bail!(
            "rustc --print sysroot failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let driver = sysroot
        .join("bin")
        .join(format!("clippy-driver{}", std::env::consts::EXE_SUFFIX));
    if !driver.is_file() {
        bail!(
            "no clippy-driver in {} (rustup component add clippy)",
            sysroot.display()
        );
    }
    Ok(driver)
}

/// Whether this runs on CI (`CI` set to anything but `false` or `0`).
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false" && value != "0")
}

/// On CI, where every build starts cold and is thrown away, cargo's
/// incremental caches of the workspace crates are written for nothing:
/// they are turned off there (a developer's own runs keep them).
pub fn no_incremental_on_ci(cmd: &mut Command) {
    if on_ci() {
        cmd.env("CARGO_INCREMENTAL", "0");
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
