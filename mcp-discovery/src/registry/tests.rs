//! Resolution rules, one test per rule.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::*;

fn server(value: Value) -> ServerJson {
    serde_json::from_value(value).unwrap()
}

fn resolved(value: Value) -> Resolved {
    resolve(&server(value), &ResolveOptions::default()).unwrap()
}

#[test]
fn npm_with_runtime_and_package_arguments_and_env() {
    let resolved = resolved(json!({
        "name": "io.github.acme/Files", "description": "Files", "version": "1.2.0",
        "packages": [{
            "registryType": "npm", "identifier": "@acme/files", "version": "1.2.0",
            "transport": {"type": "stdio"},
            "runtimeArguments": [{"type": "named", "name": "--node-options", "value": "--max-old-space-size=512"}],
            "packageArguments": [
                {"type": "positional", "valueHint": "root", "value": "{home}/docs", "variables": {"home": {"default": "/home/ada"}}},
                {"type": "named", "name": "--mode", "default": "ro"},
                {"type": "named", "name": "--verbose"},
                {"type": "named", "name": "--read-only", "format": "boolean", "default": "true"},
                {"type": "named", "name": "--debug", "format": "boolean", "default": "false"},
                {"type": "positional", "valueHint": "workspace", "isRequired": true}
            ],
            "environmentVariables": [
                {"name": "ACME_TOKEN", "isRequired": true, "isSecret": true},
                {"name": "ACME_REGION", "default": "eu"},
                {"name": "ACME_DEBUG"}
            ]
        }]
    }));
    assert_eq!(resolved.name, "files");
    assert_eq!(
        resolved.entry,
        json!({
            "command": "npx",
            "args": ["--node-options", "--max-old-space-size=512", "-y", "@acme/files@1.2.0",
                     "/home/ada/docs", "--mode", "ro", "--read-only", "${env:WORKSPACE}"],
            "env": {"ACME_TOKEN": "${env:ACME_TOKEN}", "ACME_REGION": "eu"},
            "description": "Files"
        })
    );
    assert_eq!(resolved.required_env, ["ACME_TOKEN", "WORKSPACE"]);
    assert_eq!(resolved.secret_env, ["ACME_TOKEN"]);
    let vars: HashMap<String, String> = [("WORKSPACE".to_owned(), "/w".to_owned())].into();
    assert_eq!(resolved.missing_env(&vars), ["ACME_TOKEN"]);
}

