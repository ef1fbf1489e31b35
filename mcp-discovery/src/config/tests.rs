use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use mcpdisco_transport::http::HttpKind;
use mcpdisco_transport::secret::ExposeSecret;

use super::*;
use mcpdisco_transport::stdio::EnvPolicy;

const SECRET: &str = "sk-planted-4711";

fn vars() -> HashMap<String, String> {
    [
        ("GITHUB_TOKEN", SECRET),
        ("MCP_INPUT_API_KEY", SECRET),
        ("PORT", "9000"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

fn parse(path: &str, text: &str) -> Result<ConfigFile, ConfigError> {
    parse_str(Path::new(path), text, &vars(), &ParseOptions::default())
}

fn stdio(server: &ServerConfig) -> (&str, &[String], BTreeMap<String, String>, &Path) {
    match &server.launch {
        Launch::Stdio {
            command,
            args,
            env,
            cwd,
            ..
        } => {
            let env = env
                .iter()
                .map(|(k, v)| (k.clone(), v.expose_secret().to_owned()))
                .collect();
            (command, args, env, cwd)
        }
        _ => panic!("not stdio"),
    }
}

#[test]
fn claude_desktop_config() {
    let file = parse(
        "/home/ada/.config/Claude/claude_desktop_config.json",
        r#"{"mcpServers": {
            "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Desktop"]},
            "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                       "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_literal_secret"}, "disabled": true}
        }}"#,
    )
    .unwrap();
    assert_eq!(file.format, ConfigFormat::McpServers);
    assert_eq!(file.servers.len(), 2);
    let fs = &file.servers[0];
    assert_eq!(fs.name, "filesystem");
    assert!(fs.enabled);
    let (command, args, _, cwd) = stdio(fs);
    assert_eq!(command, "npx", "a bare command stays for PATH lookup");
    assert_eq!(args[2], "/home/ada/Desktop");
    assert_eq!(
        cwd,
        Path::new("/home/ada/.config/Claude"),
        "cwd defaults to the file's directory"
    );
    assert!(!file.servers[1].enabled);
    assert_eq!(
        stdio(&file.servers[1]).2["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "ghp_literal_secret"
    );
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
}

#[test]
fn cursor_url_server_with_headers() {
    let file = parse(
        "/p/.cursor/mcp.json",
        r#"{"mcpServers": {"remote": {"url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}},
                          "legacy": {"url": "http://127.0.0.1:${PORT}/sse", "type": "sse"},
                          "typed": {"url": "https://x.example/mcp", "type": "streamable-http", "timeout": 2.5}}}"#,
    )
    .unwrap();
    match &file.servers[0].launch {
        Launch::Http { url, headers, kind } => {
            assert_eq!(url.expose_secret(), "https://api.example.com/mcp");
            assert_eq!(
                headers["Authorization"].expose_secret(),
                format!("Bearer {SECRET}")
            );
            assert_eq!(*kind, HttpKind::Auto);
        }
        _ => panic!("not http"),
    }
    match &file.servers[1].launch {
        Launch::Http { url, kind, .. } => {
            assert_eq!(url.expose_secret(), "http://127.0.0.1:9000/sse");
            assert_eq!(*kind, HttpKind::Sse);
        }
        _ => panic!("not http"),
    }
    assert!(matches!(
        &file.servers[2].launch,
        Launch::Http {
            kind: HttpKind::StreamableHttp,
            ..
        }
    ));
    assert_eq!(file.servers[2].timeout, Some(Duration::from_millis(2500)));
}

