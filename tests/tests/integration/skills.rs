//! Skills (SEP-2640) end to end through `mcp-cli`: `skills` lists them and
//! reads none of their files; `skill load` shows a skill only when every
//! file matched its entry, and refuses a spoiled `SKILL.md` (digest, size,
//! frontmatter) naming the file, showing nothing of it and reading nothing
//! after it.

use std::path::PathBuf;
use std::process::{Command, Output};

use mcp_tests::skill_fixture::{FORMS_MARKER, TAMPER_MARKER};
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
const SKILL_MD: &str = "skill://pdf-processing/SKILL.md";
const FORMS_MD: &str = "skill://pdf-processing/references/FORMS.md";

struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Setup {
    /// One server, `skills`, in the fixture's skills mode spoiled by `tamper`.
    fn new(tamper: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".mcp.json");
        let server = json!({"command": FIXTURE, "args": ["skills"], "env": {
            "FIXTURE_REQUEST_LOG": dir.path().join("requests.log"),
            "FIXTURE_SKILL_TAMPER": tamper,
        }});
        std::fs::write(
            &config,
            json!({"mcpServers": {"skills": server}}).to_string(),
        )
        .unwrap();
        Self { dir, config }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(workspace_bin("mcp-cli"))
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CACHE_DIR", self.dir.path().join("cache"))
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .args(["--config", self.config.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap()
    }

    /// The methods the server was asked, in order, with a read's URI.
    fn requests(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.path().join("requests.log")).unwrap_or_default();
        log.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter_map(|request| {
                let method = request["method"].as_str()?.to_owned();
                Some(match request["params"]["uri"].as_str() {
                    Some(uri) => format!("{method} {uri}"),
                    None => method,
                })
            })
            .collect()
    }

    fn reads(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|request| request.starts_with("resources/read"))
            .collect()
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn skills_are_listed_and_no_skill_file_is_read() {
    let setup = Setup::new("");
    let listed = setup.run(&["skills"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let text = stdout(&listed);
    for expected in [
        "skills__pdf-processing",
        SKILL_MD,
        "Extract, fill, and assemble PDF documents [2 file(s)]",
        "skills__generated",
        "[dynamic]",
        "skills__refunds",
        "skill://acme/billing/refunds/SKILL.md",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from:\n{text}"
        );
    }
    assert!(
        setup.requests().contains(&"skills/list".to_owned()),
        "{:?}",
        setup.requests()
    );

    let json = setup.run(&["--json", "--no-cache", "skills"]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let document: Value = serde_json::from_slice(&json.stdout).unwrap();
    let skills = document["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 3);
    assert_eq!(skills[0]["qualifiedName"], "skills__pdf-processing");
    assert_eq!(skills[0]["item"]["resources"][1]["uri"], FORMS_MD);

    let discovered = setup.run(&["--json", "discover"]);
    let document: Value = serde_json::from_slice(&discovered.stdout).unwrap();
    assert_eq!(
        document["servers"][0]["skills"].as_array().unwrap().len(),
        3
    );

    assert_eq!(
        setup.reads(),
        Vec::<String>::new(),
        "discovery read a skill file"
    );
}

#[test]
fn a_verified_skill_is_shown_skill_md_first() {
    let setup = Setup::new("");
    let loaded = setup.run(&["skill", "load", "skills", "pdf-processing"]);
    assert_eq!(loaded.status.code(), Some(0), "{}", stderr(&loaded));
    let text = stdout(&loaded);
    assert!(
        text.contains("Skill body. See references/FORMS.md."),
        "{text}"
    );
    assert!(text.contains(FORMS_MARKER), "{text}");
    assert!(
        text.find(SKILL_MD).unwrap() < text.find(FORMS_MD).unwrap(),
        "{text}"
    );
    assert_eq!(
        setup.reads(),
        vec![
            format!("resources/read {SKILL_MD}"),
            format!("resources/read {FORMS_MD}")
        ]
    );

    // By path, as JSON: frontmatter with nested fields and numbers compared by value.
    let json = setup.run(&["--json", "skill", "load", "skills", "acme/billing/refunds"]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let document: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(document["server"], "skills");
    assert_eq!(document["entry"]["frontmatter"]["license"], "Apache-2.0");
    let files = document["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    assert!(files[0]["digest"].as_str().unwrap().starts_with("sha256:"));
    assert!(files[0]["text"].as_str().unwrap().contains("Refund body."));
}

#[test]
fn a_spoiled_skill_md_is_refused_naming_the_file_and_nothing_after_it_is_read() {
    for (tamper, what) in [
        ("spoil-digest", "its sha256 digest differs from the entry's"),
        ("spoil-size", "its size is 143 bytes, the entry says 122"),
        (
            "spoil-frontmatter",
            "its frontmatter differs from the entry's in description",
        ),
    ] {
        let setup = Setup::new(tamper);
        for json in [false, true] {
            let mut args = vec!["skill", "load", "skills", "pdf-processing"];
            if json {
                args.insert(0, "--json");
            }
            let refused = setup.run(&args);
            let (out, err) = (stdout(&refused), stderr(&refused));
            assert_eq!(refused.status.code(), Some(2), "{tamper}: {out}{err}");
            assert!(
                err.contains(&format!("failed verification: file {SKILL_MD}: {what}")),
                "{tamper}: {err}"
            );
            assert!(out.is_empty(), "{tamper}: printed {out}");
            assert!(
                !err.contains(TAMPER_MARKER),
                "{tamper}: the spoiled file shows in {err}"
            );
        }
        assert_eq!(
            setup.reads(),
            vec![format!("resources/read {SKILL_MD}"); 2],
            "{tamper}: read past the spoiled SKILL.md"
        );
    }
}

#[test]
fn a_dynamic_skill_is_refused_before_any_read_and_an_unknown_one_is_a_usage_error() {
    let setup = Setup::new("");
    let dynamic = setup.run(&["skill", "load", "skills", "generated"]);
    assert_eq!(dynamic.status.code(), Some(2), "{}", stderr(&dynamic));
    assert!(
        stderr(&dynamic).contains("(a dynamic skill), so it cannot be verified"),
        "{}",
        stderr(&dynamic)
    );
    assert!(stdout(&dynamic).is_empty());

    let unknown = setup.run(&["skill", "load", "skills", "nope"]);
    assert_eq!(unknown.status.code(), Some(1), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).contains("server 'skills' lists no skill 'nope'"),
        "{}",
        stderr(&unknown)
    );
    assert_eq!(setup.reads(), Vec::<String>::new());
}

#[test]
fn a_skill_loads_through_the_gateway_verified_and_a_spoiled_one_is_refused() {
    for (tamper, code) in [("", 0), ("spoil-digest", 2)] {
        let inner = Setup::new(tamper);
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".mcp.json");
        let gateway = json!({"command": workspace_bin("mcp-cli"), "args": [
            "--no-cache", "--config", inner.config, "serve"
        ]});
        std::fs::write(&config, json!({"mcpServers": {"gw": gateway}}).to_string()).unwrap();
        let outer = Setup { dir, config };
        let loaded = outer.run(&["skill", "load", "gw", "pdf-processing"]);
        let (out, err) = (stdout(&loaded), stderr(&loaded));
        assert_eq!(loaded.status.code(), Some(code), "{tamper}: {out}{err}");
        if code == 0 {
            assert!(out.contains(FORMS_MARKER), "{out}");
        } else {
            assert!(
                err.contains(&format!("file {SKILL_MD}: its sha256 digest differs")),
                "{err}"
            );
            assert!(!format!("{out}{err}").contains(TAMPER_MARKER));
            assert_eq!(inner.reads(), vec![format!("resources/read {SKILL_MD}")]);
        }
    }
}
