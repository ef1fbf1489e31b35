//! `cargo xtask deps`: the dependency budget of `xtask/deps-budget.toml`.
//!
//! For each package and choice of features there, `cargo tree` (with the
//! lock file, offline when the registry is already here) gives its normal
//! dependency tree. Its crates are counted, each name and version once, as
//! `cargo tree --prefix none --no-dedupe | sort -u | wc -l` counts them,
//! against the budget; a crate of the `never` list fails the check with the
//! path that pulled it in, and a tree over its budget with what each direct
//! dependency brings alone.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::process::{self, Stream};
use crate::workspace::Workspace;

/// The budget file, from the workspace root.
const BUDGET_FILE: &str = "xtask/deps-budget.toml";

/// How long one `cargo tree` may take (it resolves from the lock file; a
/// download of the index, when offline fails, takes longer).
const TREE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The most lines of `cargo tree` output read: a deduplicated tree of a few
/// hundred crates prints far fewer.
const MAX_TREE_LINES: usize = 100_000;

/// How many direct dependencies an over-budget report names.
const HEAVIEST_SHOWN: usize = 5;

/// `xtask/deps-budget.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetFile {
    budget: Vec<Budget>,
}

/// One package with one choice of features, and what its tree may hold.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Budget {
    /// The package (`-p`).
    pub package: String,
    /// Whether its default features are off.
    #[serde(default)]
    pub no_default_features: bool,
    /// The features asked for besides (or instead of) the defaults.
    #[serde(default)]
    pub features: Vec<String>,
    /// The most crates its tree may hold, itself included.
    pub max: usize,
    /// Crates its tree must never hold, by name (any version).
    #[serde(default)]
    pub never: Vec<String>,
}

impl Budget {
    /// How reports name it: `mcpdisco-client (stdio)`, `mcpdisco (default)`,
    /// `mcpdisco (default + oauth)`.
    pub fn label(&self) -> String {
        let features = self.features.join(", ");
        let which = match (self.no_default_features, features.is_empty()) {
            (true, true) => "no default features".to_owned(),
            (true, false) => features,
            (false, true) => "default".to_owned(),
            (false, false) => format!("default + {features}"),
        };
        format!("{} ({which})", self.package)
    }

    /// The arguments of the `cargo tree` that lists its tree.
    fn tree_args(&self) -> Vec<String> {
        let mut args: Vec<String> = [
            "tree",
            "-p",
            &self.package,
            "-e",
            "normal",
            "--prefix",
            "depth",
            "--locked",
        ]
        .map(str::to_owned)
        .to_vec();
        if self.no_default_features {
            args.push("--no-default-features".to_owned());
        }
        if !self.features.is_empty() {
            args.push("--features".to_owned());
            args.push(self.features.join(","));
        }
        args
    }
}

/// Reads the budgets of `text` (the budget file's content).
pub fn parse_budgets(text: &str) -> Result<Vec<Budget>> {
    let file: BudgetFile = toml::from_str(text).context("the budget file does not read")?;
    if file.budget.is_empty() {
        bail!("the budget file names no package");
    }
    Ok(file.budget)
}

/// A crate of a tree: its name and version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Crate {
    /// The crate's name.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// A dependency tree as `cargo tree --prefix depth` prints it: each crate
/// once, with its dependencies and the first path that reached it.
#[derive(Debug, Default)]
pub struct Tree {
    /// Every crate, the root first.
    crates: Vec<Crate>,
    /// Each crate's dependencies, as indexes into `crates`.
    deps: Vec<BTreeSet<usize>>,
    /// The first path from the root to each crate, root first, as indexes.
    first_path: Vec<Vec<usize>>,
}

