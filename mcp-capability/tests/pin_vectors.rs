//! Known answers for the pin hash, a stored format: every approved lock
//! file holds these hashes, so a change to what is hashed, or how, would
//! void every pin. Each expected value was computed once, outside this
//! crate, as the SHA-256 of the canonical text written in its comment (RFC
//! 8785: keys sorted by UTF-16 code units, no whitespace, numbers in their
//! shortest form, only the fields that say what the item does):
//! `printf '%s' '<canonical>' | sha256sum`. Server keys are the first 16
//! bytes of the same hash over the server's identity.

use mcpdisco_capability::pins::{ItemKind, PinItem, ServerIdentity, server_key};
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::{Prompt, Resource, ResourceTemplate, SkillEntry, Tool};

/// The pin key and hash of the item of `kind` its server sent as `text`.
fn pin(kind: ItemKind, text: &str) -> (String, String) {
    let item = RawJson::parse(text.to_owned()).unwrap();
    let (key, pin) = PinItem::read(kind, &item).pin().unwrap();
    (key, pin.sha256)
}

/// The same for the item decoded into its protocol type (the same answer
/// when the server sent no `null` for an optional member).
fn typed_pin(kind: ItemKind, text: &str) -> (String, String) {
    use mcpdisco_capability::Pinnable;
    fn of<T: Pinnable + serde::de::DeserializeOwned>(text: &str) -> (String, String) {
        let item: T = serde_json::from_str(text).unwrap();
        let (key, pin) = item.pin().unwrap();
        (key, pin.sha256)
    }
    match kind {
        ItemKind::Tool => of::<Tool>(text),
        ItemKind::Prompt => of::<Prompt>(text),
        ItemKind::Resource => of::<Resource>(text),
        ItemKind::Template => of::<ResourceTemplate>(text),
        ItemKind::Skill => of::<SkillEntry>(text),
    }
}

#[test]
fn a_tool_is_hashed_over_its_five_fields_whatever_else_it_carries() {
    // {"annotations":{"readOnlyHint":true,"title":"Search"},"description":"Searches — fast ✓","inputSchema":{"properties":{"q":{"description":"Query","type":"string"}},"required":["q"],"type":"object"},"name":"search","outputSchema":{"properties":{"hits":{"type":"array"}},"type":"object"}}
    let expected = (
        "tool:search".to_owned(),
        "00fb0997230dbca49c306e37ad853af11edd58d09f61818e073a5dc240e3470b".to_owned(),
    );
    let sent = r#"{"title": "Ignored", "name": "search", "icons": [{"src": "https://x/i.png"}],
        "annotations": {"title": "Search", "readOnlyHint": true},
        "inputSchema": {"type": "object", "required": ["q"], "properties": {"q": {"type": "string", "description": "Query"}}},
        "description": "Searches — fast ✓", "_meta": {"x": 1},
        "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}}}, "x-vendor": true}"#;
    assert_eq!(pin(ItemKind::Tool, sent), expected);
    assert_eq!(typed_pin(ItemKind::Tool, sent), expected);
    // The same tool, its members in another order and without the fields
    // that are not pinned: the same hash.
    let reordered = r#"{"outputSchema": {"properties": {"hits": {"type": "array"}}, "type": "object"},
        "description": "Searches — fast ✓", "name": "search",
        "inputSchema": {"properties": {"q": {"description": "Query", "type": "string"}}, "type": "object", "required": ["q"]},
        "annotations": {"readOnlyHint": true, "title": "Search"}}"#;
    assert_eq!(pin(ItemKind::Tool, reordered), expected);
}

#[test]
fn a_bare_tool_is_hashed_over_what_it_has() {
    // {"inputSchema":{"type":"object"},"name":"now"}
    assert_eq!(
        pin(
            ItemKind::Tool,
            r#"{"name": "now", "inputSchema": {"type": "object"}}"#
        ),
        (
            "tool:now".to_owned(),
            "9c5754d7cef1ba943044cf52b2ee8203f90e47d9db2bb9e036e64945d8b1c4c1".to_owned()
        )
    );
}