#[test]
fn pypi_oci_and_nuget_launches() {
    let pypi = resolved(json!({"name": "a/time", "version": "1", "packages": [
        {"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.10.19", "transport": {"type": "stdio"}}]}));
    assert_eq!(pypi.entry["command"], "uvx");
    assert_eq!(pypi.entry["args"], json!(["mcp-server-time==2026.10.19"]));

    let oci = resolved(json!({"name": "a/db", "version": "1", "packages": [
        {"registryType": "oci", "identifier": "ghcr.io/acme/db-mcp", "version": "0.3.1", "transport": {"type": "stdio"},
         "runtimeArguments": [{"type": "named", "name": "--network", "value": "host"}],
         "environmentVariables": [{"name": "DB_URL", "isRequired": true, "isSecret": true}]}]}));
    assert_eq!(oci.entry["command"], "docker");
    assert_eq!(
        oci.entry["args"],
        json!([
            "run",
            "-i",
            "--rm",
            "-e",
            "DB_URL",
            "--network",
            "host",
            "ghcr.io/acme/db-mcp:0.3.1"
        ])
    );
    let tagged = resolved(json!({"name": "a/db", "version": "1", "packages": [
        {"registryType": "oci", "identifier": "docker.io/acme/db:1.0", "version": "1.0", "transport": {"type": "stdio"}}]}));
    assert_eq!(
        tagged.entry["args"],
        json!(["run", "-i", "--rm", "docker.io/acme/db:1.0"])
    );

    let nuget = resolved(json!({"name": "a/dotnet", "version": "1", "packages": [
        {"registryType": "nuget", "identifier": "Acme.Mcp", "version": "2.0.0", "runtimeHint": "dnx", "transport": {"type": "stdio"},
         "packageArguments": [{"type": "positional", "value": "mcp"}, {"type": "positional", "value": "start"}]}]}));
    assert_eq!(nuget.entry["command"], "dnx");
    assert_eq!(
        nuget.entry["args"],
        json!(["Acme.Mcp@2.0.0", "--yes", "--", "mcp", "start"])
    );

    // A fixed value is not the user's to change; a caller's value fills the rest.
    let fixed = resolve(
        &server(json!({"name": "a/f", "version": "1", "packages": [
            {"registryType": "npm", "identifier": "f", "transport": {"type": "stdio"},
             "packageArguments": [{"type": "named", "name": "--port", "value": "8080"},
                                  {"type": "positional", "valueHint": "dir", "isRequired": true}]}]})),
        &ResolveOptions {
            values: [("--port".to_owned(), "1".to_owned()), ("dir".to_owned(), "/data".to_owned())].into(),
            ..ResolveOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        fixed.entry["args"],
        json!(["-y", "f", "--port", "8080", "/data"])
    );
}

#[test]
fn unknown_types_and_unverified_bundles_are_refused() {
    let cargo = resolve(
        &server(json!({"name": "a/rusty", "version": "1", "packages": [
            {"registryType": "cargo", "identifier": "rusty-mcp", "version": "1", "transport": {"type": "stdio"}}]})),
        &ResolveOptions::default(),
    )
    .unwrap_err();
    assert!(
        cargo.to_string().contains("unknown registry type(s) cargo"),
        "{cargo}"
    );

    let bundle = json!({"name": "a/bundle", "version": "1", "packages": [
        {"registryType": "mcpb", "identifier": "https://example.com/b.mcpb", "transport": {"type": "stdio"}}]});
    let error = resolve(&server(bundle), &ResolveOptions::default()).unwrap_err();
    assert_eq!(error, ResolveError::UnverifiedBundle("a/bundle".into()));

    let verified = resolved(json!({"name": "a/bundle", "version": "1", "packages": [
        {"registryType": "mcpb", "identifier": "https://example.com/b.mcpb", "fileSha256": "AB".repeat(32), "transport": {"type": "stdio"}}]}));
    assert_eq!(
        verified.download,
        Some(McpbDownload {
            url: "https://example.com/b.mcpb".into(),
            sha256: "ab".repeat(32)
        })
    );

    // A known type is preferred to an unknown one; a type can be asked for.
    let both = server(json!({"name": "a/two", "version": "1", "packages": [
        {"registryType": "cargo", "identifier": "x", "transport": {"type": "stdio"}},
        {"registryType": "pypi", "identifier": "y", "transport": {"type": "stdio"}}]}));
    assert_eq!(
        resolve(&both, &ResolveOptions::default()).unwrap().entry["command"],
        "uvx"
    );
    let asked = ResolveOptions {
        registry_type: Some("npm".into()),
        ..ResolveOptions::default()
    };
    assert!(matches!(
        resolve(&both, &asked),
        Err(ResolveError::NoSuchPackage { .. })
    ));
}

#[test]
fn remotes_fill_url_variables_and_headers() {
    let remote = server(json!({"name": "com.acme/weather", "version": "1",
        "packages": [{"registryType": "npm", "identifier": "w", "transport": {"type": "stdio"}}],
        "remotes": [{"type": "streamable-http", "url": "https://{tenant}.acme.com/mcp?region={region}",
                     "variables": {"tenant": {"isRequired": true}, "region": {"default": "eu"}},
                     "headers": [{"name": "Authorization", "value": "Bearer {api_key}",
                                  "variables": {"api_key": {"isRequired": true, "isSecret": true}}},
                                 {"name": "X-Client", "value": "mcp-discovery"}]}]}));
    let missing = resolve(
        &remote,
        &ResolveOptions {
            prefer_remote: true,
            ..ResolveOptions::default()
        },
    )
    .unwrap_err();
    assert!(missing.to_string().contains("'tenant'"), "{missing}");
    let options = ResolveOptions {
        prefer_remote: true,
        values: [("tenant".to_owned(), "ada".to_owned())].into(),
        ..ResolveOptions::default()
    };
    let resolved = resolve(&remote, &options).unwrap();
    assert_eq!(
        resolved.entry,
        json!({"type": "http", "url": "https://ada.acme.com/mcp?region=eu",
               "headers": {"Authorization": "Bearer ${env:API_KEY}", "X-Client": "mcp-discovery"}})
    );
    assert_eq!(resolved.required_env, ["API_KEY"]);
    assert_eq!(resolved.secret_env, ["API_KEY"]);
    // Without prefer_remote the package wins.
    let package = resolve(&remote, &ResolveOptions::default()).unwrap();
    assert_eq!(package.entry["command"], "npx");
    // A server with only a remote takes it.
    let only = server(
        json!({"name": "x/sse", "version": "1", "remotes": [{"type": "sse", "url": "https://x.example.com/sse"}]}),
    );
    let resolved = resolve(&only, &ResolveOptions::default()).unwrap();
    assert_eq!(
        resolved.entry,
        json!({"type": "sse", "url": "https://x.example.com/sse"})
    );
}

#[test]
fn resolved_entries_load_as_config() {
    let resolved = resolved(json!({"name": "a/time", "version": "1", "packages": [
        {"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.10.19", "transport": {"type": "stdio"},
         "environmentVariables": [{"name": "TZ_TOKEN", "isRequired": true, "isSecret": true}]}]}));
    let text = json!({"mcpServers": {resolved.name.clone(): resolved.entry}}).to_string();
    let vars: HashMap<String, String> = [("TZ_TOKEN".to_owned(), "planted-777".to_owned())].into();
    let file =
        crate::config::parse_str(std::path::Path::new("/x/.mcp.json"), &text, &vars).unwrap();
    let server = &file.servers[0];
    assert_eq!(server.summary(), "stdio: uvx mcp-server-time==2026.10.19");
    assert!(!format!("{server:?} {}", server.redacted()).contains("planted-777"));
    assert_eq!(
        server.masker().mask("x planted-777 y"),
        "x *** y".replace("***", &server.masker().mask("planted-777"))
    );
}