impl Tree {
    /// Reads `cargo tree --prefix depth` output: one crate a line, its depth
    /// in front (`0mcpdisco v0.1.0 (/path)`, `1serde v1.0.0`, and `(*)`
    /// after a crate whose dependencies were listed before). Lines without a
    /// depth (blank ones) are passed over.
    pub fn parse(output: &str) -> Result<Self> {
        let mut tree = Tree::default();
        let mut index: HashMap<Crate, usize> = HashMap::new();
        // The crates on the path to the current line, by depth.
        let mut path: Vec<usize> = Vec::new();
        for (number, line) in output.lines().enumerate() {
            let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                continue;
            }
            let depth: usize = line[..digits]
                .parse()
                .with_context(|| format!("line {}: a depth out of range", number + 1))?;
            let krate = parse_crate(&line[digits..])
                .with_context(|| format!("line {}: not a crate: {line}", number + 1))?;
            if depth > path.len() || (depth == 0 && !tree.crates.is_empty()) {
                bail!(
                    "line {}: depth {depth} under a path {} deep: {line}",
                    number + 1,
                    path.len()
                );
            }
            let id = *index.entry(krate.clone()).or_insert_with(|| {
                tree.crates.push(krate);
                tree.deps.push(BTreeSet::new());
                tree.first_path.push(Vec::new());
                tree.crates.len() - 1
            });
            path.truncate(depth);
            if let Some(&parent) = path.last() {
                tree.deps[parent].insert(id);
            }
            path.push(id);
            if tree.first_path[id].is_empty() {
                tree.first_path[id] = path.clone();
            }
        }
        if tree.crates.is_empty() {
            bail!("cargo tree listed no crate");
        }
        Ok(tree)
    }

    /// How many crates it holds, the root included.
    pub fn count(&self) -> usize {
        self.crates.len()
    }

    /// The names on the first path from the root to a crate called `name`
    /// (any version), root first; `None` when the tree has none.
    pub fn path_to(&self, name: &str) -> Option<Vec<&str>> {
        let id = self.crates.iter().position(|krate| krate.name == name)?;
        Some(
            self.first_path[id]
                .iter()
                .map(|&step| self.crates[step].name.as_str())
                .collect(),
        )
    }

    /// The crates `from` brings, itself included.
    fn reachable(&self, from: usize) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                stack.extend(self.deps[id].iter().copied());
            }
        }
        seen
    }

    /// Each direct dependency of the root with how many crates it alone
    /// brings (none of the other direct dependencies does), the heaviest
    /// first.
    pub fn brought_alone(&self) -> Vec<(&str, usize)> {
        let Some(direct) = self.deps.first() else {
            return Vec::new();
        };
        let reached: Vec<(usize, BTreeSet<usize>)> =
            direct.iter().map(|&id| (id, self.reachable(id))).collect();
        let mut alone: Vec<(&str, usize)> = reached
            .iter()
            .map(|(id, mine)| {
                let only = mine
                    .iter()
                    .filter(|krate| {
                        reached
                            .iter()
                            .all(|(other, theirs)| other == id || !theirs.contains(krate))
                    })
                    .count();
                (self.crates[*id].name.as_str(), only)
            })
            .collect();
        alone.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        alone
    }
}

/// `name vVERSION …` of one line: the name and the version.
fn parse_crate(text: &str) -> Option<Crate> {
    let mut words = text.split_whitespace();
    let name = words.next()?;
    let version = words.next()?.strip_prefix('v')?;
    Some(Crate {
        name: name.to_owned(),
        version: version.to_owned(),
    })
}

/// What one budget found in one tree.
#[derive(Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The package and its features, as reports name them.
    pub label: String,
    /// The crates of its tree.
    pub count: usize,
    /// Its budget.
    pub max: usize,
    /// Each crate of the `never` list found, with the path that pulled it in.
    pub forbidden: Vec<(String, Vec<String>)>,
    /// When over budget: what the heaviest direct dependencies bring alone.
    pub heaviest: Vec<(String, usize)>,
}

impl Verdict {
    /// Whether the tree is within its budget and holds none of the `never` crates.
    pub fn passed(&self) -> bool {
        self.count <= self.max && self.forbidden.is_empty()
    }

    /// The report: one line when it passed, else one line per problem.
    pub fn report(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.passed() {
            lines.push(format!(
                "{}: {} crates, budget {}: ok",
                self.label, self.count, self.max
            ));
            return lines;
        }
        if self.count > self.max {
            let heaviest: Vec<String> = self
                .heaviest
                .iter()
                .map(|(name, count)| format!("{name} {count}"))
                .collect();
            lines.push(format!(
                "{}: {} crates, over its budget of {} by {}; crates each direct dependency alone brings: {}",
                self.label,
                self.count,
                self.max,
                self.count - self.max,
                heaviest.join(", ")
            ));
        }
        for (name, path) in &self.forbidden {
            lines.push(format!("{} pulls {name}: {}", self.label, path.join(" → ")));
        }
        lines
    }
}

