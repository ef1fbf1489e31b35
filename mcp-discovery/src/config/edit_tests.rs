//! Adding servers to every host's file, the rest of the file kept.

use std::collections::HashMap;
use std::path::Path;

use mcpdisco_transport::http::HttpKind;
#[cfg(feature = "toml")]
use mcpdisco_transport::secret::ExposeSecret;

use super::*;
#[cfg(any(feature = "toml", feature = "yaml"))]
use mcpdisco_transport::stdio::EnvPolicy;

fn vars() -> HashMap<String, String> {
    [("API_KEY", "k-planted-99")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn servers_of(path: &Path) -> Vec<(String, String)> {
    let file = load_file(path, &vars(), &ParseOptions::default()).unwrap();
    file.servers
        .iter()
        .map(|server| (server.name.clone(), server.summary()))
        .collect()
}

fn npx_entry() -> ServerEntry {
    ServerEntry::stdio("npx", ["-y", "@acme/mcp@1.2.0"])
        .with_env("API_KEY", "${env:API_KEY}")
        .with_env("MODE", "fast")
}

#[test]
fn json_with_comments_keeps_every_other_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    let original = "{\n  // my servers\n  \"mcpServers\": {\n    \"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}, /* keep */\n  },\n  \"other\": true\n}\n";
    std::fs::write(&path, original).unwrap();
    assert_eq!(
        add_server(&path, "acme", &npx_entry(), false).unwrap(),
        Added::Added
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = original.find(", /* keep */").unwrap();
    assert_eq!(
        &text[..cut],
        &original[..cut],
        "everything before is untouched"
    );
    assert!(
        text.ends_with(", /* keep */\n  },\n  \"other\": true\n}\n"),
        "{text}"
    );
    assert!(
        text.contains("    \"acme\": {\n      \"command\": \"npx\""),
        "{text}"
    );
    assert_eq!(
        servers_of(&path),
        [
            ("time".into(), "stdio: uvx mcp-server-time".into()),
            ("acme".into(), "stdio: npx -y @acme/mcp@1.2.0".into())
        ]
    );

    let clash = add_server(&path, "acme", &npx_entry(), false).unwrap_err();
    assert!(clash.to_string().contains("already there"), "{clash}");
    let remote = ServerEntry::http("https://acme.example.com/mcp", HttpKind::StreamableHttp);
    assert_eq!(
        add_server(&path, "acme", &remote, true).unwrap(),
        Added::Replaced
    );
    assert_eq!(
        servers_of(&path)[1].1,
        "http: https://acme.example.com/mcp (streamable)"
    );
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("// my servers")
    );
}

#[test]
fn json_files_without_a_servers_object_get_one_in_the_hosts_shape() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{\"mcpServers\": {}}").unwrap();
    add_server(&empty, "acme", &npx_entry(), false).unwrap();
    assert_eq!(servers_of(&empty).len(), 1);

    let zed = dir.path().join("zed/settings.json");
    std::fs::create_dir_all(zed.parent().unwrap()).unwrap();
    std::fs::write(&zed, "{\n  \"theme\": \"One Dark\"\n}\n").unwrap();
    add_server(&zed, "acme", &npx_entry(), false).unwrap();
    let text = std::fs::read_to_string(&zed).unwrap();
    assert!(
        text.starts_with("{\n  \"theme\": \"One Dark\",\n  \"context_servers\": {"),
        "{text}"
    );
    assert_eq!(
        load_file(&zed, &vars(), &ParseOptions::default())
            .unwrap()
            .format,
        ConfigFormat::Zed
    );
    assert_eq!(servers_of(&zed)[0].0, "acme");

    let code = dir.path().join("Code/User/settings.json");
    std::fs::create_dir_all(code.parent().unwrap()).unwrap();
    std::fs::write(
        &code,
        "{\"editor.fontSize\": 14, \"mcp\": {\"inputs\": []}}",
    )
    .unwrap();
    add_server(&code, "acme", &npx_entry(), false).unwrap();
    let file = load_file(&code, &vars(), &ParseOptions::default()).unwrap();
    assert_eq!(file.format, ConfigFormat::VsCodeSettings);
    assert_eq!(file.servers[0].name, "acme");
    let text = std::fs::read_to_string(&code).unwrap();
    assert!(
        text.contains("\"type\": \"stdio\""),
        "VS Code gets a type: {text}"
    );

    let created = dir.path().join("new/.mcp.json");
    assert_eq!(
        add_server(&created, "acme", &npx_entry(), false).unwrap(),
        Added::Created
    );
    assert_eq!(servers_of(&created)[0].0, "acme");
}