#[test]
fn vscode_config_with_inputs_comments_and_workspace_folder() {
    let file = parse(
        "/work/project/.vscode/mcp.json",
        r#"{
          // VS Code allows comments
          "inputs": [{"type": "promptString", "id": "api-key", "password": true}],
          "servers": {
            "local": {"type": "stdio", "command": "${workspaceFolder}/bin/server", "args": ["--key", "${input:api-key}"],
                      "env": {"KEY": "${env:GITHUB_TOKEN}"}},
            "web": {"type": "http", "url": "http://127.0.0.1:${PORT}/mcp"},
          },
        }"#,
    )
    .unwrap();
    assert_eq!(file.format, ConfigFormat::VsCode);
    let (command, args, env, cwd) = stdio(&file.servers[0]);
    assert_eq!(command, "/work/project/bin/server");
    assert_eq!(args, [String::from("--key"), SECRET.to_owned()]);
    assert_eq!(env["KEY"], SECRET);
    assert_eq!(cwd, Path::new("/work/project/.vscode"));
    assert!(matches!(
        &file.servers[1].launch,
        Launch::Http {
            kind: HttpKind::StreamableHttp,
            ..
        }
    ));
}

#[test]
fn chatbot_mcp_config_with_enabled_and_relative_paths() {
    let file = parse(
        "/srv/app/mcp_config.json",
        r#"{"servers": {
            "notes": {"command": "./bin/notes", "args": ["stdio"], "description": "Notes", "enabled": true, "cwd": "data"},
            "off": {"command": "../tools/x", "enabled": false}
        }}"#,
    )
    .unwrap();
    assert_eq!(file.format, ConfigFormat::McpConfig);
    let (command, _, _, cwd) = stdio(&file.servers[0]);
    assert_eq!(command, "/srv/app/./bin/notes");
    assert_eq!(cwd, Path::new("/srv/app/data"));
    assert_eq!(file.servers[0].description.as_deref(), Some("Notes"));
    assert_eq!(stdio(&file.servers[1]).0, "/srv/app/../tools/x");
    assert!(!file.servers[1].enabled);
}

#[test]
fn claude_user_file_reads_top_level_servers_and_ignores_the_rest() {
    let file = parse(
        "/home/ada/.claude.json",
        r#"{"numStartups": 4, "projects": {"/x": {"mcpServers": {}}}, "mcpServers": {"u": {"command": "uvx", "args": ["mcp-server-time"]}}}"#,
    )
    .unwrap();
    assert_eq!(file.format, ConfigFormat::ClaudeUser);
    assert_eq!(file.servers.len(), 1);
    assert!(file.warnings.is_empty());
    let empty = parse("/home/ada/.claude.json", r#"{"numStartups": 4}"#).unwrap();
    assert!(empty.servers.is_empty());
}

#[test]
fn unknown_fields_are_warnings() {
    let file = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {"a": {"command": "x", "colour": "blue"}}, "extra": 1}"#,
    )
    .unwrap();
    let shown: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "/p/.mcp.json:1: field 'extra': unknown top-level field; ignored",
            "/p/.mcp.json:1: server 'a': field 'colour': unknown field; ignored"
        ]
    );
}

#[test]
fn syntax_errors_have_line_and_column() {
    let error = parse(
        "/p/.mcp.json",
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n}}",
    )
    .unwrap_err();
    match &error {
        ConfigError::Syntax { line, column, .. } => assert_eq!((*line, *column), (4, 5)),
        other => panic!("{other}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("/p/.mcp.json:4:5: invalid JSON: expected"),
        "{error}"
    );
}

