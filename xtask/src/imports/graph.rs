//! The import graph of one crate: an edge from a file to another when a
//! `use` in the first names an item defined in the second, or the module
//! the second is. A name is followed through `use` re-exports to the file
//! that defines it, so a `mod.rs` re-exporting `child::X` stands between
//! no user of `X` and `child.rs`. A `pub use` is a re-export, not an import:
//! it gives the child's item its public path and makes no edge (a parent
//! that re-exports its children, and whose children use its own items, is
//! the usual shape of a module).

use std::collections::{BTreeMap, BTreeSet};

use super::modules::Crate;

/// How many `use` and module steps one name is followed through, at most
/// (a `use` naming itself, or two naming each other, ends there).
const MAX_DEPTH: usize = 32;

/// The edges `(from file, to file)` with the names the first takes from the second.
pub type Edges = BTreeMap<(usize, usize), BTreeSet<String>>;

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A module, by index.
    Module(usize),
    /// An item defined in this file.
    Item(usize),
}

/// Every edge between two different files of `krate` (glob imports left out).
pub fn edges(krate: &Crate) -> Edges {
    let mut edges = Edges::new();
    for (index, module) in krate.modules.iter().enumerate() {
        for used in module
            .uses
            .iter()
            .filter(|used| used.bound.is_some() && !used.public)
        {
            let Some(to) =
                resolve(krate, index, &used.path, 0).map(|target| file_of(krate, target))
            else {
                continue;
            };
            if to != module.file {
                let name = used.path.last().cloned().unwrap_or_default();
                edges.entry((module.file, to)).or_default().insert(name);
            }
        }
    }
    edges
}

fn file_of(krate: &Crate, target: Target) -> usize {
    match target {
        Target::Module(module) => krate.modules[module].file,
        Target::Item(file) => file,
    }
}

/// What `path`, written in module `from`, names inside the crate (`None`
/// for another crate's, or a name not found).
fn resolve(krate: &Crate, from: usize, path: &[String], depth: usize) -> Option<Target> {
    let (first, rest) = path.split_first()?;
    match first.as_str() {
        "crate" => walk(krate, 0, rest, depth + 1),
        "self" => walk(krate, from, rest, depth + 1),
        "super" => {
            let parent = krate.modules[from].parent?;
            resolve_from_parent(krate, parent, rest, depth + 1)
        }
        _ => {
            let module = &krate.modules[from];
            let in_scope = module.children.contains_key(first)
                || module.defined.contains(first)
                || module
                    .uses
                    .iter()
                    .any(|used| used.bound.as_ref() == Some(first));
            if in_scope {
                walk(krate, from, path, depth + 1)
            } else {
                None
            }
        }
    }
}

/// `super::rest` once `super` is `parent` (`super::super::…` goes on up).
fn resolve_from_parent(
    krate: &Crate,
    parent: usize,
    rest: &[String],
    depth: usize,
) -> Option<Target> {
    match rest.split_first() {
        Some((next, further)) if next == "super" => {
            let grandparent = krate.modules[parent].parent?;
            resolve_from_parent(krate, grandparent, further, depth + 1)
        }
        _ => walk(krate, parent, rest, depth + 1),
    }
}

/// What `path` names, looked up in `module` (its children, its items, then
/// the names it imports, then its public glob imports).
fn walk(krate: &Crate, module: usize, path: &[String], depth: usize) -> Option<Target> {
    if depth > MAX_DEPTH {
        return None;
    }
    let Some((first, rest)) = path.split_first() else {
        return Some(Target::Module(module));
    };
    let here = &krate.modules[module];
    if let Some(&child) = here.children.get(first) {
        return walk(krate, child, rest, depth + 1);
    }
    if here.defined.contains(first) {
        // The rest (`Enum::Variant`, `Type::CONST`) is inside the item.
        return Some(Target::Item(here.file));
    }
    if let Some(used) = here
        .uses
        .iter()
        .find(|used| used.bound.as_ref() == Some(first))
    {
        let mut target = used.path.clone();
        target.extend_from_slice(rest);
        return resolve(krate, module, &target, depth + 1);
    }
    here.uses
        .iter()
        .filter(|used| used.bound.is_none() && used.public)
        .find_map(
            |glob| match resolve(krate, module, &glob.path, depth + 1)? {
                Target::Module(inner) => walk(krate, inner, path, depth + 1),
                Target::Item(_) => None,
            },
        )
}
