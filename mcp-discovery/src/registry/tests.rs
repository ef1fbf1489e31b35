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

/// The ready entry of `resolved`, as it serializes (our `mcpServers` shape).
fn entry(resolved: &Resolved) -> Value {
    let ready = resolved.entry.ready().expect("a ready entry");
    serde_json::to_value(ready).unwrap()
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
        entry(&resolved),
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
    assert_eq!(
        resolved.missing_env(&vars),
        [RequiredEnv {
            name: "ACME_TOKEN".into(),
            secret: true
        }]
    );
}

#[test]
fn pypi_oci_and_nuget_launches() {
    let pypi = resolved(json!({"name": "a/time", "version": "1", "packages": [
        {"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.10.19", "transport": {"type": "stdio"}}]}));
    assert_eq!(entry(&pypi)["command"], "uvx");
    assert_eq!(entry(&pypi)["args"], json!(["mcp-server-time==2026.10.19"]));

    let oci = resolved(json!({"name": "a/db", "version": "1", "packages": [
        {"registryType": "oci", "identifier": "ghcr.io/acme/db-mcp", "version": "0.3.1", "transport": {"type": "stdio"},
         "runtimeArguments": [{"type": "named", "name": "--network", "value": "host"}],
         "environmentVariables": [{"name": "DB_URL", "isRequired": true, "isSecret": true}]}]}));
    assert_eq!(entry(&oci)["command"], "docker");
    assert_eq!(
        entry(&oci)["args"],
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
        entry(&tagged)["args"],
        json!(["run", "-i", "--rm", "docker.io/acme/db:1.0"])
    );

    let nuget = resolved(json!({"name": "a/dotnet", "version": "1", "packages": [
        {"registryType": "nuget", "identifier": "Acme.Mcp", "version": "2.0.0", "runtimeHint": "dnx", "transport": {"type": "stdio"},
         "packageArguments": [{"type": "positional", "value": "mcp"}, {"type": "positional", "value": "start"}]}]}));
    assert_eq!(entry(&nuget)["command"], "dnx");
    assert_eq!(
        entry(&nuget)["args"],
        json!(["Acme.Mcp@2.0.0", "--yes", "--", "mcp", "start"])
    );

    // A fixed value is not the user's to change; a caller's value fills the rest.
    let fixed = resolve(
        &server(json!({"name": "a/f", "version": "1", "packages": [
            {"registryType": "npm", "identifier": "f", "transport": {"type": "stdio"},
             "packageArguments": [{"type": "named", "name": "--port", "value": "8080"},
                                  {"type": "positional", "valueHint": "dir", "isRequired": true}]}]})),
        &ResolveOptions::default().values([("--port", "1"), ("dir", "/data")]),
    )
    .unwrap();
    assert_eq!(
        entry(&fixed)["args"],
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
        {"registryType": "mcpb", "identifier": "https://example.com/b.mcpb", "fileSha256": "AB".repeat(32), "transport": {"type": "stdio"},
         "environmentVariables": [{"name": "B_TOKEN", "isRequired": true, "isSecret": true}]}]}));
    let ResolvedEntry::Bundle(bundle) = &verified.entry else {
        panic!("{:?}", verified.entry)
    };
    assert_eq!(
        bundle.download,
        McpbDownload {
            url: "https://example.com/b.mcpb".into(),
            sha256: "ab".repeat(32)
        }
    );
    assert_eq!(
        bundle.env,
        [("B_TOKEN".to_owned(), "${env:B_TOKEN}".to_owned())]
    );

    // A known type is preferred to an unknown one; a type can be asked for.
    let both = server(json!({"name": "a/two", "version": "1", "packages": [
        {"registryType": "cargo", "identifier": "x", "transport": {"type": "stdio"}},
        {"registryType": "pypi", "identifier": "y", "transport": {"type": "stdio"}}]}));
    assert_eq!(
        entry(&resolve(&both, &ResolveOptions::default()).unwrap())["command"],
        "uvx"
    );
    let asked = ResolveOptions::default().registry_type("npm".to_owned());
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
    let missing = resolve(&remote, &ResolveOptions::default().prefer_remote(true)).unwrap_err();
    assert!(missing.to_string().contains("'tenant'"), "{missing}");
    let options = ResolveOptions::default()
        .prefer_remote(true)
        .values([("tenant", "ada")]);
    let resolved = resolve(&remote, &options).unwrap();
    assert_eq!(
        entry(&resolved),
        json!({"type": "http", "url": "https://ada.acme.com/mcp?region=eu",
               "headers": {"Authorization": "Bearer ${env:API_KEY}", "X-Client": "mcp-discovery"}})
    );
    assert_eq!(resolved.required_env, ["API_KEY"]);
    assert_eq!(resolved.secret_env, ["API_KEY"]);
    // Without prefer_remote the package wins.
    let package = resolve(&remote, &ResolveOptions::default()).unwrap();
    assert_eq!(entry(&package)["command"], "npx");
    // A server with only a remote takes it.
    let only = server(
        json!({"name": "x/sse", "version": "1", "remotes": [{"type": "sse", "url": "https://x.example.com/sse"}]}),
    );
    let resolved = resolve(&only, &ResolveOptions::default()).unwrap();
    assert_eq!(
        entry(&resolved),
        json!({"type": "sse", "url": "https://x.example.com/sse"})
    );
}

