use super::*;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::ItemList;
use serde_json::json;
use std::collections::HashSet;

#[test]
fn names_are_what_models_accept() {
    assert_eq!(model_safe("git.hub__create issue"), "git_hub__create_issue");
    let long = format!("server__{}", "x".repeat(80));
    let safe = model_safe(&long);
    assert_eq!(safe.len(), MAX_NAME_LEN);
    assert!(safe.starts_with("server__xxx"));
    assert_eq!(safe, model_safe(&long), "stable");
    assert_ne!(safe, model_safe(&format!("server__{}y", "x".repeat(80))));
    let catalog = Catalog::build(
        &[ready(
            "s",
            &[&"a".repeat(70), &format!("{}b", "a".repeat(70))],
        )],
        &Naming::default(),
    );
    let names = names(&catalog);
    assert!(names.iter().all(|n| {
        n.len() <= MAX_NAME_LEN
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }));
    assert_ne!(names[0], names[1]);
    assert_eq!(
        catalog.tool(names[1]).unwrap().name,
        format!("{}b", "a".repeat(70))
    );
}

#[test]
fn a_retained_view_keeps_names_and_finds_only_what_it_kept() {
    let catalog = Catalog::build(
        &[ready("a", &["x", "y"]), ready("b", &["x"])],
        &Naming::default(),
    );
    let view = catalog.retain(|_, entry| entry.qualified_name != "a__y");
    assert_eq!(names(&view), ["a__x", "b__x"]);
    assert!(view.tool("a__y").is_none());
    assert_eq!(view.tool("b__x").unwrap().server, "b");
}

fn ready(name: &str, tools: &[&str]) -> ServerReport {
    let mut report = ServerReport::empty(name, ServerStatus::Ready);
    report.tools = tools.iter().map(|t| json!({"name": t}).into()).collect();
    report
}

fn names(catalog: &Catalog) -> Vec<&str> {
    catalog
        .tools
        .iter()
        .map(|e| e.qualified_name.as_str())
        .collect()
}

