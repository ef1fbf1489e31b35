//! What makes the crates ready to be picked: `cargo publish --dry-run` of
//! every published package (packaging only, nothing uploaded), every
//! package's feature combinations type-checked with the MSRV the manifests
//! state (the toolchain installed by rustup when missing), a type check for
//! Windows, `cargo install` of the CLI, and the man page (`cargo xtask man`).

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::workspace::{self, Workspace};

/// The published packages, in dependency order.
pub const PUBLISHED: &[&str] = &[
    "mcpdisco-protocol",
    "mcpdisco-transport",
    "mcpdisco-client",
    "mcpdisco-capability",
    "mcpdisco",
    "mcpdisco-gateway",
    "mcpdisco-cli",
];

/// The library packages, each checked alone without its default features
/// and with all of them (alone, so no other package's choice of its
/// features hides a combination that does not build).
const LIBRARIES: &[&str] = &[
    "mcpdisco-protocol",
    "mcpdisco-transport",
    "mcpdisco-client",
    "mcpdisco-capability",
    "mcpdisco",
    "mcpdisco-gateway",
];

const PACKAGE_TIMEOUT: Duration = Duration::from_secs(20 * 60);
const TOOLCHAIN_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// The `rust-version` of the workspace manifest.
pub fn msrv(ws: &Workspace) -> Result<String> {
    let manifest = fs::read_to_string(ws.root().join("Cargo.toml"))
        .context("cannot read the workspace manifest")?;
    parse_msrv(&manifest).context("the workspace manifest states no rust-version")
}

fn parse_msrv(manifest: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let value = line.trim().strip_prefix("rust-version")?.trim();
        let value = value.strip_prefix('=')?.trim().trim_matches('"');
        (!value.is_empty()).then(|| value.to_owned())
    })
}

fn package_args() -> Vec<String> {
    PUBLISHED
        .iter()
        .flat_map(|p| ["-p".to_owned(), (*p).to_owned()])
        .collect()
}