#[test]
fn resolved_entries_read_as_config_without_text_between() {
    let resolved = resolved(json!({"name": "a/time", "version": "1", "packages": [
        {"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.10.19", "transport": {"type": "stdio"},
         "environmentVariables": [{"name": "TZ_TOKEN", "isRequired": true, "isSecret": true}]}]}));
    let vars: HashMap<String, String> = [("TZ_TOKEN".to_owned(), "planted-777".to_owned())].into();
    let ready = resolved.entry.ready().unwrap();
    let server = ready
        .to_server(
            &resolved.name,
            "/x/.mcp.json".as_ref(),
            "/x".as_ref(),
            &vars,
        )
        .unwrap();
    assert_eq!(server.name, "time");
    assert_eq!(server.summary(), "stdio: uvx mcp-server-time==2026.10.19");
    assert!(!format!("{server:?} {}", server.redacted()).contains("planted-777"));
    assert_eq!(
        server.masker().mask("x planted-777 y"),
        "x *** y".replace("***", &server.masker().mask("planted-777"))
    );
}

#[test]
fn a_bundles_entry_comes_from_its_manifest_with_the_registrys_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.json"),
        r#"{"server": {"mcp_config": {"command": "${__dirname}/bin/server",
            "args": ["--root", "${__dirname}/data", 7], "env": {"MODE": "fast", "B_TOKEN": "none"}}}}"#,
    )
    .unwrap();
    let bundle = PendingBundle {
        download: McpbDownload {
            url: "https://example.com/b.mcpb".into(),
            sha256: "ab".repeat(32),
        },
        env: vec![("B_TOKEN".into(), "${env:B_TOKEN}".into())],
        description: Some("bundled".into()),
    };
    let entry = super::bundle::manifest_entry(&bundle, dir.path()).unwrap();
    let at = dir.path().display().to_string();
    assert_eq!(
        serde_json::to_value(&entry).unwrap(),
        json!({"command": format!("{at}/bin/server"), "args": ["--root", format!("{at}/data")],
               "env": {"MODE": "fast", "B_TOKEN": "${env:B_TOKEN}"}, "cwd": at, "description": "bundled"})
    );
    std::fs::write(dir.path().join("manifest.json"), r#"{"server": {}}"#).unwrap();
    let error = super::bundle::manifest_entry(&bundle, dir.path()).unwrap_err();
    assert!(error.contains("no server.mcp_config"), "{error}");
}

#[test]
fn choices_and_warnings_read_as_sentences_without_credentials() {
    let package = Choice::Package {
        registry_type: "npm".into(),
        identifier: "@acme/files".into(),
        version: Some("1.2.0".into()),
    };
    assert_eq!(package.to_string(), "npm @acme/files 1.2.0");
    let remote = Choice::Remote {
        url: "https://ada:pw-planted-31@acme.example.com/mcp".into(),
    };
    let shown = remote.to_string();
    assert!(shown.starts_with("remote https://"), "{shown}");
    assert!(!shown.contains("pw-planted-31"), "{shown}");
    let missing = RegistryWarning::LeftOut {
        server: "io.github.acme/files".into(),
        reason: LeftOutReason::MissingEnv(vec![
            RequiredEnv {
                name: "A".into(),
                secret: true,
            },
            RequiredEnv {
                name: "B".into(),
                secret: false,
            },
        ]),
    };
    assert_eq!(
        missing.to_string(),
        "io.github.acme/files: needs A, B in the environment; left out"
    );
}
