//! The lenient pass: every unknown or mistyped field said with its line,
//! and the servers without errors still read.

use std::collections::HashMap;
use std::path::Path;

use super::*;

fn vars() -> HashMap<String, String> {
    HashMap::from([("TOKEN".to_owned(), "tok-planted-77".to_owned())])
}

fn lenient(path: &str, text: &str) -> LenientFile {
    let options = ParseOptions {
        project_dir: Some("/work/app".into()),
        ..ParseOptions::default()
    };
    parse_str_lenient(Path::new(path), text, &vars(), &options).unwrap()
}

fn shown<T: ToString>(items: &[T]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

const MIXED: &str = r#"{
  "mcpServers": {
    "good": {
      "command": "srv",
      "colour": "blue"
    },
    "bad": {
      "command": "srv",
      "args": [
        "ok",
        {"no": "objects"}
      ],
      "enabled": "yes",
      "env": {"K": "${TOKEN}", "L": []},
      "health": {"pingInterval": 2, "often": true}
    },
    "remote": {"url": "https://h.example/mcp", "auth": {"clientId": "c", "tenant": "x"}}
  },
  "extra": 1
}"#;

#[test]
fn every_unknown_and_mistyped_field_is_said_at_its_line() {
    let read = lenient("/p/.mcp.json", MIXED);
    let names: Vec<&str> = read.file.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["good", "remote"],
        "the server with errors is left out"
    );
    assert_eq!(read.file.servers[0].line, Some(3));
    assert_eq!(read.file.servers[1].line, Some(17));
    assert_eq!(
        shown(&read.file.warnings),
        [
            "/p/.mcp.json:19: field 'extra': unknown top-level field; ignored",
            "/p/.mcp.json:5: server 'good': field 'colour': unknown field; ignored",
            "/p/.mcp.json:15: server 'bad': field 'health.often': unknown field; ignored",
            "/p/.mcp.json:17: server 'remote': field 'auth.tenant': unknown field; ignored",
        ]
    );
    assert_eq!(
        shown(&read.errors),
        [
            "/p/.mcp.json:13: server 'bad': field 'enabled': expected true or false, found a string",
            "/p/.mcp.json:11: server 'bad': field 'args[1]': expected a string, found an object",
            "/p/.mcp.json:14: server 'bad': field 'env.L': expected a string, found an array",
        ]
    );
    let error = read.into_result().unwrap_err();
    assert!(matches!(error, ConfigError::Several { .. }));
    assert_eq!(error.to_string().lines().count(), 3, "{error}");
    assert!(!error.to_string().contains("tok-planted"), "{error}");
}

#[test]
fn a_file_without_errors_is_the_strict_read() {
    let text = "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\", \"colour\": 1}\n}}";
    let read = lenient("/p/.mcp.json", text);
    assert!(read.errors.is_empty());
    let strict = parse_str(
        Path::new("/p/.mcp.json"),
        text,
        &vars(),
        &ParseOptions::default(),
    )
    .unwrap();
    assert_eq!(shown(&strict.warnings), shown(&read.file.warnings));
    assert_eq!(
        shown(&strict.warnings),
        ["/p/.mcp.json:2: server 'a': field 'colour': unknown field; ignored"]
    );
}

#[test]
fn lines_follow_each_hosts_shape() {
    let vscode = lenient(
        "/home/ada/.config/Code/User/settings.json",
        "{\n  \"editor.fontSize\": 14,\n  \"mcp\": {\n    \"servers\": {\n      \"gh\": {\"url\": \"https://h/mcp\",\n             \"odd\": 1}\n    }\n  }\n}",
    );
    assert_eq!(vscode.file.servers[0].line, Some(5));
    assert_eq!(vscode.file.warnings[0].line, Some(6));
    let claude = lenient(
        "/home/ada/.claude.json",
        "{\"mcpServers\": {\"u\": {\"command\": \"a\"}},\n \"projects\": {\"/work/app\": {\"mcpServers\": {\n   \"p\": {\"command\": \"b\", \"odd\": 1}}}}}",
    );
    let lines: Vec<Option<usize>> = claude.file.servers.iter().map(|s| s.line).collect();
    assert_eq!(lines, [Some(1), Some(3)]);
    assert_eq!(claude.file.warnings[0].line, Some(3));
    let zed = lenient(
        "/home/ada/.config/zed/settings.json",
        "{\"context_servers\": {\n  \"x\": {\"source\": \"extension\"},\n  \"y\": {\"command\": \"y\"}\n}}",
    );
    assert_eq!(zed.file.servers[0].line, Some(3));
    assert_eq!(
        shown(&zed.file.warnings),
        [
            "/home/ada/.config/zed/settings.json:2: server 'x': is provided by a Zed extension; its launch command is not in settings.json"
        ]
    );
}

#[test]
fn a_wrong_type_or_command_is_one_error_not_two() {
    for (text, expected) in [
        (
            r#"{"mcpServers": {"g": {"command": 3}}}"#,
            "/p/c.json:1: server 'g': field 'command': expected a string, found a number",
        ),
        (
            r#"{"mcpServers": {"g": {"type": 3, "command": "x"}}}"#,
            "/p/c.json:1: server 'g': field 'type': expected a string, found a number",
        ),
        (
            r#"{"mcpServers": {"g": {"type": null, "transport": "sse", "command": "x"}}}"#,
            "/p/c.json:1: server 'g': field 'transport': an HTTP transport needs a \"url\", but the server has a \"command\"",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "rateLimit": {"burst": 0, "per": 1}}}}"#,
            "/p/c.json:1: server 'g': field 'rateLimit.burst': must be a positive integer",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "tools": {"allow": ["a", 1], "except": []}}}}"#,
            "/p/c.json:1: server 'g': field 'tools.except': unknown; a filter has \"allow\" and \"deny\"\n/p/c.json:1: server 'g': field 'tools.allow[1]': expected a glob string",
        ),
        (
            r#"{"mcpServers": {"g": {"url": "https://h/mcp", "auth": {"grant": "magic", "scopes": [1]}}}}"#,
            "/p/c.json:1: server 'g': field 'auth.grant': unknown grant \"magic\"; expected \"authorization_code\", \"client_credentials\", \"jwt_bearer\" or \"enterprise\"\n/p/c.json:1: server 'g': field 'auth.scopes': expected strings, found a number",
        ),
    ] {
        let error = parse_str(
            Path::new("/p/c.json"),
            text,
            &vars(),
            &ParseOptions::default(),
        )
        .unwrap_err();
        assert_eq!(error.to_string(), expected, "{text}");
    }
}

#[test]
fn a_definition_files_fields_have_their_lines_in_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("one.json"),
        "{\n  \"command\": \"x\",\n  \"args\": 5\n}",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("two.json"),
        "{\"command\": \"y\", \"odd\": 1}",
    )
    .unwrap();
    let read = load_dir(dir.path(), &vars(), &ParseOptions::default()).unwrap();
    let errors = shown(&read.errors);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].ends_with(
            "one.json:3: server 'one': field 'args': expected an array of strings, found a number"
        ),
        "{errors:?}"
    );
    let two = &read.files[0];
    assert_eq!(two.servers[0].name, "two");
    assert_eq!(two.servers[0].line, None, "the entry is the whole file");
    assert_eq!(two.warnings[0].line, Some(1));
}