/// Judges `tree` by `budget`.
pub fn judge(budget: &Budget, tree: &Tree) -> Verdict {
    let forbidden = budget
        .never
        .iter()
        .filter_map(|name| {
            let path = tree.path_to(name)?;
            Some((name.clone(), path.into_iter().map(str::to_owned).collect()))
        })
        .collect();
    let count = tree.count();
    let heaviest = if count > budget.max {
        tree.brought_alone()
            .into_iter()
            .take(HEAVIEST_SHOWN)
            .map(|(name, count)| (name.to_owned(), count))
            .collect()
    } else {
        Vec::new()
    };
    Verdict {
        label: budget.label(),
        count,
        max: budget.max,
        forbidden,
        heaviest,
    }
}

/// Checks every budget of the budget file, printing each package's count
/// against its budget; fails naming every package over its budget and every
/// crate it must never hold, with the path that pulled it in.
pub fn run(ws: &Workspace) -> Result<()> {
    let budgets = read_budgets(ws)?;
    let mut failures = Vec::new();
    for budget in &budgets {
        let tree = Tree::parse(&cargo_tree(ws, budget)?)
            .with_context(|| format!("cargo tree of {}", budget.label()))?;
        let verdict = judge(budget, &tree);
        for line in verdict.report() {
            println!("deps: {line}");
            if !verdict.passed() {
                failures.push(line);
            }
        }
    }
    if !failures.is_empty() {
        bail!(
            "{} over the dependency budget ({}): {}",
            failures.len(),
            Path::new(BUDGET_FILE).display(),
            failures.join("; ")
        );
    }
    Ok(())
}

/// The budgets of the workspace's budget file.
pub fn read_budgets(ws: &Workspace) -> Result<Vec<Budget>> {
    let path = ws.root().join(BUDGET_FILE);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    parse_budgets(&text).with_context(|| path.display().to_string())
}

/// The output of `budget`'s `cargo tree`.
fn cargo_tree(ws: &Workspace, budget: &Budget) -> Result<String> {
    let mut cmd = ws.cargo();
    cmd.args(budget.tree_args());
    tree_output_offline_first(&mut cmd)
}

/// The output of the `cargo tree` `cmd`: offline when the registry already
/// holds every crate it needs, else with the network.
pub fn tree_output_offline_first(cmd: &mut Command) -> Result<String> {
    let mut offline = Command::new(cmd.get_program());
    offline.args(cmd.get_args()).arg("--offline");
    if let Some(dir) = cmd.get_current_dir() {
        offline.current_dir(dir);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => offline.env(key, value),
            None => offline.env_remove(key),
        };
    }
    match tree_output(&mut offline) {
        Ok(output) => Ok(output),
        Err(_) => tree_output(cmd),
    }
}