#[cfg(feature = "toml")]
#[test]
fn codex_toml_keeps_comments_and_passes_variables_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let original = "# my Codex settings\nmodel = \"o3\" # the best\n\n[mcp_servers.time]\ncommand = \"uvx\"\nargs = [\"mcp-server-time\"]\n";
    std::fs::write(&path, original).unwrap();
    add_server(&path, "acme", &npx_entry(), false).unwrap();
    let remote = ServerEntry::http("https://acme.example.com/mcp", HttpKind::StreamableHttp)
        .with_header("Authorization", "Bearer ${env:API_KEY}")
        .with_header("X-Team", "core");
    add_server(&path, "acme-remote", &remote, false).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(original), "{text}");
    assert!(text.contains("env_vars = [\"API_KEY\"]"), "{text}");
    assert!(
        text.contains("bearer_token_env_var = \"API_KEY\""),
        "{text}"
    );
    let file = load_file(&path, &vars(), &ParseOptions::default()).unwrap();
    assert_eq!(file.format, ConfigFormat::Codex);
    let names: Vec<&str> = file.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["time", "acme", "acme-remote"]);
    assert_eq!(
        file.servers[1].env_policy(),
        Some(&EnvPolicy::Allowlist {
            passthrough: vec!["API_KEY".into()]
        })
    );
    match &file.servers[2].launch {
        Launch::Http { headers, .. } => {
            assert_eq!(
                headers["Authorization"].expose_secret(),
                "Bearer k-planted-99"
            );
            assert_eq!(headers["X-Team"].expose_secret(), "core");
        }
        _ => panic!("http"),
    }
    assert!(add_server(&path, "time", &npx_entry(), false).is_err());
}

#[cfg(feature = "yaml")]
#[test]
fn goose_yaml_gets_an_extension() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(
        &path,
        "GOOSE_PROVIDER: openai\nextensions:\n  developer:\n    type: builtin\n    enabled: true\n",
    )
    .unwrap();
    add_server(&path, "acme", &npx_entry(), false).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("GOOSE_PROVIDER: openai\n"), "{text}");
    let file = load_file(&path, &vars(), &ParseOptions::default()).unwrap();
    assert_eq!(
        file.servers.len(),
        1,
        "the builtin is skipped, acme is read"
    );
    assert_eq!(file.servers[0].summary(), "stdio: npx -y @acme/mcp@1.2.0");
    assert_eq!(
        file.servers[0].env_policy(),
        Some(&EnvPolicy::Allowlist {
            passthrough: vec!["API_KEY".into()]
        })
    );
}

#[test]
fn json_edits_keep_comments_in_empty_objects_and_bytes_around_a_replaced_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    std::fs::write(&path, "{\"mcpServers\": { // none yet\n}, \"b\": 1}").unwrap();
    add_server(&path, "acme", &npx_entry(), false).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\"mcpServers\": { // none yet\n  \"acme\": {"),
        "{text}"
    );
    assert!(text.ends_with("}, \"b\": 1}"), "{text}");
    assert_eq!(servers_of(&path)[0].0, "acme");

    let original = "{\"mcpServers\": {\n  \"a\": {\"command\": \"old\"}, // the old one\n  \"z\": {\"command\": \"z\"}\n}}\n";
    std::fs::write(&path, original).unwrap();
    let remote = ServerEntry::http("https://acme.example.com/mcp", HttpKind::Auto);
    assert_eq!(
        add_server(&path, "a", &remote, true).unwrap(),
        Added::Replaced
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let before = original.find("{\"command\": \"old\"}").unwrap();
    assert_eq!(&text[..before], &original[..before]);
    assert!(
        text.ends_with("}, // the old one\n  \"z\": {\"command\": \"z\"}\n}}\n"),
        "{text}"
    );
    assert_eq!(
        servers_of(&path),
        [
            (
                "a".into(),
                "http: https://acme.example.com/mcp (auto)".into()
            ),
            ("z".into(), "stdio: z".into())
        ]
    );
}