/// `cargo publish --dry-run` of every published package, in one run so the
/// unpublished workspace dependencies resolve (packaging and manifest
/// checks; the build itself is the MSRV step's).
pub fn package(ws: &Workspace) -> Result<()> {
    let mut cmd = ws.cargo();
    cmd.args(["publish", "--dry-run", "--no-verify", "--allow-dirty"])
        .args(package_args());
    println!("release: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, PACKAGE_TIMEOUT)?;
    Ok(())
}

/// Installs the stated MSRV toolchain (minimal profile) when missing.
pub fn install_toolchains(ws: &Workspace) -> Result<()> {
    let version = msrv(ws)?;
    let installed = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .context("rustup is needed to check the MSRV")?;
    let listed = String::from_utf8_lossy(&installed.stdout);
    if !listed
        .lines()
        .any(|l| l.starts_with(&format!("{version}-")))
    {
        let mut install = Command::new("rustup");
        install.args(["toolchain", "install", &version, "--profile", "minimal"]);
        println!("release: {}", process::describe(&install));
        process::run_checked(&mut install, TOOLCHAIN_TIMEOUT)?;
    }
    Ok(())
}

/// Adds the Windows target to the toolchain running xtask when missing.
pub fn install_windows_target() -> Result<()> {
    let targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("rustup is needed to add the Windows target")?;
    if !String::from_utf8_lossy(&targets.stdout)
        .lines()
        .any(|line| line.trim() == WINDOWS_TARGET)
    {
        let mut add = Command::new("rustup");
        add.args(["target", "add", WINDOWS_TARGET]);
        println!("release: {}", process::describe(&add));
        process::run_checked(&mut add, TOOLCHAIN_TIMEOUT)?;
    }
    Ok(())
}

/// `cargo check` with the stated MSRV toolchain, in `target/msrv`.
fn msrv_check(ws: &Workspace, version: &str, args: &[&str]) -> Result<()> {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", version, "cargo", "check", "--locked"])
        .args(args)
        .current_dir(ws.root())
        .env("CARGO_TARGET_DIR", ws.target_dir().join("msrv"))
        .env_remove("RUSTC")
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN");
    workspace::no_incremental_on_ci(&mut cmd);
    println!("release: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, PACKAGE_TIMEOUT)
}

/// Each library package alone, without its default features and with all
/// of them, and the CLI with its own, type-checked with the stated MSRV
/// toolchain: every published package builds with the `rust-version` it
/// states, in every feature combination it is picked with. The checks
/// share `target/msrv`, so each dependency is checked once per feature set.
pub fn check_features_on_msrv(ws: &Workspace) -> Result<()> {
    let version = msrv(ws)?;
    for package in LIBRARIES {
        for features in ["--no-default-features", "--all-features"] {
            msrv_check(ws, &version, &[features, "-p", package])?;
        }
    }
    msrv_check(ws, &version, &["--all-features", "-p", "mcpdisco-cli"])
}

/// The Windows target the published packages are type-checked for.
const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";

/// `cargo check` of the published packages for Windows (the target added
/// by [`install_windows_target`]): the Windows launch rules and process handling
/// compile, with the platform's TLS. Nothing is linked, so no Windows
/// toolchain is needed. It has a target folder of its own: nothing of the
/// workspace's is built for that target.
pub fn check_windows(ws: &Workspace) -> Result<()> {
    let mut cmd = ws.cargo();
    cmd.args([
        "check",
        "--locked",
        "--all-features",
        "--target",
        WINDOWS_TARGET,
    ])
    .args(package_args())
    .env("CARGO_TARGET_DIR", ws.target_dir().join("windows-check"));
    println!("release: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, PACKAGE_TIMEOUT)?;
    Ok(())
}

/// `cargo install --path mcp-cli` into a scratch root (the debug profile, in
/// the workspace's target folder), then runs the installed `mcp-cli`. The
/// CLI alone resolves its dependencies' features without the test-only ones
/// (tokio's `test-util`), so what depends on them is built once more.
pub fn check_install(ws: &Workspace) -> Result<()> {
    let root = ws.target_dir().join("install-check");
    let mut cmd = ws.cargo();
    cmd.args([
        "install", "--locked", "--debug", "--force", "--path", "mcp-cli",
    ])
    .arg("--root")
    .arg(&root)
    .arg("--target-dir")
    .arg(ws.target_dir());
    println!("release: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, PACKAGE_TIMEOUT)?;
    let installed = root.join("bin").join("mcp-cli");
    let output = Command::new(&installed)
        .arg("--version")
        .output()
        .with_context(|| format!("cannot run {}", installed.display()))?;
    let version = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || !version.starts_with("mcp-cli ") {
        bail!("the installed mcp-cli answered {version:?}");
    }
    Ok(())
}

/// Writes the man page to `target/man/mcp-cli.1` (builds mcp-cli first).
pub fn man(ws: &Workspace) -> Result<PathBuf> {
    let mut build = ws.cargo();
    build.args(["build", "-p", "mcpdisco-cli"]);
    process::run_checked(&mut build, PACKAGE_TIMEOUT)?;
    let binary = ws.target_dir().join("debug").join("mcp-cli");
    let output = Command::new(&binary)
        .arg("manpage")
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    if !output.status.success() || !output.stdout.starts_with(b".ie") {
        bail!(
            "mcp-cli manpage failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let dir = ws.target_dir().join("man");
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("mcp-cli.1");
    fs::write(&path, &output.stdout).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_stated_msrv() {
        assert_eq!(
            parse_msrv("[workspace.package]\nedition = \"2024\"\nrust-version = \"1.88\"\n"),
            Some("1.88".to_owned())
        );
        assert_eq!(parse_msrv("[package]\nname = \"x\"\n"), None);
        let ws = Workspace::locate().unwrap();
        assert!(msrv(&ws).unwrap().starts_with("1."));
    }
}
