//! Every host's format, folders of definitions, and merging.

use std::collections::HashMap;
use std::path::Path;

use mcpdisco_transport::secret::ExposeSecret;

use super::*;
#[cfg(feature = "yaml")]
use mcpdisco_transport::stdio::EnvPolicy;

fn vars() -> HashMap<String, String> {
    [("GH_TOKEN", "ghp-planted-4711"), ("HOME_DIR", "/home/ada")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn parse_at(path: &str, text: &str, project: &str) -> ConfigFile {
    let options = ParseOptions {
        project_dir: Some(project.into()),
        ..ParseOptions::default()
    };
    parse_str(Path::new(path), text, &vars(), &options).unwrap()
}

fn parse(path: &str, text: &str) -> ConfigFile {
    parse_at(path, text, "/work/app")
}

fn names(file: &ConfigFile) -> Vec<&str> {
    file.servers.iter().map(|s| s.name.as_str()).collect()
}

fn warnings(file: &ConfigFile) -> Vec<String> {
    file.warnings.iter().map(ToString::to_string).collect()
}

fn command_line(server: &ServerConfig) -> String {
    match &server.launch {
        Launch::Stdio { command, args, .. } => format!("{command} {}", args.join(" ")),
        Launch::Http { url, kind, .. } => format!("{kind:?} {}", url.expose_secret()),
        Launch::Custom { transport, .. } => transport.clone(),
    }
}

fn header(server: &ServerConfig, name: &str) -> Option<String> {
    match &server.launch {
        Launch::Http { headers, .. } => headers.get(name).map(|v| v.expose_secret().to_owned()),
        _ => None,
    }
}

#[test]
fn claude_code_user_file_adds_the_current_projects_servers() {
    let text = r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]},
                                  "db": {"command": "old-db"}},
                   "projects": {"/work/app": {"mcpServers": {"db": {"command": "app-db"}}},
                                "/work/other": {"mcpServers": {"x": {"command": "x"}}}}}"#;
    let file = parse_at("/home/ada/.claude.json", text, "/work/app/");
    assert_eq!(file.format, ConfigFormat::ClaudeUser);
    assert_eq!(names(&file), ["time", "db"]);
    assert_eq!(
        command_line(&file.servers[1]),
        "app-db ",
        "the project's entry wins"
    );
    let elsewhere = parse_at("/home/ada/.claude.json", text, "/tmp");
    assert_eq!(command_line(&elsewhere.servers[1]), "old-db ");
}

#[test]
fn vscode_user_settings_read_mcp_servers_and_inputs() {
    let file = parse(
        "/home/ada/.config/Code/User/settings.json",
        r#"{ // comments are fine
            "editor.fontSize": 14,
            "mcp": {"inputs": [{"id": "tok", "type": "promptString", "password": true}],
                    "servers": {"gh": {"type": "http", "url": "https://api.example.com/mcp",
                                       "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}},
        }"#,
    );
    assert_eq!(file.format, ConfigFormat::VsCodeSettings);
    assert_eq!(names(&file), ["gh"]);
    assert_eq!(
        command_line(&file.servers[0]),
        "StreamableHttp https://api.example.com/mcp"
    );
    assert!(warnings(&file).is_empty(), "{:?}", warnings(&file));
    let none = parse(
        "/home/ada/.config/Code/User/settings.json",
        r#"{"editor.fontSize": 14}"#,
    );
    assert!(none.servers.is_empty(), "settings without MCP are no error");
}

#[test]
fn zed_context_servers_in_both_shapes_and_extensions_skipped() {
    let file = parse(
        "/home/ada/.config/zed/settings.json",
        r#"{"theme": "One Dark",
            "context_servers": {
              "new-style": {"source": "custom", "command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}},
              "old-style": {"command": {"path": "/usr/bin/srv", "args": ["--stdio"], "env": {}}, "settings": {}},
              "remote": {"url": "https://mcp.example.com/mcp", "headers": {"X-Key": "${env:GH_TOKEN}"}},
              "from-extension": {"source": "extension", "settings": {"k": 1}}
            }}"#,
    );
    assert_eq!(file.format, ConfigFormat::Zed);
    assert_eq!(names(&file), ["new-style", "old-style", "remote"]);
    assert_eq!(command_line(&file.servers[0]), "npx -y srv");
    assert_eq!(command_line(&file.servers[1]), "/usr/bin/srv --stdio");
    assert_eq!(
        header(&file.servers[2], "X-Key").as_deref(),
        Some("ghp-planted-4711")
    );
    let shown = warnings(&file);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].contains("'from-extension'") && shown[0].contains("Zed extension"));
}

