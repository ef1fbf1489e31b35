//! Pinned third-party tools installed under `.tools/` (npm packages with node 22, a Python venv, Debian's
//! Redis and HAProxy, cargo-fuzz).
//!
//! Every install is idempotent: a stamp file records the pinned list, and nothing is done while the stamp
//! matches and the expected executables exist. Nothing is installed globally.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::process;
use crate::workspace::{self, Workspace};

/// npm packages installed into `.tools/node` (exact versions).
pub const NPM_PACKAGES: &[&str] = &[
    "node@22.23.3",
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
    // With the two above and the Python servers below: the real servers of bench B6.
    "@modelcontextprotocol/server-memory@2026.8.31",
    "@modelcontextprotocol/conformance@0.2.0-alpha.12",
];

/// Python packages installed into the venv at `.tools/venv` (exact versions).
pub const PYTHON_PACKAGES: &[&str] = &[
    "mcp-server-time==2026.10.19",
    "mcp-server-git==2026.10.19",
    "mcp-server-fetch==2026.10.24",
    "fastmcp==4.1.2",
    // The official Python SDK, whose client drives `mcp-cli serve` in the gateway tests.
    "mcp==2.3.0",
    // The Prometheus text parser that reads `serve`'s `/metrics` in the operations tests.
    "prometheus-client==0.26.0",
    // Validates `deploy/kubernetes/` offline: it ships the Kubernetes schemas.
    "kubernetes-validate==1.37.0",
];

/// The Debian packages unpacked into `.tools/redis` for the shared-cache
/// tests: the server (`redis-server` links to the binary in `redis-tools`) and the libraries it links that a
/// minimal Debian lacks. The version is Debian 12's (checked after unpacking).
pub const REDIS_PACKAGES: &[&str] = &["redis-server", "redis-tools", "libjemalloc2", "liblzf1"];
/// The Redis release the tests expect (`redis-server --version`).
pub const REDIS_VERSION: &str = "v=7.0.";

/// The Debian packages unpacked into `.tools/haproxy` for the deployment
/// check (`haproxy -c`): HAProxy and the libraries it links that a minimal
/// Debian lacks. The version is Debian 12's (checked after unpacking).
pub const HAPROXY_PACKAGES: &[&str] = &[
    "haproxy",
    "liblua5.3-0",
    "libopentracing-c-wrapper0",
    "libopentracing1",
];
/// The HAProxy release the deployment check expects (`haproxy -v`).
pub const HAPROXY_VERSION: &str = "HAProxy version 2.6.";

/// The cargo-fuzz version installed into `.tools/cargo`.
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

const STAMP: &str = ".xtask-stamp";
const INSTALL_TIMEOUT: Duration = Duration::from_secs(20 * 60);
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// Paths of the installed tools.
#[derive(Debug, Clone)]
pub struct Tools {
    dir: PathBuf,
}

impl Tools {
    /// Tools rooted at the workspace's `.tools/` directory.
    pub fn new(ws: &Workspace) -> Self {
        Self {
            dir: ws.tools_dir(),
        }
    }

