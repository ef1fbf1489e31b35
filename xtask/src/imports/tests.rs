//! The check on small crates held in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::modules::Sources;
use super::{Circle, Findings, check};

/// Files in memory, by path.
struct Memory(BTreeMap<PathBuf, String>);

impl Sources for Memory {
    fn read(&self, path: &Path) -> Option<String> {
        self.0.get(path).cloned()
    }
}

/// Checks the crate `src/lib.rs` made of these files.
fn check_crate(files: &[(&str, &str)]) -> Findings {
    let files = files
        .iter()
        .map(|(path, text)| (PathBuf::from(path), (*text).to_owned()))
        .collect();
    match check(&Memory(files), &[PathBuf::from("src/lib.rs")]) {
        Ok(findings) => findings,
        Err(err) => panic!("the check failed: {err:#}"),
    }
}

fn paths(files: &[&str]) -> Vec<PathBuf> {
    files.iter().map(PathBuf::from).collect()
}

fn edge(from: &str, to: &str, names: &[&str]) -> (PathBuf, PathBuf, Vec<String>) {
    let names = names.iter().map(|name| (*name).to_owned()).collect();
    (from.into(), to.into(), names)
}

#[test]
fn two_files_importing_each_other_are_a_circle() {
    let findings = check_crate(&[
        ("src/lib.rs", "mod a;\nmod b;\n"),
        ("src/a.rs", "use crate::b::{B, make};\npub struct A;\n"),
        (
            "src/b.rs",
            "use super::a::A as Renamed;\npub struct B;\npub fn make() {}\n",
        ),
    ]);
    assert_eq!(findings.files, 3);
    assert_eq!(findings.crates, 1);
    let expected = Circle {
        files: paths(&["src/a.rs", "src/b.rs"]),
        edges: vec![
            edge("src/a.rs", "src/b.rs", &["B", "make"]),
            edge("src/b.rs", "src/a.rs", &["A"]),
        ],
    };
    assert_eq!(findings.circles, vec![expected]);
}

#[test]
fn a_circle_through_a_re_export_is_found_between_the_defining_files() {
    let findings = check_crate(&[
        ("src/lib.rs", "pub mod auth;\n"),
        (
            "src/auth/mod.rs",
            "mod discovery;\nmod fallback;\npub use discovery::AuthorizationServer;\npub use self::fallback::choose;\n",
        ),
        (
            "src/auth/discovery.rs",
            "use super::choose;\npub struct AuthorizationServer;\n",
        ),
        (
            "src/auth/fallback.rs",
            "use crate::auth::AuthorizationServer;\npub fn choose() {}\n",
        ),
    ]);
    let files: Vec<_> = findings
        .circles
        .iter()
        .map(|circle| circle.files.clone())
        .collect();
    assert_eq!(
        files,
        vec![paths(&["src/auth/discovery.rs", "src/auth/fallback.rs"])]
    );
}

#[test]
fn a_parent_re_exporting_its_children_is_no_circle() {
    let findings = check_crate(&[
        ("src/lib.rs", "mod config;\nmod user;\n"),
        (
            "src/config/mod.rs",
            "mod child;\nmod sibling;\npub use child::Child;\npub use sibling::{Sibling, DEFAULT};\n",
        ),
        (
            "src/config/child.rs",
            "use super::{Sibling, DEFAULT};\npub struct Child(Sibling);\n",
        ),
        (
            "src/config/sibling.rs",
            "pub struct Sibling;\npub const DEFAULT: u8 = 1;\n",
        ),
        ("src/user.rs", "use crate::config::Child;\n"),
    ]);
    assert_eq!(findings.files, 5);
    assert_eq!(findings.circles, Vec::new());
}

#[test]
fn a_child_may_use_its_parent_that_only_re_exports_it() {
    let re_exported = check_crate(&[
        ("src/lib.rs", "pub mod session;\n"),
        (
            "src/session/mod.rs",
            "mod list;\npub use list::ItemKind;\npub struct Session;\n",
        ),
        (
            "src/session/list.rs",
            "use super::Session;\npub enum ItemKind {}\nimpl Session {}\n",
        ),
    ]);
    assert_eq!(re_exported.circles, Vec::new());
    let imported = check_crate(&[
        ("src/lib.rs", "pub mod session;\n"),
        (
            "src/session/mod.rs",
            "mod list;\nuse list::ItemKind;\npub struct Session(Vec<ItemKind>);\n",
        ),
        (
            "src/session/list.rs",
            "use super::Session;\npub enum ItemKind {}\nimpl Session {}\n",
        ),
    ]);
    assert_eq!(imported.circles.len(), 1, "{:?}", imported.circles);
}

#[test]
fn uses_under_cfg_test_and_test_files_are_left_out() {
    let findings = check_crate(&[
        ("src/lib.rs", "mod a;\nmod b;\n"),
        ("src/a.rs", "use crate::b::B;\npub struct A;\n"),
        (
            "src/b.rs",
            "pub struct B;\n#[cfg(test)]\nuse crate::a::A;\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n#[cfg(test)]\n#[path = \"b_tests.rs\"]\nmod more_tests;\nmod tests;\n",
        ),
        ("src/tests.rs", "use crate::a::A;\n"),
        ("src/b/tests.rs", "use crate::a::A;\n"),
    ]);
    assert_eq!(findings.files, 3);
    assert_eq!(findings.circles, Vec::new());
}