/// The standard output of a `cargo tree`, bounded; its errors when it fails.
fn tree_output(cmd: &mut Command) -> Result<String> {
    let described = process::describe(cmd);
    let mut stdout = String::new();
    let mut stderr = String::new();
    let mut lines = 0_usize;
    let finished = process::run_quiet(cmd, TREE_TIMEOUT, |stream, line| match stream {
        Stream::Stdout if lines < MAX_TREE_LINES => {
            lines += 1;
            stdout.push_str(line);
            stdout.push('\n');
        }
        Stream::Stdout => {}
        Stream::Stderr if stderr.len() < 64 * 1024 => {
            stderr.push_str(line);
            stderr.push('\n');
        }
        Stream::Stderr => {}
    })?;
    if !finished.success() {
        bail!(
            "`{described}` failed ({}): {}",
            process::status_text(&finished),
            stderr.trim()
        );
    }
    if lines >= MAX_TREE_LINES {
        bail!("`{described}` printed more than {MAX_TREE_LINES} lines");
    }
    Ok(stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client with a stdio transport, an HTTP stack under it, and serde
    /// twice (the second time without its dependencies: `(*)`).
    const TREE: &str = "\
0mcpdisco-client v0.1.0 (/w/mcp-client)
1mcpdisco-transport v0.1.0 (/w/mcp-transport)
2reqwest v0.13.5
3hyper v1.12.0
4bytes v1.12.2
3serde v1.0.229
4serde_derive v1.0.229 (proc-macro)
2serde v1.0.229 (*)
1serde v1.0.229 (*)
1backon v1.6.0
2fastrand v2.5.0

";

    fn budget(max: usize, never: &[&str]) -> Budget {
        Budget {
            package: "mcpdisco-client".into(),
            no_default_features: true,
            features: vec!["stdio".into()],
            max,
            never: never.iter().map(|name| (*name).to_owned()).collect(),
        }
    }

    #[test]
    fn crates_are_counted_once_each() {
        let tree = Tree::parse(TREE).unwrap();
        // client, transport, reqwest, hyper, bytes, serde, serde_derive, backon, fastrand
        assert_eq!(tree.count(), 9);
    }

    #[test]
    fn a_forbidden_crate_is_named_with_the_path_that_pulled_it_in() {
        let tree = Tree::parse(TREE).unwrap();
        let verdict = judge(&budget(70, &["hyper", "ring"]), &tree);
        assert!(!verdict.passed());
        assert_eq!(
            verdict.report(),
            [
                "mcpdisco-client (stdio) pulls hyper: mcpdisco-client → mcpdisco-transport → reqwest → hyper"
            ]
        );
        assert_eq!(
            tree.path_to("serde_derive"),
            Some(vec![
                "mcpdisco-client",
                "mcpdisco-transport",
                "reqwest",
                "serde",
                "serde_derive"
            ])
        );
    }

    #[test]
    fn a_tree_within_budget_and_without_forbidden_crates_passes() {
        let tree = Tree::parse(TREE).unwrap();
        let verdict = judge(&budget(9, &["ring"]), &tree);
        assert!(verdict.passed(), "{verdict:?}");
        assert_eq!(
            verdict.report(),
            ["mcpdisco-client (stdio): 9 crates, budget 9: ok"]
        );
    }

    #[test]
    fn over_budget_names_what_each_direct_dependency_brings_alone() {
        let tree = Tree::parse(TREE).unwrap();
        let verdict = judge(&budget(8, &[]), &tree);
        assert!(!verdict.passed());
        // The transport alone brings itself, reqwest, hyper, bytes (serde
        // and its derive come with the client's own serde too).
        assert_eq!(
            verdict.report(),
            [
                "mcpdisco-client (stdio): 9 crates, over its budget of 8 by 1; crates each direct dependency alone brings: mcpdisco-transport 4, backon 2, serde 0"
            ]
        );
    }

    #[test]
    fn lines_that_are_not_a_tree_are_refused() {
        assert!(Tree::parse("").is_err());
        assert!(Tree::parse("0a v1\n2b v1\n").is_err(), "a depth skipped");
        assert!(Tree::parse("0a v1\n1b\n").is_err(), "no version");
        assert!(Tree::parse("0a v1\n0b v1\n").is_err(), "two roots");
    }

    #[test]
    fn budgets_read_with_their_defaults_and_labels() {
        let budgets = parse_budgets(
            r#"
[[budget]]
package = "mcpdisco-client"
no-default-features = true
features = ["stdio"]
max = 70
never = ["hyper"]

[[budget]]
package = "mcpdisco"
max = 130

[[budget]]
package = "mcpdisco"
features = ["oauth"]
max = 160
"#,
        )
        .unwrap();
        assert_eq!(budgets[0], budget(70, &["hyper"]));
        let labels: Vec<String> = budgets.iter().map(Budget::label).collect();
        assert_eq!(
            labels,
            [
                "mcpdisco-client (stdio)",
                "mcpdisco (default)",
                "mcpdisco (default + oauth)"
            ]
        );
        assert_eq!(
            budgets[0].tree_args().join(" "),
            "tree -p mcpdisco-client -e normal --prefix depth --locked --no-default-features --features stdio"
        );
        assert!(
            parse_budgets("[[budget]]\npackage = \"x\"\n").is_err(),
            "no max"
        );
        assert!(parse_budgets("[[budget]]\npackage = \"x\"\nmax = 1\nmaximum = 2\n").is_err());
    }

    #[test]
    fn the_workspace_budget_file_reads() {
        let ws = Workspace::locate().unwrap();
        let text = std::fs::read_to_string(ws.root().join(BUDGET_FILE)).unwrap();
        let budgets = parse_budgets(&text).unwrap();
        assert!(budgets.iter().any(|b| b.package == "mcpdisco-client"));
    }
}
