//! The module tree of one crate, read from its sources with `syn`: the file
//! each module lives in, the names it defines and the `use` items it holds.
//!
//! Test-only code is left out: an item or module under `#[cfg(test)]`, and
//! the files `tests.rs`, `*_tests.rs` and those under a `tests/` folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use syn::Item;

use super::syntax::{Use, defined_name, flatten, is_test_only, item_attrs, path_attr};

/// Where the sources are read from: the disk, or a map in the tests.
pub trait Sources {
    /// The text of the file at `path`, or `None` when there is no such file.
    fn read(&self, path: &Path) -> Option<String>;
}

/// The files on disk.
pub struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

/// One crate: its files, and its modules (the root first).
#[derive(Debug, Default)]
pub struct Crate {
    /// Every (non-test) source file, by the index modules refer to.
    pub files: Vec<PathBuf>,
    /// Every module; index 0 is the crate root.
    pub modules: Vec<Module>,
}

/// One module, of a file of its own or inline (`mod x { … }`) in its parent's.
#[derive(Debug, Default)]
pub struct Module {
    /// The index of the file it is written in.
    pub file: usize,
    /// The module it is declared in (`None` for the crate root).
    pub parent: Option<usize>,
    /// Its child modules by name.
    pub children: BTreeMap<String, usize>,
    /// The names of the items it defines (types, functions, traits, …).
    pub defined: BTreeSet<String>,
    /// Its `use` items, one per name brought in.
    pub uses: Vec<Use>,
}

/// Reads the crate whose root file (`lib.rs`, `main.rs`, …) is `root`.
pub fn read_crate(sources: &impl Sources, root: &Path) -> Result<Crate> {
    let mut reader = Reader {
        sources,
        krate: Crate::default(),
    };
    reader.add_file(root, None)?;
    Ok(reader.krate)
}

struct Reader<'a, S> {
    sources: &'a S,
    krate: Crate,
}

impl<S: Sources> Reader<'_, S> {
    /// Adds the module whose file is `path`, and (through its `mod`
    /// declarations) every module under it; returns its index.
    fn add_file(&mut self, path: &Path, parent: Option<usize>) -> Result<usize> {
        let text = self
            .sources
            .read(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let ast =
            syn::parse_file(&text).with_context(|| format!("cannot parse {}", path.display()))?;
        let file = self.krate.files.len();
        self.krate.files.push(path.to_path_buf());
        let module = self.new_module(file, parent);
        let file_dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let children_dir = if owns_directory(path) {
            file_dir.clone()
        } else {
            let stem = path.file_stem().unwrap_or_default();
            file_dir.join(stem)
        };
        self.add_items(module, &ast.items, &file_dir, &children_dir)?;
        Ok(module)
    }

    fn new_module(&mut self, file: usize, parent: Option<usize>) -> usize {
        self.krate.modules.push(Module {
            file,
            parent,
            ..Module::default()
        });
        self.krate.modules.len() - 1
    }

    /// Adds a module's items: `file_dir` is the folder of the file they are
    /// written in (for `#[path]`), `children_dir` where `mod x;` looks for `x.rs`.
    fn add_items(
        &mut self,
        module: usize,
        items: &[Item],
        file_dir: &Path,
        children_dir: &Path,
    ) -> Result<()> {
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                Item::Mod(declared) => {
                    let name = declared.ident.to_string();
                    let child = if let Some((_, inline)) = &declared.content {
                        let file = self.krate.modules[module].file;
                        let child = self.new_module(file, Some(module));
                        self.add_items(child, inline, file_dir, &children_dir.join(&name))?;
                        child
                    } else {
                        let Some(path) = self.module_file(declared, file_dir, children_dir)? else {
                            continue;
                        };
                        self.add_file(&path, Some(module))?
                    };
                    self.krate.modules[module].children.insert(name, child);
                }
                // `use ::name`: another crate.
                Item::Use(used) if used.leading_colon.is_some() => {}
                Item::Use(used) => {
                    let public = !matches!(used.vis, syn::Visibility::Inherited);
                    let mut uses = Vec::new();
                    flatten(&used.tree, &mut Vec::new(), public, &mut uses);
                    self.krate.modules[module].uses.extend(uses);
                }
                other => {
                    if let Some(name) = defined_name(other) {
                        self.krate.modules[module].defined.insert(name);
                    }
                }
            }
        }
        Ok(())
    }

    /// The file of `mod x;`, or `None` for a test-only file.
    fn module_file(
        &self,
        declared: &syn::ItemMod,
        file_dir: &Path,
        children_dir: &Path,
    ) -> Result<Option<PathBuf>> {
        let name = declared.ident.to_string();
        let path = if let Some(path) = path_attr(&declared.attrs) {
            file_dir.join(path)
        } else {
            let flat = children_dir.join(format!("{name}.rs"));
            let nested = children_dir.join(&name).join("mod.rs");
            if self.sources.read(&flat).is_some() || is_test_file(&flat) {
                flat
            } else if self.sources.read(&nested).is_some() {
                nested
            } else {
                bail!(
                    "`mod {name};` in {}: neither {} nor {} exists",
                    file_dir.display(),
                    flat.display(),
                    nested.display()
                );
            }
        };
        Ok((!is_test_file(&path)).then_some(path))
    }
}

/// Whether `mod x;` in this file looks for `x.rs` beside it (a crate root or a `mod.rs`).
fn owns_directory(path: &Path) -> bool {
    let name = path.file_name().and_then(|name| name.to_str());
    matches!(name, Some("lib.rs" | "main.rs" | "mod.rs"))
        || path.parent().is_some_and(|dir| dir.ends_with("src/bin"))
}

/// A test-only file: `tests.rs`, `*_tests.rs`, or under a `tests/` folder.
fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    let folders: Vec<_> = path
        .parent()
        .map(|dir| dir.components().collect())
        .unwrap_or_default();
    let inside_src = folders
        .iter()
        .rposition(|part| part.as_os_str() == "src")
        .map_or(&folders[..0], |at| &folders[at + 1..]);
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || inside_src.iter().any(|part| part.as_os_str() == "tests")
}