#[cfg(feature = "toml")]
#[test]
fn codex_toml_mcp_servers() {
    let file = parse(
        "/home/ada/.codex/config.toml",
        r#"
model = "o3"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
env = { "LOG" = "debug" }
startup_timeout_sec = 20
tool_timeout_sec = 60
enabled_tools = ["search", "read*"]

[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "GH_TOKEN"
env_http_headers = { "X-Home" = "HOME_DIR" }
enabled = false
"#,
    );
    assert_eq!(file.format, ConfigFormat::Codex);
    assert_eq!(names(&file), ["docs", "remote"]);
    let docs = &file.servers[0];
    assert_eq!(command_line(docs), "npx -y docs-server");
    assert_eq!(docs.timeout, Some(std::time::Duration::from_secs(20)));
    assert!(docs.filters.tools.allows("search"));
    assert!(docs.filters.tools.allows("read*"));
    assert!(
        !docs.filters.tools.allows("readme"),
        "tool names are exact, not globs"
    );
    let remote = &file.servers[1];
    assert!(!remote.enabled);
    assert_eq!(
        command_line(remote),
        "StreamableHttp https://mcp.example.com/mcp"
    );
    assert_eq!(
        header(remote, "Authorization").as_deref(),
        Some("Bearer ghp-planted-4711")
    );
    assert_eq!(header(remote, "X-Home").as_deref(), Some("/home/ada"));
    assert!(warnings(&file).is_empty(), "{:?}", warnings(&file));
    assert!(!format!("{remote:?}").contains("ghp-planted"));

    let none = parse("/home/ada/.codex/config.toml", "model = \"o3\"\n");
    assert!(none.servers.is_empty());
    let Err(ConfigError::Syntax { line, .. }) = parse_str(
        Path::new("/home/ada/.codex/config.toml"),
        "[mcp_servers.x]\ncommand = \n",
        &vars(),
        &ParseOptions::default(),
    ) else {
        panic!("a TOML error is a syntax error")
    };
    assert_eq!(line, 2);
}

#[cfg(feature = "yaml")]
#[test]
fn goose_yaml_extensions() {
    let file = parse(
        "/home/ada/.config/goose/config.yaml",
        r#"
GOOSE_PROVIDER: openai
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    type: builtin
    timeout: 300
  fetch:
    enabled: true
    name: fetch
    type: stdio
    cmd: uvx
    args: [mcp-server-fetch]
    envs: {LOG_LEVEL: info}
    env_keys: [FETCH_KEY]
    timeout: 30
    description: Fetch pages
  remote:
    enabled: false
    type: streamable_http
    uri: https://mcp.example.com/mcp
    headers: {X-Key: "${env:GH_TOKEN}"}
  legacy:
    type: sse
    uri: http://127.0.0.1:8000/sse
"#,
    );
    assert_eq!(file.format, ConfigFormat::Goose);
    assert_eq!(names(&file), ["fetch", "remote", "legacy"]);
    let fetch = &file.servers[0];
    assert_eq!(command_line(fetch), "uvx mcp-server-fetch");
    assert_eq!(fetch.description.as_deref(), Some("Fetch pages"));
    assert_eq!(fetch.timeout, Some(std::time::Duration::from_secs(30)));
    assert_eq!(
        fetch.env_policy(),
        Some(&EnvPolicy::Allowlist {
            passthrough: vec!["FETCH_KEY".into()]
        })
    );
    assert!(!file.servers[1].enabled);
    assert_eq!(
        command_line(&file.servers[1]),
        "StreamableHttp https://mcp.example.com/mcp"
    );
    assert_eq!(
        command_line(&file.servers[2]),
        "Sse http://127.0.0.1:8000/sse"
    );
    let shown = warnings(&file);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].contains("'developer'") && shown[0].contains("builtin"));
}