    /// The `.tools/` directory itself (exported to tests as `MCP_TOOLS_DIR`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn node_prefix(&self) -> PathBuf {
        self.dir.join("node")
    }

    /// Directory holding the node 22 executable.
    pub fn node_bin_dir(&self) -> PathBuf {
        self.node_prefix()
            .join("node_modules")
            .join("node")
            .join("bin")
    }

    /// Directory of npm package executables (`conformance`, `mcp-server-everything`, ...).
    pub fn npm_bin_dir(&self) -> PathBuf {
        self.node_prefix().join("node_modules").join(".bin")
    }

    /// The `conformance` CLI.
    pub fn conformance_bin(&self) -> PathBuf {
        self.npm_bin_dir().join("conformance")
    }

    fn venv(&self) -> PathBuf {
        self.dir.join("venv")
    }

    /// An executable of the Python venv (`python`, `mcp-server-time`, …).
    pub fn venv_bin(&self, name: &str) -> PathBuf {
        self.venv().join("bin").join(name)
    }

    fn cargo_root(&self) -> PathBuf {
        self.dir.join("cargo")
    }

    /// The installed `cargo-fuzz` executable.
    pub fn cargo_fuzz_bin(&self) -> PathBuf {
        self.cargo_root().join("bin").join("cargo-fuzz")
    }

    /// `PATH` with node 22 and the npm executables first, then the inherited `PATH`.
    pub fn node_path(&self) -> Result<OsString> {
        let mut dirs = vec![self.node_bin_dir(), self.npm_bin_dir()];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        std::env::join_paths(dirs).context("cannot build PATH")
    }

    /// `PATH` with `.tools/cargo/bin` (cargo-fuzz) first, then the inherited `PATH`.
    pub fn cargo_path(&self) -> Result<OsString> {
        let mut dirs = vec![self.cargo_root().join("bin")];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        std::env::join_paths(dirs).context("cannot build PATH")
    }

    /// Installs everything `test` and `conformance` need: the npm packages,
    /// the Python venv, Redis and HAProxy. They wait on downloads rather than
    /// the CPU, so they run side by side; every failure is reported.
    pub fn setup(&self) -> Result<()> {
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        let failures: Vec<String> = thread::scope(|scope| {
            let installs = [
                scope.spawn(|| self.setup_npm()),
                scope.spawn(|| self.setup_python()),
                scope.spawn(|| self.setup_redis()),
                scope.spawn(|| self.setup_haproxy()),
            ];
            installs
                .into_iter()
                .filter_map(|install| match install.join() {
                    Ok(Ok(())) => None,
                    Ok(Err(err)) => Some(format!("{err:#}")),
                    Err(_) => Some("an install thread panicked".to_owned()),
                })
                .collect()
        });
        if !failures.is_empty() {
            bail!("setup failed: {}", failures.join("; "));
        }
        Ok(())
    }

    /// `.tools/redis`, where the Debian packages are unpacked.
    fn redis_root(&self) -> PathBuf {
        self.dir.join("redis")
    }

    /// The unpacked `redis-server`.
    pub fn redis_server(&self) -> PathBuf {
        self.redis_root().join("usr/bin/redis-server")
    }

    /// The folder of the libraries `redis-server` needs (for `LD_LIBRARY_PATH`).
    pub fn redis_lib_dir(&self) -> PathBuf {
        self.redis_root().join("usr/lib/x86_64-linux-gnu")
    }

    /// `.tools/haproxy`, where its Debian packages are unpacked.
    fn haproxy_root(&self) -> PathBuf {
        self.dir.join("haproxy")
    }

    /// The unpacked `haproxy`.
    pub fn haproxy(&self) -> PathBuf {
        self.haproxy_root().join("usr/sbin/haproxy")
    }

    /// The folder of the libraries `haproxy` needs (for `LD_LIBRARY_PATH`).
    pub fn haproxy_lib_dir(&self) -> PathBuf {
        self.haproxy_root().join("usr/lib/x86_64-linux-gnu")
    }

    /// Downloads Debian's Redis packages (`apt-get download`, no root, no
    /// system change) and unpacks them into `.tools/redis` (`dpkg -x`).
    fn setup_redis(&self) -> Result<()> {
        let root = self.redis_root();
        let wanted = format!("{}\n{REDIS_VERSION}", REDIS_PACKAGES.join("\n"));
        if stamp_matches(&root, &wanted) && self.redis_server().exists() {
            println!("setup: redis up to date");
            return Ok(());
        }
        unpack_debs(&root, REDIS_PACKAGES)?;
        let version = probe(
            Command::new(self.redis_server())
                .arg("--version")
                .env("LD_LIBRARY_PATH", self.redis_lib_dir()),
        )?;
        if !version.contains(REDIS_VERSION) {
            bail!(
                "expected Redis {REDIS_VERSION}x in {}, found {version}",
                self.redis_server().display()
            );
        }
        write_stamp(&root, &wanted)
    }

    /// Debian's HAProxy, unpacked into `.tools/haproxy` as Redis is.
    fn setup_haproxy(&self) -> Result<()> {
        let root = self.haproxy_root();
        let wanted = format!("{}\n{HAPROXY_VERSION}", HAPROXY_PACKAGES.join("\n"));
        if stamp_matches(&root, &wanted) && self.haproxy().exists() {
            println!("setup: haproxy up to date");
            return Ok(());
        }
        unpack_debs(&root, HAPROXY_PACKAGES)?;
        let version = probe(
            Command::new(self.haproxy())
                .arg("-v")
                .env("LD_LIBRARY_PATH", self.haproxy_lib_dir()),
        )?;
        if !version.contains(HAPROXY_VERSION) {
            bail!(
                "expected {HAPROXY_VERSION}x in {}, found {version}",
                self.haproxy().display()
            );
        }
        write_stamp(&root, &wanted)
    }

    fn setup_npm(&self) -> Result<()> {
        let prefix = self.node_prefix();
        let expected = [
            self.node_bin_dir().join("node"),
            self.conformance_bin(),
            self.npm_bin_dir().join("mcp-server-everything"),
            self.npm_bin_dir().join("mcp-server-filesystem"),
            self.npm_bin_dir().join("mcp-server-memory"),
        ];
        let wanted = NPM_PACKAGES.join("\n");
        if stamp_matches(&prefix, &wanted) && expected.iter().all(|p| p.exists()) {
            println!("setup: npm packages up to date");
            return Ok(());
        }
        fs::create_dir_all(&prefix)
            .with_context(|| format!("cannot create {}", prefix.display()))?;
        let mut cmd = Command::new("npm");
        cmd.arg("install")
            .arg("--prefix")
            .arg(&prefix)
            .args([
                "--save-exact",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ])
            .args(NPM_PACKAGES);
        println!("setup: {}", process::describe(&cmd));
        process::run_checked(&mut cmd, INSTALL_TIMEOUT)?;
        for path in &expected {
            if !path.exists() {
                bail!("npm install finished but {} is missing", path.display());
            }
        }
        let version = probe(Command::new(self.node_bin_dir().join("node")).arg("--version"))?;
        if !version.starts_with("v22.") {
            bail!(
                "expected node 22 in {}, found {version}",
                self.node_bin_dir().display()
            );
        }
        write_stamp(&prefix, &wanted)
    }

    fn setup_python(&self) -> Result<()> {
        let venv = self.venv();
        let python = venv.join("bin").join("python");
        let expected = [
            python.clone(),
            venv.join("bin").join("mcp-server-time"),
            venv.join("bin").join("mcp-server-git"),
            venv.join("bin").join("mcp-server-fetch"),
        ];
        let wanted = PYTHON_PACKAGES.join("\n");
        if stamp_matches(&venv, &wanted) && expected.iter().all(|p| p.exists()) {
            println!("setup: python venv up to date");
            return Ok(());
        }
        if !python.exists() {
            let mut cmd = Command::new("python3");
            cmd.args(["-m", "venv"]).arg(&venv);
            println!("setup: {}", process::describe(&cmd));
            process::run_checked(&mut cmd, INSTALL_TIMEOUT)?;
        }
        let mut cmd = Command::new(&python);
        cmd.args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
        ])
        .args(PYTHON_PACKAGES);
        println!("setup: {}", process::describe(&cmd));
        process::run_checked(&mut cmd, INSTALL_TIMEOUT)?;
        for path in &expected {
            if !path.exists() {
                bail!("pip install finished but {} is missing", path.display());
            }
        }
        write_stamp(&venv, &wanted)
    }

    /// Installs the pinned cargo-fuzz into `.tools/cargo` (used by `fuzz` only).
    pub fn setup_cargo_fuzz(&self, ws: &Workspace) -> Result<()> {
        let root = self.cargo_root();
        let wanted = format!("cargo-fuzz {CARGO_FUZZ_VERSION}");
        let build_dir = ws.target_dir().join("cargo-install");
        if stamp_matches(&root, &wanted) && self.cargo_fuzz_bin().exists() {
            println!("setup: cargo-fuzz up to date");
            return Ok(());
        }
        let mut cmd = ws.cargo();
        cmd.args([
            "install",
            "cargo-fuzz",
            "--locked",
            // A driver of cargo: its speed does not matter, its build time does.
            "--debug",
            "--version",
            CARGO_FUZZ_VERSION,
            "--root",
        ])
        .arg(&root)
        .env("CARGO_TARGET_DIR", &build_dir);
        println!("setup: {}", process::describe(&cmd));
        process::run_checked(&mut cmd, INSTALL_TIMEOUT)?;
        write_stamp(&root, &wanted)?;
        // Installed and stamped: the build is never reused, and it is
        // hundreds of megabytes (a failed one is kept, to go on from).
        workspace::remove_scratch(&build_dir)
    }
}