#[test]
fn validation_errors_name_file_server_and_field() {
    let cases = [
        (
            r#"{"mcpServers": {"g": {"command": "x", "args": 3}}}"#,
            "/p/c.json:1: server 'g': field 'args': expected an array of strings, found a number",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "args": ["a", {}]}}}"#,
            "/p/c.json:1: server 'g': field 'args[1]': expected a string, found an object",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "url": "http://h"}}}"#,
            "/p/c.json:1: server 'g': has both \"command\" and \"url\"; give one",
        ),
        (
            r#"{"mcpServers": {"g": {"args": []}}}"#,
            "/p/c.json:1: server 'g': has neither \"command\" (stdio) nor \"url\" (HTTP)",
        ),
        (
            r#"{"mcpServers": {"g": {"url": "http://h", "type": "carrier-pigeon"}}}"#,
            "/p/c.json:1: server 'g': field 'type': unknown transport \"carrier-pigeon\"; expected stdio, http, streamable-http or sse",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "env": {"A": "${NOT_SET_ANYWHERE}"}}}}"#,
            "/p/c.json:1: server 'g': field 'env.A': environment variable 'NOT_SET_ANYWHERE' is not set",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "args": ["${input:missing-one}"]}}}"#,
            "/p/c.json:1: server 'g': field 'args[0]': input 'missing-one' is not set (set MCP_INPUT_MISSING_ONE)",
        ),
        (
            r#"{"mcpServers": {"g": {"command": ""}}}"#,
            "/p/c.json:1: server 'g': field 'command': is empty",
        ),
        (
            r#"{"mcpServers": {"g": {"url": "ftp://h/x"}}}"#,
            "/p/c.json:1: server 'g': field 'url': scheme \"ftp\" is not http or https",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "enabled": "yes"}}}"#,
            "/p/c.json:1: server 'g': field 'enabled': expected true or false, found a string",
        ),
        (
            r#"{"mcpServers": []}"#,
            "/p/c.json:1: \"mcpServers\" must be an object of servers, found an array",
        ),
        (
            r#"{"tools": {}}"#,
            "/p/c.json: no \"mcpServers\" or \"servers\" object: not an MCP config",
        ),
        (
            r#"[1]"#,
            "/p/c.json: expected a JSON object at the top, found an array",
        ),
    ];
    for (text, expected) in cases {
        let error = parse("/p/c.json", text).unwrap_err();
        assert_eq!(error.to_string(), expected);
    }
}

#[test]
fn env_type_errors_never_echo_values() {
    let error = parse(
        "/p/c.json",
        &format!(r#"{{"mcpServers": {{"g": {{"command": "x", "env": {{"K": ["{SECRET}"]}}}}}}}}"#),
    )
    .unwrap_err();
    assert!(!error.to_string().contains(SECRET), "{error}");
    assert!(error.to_string().contains("field 'env.K'"));
}

#[test]
fn secrets_never_show_in_views_debug_or_summary() {
    let file = parse(
        "/p/.mcp.json",
        &format!(
            r#"{{"mcpServers": {{
                "s": {{"command": "srv", "args": ["--token", "${{GITHUB_TOKEN}}", "--api-key", "{SECRET}", "--password={SECRET}", "plain"],
                       "env": {{"API_KEY": "{SECRET}", "T": "${{GITHUB_TOKEN}}"}}}},
                "h": {{"url": "https://ada:{SECRET}@host.example/mcp?token={SECRET}&page=2",
                       "headers": {{"Authorization": "Bearer {SECRET}"}}}},
                "t": {{"url": "https://host.example/${{GITHUB_TOKEN}}/mcp"}}
            }}}}"#
        ),
    )
    .unwrap();
    for server in &file.servers {
        let views = [
            server.redacted().to_string(),
            server.summary(),
            format!("{server:?}"),
            format!("{:?}", server.launch),
        ];
        for view in views {
            assert!(!view.contains(SECRET), "{view}");
            assert!(!view.contains("ada"), "{view}");
        }
        let material = server.fingerprint_material().to_string();
        assert!(
            material.contains(SECRET) || server.name == "t",
            "the key must see secrets: {material}"
        );
    }
    let s = file.servers[0].redacted();
    assert_eq!(
        s["args"],
        serde_json::json!([
            "--token",
            "${GITHUB_TOKEN}",
            "--api-key",
            "***",
            "--password=***",
            "plain"
        ])
    );
    assert_eq!(s["env"], serde_json::json!({"API_KEY": "***", "T": "***"}));
    let h = file.servers[1].redacted();
    assert_eq!(h["url"], "https://***@host.example/mcp?token=***&page=2");
    assert_eq!(h["headers"]["Authorization"], "***");
    assert_eq!(
        file.servers[2].redacted()["url"],
        "https://host.example/${GITHUB_TOKEN}/mcp"
    );
}

