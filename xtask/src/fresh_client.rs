//! The client crate's promise, checked as a new user meets it: a Cargo
//! project of its own, outside the workspace, that depends on
//! `mcpdisco-client` by path with `default-features = false, features =
//! ["stdio"]` and lists the example server's tools as `Tool`s in three
//! lines (`xtask/fresh-client/main.rs`). Its dependency tree must hold none
//! of the crates the budget file forbids for that choice of features
//! (`deps-budget.toml`), and it must build and print the server's tools.
//!
//! It is written into `target/fresh-client`, with the workspace's lock
//! file so it resolves the same versions, and built in a target folder of
//! its own: nothing of the workspace's build is reused or disturbed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::deps::{self, Budget, Tree};
use crate::process::{self, Stream};
use crate::workspace::Workspace;

/// The program a new user writes.
const MAIN: &str = include_str!("../fresh-client/main.rs");

/// Tools the example server lists over stdio: the program must print them.
const EXPECTED_TOOLS: [&str; 2] = ["add", "echo"];

const BUILD_TIMEOUT: Duration = Duration::from_secs(20 * 60);
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The project's manifest: its own workspace (so the enclosing one does not
/// claim it), the client by path with only `stdio`, and tokio to run it.
fn manifest(client: &Path) -> String {
    format!(
        r#"[package]
name = "fresh-client"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
mcpdisco-client = {{ path = "{}", default-features = false, features = ["stdio"] }}
tokio = {{ version = "1", features = ["macros", "rt-multi-thread"] }}

[workspace]
"#,
        client.display().to_string().replace('\\', "/")
    )
}

/// The budget of the client with `stdio` alone: its `never` list is what
/// the project's tree must not hold.
fn stdio_budget(budgets: &[Budget]) -> Result<&Budget> {
    budgets
        .iter()
        .find(|b| {
            b.package == "mcpdisco-client" && b.no_default_features && b.features == ["stdio"]
        })
        .context("the budget file has no entry for mcpdisco-client with only `stdio`")
}

/// The names of the forbidden crates `tree` holds, each with its path.
fn forbidden_in(tree: &Tree, never: &[String]) -> Vec<String> {
    never
        .iter()
        .filter_map(|name| {
            tree.path_to(name)
                .map(|path| format!("{name}: {}", path.join(" → ")))
        })
        .collect()
}

/// Writes the project, checks its tree, builds it and runs it against the
/// example server the build step made.
pub fn run(ws: &Workspace) -> Result<()> {
    let dir = ws.target_dir().join("fresh-client");
    write_project(ws, &dir)?;
    let manifest_path = dir.join("Cargo.toml");

    let budgets = deps::read_budgets(ws)?;
    let never = &stdio_budget(&budgets)?.never;
    let mut tree = ws.cargo();
    tree.args([
        "tree",
        "-e",
        "normal",
        "--prefix",
        "depth",
        "--manifest-path",
    ])
    .arg(&manifest_path);
    let tree = Tree::parse(&deps::tree_output_offline_first(&mut tree)?)
        .context("cargo tree of the fresh client project")?;
    let forbidden = forbidden_in(&tree, never);
    if !forbidden.is_empty() {
        bail!(
            "a project using mcpdisco-client with only `stdio` pulls {}",
            forbidden.join("; ")
        );
    }
    println!(
        "fresh-client: {} crates, none of {}",
        tree.count(),
        never.join(", ")
    );

    let mut build = ws.cargo();
    build
        .args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest_path)
        .env("CARGO_TARGET_DIR", dir.join("target"));
    println!("fresh-client: {}", process::describe(&build));
    process::run_checked(&mut build, BUILD_TIMEOUT)?;

    let program = dir
        .join("target")
        .join("debug")
        .join(format!("fresh-client{}", std::env::consts::EXE_SUFFIX));
    let server = ws.debug_binary("mcp-example-server");
    let printed = run_program(&program, &server);
    ws.remove_scratch_on_ci(&dir)?;
    let printed = printed?;
    check_printed(&printed)?;
    println!("fresh-client: listed {}", printed.join(", "));
    Ok(())
}