#[test]
fn gemini_and_windsurf_url_fields() {
    let gemini = parse(
        "/home/ada/.gemini/settings.json",
        r#"{"theme": "Default", "mcpServers": {
            "api": {"httpUrl": "https://mcp.example.com/mcp", "includeTools": ["a[1]"], "excludeTools": ["b"], "trust": true},
            "local": {"command": "python", "args": ["-m", "srv"], "cwd": "./srv"}}}"#,
    );
    assert_eq!(names(&gemini), ["api", "local"]);
    assert_eq!(
        command_line(&gemini.servers[0]),
        "StreamableHttp https://mcp.example.com/mcp"
    );
    assert!(gemini.servers[0].filters.tools.allows("a[1]"));
    assert!(!gemini.servers[0].filters.tools.allows("a1"));
    assert!(
        warnings(&gemini).is_empty(),
        "a shared settings file's other keys are not ours: {:?}",
        warnings(&gemini)
    );
    let windsurf = parse(
        "/home/ada/.codeium/windsurf/mcp_config.json",
        r#"{"mcpServers": {"r": {"serverUrl": "https://w.example.com/sse"}}}"#,
    );
    assert_eq!(
        command_line(&windsurf.servers[0]),
        "Auto https://w.example.com/sse"
    );
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_folder_of_definitions_in_path_order_with_bad_files_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("b-time.json"),
        r#"{"command": "uvx", "args": ["mcp-server-time"]}"#,
    );
    write(
        &root.join("a-remote.json"),
        r#"{"url": "https://mcp.example.com/mcp"}"#,
    );
    write(
        &root.join("team/all.json"),
        r#"{"mcpServers": {"x": {"command": "x"}, "y": {"command": "y"}}}"#,
    );
    write(&root.join("team/deeper/broken.json"), r#"{"command": "#);
    write(&root.join("team/notes.txt"), "not json, not read");
    write(&root.join(".hidden/z.json"), r#"{"command": "hidden"}"#);
    write(&root.join("odd.json"), r#"{"command": 3}"#);
    let read = load_dir(root, &vars(), &ParseOptions::default()).unwrap();
    let found: Vec<String> = read
        .files
        .iter()
        .flat_map(|file| file.servers.iter().map(|s| s.name.clone()))
        .collect();
    assert_eq!(found, ["a-remote", "b-time", "x", "y"]);
    assert_eq!(read.files[1].servers[0].source, root.join("b-time.json"));
    let errors: Vec<String> = read.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors.iter().any(|e| e.contains("broken.json")),
        "{errors:?}"
    );
    assert!(errors.iter().any(|e| e.contains("odd.json")), "{errors:?}");
    let missing = load_dir(&root.join("nope"), &vars(), &ParseOptions::default()).unwrap_err();
    assert!(missing.to_string().contains("nope"), "{missing}");
}

#[cfg(feature = "toml")]
#[test]
fn merging_hosts_counts_a_server_once_and_prefixes_a_clash() {
    let cursor = parse(
        "/home/ada/.cursor/mcp.json",
        r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]},
                           "git": {"command": "uvx", "args": ["mcp-server-git"]}}}"#,
    );
    let codex = parse(
        "/home/ada/.codex/config.toml",
        r#"
[mcp_servers.clock]
command = "uvx"
args = ["mcp-server-time"]

[mcp_servers.git]
command = "uvx"
args = ["mcp-server-git", "--repository", "/src"]
"#,
    );
    let zed = parse(
        "/home/ada/.config/zed/settings.json",
        r#"{"context_servers": {"git": {"command": "git-mcp"}}}"#,
    );
    let mut merged = Merged::default();
    merged.add(cursor, Origin::Host(Host::Cursor));
    merged.add(codex, Origin::Host(Host::Codex));
    merged.add(zed, Origin::Host(Host::Zed));
    let names: Vec<&str> = merged.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time", "git", "codex-git", "zed-git"]);
    assert_eq!(
        command_line(&merged.servers[2]),
        "uvx mcp-server-git --repository /src"
    );
    assert_eq!(merged.warnings.len(), 3, "{:?}", merged.warnings);
    assert!(merged.warnings[0].contains("'clock' is the same server as 'time'"));
}

#[cfg(feature = "yaml")]
#[test]
fn first_found_passes_over_settings_files_without_servers() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let zed = home.path().join(".config/zed/settings.json");
    write(&zed, r#"{"theme": "One Dark"}"#);
    let goose = home.path().join(".config/goose/config.yaml");
    write(
        &goose,
        "extensions:\n  t:\n    type: stdio\n    cmd: uvx\n    args: [mcp-server-time]\n",
    );
    let all = candidates_in(cwd.path(), Some(home.path()), None);
    let (found, file) = first_found(&all, &vars(), &ParseOptions::default()).unwrap();
    assert_eq!(found.host, Host::Goose);
    assert_eq!(found.path, goose);
    assert_eq!(file.unwrap().servers[0].name, "t");
    let every = read_hosts(&all, &vars(), &ParseOptions::default());
    assert_eq!(every.len(), 2);
}
