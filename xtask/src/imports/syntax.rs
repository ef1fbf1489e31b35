//! What the import graph needs of `syn`'s syntax trees: the attributes that
//! leave an item out (`#[cfg(test)]`) or move a module's file (`#[path]`),
//! the name an item defines, and the names a `use` tree brings in.

use syn::{Attribute, Item, UseTree};

/// One name a `use` item brings into a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// The name it is known by in the module (`None` for a glob).
    pub bound: Option<String>,
    /// The path as written (`crate`, `self` and `super` included).
    pub path: Vec<String>,
    /// Whether it is `pub` (in any form): a re-export.
    pub public: bool,
}

/// Whether the attributes hold `#[cfg(test)]` (or `#[cfg(all(test, …))]`).
pub fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attr.meta.require_list() else {
            return false;
        };
        let tokens: String = list.tokens.to_string().split_whitespace().collect();
        tokens == "test" || tokens.starts_with("all(test,")
    })
}

/// The value of `#[path = "…"]`, if any.
pub fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(pair) = &attr.meta else {
            return None;
        };
        if !pair.path.is_ident("path") {
            return None;
        }
        match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Some(text.value()),
            _ => None,
        }
    })
}

/// The attributes of an item (none for the kinds this ignores).
pub fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(item) => &item.attrs,
        Item::Enum(item) => &item.attrs,
        Item::Fn(item) => &item.attrs,
        Item::Impl(item) => &item.attrs,
        Item::Macro(item) => &item.attrs,
        Item::Mod(item) => &item.attrs,
        Item::Static(item) => &item.attrs,
        Item::Struct(item) => &item.attrs,
        Item::Trait(item) => &item.attrs,
        Item::TraitAlias(item) => &item.attrs,
        Item::Type(item) => &item.attrs,
        Item::Union(item) => &item.attrs,
        Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module, if it defines one.
pub fn defined_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(item) => &item.ident,
        Item::Enum(item) => &item.ident,
        Item::Fn(item) => &item.sig.ident,
        Item::Macro(item) => item.ident.as_ref()?,
        Item::Static(item) => &item.ident,
        Item::Struct(item) => &item.ident,
        Item::Trait(item) => &item.ident,
        Item::TraitAlias(item) => &item.ident,
        Item::Type(item) => &item.ident,
        Item::Union(item) => &item.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// One [`Use`] per name of a `use` tree (`a::{b, c as d, e::*}`).
pub fn flatten(tree: &UseTree, prefix: &mut Vec<String>, public: bool, out: &mut Vec<Use>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, public, out);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let mut path = prefix.clone();
            if name.ident != "self" {
                path.push(name.ident.to_string());
            }
            let bound = path.last().cloned();
            out.push(Use {
                bound,
                path,
                public,
            });
        }
        UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            if rename.ident != "self" {
                path.push(rename.ident.to_string());
            }
            let bound = Some(rename.rename.to_string());
            out.push(Use {
                bound,
                path,
                public,
            });
        }
        UseTree::Glob(_) => out.push(Use {
            bound: None,
            path: prefix.clone(),
            public,
        }),
        UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, public, out);
            }
        }
    }
}