#[test]
fn load_file_reads_from_disk_and_reports_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    std::fs::write(&path, r#"{"mcpServers": {"a": {"command": "./run.sh"}}}"#).unwrap();
    let file = load_file(&path, &ProcessEnv, &ParseOptions::default()).unwrap();
    assert_eq!(
        stdio(&file.servers[0]).0,
        dir.path().join("./run.sh").display().to_string()
    );
    assert_eq!(file.servers[0].source, path);
    let missing = load_file(
        &dir.path().join("nope.json"),
        &ProcessEnv,
        &ParseOptions::default(),
    )
    .unwrap_err();
    assert!(
        missing.to_string().contains("nope.json: cannot read"),
        "{missing}"
    );
}

#[test]
fn numbers_and_booleans_in_env_become_text_and_timeouts_read_both_units() {
    let file = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {
            "a": {"command": "x", "env": {"PORT": 8080, "DEBUG": true, "RATIO": 0.5}, "timeoutMs": 1500},
            "b": {"command": "x", "timeout": 3, "cwd": "/abs/dir"}
        }}"#,
    )
    .unwrap();
    let env = stdio(&file.servers[0]).2;
    assert_eq!(env["PORT"], "8080");
    assert_eq!(env["DEBUG"], "true");
    assert_eq!(env["RATIO"], "0.5");
    assert_eq!(file.servers[0].timeout, Some(Duration::from_millis(1500)));
    assert_eq!(file.servers[1].timeout, Some(Duration::from_secs(3)));
    assert_eq!(stdio(&file.servers[1]).3, Path::new("/abs/dir"));
    let error = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {"a": {"command": "x", "timeout": -1}}}"#,
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "/p/.mcp.json:1: server 'a': field 'timeout': must be a positive duration of at most a day"
    );
}

#[test]
fn transport_type_is_checked_before_command_or_url() {
    let cases = [
        (
            r#"{"mcpServers": {"g": {"command": "x", "type": "carrier-pigeon"}}}"#,
            "/p/c.json:1: server 'g': field 'type': unknown transport \"carrier-pigeon\"; expected stdio, http, streamable-http or sse",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "type": "sse"}}}"#,
            "/p/c.json:1: server 'g': field 'type': an HTTP transport needs a \"url\", but the server has a \"command\"",
        ),
        (
            r#"{"mcpServers": {"g": {"url": "http://h/mcp", "type": "stdio"}}}"#,
            "/p/c.json:1: server 'g': field 'type': \"stdio\" needs a \"command\", but the server has a \"url\"",
        ),
        (
            r#"{"mcpServers": {"g": {"command": "x", "transport": "http"}}}"#,
            "/p/c.json:1: server 'g': field 'transport': an HTTP transport needs a \"url\", but the server has a \"command\"",
        ),
        (
            r#"{"mcpServers": {"": {"command": "x"}}}"#,
            "/p/c.json:1: a server has an empty name",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse("/p/c.json", text).unwrap_err().to_string(), expected);
    }
    let file = parse(
        "/p/c.json",
        r#"{"servers": {"g": {"url": "http://h/mcp", "type": "streamableHttp"}, "s": {"command": "x", "type": "stdio"}}}"#,
    )
    .unwrap();
    assert!(matches!(
        file.servers[0].launch,
        Launch::Http {
            kind: HttpKind::StreamableHttp,
            ..
        }
    ));
    assert!(matches!(file.servers[1].launch, Launch::Stdio { .. }));
}

#[test]
fn malformed_values_in_secret_fields_are_not_echoed() {
    for field in ["env", "headers"] {
        let launch = if field == "env" {
            r#""command": "x""#
        } else {
            r#""url": "https://h/mcp""#
        };
        let text = format!(
            r#"{{"mcpServers": {{"g": {{{launch}, "{field}": {{"K": "{SECRET}${{oops"}}}}}}}}"#
        );
        let error = parse("/p/c.json", &text).unwrap_err().to_string();
        assert!(!error.contains(SECRET), "{error}");
        assert!(
            error.contains(&format!("field '{field}.K': unterminated")),
            "{error}"
        );
    }
}

