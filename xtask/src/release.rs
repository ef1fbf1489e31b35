//! What makes the crates ready to be picked: `cargo publish --dry-run` of
//! every published package (packaging only, nothing uploaded), every
//! package's code type-checked with the MSRV the manifests state (the
//! toolchain installed by rustup when missing; the CLI alone, as `cargo
//! install` resolves it), the feature combinations that matter type-checked
//! each alone on the stable toolchain (each library without its defaults,
//! the roles, the slim CLI), a type check for Windows, and the man page
//! (`cargo xtask man`).

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::warnings::{self, Gated};
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

/// The library packages (see [`check_on_msrv`]; the test command runs their
/// unit tests without default features too).
pub const LIBRARIES: &[&str] = &[
    "mcpdisco-protocol",
    "mcpdisco-transport",
    "mcpdisco-client",
    "mcpdisco-capability",
    "mcpdisco",
    "mcpdisco-gateway",
];

/// The feature combinations [`check_feature_combinations`] type-checks, each
/// package alone (so no other package's choice of its features hides a
/// combination that does not build): each library with features without
/// its default ones (the protocol and capability crates have none: the
/// MSRV run checks them, and each check here of a crate above them checks
/// them again as that crate resolves them), the roles (a stdio-only or a
/// server-only transport, a stdio-only client), and the slim CLI, as `cargo
/// install --no-default-features` resolves it (no dev-dependency's
/// features: tokio's `test-util` is off).
const FEATURE_CHECKS: &[&[&str]] = &[
    &["-p", "mcpdisco-transport", "--no-default-features"],
    &[
        "-p",
        "mcpdisco-transport",
        "--no-default-features",
        "--features",
        "stdio",
    ],
    &[
        "-p",
        "mcpdisco-transport",
        "--no-default-features",
        "--features",
        "server",
    ],
    &["-p", "mcpdisco-client", "--no-default-features"],
    &[
        "-p",
        "mcpdisco-client",
        "--no-default-features",
        "--features",
        "stdio",
    ],
    &["-p", "mcpdisco", "--no-default-features"],
    &["-p", "mcpdisco-gateway", "--no-default-features"],
    &["-p", "mcpdisco-cli", "--no-default-features"],
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
        .env("CARGO_TARGET_DIR", msrv_dir(ws))
        .env_remove("RUSTC")
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN");
    workspace::lean_builds_on_ci(&mut cmd);
    println!("release: {}", process::describe(&cmd));
    process::run_checked(&mut cmd, PACKAGE_TIMEOUT)
}

/// Type-checks with the stated MSRV toolchain, in `target/msrv`:
/// - every library with all its features, in one run (every optional part
///   on; each dependency and each library checked once);
/// - the CLI alone, resolving its dependencies' features as `cargo install
///   --path mcp-cli` does (its defaults are every feature; no
///   dev-dependency's features: tokio's `test-util` is off), which proves
///   what an install would, short of the link that the workspace build
///   already does for the same sources.
///
/// Every published package thus builds with the `rust-version` it states.
/// What a feature left out adds (a few `cfg(not(feature))` lines) changes
/// nothing the MSRV could refuse: those combinations are checked on the
/// stable toolchain, beside this, by [`check_feature_combinations`].
pub fn check_on_msrv(ws: &Workspace) -> Result<()> {
    let version = msrv(ws)?;
    let mut all_features = vec!["--all-features"];
    for package in LIBRARIES {
        all_features.extend(["-p", package]);
    }
    let checked = msrv_check(ws, &version, &all_features)
        .and_then(|()| msrv_check(ws, &version, &["-p", "mcpdisco-cli"]));
    ws.remove_scratch_on_ci(&msrv_dir(ws))?;
    checked
}

/// The MSRV check's target folder.
fn msrv_dir(ws: &Workspace) -> PathBuf {
    ws.target_dir().join("msrv")
}

/// Type-checks each of [`FEATURE_CHECKS`] alone, with the toolchain running
/// xtask, in the workspace's own target folder: the build scripts and
/// proc macros the build step compiled serve again, and the MSRV adds
/// nothing to what a feature left out changes. A warning fails the check
/// too (an import only a left-out feature uses, a function none uses), as
/// clippy's `-D warnings` would, once every combination is checked.
pub fn check_feature_combinations(ws: &Workspace) -> Result<()> {
    let mut failed = Vec::new();
    for args in FEATURE_CHECKS {
        let mut cmd = ws.cargo();
        cmd.args(["check", "--locked"]).args(*args);
        let described = process::describe(&cmd);
        println!("release: {described}");
        let Gated { finished, warnings } = warnings::run_gated(&mut cmd, PACKAGE_TIMEOUT)?;
        if !finished.success() {
            failed.push(format!(
                "`{described}` failed ({})",
                process::status_text(&finished)
            ));
        } else if warnings > 0 {
            failed.push(format!("`{described}`: {warnings} warning(s)"));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        bail!("{}", failed.join("; "))
    }
}

/// The Windows target the published packages are type-checked for.
const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";

/// `cargo check` of the published packages for Windows (the target added
/// by [`install_windows_target`]): the Windows launch rules and process handling
/// compile, with the platform's TLS. Nothing is linked, so no Windows
/// toolchain is needed. It has a target folder of its own: nothing of the
/// workspace's is built for that target.
pub fn check_windows(ws: &Workspace) -> Result<()> {
    let dir = ws.target_dir().join("windows-check");
    let mut cmd = ws.cargo();
    cmd.args([
        "check",
        "--locked",
        "--all-features",
        "--target",
        WINDOWS_TARGET,
    ])
    .args(package_args())
    .env("CARGO_TARGET_DIR", &dir);
    println!("release: {}", process::describe(&cmd));
    let checked = process::run_checked(&mut cmd, PACKAGE_TIMEOUT);
    ws.remove_scratch_on_ci(&dir)?;
    checked
}

/// Writes the man page to `target/man/mcp-cli.1` (builds mcp-cli first).
pub fn man(ws: &Workspace) -> Result<PathBuf> {
    let mut build = ws.cargo();
    build.args(["build", "-p", "mcpdisco-cli"]);
    process::run_checked(&mut build, PACKAGE_TIMEOUT)?;
    man_of(ws, &ws.debug_binary("mcp-cli"))
}

/// Writes the man page that `binary` (an `mcp-cli` already built) prints
/// to `target/man/mcp-cli.1`.
pub fn man_of(ws: &Workspace, binary: &std::path::Path) -> Result<PathBuf> {
    let output = Command::new(binary)
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
