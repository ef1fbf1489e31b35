//! `cargo xtask imports`: no file imports one that imports it back.
//!
//! Every crate of the workspace (each member's `src/`, and the separate
//! `bench/` workspace's) is read with `syn` ([`modules`]): a node per
//! source file, test-only code left out. An edge goes from a file to
//! another when a `use` in the first names an item defined in the second,
//! or the module it is, followed through re-exports ([`graph`]). A strongly
//! connected component of more than one file is a circle ([`circles`]):
//! each is printed with what each of its files takes from the next, and the
//! check fails. No build: it reads the sources only.

mod circles;
mod graph;
mod modules;
mod syntax;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::workspace::Workspace;

use self::modules::{Disk, Sources};

/// The separate workspaces checked besides the main one's members.
const EXTRA_MEMBERS: &[&str] = &["bench"];

/// One circle: its files, and each edge between two of them with the names
/// the first takes from the second.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    /// Its files, in path order.
    pub files: Vec<PathBuf>,
    /// `(from, to, names)` for each edge inside it.
    pub edges: Vec<(PathBuf, PathBuf, Vec<String>)>,
}

/// What the check of some crates found.
#[derive(Debug, Default)]
pub struct Findings {
    /// How many files were read.
    pub files: usize,
    /// How many crates (crate roots).
    pub crates: usize,
    /// Every circle.
    pub circles: Vec<Circle>,
}

/// Checks every crate of the workspace and prints the circles, if any.
pub fn run(ws: &Workspace) -> Result<()> {
    let roots = crate_roots(ws.root())?;
    let findings = check(&Disk, &roots)?;
    let shown = |path: &Path| {
        path.strip_prefix(ws.root())
            .unwrap_or(path)
            .display()
            .to_string()
    };
    if findings.circles.is_empty() {
        println!(
            "imports: {} files in {} crates, no circle",
            findings.files, findings.crates
        );
        return Ok(());
    }
    for (number, circle) in findings.circles.iter().enumerate() {
        let files: Vec<String> = circle.files.iter().map(|file| shown(file)).collect();
        println!("circle {}: {}", number + 1, files.join(", "));
        for (from, to, names) in &circle.edges {
            println!("    {} -> {}: {}", shown(from), shown(to), names.join(", "));
        }
    }
    bail!(
        "{} circle(s) in the import graph of {} files (above): a file imports one that imports it back",
        findings.circles.len(),
        findings.files
    )
}

/// Checks the crates of these root files (`lib.rs`, `main.rs`, …).
pub fn check(sources: &impl Sources, roots: &[PathBuf]) -> Result<Findings> {
    let mut findings = Findings::default();
    for root in roots {
        let krate = modules::read_crate(sources, root)?;
        let edges = graph::edges(&krate);
        findings.files += krate.files.len();
        findings.crates += 1;
        for members in circles::circles(krate.files.len(), edges.keys().copied()) {
            let edges = edges
                .iter()
                .filter(|((from, to), _)| members.contains(from) && members.contains(to))
                .map(|((from, to), names)| {
                    let names = names.iter().cloned().collect();
                    (krate.files[*from].clone(), krate.files[*to].clone(), names)
                })
                .collect();
            let mut files: Vec<PathBuf> = members
                .iter()
                .map(|&file| krate.files[file].clone())
                .collect();
            files.sort();
            findings.circles.push(Circle { files, edges });
        }
    }
    Ok(findings)
}

/// The root file of every crate: each workspace member's (and each extra
/// workspace's) `src/lib.rs`, `src/main.rs` and `src/bin/*.rs`.
fn crate_roots(root: &Path) -> Result<Vec<PathBuf>> {
    let manifest_path = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("cannot read {}", manifest_path.display()))?;
    let manifest: toml::Table = text
        .parse()
        .with_context(|| format!("cannot parse {}", manifest_path.display()))?;
    let members = manifest
        .get("workspace")
        .and_then(|workspace| workspace.get("members"))
        .and_then(toml::Value::as_array)
        .context("Cargo.toml has no [workspace] members")?;
    let names = members
        .iter()
        .filter_map(toml::Value::as_str)
        .chain(EXTRA_MEMBERS.iter().copied());
    let mut roots = Vec::new();
    for name in names {
        let src = root.join(name).join("src");
        roots.extend(
            ["lib.rs", "main.rs"]
                .iter()
                .map(|file| src.join(file))
                .filter(|file| file.is_file()),
        );
        if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
            let mut bins: Vec<PathBuf> = bins
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .map(|path| {
                    if path.is_dir() {
                        path.join("main.rs")
                    } else {
                        path
                    }
                })
                .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "rs"))
                .collect();
            bins.sort();
            roots.extend(bins);
        }
    }
    Ok(roots)
}

#[cfg(test)]
mod tests;