#[test]
fn arguments_with_references_show_as_written_even_with_defaults() {
    let file = parse(
        "/p/.mcp.json",
        &format!(
            r#"{{"mcpServers": {{
                "s": {{"command": "srv", "args": ["--token=${{UNSET_TOKEN:-{SECRET}}}", "${{workspaceFolder}}/data", "--port", "${{PORT}}"]}},
                "h": {{"url": "https://h.example/mcp?api_key={SECRET}&region=${{PORT}}"}}
            }}}}"#
        ),
    )
    .unwrap();
    let s = &file.servers[0];
    assert_eq!(
        stdio(s).1[0],
        format!("--token={SECRET}"),
        "the default is used"
    );
    assert_eq!(
        s.redacted()["args"],
        serde_json::json!([
            "--token=${UNSET_TOKEN:-***}",
            "/p/data",
            "--port",
            "${PORT}"
        ])
    );
    assert_eq!(
        s.summary(),
        "stdio: srv --token=${UNSET_TOKEN:-***} /p/data --port ${PORT}"
    );
    let h = &file.servers[1];
    assert_eq!(
        h.summary(),
        "http: https://h.example/mcp?api_key=***&region=${PORT} (auto)"
    );
    assert!(!format!("{h:?}").contains(SECRET));
}

#[test]
fn a_relative_path_resolves_against_the_current_directory() {
    let file = parse(
        "mcp_config.json",
        r#"{"servers": {"a": {"command": "./bin/a"}}}"#,
    )
    .unwrap();
    let (command, _, _, cwd) = stdio(&file.servers[0]);
    assert_eq!(command, "././bin/a");
    assert_eq!(cwd, Path::new("."));
}

#[test]
fn env_policy_comes_from_inherit_env_and_env_passthrough() {
    let file = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {
            "plain": {"command": "a"},
            "all": {"command": "b", "inheritEnv": true},
            "some": {"command": "c", "envPassthrough": ["GITHUB_TOKEN", "AWS_PROFILE"]}
        }}"#,
    )
    .unwrap();
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
    assert_eq!(file.servers[0].env_policy(), Some(&EnvPolicy::default()));
    assert_eq!(file.servers[1].env_policy(), Some(&EnvPolicy::InheritAll));
    assert_eq!(
        file.servers[2].env_policy(),
        Some(&EnvPolicy::Allowlist {
            passthrough: vec!["GITHUB_TOKEN".into(), "AWS_PROFILE".into()]
        })
    );
    assert_eq!(
        file.servers[2].redacted()["envPolicy"],
        serde_json::json!({"inherit": "allowlist", "passthrough": ["GITHUB_TOKEN", "AWS_PROFILE"]})
    );
    for (text, expected) in [
        (
            r#"{"mcpServers": {"s": {"command": "a", "envPassthrough": ["NOT A NAME"]}}}"#,
            "field 'envPassthrough[0]'",
        ),
        (
            r#"{"mcpServers": {"s": {"command": "a", "envPassthrough": "PATH"}}}"#,
            "expected an array of names",
        ),
        (
            r#"{"mcpServers": {"s": {"url": "http://h/mcp", "inheritEnv": true}}}"#,
            "applies to stdio servers only",
        ),
    ] {
        let error = parse("/p/.mcp.json", text).unwrap_err().to_string();
        assert!(error.contains(expected), "{error}");
    }
}

#[test]
fn the_masker_knows_every_secret_of_a_server() {
    let file = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {
            "local": {"command": "srv", "args": ["--api-key", "flag-value-1", "ghp_0123456789abcdefABCDEF0123456789abcd", "--port", "8080"],
                      "env": {"API_KEY": "${GITHUB_TOKEN}", "MODE": "dev"}},
            "remote": {"url": "https://ada:pw-4711-x@h.example/mcp?api_key=query-token-9", "headers": {"Authorization": "Bearer header-token-77"}}
        }}"#,
    )
    .unwrap();
    let local = file.servers[0].masker();
    assert_eq!(
        local.mask(&format!(
            "{SECRET} flag-value-1 ghp_0123456789abcdefABCDEF0123456789abcd 8080 dev"
        )),
        "*** *** *** 8080 dev"
    );
    assert_eq!(
        file.servers[0].summary(),
        "stdio: srv --api-key *** *** --port 8080"
    );
    let remote = file.servers[1].masker();
    assert_eq!(
        remote.mask("pw-4711-x query-token-9 header-token-77 Bearer header-token-77"),
        "*** *** *** ***"
    );
}

