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
        lean_builds_on_ci(&mut cmd);
        cmd
    }

    /// On CI, removes `dir`, a folder only one part of the test command
    /// builds in and nothing after it reads (the MSRV check's, the Windows
    /// check's, the fresh client project's, the fuzz build's once its
    /// smoke run is over): CI's disk is the limit, and no later run reuses
    /// the folder. A developer's own runs keep it, to build faster next time.
    pub fn remove_scratch_on_ci(&self, dir: &Path) -> Result<()> {
        if on_ci() {
            remove_scratch(dir)?;
        }
        Ok(())
    }
}

/// Removes `dir` and all it holds, if it is there.
pub fn remove_scratch(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err).with_context(|| format!("cannot remove {}", dir.display())),
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

/// On CI, where every build starts cold and is thrown away, two things
/// are written for nothing and take disk, which is what CI runs short of:
/// - cargo's incremental caches of the workspace crates;
/// - the line tables of the debug builds (`[profile.dev]`): they serve a
///   backtrace, which CI never asks for (no `RUST_BACKTRACE`); a panic's
///   message names its file and line without them.
///
/// Both are turned off there; a developer's own runs keep them. Every
/// cargo command of the test command gets the same settings, or cargo
/// would build the workspace again for the one that differs.
pub fn lean_builds_on_ci(cmd: &mut Command) {
    if on_ci() {
        cmd.env("CARGO_INCREMENTAL", "0")
            .env("CARGO_PROFILE_DEV_DEBUG", "false");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_folder_is_removed_with_all_it_holds_and_a_missing_one_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path().join("scratch");
        std::fs::create_dir_all(scratch.join("debug").join("deps")).unwrap();
        std::fs::write(scratch.join("debug").join("deps").join("lib.rlib"), b"x").unwrap();
        remove_scratch(&scratch).unwrap();
        assert!(!scratch.exists());
        remove_scratch(&scratch).unwrap();
        assert!(dir.path().is_dir());
    }

    #[test]
    fn root_holds_workspace_manifest_and_xtask() {
        let ws = Workspace::locate().unwrap();
        assert!(ws.root().join("xtask").join("Cargo.toml").is_file());
        assert_eq!(ws.tools_dir(), ws.root().join(".tools"));
    }
}