#[test]
fn names_are_namespaced_and_items_kept_whole() {
    let mut a = ready("github", &["create_issue"]);
    a.tools = ItemList::from_raw(vec![
        RawJson::parse(r#"{"inputSchema": {"type": "object"}, "name": "create_issue"}"#).unwrap(),
    ]);
    let catalog = Catalog::build(&[a, ServerReport::disabled("off")], &Naming::default());
    assert_eq!(names(&catalog), ["github__create_issue"]);
    assert_eq!(
        catalog.tools[0].item.as_str(),
        r#"{"inputSchema": {"type": "object"}, "name": "create_issue"}"#
    );
    assert_eq!(catalog.tools[0].name, "create_issue");
    assert_eq!(catalog.summary.disabled, 1);
    assert!(catalog.tool("github__create_issue").is_some());
}

#[test]
fn collisions_resolve_the_same_way_whatever_the_input_order() {
    // "a__b" + "c" and "a" + "b__c" both want "a__b__c".
    let one = vec![ready("a__b", &["c"]), ready("a", &["b__c", "x", "x"])];
    let two = vec![one[1].clone(), one[0].clone()];
    let first = Catalog::build(&one, &Naming::default());
    let second = Catalog::build(&two, &Naming::default());
    assert_eq!(names(&first), names(&second));
    assert_eq!(names(&first), ["a__b__c", "a__x", "a__x__2", "a__b__c__2"]);
    let unique: HashSet<_> = names(&first).into_iter().collect();
    assert_eq!(unique.len(), 4);
}

#[test]
fn separator_is_configurable_and_server_names_are_sanitized() {
    let catalog = Catalog::build(&[ready("my server/1", &["t"])], &Naming::namespaced("."));
    assert_eq!(names(&catalog), ["my_server_1_t"]);
}

#[test]
fn resources_fall_back_to_their_uri_and_failed_servers_are_left_out() {
    let mut r = ServerReport::empty("docs", ServerStatus::Ready);
    r.resources = vec![
        json!({"uri": "file:///a"}).into(),
        json!({"uri": "file:///b", "name": "bee"}).into(),
        json!({"uri": 7, "name": ["not", "a", "name"]}).into(),
        json!(["file:///array", "named"]).into(),
        RawJson::parse(r#"{"name": "first", "uri": "file:///c", "name": "last"}"#).unwrap(),
        json!({"name": 5, "uri": "file:///d"}).into(),
    ]
    .into();
    r.resource_templates = vec![json!({"uriTemplate": "file:///{p}"}).into()].into();
    let broken = ServerReport::empty("broken", ServerStatus::Failed);
    let catalog = Catalog::build(&[r, broken], &Naming::default());
    let qualified: Vec<_> = catalog
        .resources
        .iter()
        .map(|e| e.qualified_name.as_str())
        .collect();
    assert_eq!(
        qualified,
        [
            "docs__file:///a",
            "docs__bee",
            "docs__?",
            "docs__?__2",
            "docs__last",
            "docs__file:///d"
        ]
    );
    assert_eq!(catalog.resource_templates[0].name, "file:///{p}");
    assert_eq!(catalog.summary.failed, 1);
    assert_eq!(catalog.by_server(ListKind::Resources)["docs"].len(), 6);
}

#[test]
fn plain_servers_keep_their_names_and_a_clash_names_both_servers() {
    let mut docs = ready("docs", &["search", "read"]);
    docs.resources = vec![json!({"uri": "file:///same", "name": "same"}).into()].into();
    let mut wiki = ready("wiki", &["search", "edit"]);
    wiki.resources = vec![json!({"uri": "file:///same", "name": "other"}).into()].into();
    let other = ready("a", &["search"]);
    let naming = Naming::with_plain("__", ["docs".to_owned(), "wiki".to_owned()]);
    let catalog = Catalog::build(&[wiki, other, docs], &naming);
    assert_eq!(names(&catalog), ["search", "read", "edit", "a__search"]);
    assert_eq!(catalog.tool("edit").unwrap().server, "wiki");
    assert_eq!(catalog.tool("search").unwrap().server, "docs");
    assert_eq!(catalog.resources.len(), 1);
    assert_eq!(catalog.resources[0].qualified_name, "file:///same");
    assert_eq!(catalog.resources[0].name, "same");
    let clashes: Vec<String> = catalog.clashes.iter().map(ToString::to_string).collect();
    assert_eq!(clashes.len(), 2, "{clashes:?}");
    assert!(
        clashes[0].contains("tool 'search' of server 'wiki' clashes with server 'docs'"),
        "{clashes:?}"
    );
    assert!(clashes[1].starts_with("resource 'file:///same' of server 'wiki'"));
}

#[test]
fn a_namespaced_name_never_takes_a_plain_one() {
    // The plain server offers "a__x", which server a's "x" would be named.
    let naming = Naming::with_plain("__", ["z".to_owned()]);
    let catalog = Catalog::build(&[ready("a", &["x"]), ready("z", &["a__x"])], &naming);
    assert_eq!(names(&catalog), ["a__x", "a__x__2"]);
    assert_eq!(catalog.tool("a__x").unwrap().server, "z");
    assert!(catalog.clashes.is_empty());
}

/// Known answers for the model-safe names, a stored format: served tool
/// names (and so every client's saved reference to one) depend on them.
/// Each expected value was computed once, outside this crate (FNV-1a 32 of
/// the UTF-8 of the whole original name, as 8 lowercase hex digits, after
/// its first 55 characters made safe).
#[test]
fn model_safe_names_have_known_answers() {
    let cases: [(String, &str); 9] = [
        ("github__create_issue".into(), "github__create_issue"),
        ("git.hub__create issue".into(), "git_hub__create_issue"),
        ("".into(), ""),
        // 64 characters is the longest name kept whole; 65 is cut.
        ("a".repeat(64), &"a".repeat(64)),
        (
            "a".repeat(65),
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_2dd603ec",
        ),
        (
            format!("server__{}", "x".repeat(80)),
            "server__xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_9b3390f8",
        ),
        (
            format!("server__{}y", "x".repeat(80)),
            "server__xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_d32c7b13",
        ),
        // Each character outside [a-zA-Z0-9_-] is one `_`, whatever its
        // UTF-8 length; the hash is of the original bytes.
        ("émoji__😀_tool".into(), "_moji____tool"),
        (
            format!("srv__{}", "名前".repeat(30)),
            "srv_____________________________________________________af18ec70",
        ),
    ];
    for (name, expected) in &cases {
        assert_eq!(model_safe(name), *expected, "{name}");
    }
    assert_eq!(
        model_safe(&format!("srv__{}", "ü".repeat(70))),
        "srv_____________________________________________________9069b620"
    );
    // As served: a long tool name, and the same name listed twice (the
    // second takes `__2` before it is made safe).
    let long = "t".repeat(70);
    let catalog = Catalog::build(&[ready("srv", &[&long, &long])], &Naming::default());
    assert_eq!(
        names(&catalog),
        [
            "srv__tttttttttttttttttttttttttttttttttttttttttttttttttt_2dca67a0",
            "srv__tttttttttttttttttttttttttttttttttttttttttttttttttt_2d8b3fcc",
        ]
    );
}