fn write_project(ws: &Workspace, dir: &Path) -> Result<()> {
    let src = dir.join("src");
    fs::create_dir_all(&src).with_context(|| format!("cannot create {}", src.display()))?;
    let write = |path: PathBuf, text: &str| {
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write(
        dir.join("Cargo.toml"),
        &manifest(&ws.root().join("mcp-client")),
    )?;
    write(src.join("main.rs"), MAIN)?;
    let lock = ws.root().join("Cargo.lock");
    fs::copy(&lock, dir.join("Cargo.lock"))
        .with_context(|| format!("cannot copy {}", lock.display()))?;
    Ok(())
}

/// Runs the program; its standard output, line by line.
fn run_program(program: &Path, server: &Path) -> Result<Vec<String>> {
    let mut cmd = Command::new(program);
    cmd.arg(server);
    let mut stdout = Vec::new();
    let mut stderr = String::new();
    let finished = process::run_quiet(&mut cmd, RUN_TIMEOUT, |stream, line| match stream {
        Stream::Stdout if stdout.len() < 1000 => stdout.push(line.to_owned()),
        Stream::Stderr if stderr.len() < 16 * 1024 => {
            stderr.push_str(line);
            stderr.push('\n');
        }
        _ => {}
    })?;
    if !finished.success() {
        bail!(
            "the fresh client project failed ({}): {}",
            process::status_text(&finished),
            stderr.trim()
        );
    }
    Ok(stdout)
}

/// The program must have printed the example server's tools.
fn check_printed(printed: &[String]) -> Result<()> {
    let missing: Vec<&str> = EXPECTED_TOOLS
        .into_iter()
        .filter(|tool| !printed.iter().any(|line| line == tool))
        .collect();
    if !missing.is_empty() {
        bail!(
            "the fresh client project did not list {} (it printed {:?})",
            missing.join(", "),
            printed
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_asks_for_the_client_with_stdio_alone_in_a_workspace_of_its_own() {
        let text = manifest(Path::new("/w/mcp-client"));
        let parsed: toml::Value = toml::from_str(&text).unwrap();
        let client = &parsed["dependencies"]["mcpdisco-client"];
        assert_eq!(client["path"].as_str(), Some("/w/mcp-client"));
        assert_eq!(client["default-features"].as_bool(), Some(false));
        assert_eq!(client["features"].as_array().unwrap().len(), 1);
        assert_eq!(client["features"][0].as_str(), Some("stdio"));
        assert!(parsed.get("workspace").is_some());
    }

    #[test]
    fn the_program_connects_lists_and_prints_with_one_import() {
        let lines: Vec<&str> = MAIN
            .lines()
            .skip_while(|line| !line.contains("// Connect, list, print"))
            .skip(1)
            .take_while(|line| !line.contains("session.close()"))
            .collect();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(lines[0].contains("Client::stdio(server)"));
        assert!(lines[1].contains("list_tools()"));
        assert!(MAIN.matches("\nuse ").count() == 1, "one import");
    }

    #[test]
    fn a_forbidden_crate_is_named_with_its_path() {
        let tree = Tree::parse(
            "0fresh-client v0.0.0 (/t)\n1mcpdisco-client v0.1.0 (/w)\n2reqwest v0.13.5\n3hyper v1.12.0\n1tokio v1.50.0\n",
        )
        .unwrap();
        let found = forbidden_in(&tree, &["hyper".into(), "ring".into()]);
        assert_eq!(
            found,
            ["hyper: fresh-client → mcpdisco-client → reqwest → hyper"]
        );
    }

    #[test]
    fn a_missing_tool_fails_the_check() {
        assert!(check_printed(&["add".into(), "echo".into(), "fail".into()]).is_ok());
        let error = check_printed(&["add".into()]).unwrap_err().to_string();
        assert!(error.contains("echo"), "{error}");
    }

    #[test]
    fn the_budget_file_has_the_stdio_entry() {
        let ws = Workspace::locate().unwrap();
        let budgets = deps::read_budgets(&ws).unwrap();
        assert!(
            stdio_budget(&budgets)
                .unwrap()
                .never
                .contains(&"reqwest".to_owned())
        );
    }
}