#[test]
fn nulls_numbers_escapes_and_unicode_keys_are_canonical() {
    // A field sent as null is pinned as null (not as absent); numbers in
    // their shortest form; control characters escaped; keys sorted by
    // UTF-16 code units (U+1F600 before U+FB01):
    // {"description":null,"inputSchema":{"properties":{"Z":{"maximum":1000,"minimum":1,"multipleOf":0.5,"type":"number"},"z":{"description":"line\nnext\u0007"},"é":{},"😀":{},"ﬁ":{}},"type":"object"},"name":"edge"}
    let sent = r#"{"name": "edge", "description": null, "inputSchema": {"type": "object", "properties": {
        "ﬁ": {}, "z": {"description": "line\nnext\u0007"}, "😀": {}, "\u00e9": {},
        "Z": {"type": "number", "minimum": 1.0, "maximum": 1e3, "multipleOf": 0.5}}}}"#;
    assert_eq!(
        pin(ItemKind::Tool, sent),
        (
            "tool:edge".to_owned(),
            "389820042dbfee3d5dff296a6d8a0b75242e57a74d2a0af60a71d322a0705d01".to_owned()
        )
    );
}

#[test]
fn prompts_resources_templates_and_skills_are_hashed_over_their_fields() {
    let cases = [
        (
            ItemKind::Prompt,
            // {"arguments":[{"description":"Whom","name":"who","required":true}],"description":"Greets","name":"greet"}
            r#"{"name": "greet", "title": "Greeting", "description": "Greets", "icons": [],
                "arguments": [{"name": "who", "required": true, "description": "Whom"}]}"#,
            "prompt:greet",
            "254fce478602924aa5d90df06be73fd40e946edd7789a44a29f024bfd8be24dd",
        ),
        (
            ItemKind::Resource,
            // {"mimeType":"text/plain","name":"a","uri":"file:///a.txt"}
            r#"{"uri": "file:///a.txt", "name": "a", "title": "A", "mimeType": "text/plain",
                "size": 12, "annotations": {"audience": ["user"]}}"#,
            "resource:file:///a.txt",
            "c3d93c7ef440483a95af053b48465a749e80f13ee0eeb1b0f18560c2ba2ae16f",
        ),
        (
            ItemKind::Template,
            // {"description":"Any file","mimeType":"text/plain","name":"files","uriTemplate":"file:///{path}"}
            r#"{"uriTemplate": "file:///{path}", "name": "files", "description": "Any file",
                "mimeType": "text/plain", "title": "Files"}"#,
            "template:file:///{path}",
            "c466aa44c58be32c0170a69f5d1ef984a498b11aac8e2e398f65ee7d80330bf4",
        ),
        (
            ItemKind::Skill,
            // {"frontmatter":{"description":"Does A","name":"a"},"resources":[{"digest":"sha256:aa","size":10,"uri":"skill://a/SKILL.md"}],"uri":"skill://a/SKILL.md"}
            r#"{"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "Does A"},
                "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:aa", "size": 10}],
                "_meta": {"k": 1}}"#,
            "skill:skill://a/SKILL.md",
            "18a80f5f027830887dcae390ac0be9dada269012db06d65ec714d3ee3804f2ae",
        ),
    ];
    for (kind, sent, key, sha256) in cases {
        let expected = (key.to_owned(), sha256.to_owned());
        assert_eq!(pin(kind, sent), expected, "{kind:?}");
        assert_eq!(typed_pin(kind, sent), expected, "{kind:?} typed");
    }
}

#[test]
fn an_item_without_its_identity_is_not_pinned() {
    for (kind, sent) in [
        (
            ItemKind::Tool,
            r#"{"description": "no name", "inputSchema": {}}"#,
        ),
        (ItemKind::Tool, r#"{"name": 7, "inputSchema": {}}"#),
        (ItemKind::Resource, r#"{"name": "no uri"}"#),
        (
            ItemKind::Template,
            r#"{"uri": "file:///a", "name": "a uri, not a template"}"#,
        ),
    ] {
        let item = RawJson::parse(sent).unwrap();
        assert!(PinItem::read(kind, &item).pin().is_none(), "{sent}");
    }
}

#[test]
fn server_keys_hash_the_identity_with_absent_members_as_null() {
    // {"args":null,"command":null,"name":"github","settings":null,"transport":"http","url":"https://api.github.com/mcp"}
    let http = ServerIdentity {
        name: "github".into(),
        transport: "http".into(),
        command: None,
        args: None,
        url: Some("https://api.github.com/mcp".into()),
        settings: None,
    };
    assert_eq!(server_key(&http), "b7481e90fc00521bc8b02f0f191e87a9");
    // {"args":["-y","server-fs","--token","***"],"command":"npx","name":"fs","settings":null,"transport":"stdio","url":null}
    let stdio = ServerIdentity {
        name: "fs".into(),
        transport: "stdio".into(),
        command: Some("npx".into()),
        args: Some(
            ["-y", "server-fs", "--token", "***"]
                .map(String::from)
                .to_vec(),
        ),
        url: None,
        settings: None,
    };
    assert_eq!(server_key(&stdio), "81e7d55e2c76b9e9eab0b71b6d5cd5be");
}
