//! Which files a [`SourceSelection`] reads, how their servers merge, and
//! its errors.

use std::path::Path;

use super::*;
#[cfg(feature = "toml")]
use mcpdisco_transport::stdio::EnvPolicy;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn names(loaded: &LoadedConfig) -> Vec<&str> {
    loaded.servers.iter().map(|s| s.name.as_str()).collect()
}

/// A project folder and a home folder, both empty.
struct Places {
    cwd: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Places {
    fn new() -> Self {
        Self {
            cwd: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn selection(&self) -> SourceSelection {
        SourceSelection::new(self.cwd.path(), Some(self.home.path().to_owned()))
    }
}

#[test]
fn named_files_merge_the_first_definition_wins_and_servers_filter() {
    let places = Places::new();
    let a = places.cwd.path().join("a.json");
    let b = places.cwd.path().join("b.json");
    write(&a, r#"{"mcpServers": {"x": {"command": "one"}}}"#);
    write(
        &b,
        r#"{"mcpServers": {"x": {"command": "two"}, "y": {"command": "three"}, "z": {"command": "one"}}}"#,
    );
    let selection = SourceSelection {
        files: vec![a.clone(), b.clone()],
        ..places.selection()
    };
    let loaded = selection.load(&ProcessEnv).unwrap();
    assert_eq!(names(&loaded), ["x", "y"]);
    assert_eq!(loaded.files, [a.clone(), b.clone()]);
    assert!(loaded.candidates.is_empty(), "nothing was auto-detected");
    assert!(
        loaded.warnings[0].contains("server 'x' is also defined"),
        "{:?}",
        loaded.warnings
    );
    assert!(
        loaded.warnings[1].contains("'z' is the same server as 'x'"),
        "{:?}",
        loaded.warnings
    );

    let only = SourceSelection {
        servers: vec!["y".into()],
        ..selection.clone()
    };
    assert_eq!(names(&only.load(&ProcessEnv).unwrap()), ["y"]);
    let unknown = SourceSelection {
        servers: vec!["nope".into()],
        ..selection
    };
    match unknown.load(&ProcessEnv).unwrap_err() {
        SourceError::UnknownServer { name, known, files } => {
            assert_eq!(name, "nope");
            assert_eq!(known, ["x", "y"]);
            assert_eq!(files, [a, b]);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn without_names_the_first_host_config_found_is_read() {
    let places = Places::new();
    let none = places.selection().load(&ProcessEnv).unwrap_err();
    let SourceError::NoConfig { searched } = &none else {
        panic!("{none}")
    };
    assert!(
        searched.contains(&places.cwd.path().join(".mcp.json")),
        "{searched:?}"
    );
    assert!(
        none.to_string()
            .starts_with("no MCP config found; looked for:\n  ")
    );

    write(
        &places.home.path().join(".cursor/mcp.json"),
        r#"{"mcpServers": {"c": {"command": "c", "odd": 1}}}"#,
    );
    write(
        &places.cwd.path().join(".mcp.json"),
        r#"{"mcpServers": {"p": {"command": "p"}}}"#,
    );
    let loaded = places.selection().load(&ProcessEnv).unwrap();
    assert_eq!(
        names(&loaded),
        ["p"],
        "the project's own config comes first"
    );
    assert_eq!(loaded.files, [places.cwd.path().join(".mcp.json")]);
    assert!(!loaded.candidates.is_empty());
}

#[cfg(feature = "toml")]
#[test]
fn every_host_folders_and_inherit_env() {
    let places = Places::new();
    write(
        &places.home.path().join(".cursor/mcp.json"),
        r#"{"mcpServers": {"t": {"command": "uvx", "args": ["mcp-server-time"], "odd": 1}}}"#,
    );
    write(
        &places.home.path().join(".codex/config.toml"),
        "[mcp_servers.t]\ncommand = \"other\"\n",
    );
    write(
        &places.home.path().join(".config/zed/settings.json"),
        "{\"theme\": \"x\"}",
    );
    let defs = places.cwd.path().join("defs");
    write(&defs.join("d.json"), r#"{"command": "d"}"#);
    write(&defs.join("bad.json"), r#"{"command": 1}"#);
    let selection = SourceSelection {
        dirs: vec![defs.clone()],
        all_hosts: true,
        inherit_env: true,
        ..places.selection()
    };
    let loaded = selection.load(&ProcessEnv).unwrap();
    assert_eq!(names(&loaded), ["d", "t", "codex-t"]);
    assert!(
        loaded
            .servers
            .iter()
            .all(|s| s.env_policy() == Some(&EnvPolicy::InheritAll))
    );
    let warnings = loaded.warnings.join("\n");
    assert!(
        warnings.contains("bad.json:1: server 'bad'") && warnings.contains("; skipped"),
        "{warnings}"
    );
    assert!(
        warnings.contains("mcp.json:1: server 't': field 'odd'"),
        "{warnings}"
    );
    assert!(warnings.contains("it is named 'codex-t'"), "{warnings}");
    assert!(
        !loaded.files.iter().any(|f| f.ends_with("settings.json")),
        "a settings file without servers is not a config read: {:?}",
        loaded.files
    );

    let nothing = SourceSelection {
        all_hosts: true,
        ..Places::new().selection()
    };
    assert!(matches!(
        nothing.load(&ProcessEnv),
        Err(SourceError::NoConfig { .. })
    ));
}

#[test]
fn a_bad_named_file_fails_the_load_and_the_masker_knows_every_secret() {
    let places = Places::new();
    let bad = places.cwd.path().join("bad.json");
    write(&bad, "{\"mcpServers\": {\"a\": {\"command\": 1}}}");
    let selection = SourceSelection {
        files: vec![bad],
        ..places.selection()
    };
    assert!(matches!(
        selection.load(&ProcessEnv),
        Err(SourceError::Config(_))
    ));

    let good = places.cwd.path().join("good.json");
    write(
        &good,
        r#"{"mcpServers": {"a": {"command": "a", "env": {"K": "secret-value-1"}},
                           "b": {"url": "https://h/mcp", "headers": {"X": "secret-value-2"}}}}"#,
    );
    let loaded = SourceSelection {
        files: vec![good],
        ..places.selection()
    }
    .load(&ProcessEnv)
    .unwrap();
    assert_eq!(
        loaded.masker().mask("secret-value-1 secret-value-2"),
        "*** ***"
    );
}