/// Downloads Debian's `packages` (`apt-get download`, no root, no system
/// change) and unpacks them into `root` (`dpkg -x`).
fn unpack_debs(root: &Path, packages: &[&str]) -> Result<()> {
    let debs = root.join("debs");
    if debs.exists() {
        fs::remove_dir_all(&debs).with_context(|| format!("cannot clear {}", debs.display()))?;
    }
    fs::create_dir_all(&debs).with_context(|| format!("cannot create {}", debs.display()))?;
    let mut cmd = Command::new("apt-get");
    cmd.arg("download").args(packages).current_dir(&debs);
    println!("setup: {} (in {})", process::describe(&cmd), debs.display());
    process::run_checked(&mut cmd, INSTALL_TIMEOUT).with_context(|| {
        format!(
            "cannot download Debian's packages {} (apt-get download)",
            packages.join(", ")
        )
    })?;
    let mut downloaded: Vec<PathBuf> = fs::read_dir(&debs)
        .with_context(|| format!("cannot read {}", debs.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "deb"))
        .collect();
    downloaded.sort();
    if downloaded.len() != packages.len() {
        bail!(
            "apt-get download left {} packages in {}, expected {}",
            downloaded.len(),
            debs.display(),
            packages.len()
        );
    }
    for package in &downloaded {
        let mut cmd = Command::new("dpkg");
        cmd.arg("-x").arg(package).arg(root);
        process::run_checked(&mut cmd, INSTALL_TIMEOUT)?;
    }
    fs::remove_dir_all(&debs).ok();
    Ok(())
}