#[test]
fn health_pings_are_read_per_server() {
    let file = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {
            "a": {"command": "x", "health": {"pingInterval": 0.5, "pingTimeout": 2, "other": 1}},
            "b": {"command": "x"}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        file.servers[0].ping,
        PingSettings {
            interval: Some(Duration::from_millis(500)),
            timeout: Some(Duration::from_secs(2)),
        }
    );
    assert_eq!(file.servers[1].ping, PingSettings::default());
    assert!(
        file.warnings
            .iter()
            .any(|w| w.to_string().contains("health.other"))
    );
    let error = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {"a": {"command": "x", "health": {"pingInterval": "soon"}}}}"#,
    )
    .unwrap_err();
    assert!(error.to_string().contains("health.pingInterval"), "{error}");
}

#[test]
fn namespace_false_keeps_a_servers_names_and_a_mistyped_one_is_an_error() {
    let file = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {
            "plain": {"command": "srv", "namespace": false},
            "usual": {"command": "srv"}
        }}"#,
    )
    .unwrap();
    assert!(!file.servers[0].namespaced);
    assert!(file.servers[1].namespaced);
    let error = parse(
        "/p/.mcp.json",
        r#"{"mcpServers": {"bad": {"command": "srv", "namespace": "no"}}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("server 'bad': field 'namespace': expected true or false"),
        "{error}"
    );
}

#[test]
fn a_format_left_out_is_named_with_its_feature() {
    let error = ConfigError::NeedsFeature {
        path: "/home/ada/.codex/config.toml".into(),
        format: "Codex's TOML",
        feature: "toml",
    };
    assert_eq!(
        error.to_string(),
        "/home/ada/.codex/config.toml: Codex's TOML needs feature `toml` of mcpdisco"
    );
    assert_eq!(error.path(), Path::new("/home/ada/.codex/config.toml"));
}

#[cfg(not(feature = "toml"))]
#[test]
fn without_toml_a_codex_config_is_an_error_naming_the_file_and_feature() {
    let text = "[mcp_servers.t]\ncommand = \"uvx\"\n";
    let error = parse("/home/ada/.codex/config.toml", text).unwrap_err();
    assert!(
        matches!(
            error,
            ConfigError::NeedsFeature {
                feature: "toml",
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "/home/ada/.codex/config.toml: Codex's TOML needs feature `toml` of mcpdisco"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let added = add_server(&path, "t", &ServerEntry::stdio("uvx", [""; 0]), false);
    assert!(
        matches!(
            added,
            Err(ConfigError::NeedsFeature {
                feature: "toml",
                ..
            })
        ),
        "{added:?}"
    );
    assert!(!path.exists(), "nothing is written");
}

#[cfg(not(feature = "yaml"))]
#[test]
fn without_yaml_a_goose_config_is_an_error_naming_the_file_and_feature() {
    let text = "extensions:\n  t:\n    type: stdio\n    cmd: uvx\n";
    for path in ["/home/ada/.config/goose/config.yaml", "/p/config.yml"] {
        let error = parse(path, text).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{path}: Goose's YAML needs feature `yaml` of mcpdisco")
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    let added = add_server(&path, "t", &ServerEntry::stdio("uvx", [""; 0]), false);
    assert!(
        matches!(
            added,
            Err(ConfigError::NeedsFeature {
                feature: "yaml",
                ..
            })
        ),
        "{added:?}"
    );
    assert!(!path.exists(), "nothing is written");
}