fn stamp_matches(dir: &Path, wanted: &str) -> bool {
    fs::read_to_string(dir.join(STAMP)).is_ok_and(|have| have == wanted)
}

fn write_stamp(dir: &Path, wanted: &str) -> Result<()> {
    let path = dir.join(STAMP);
    fs::write(&path, wanted).with_context(|| format!("cannot write {}", path.display()))
}

/// Runs a short command and returns its trimmed stdout (bounded by the line cap of the runner).
fn probe(cmd: &mut Command) -> Result<String> {
    let described = process::describe(cmd);
    let mut out = String::new();
    let finished = process::run_streaming(cmd, PROBE_TIMEOUT, |stream, line| {
        if stream == process::Stream::Stdout && out.len() < 4096 {
            out.push_str(line);
        }
    })?;
    if !finished.success() {
        bail!("`{described}` failed ({})", process::status_text(&finished));
    }
    Ok(out.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_round_trip() {
        let dir = std::env::temp_dir().join(format!("xtask-stamp-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        assert!(!stamp_matches(&dir, "a\nb"));
        write_stamp(&dir, "a\nb").unwrap();
        assert!(stamp_matches(&dir, "a\nb"));
        assert!(!stamp_matches(&dir, "a\nc"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn node_path_puts_node22_first() {
        let ws = Workspace::locate().unwrap();
        let tools = Tools::new(&ws);
        let path = tools.node_path().unwrap();
        let first = std::env::split_paths(&path).next().unwrap();
        assert_eq!(first, tools.node_bin_dir());
    }

    #[test]
    fn pins_are_exact() {
        assert!(
            NPM_PACKAGES
                .iter()
                .all(|p| p.rsplit_once('@').is_some_and(|(_, v)| v.contains('.')))
        );
        assert!(PYTHON_PACKAGES.iter().all(|p| p.contains("==")));
    }
}
