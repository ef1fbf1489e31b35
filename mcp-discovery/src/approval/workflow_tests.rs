//! The approval transaction as a host runs it: export, approve, verify,
//! revoke, and what each says when it cannot.

use mcpdisco_capability::PinStatus;
use mcpdisco_protocol::RawJson;
use serde_json::{Value, json};

use super::*;
use crate::report::{DiscoveryReport, Failure, ServerReport, ServerStatus};

fn server() -> ServerConfig {
    ServerConfig::http("code", "http://127.0.0.1:1/mcp")
}

fn search(description: &str) -> Value {
    json!({"name": "search_code", "description": description,
           "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}})
}

/// A discovery that found `tools` and one prompt on the server.
fn report(tools: &[Value]) -> DiscoveryReport {
    let mut found = ServerReport::empty("code", ServerStatus::Ready);
    found.tools = tools.iter().map(RawJson::from_value).collect();
    found.prompts = vec![RawJson::from_value(&json!({"name": "review"}))].into();
    DiscoveryReport {
        servers: vec![found],
    }
}

fn approvals(dir: &std::path::Path) -> Approvals {
    Approvals::new(
        CapabilityDir::new(dir.join("capabilities")),
        PinStore::new(dir.join(store::LOCK_FILE)),
    )
}

#[tokio::test]
async fn export_approve_verify_and_revoke() {
    let dir = tempfile::tempdir().unwrap();
    let approvals = approvals(dir.path());
    let servers = [server()];
    let fetch = json!({"name": "fetch", "inputSchema": {"type": "object"}});
    let broken = json!({"name": "broken", "description": "no input schema"});
    let now = report(&[search("Searches code."), fetch.clone(), broken]);

    let exported = approvals
        .export(&servers, &now, &OutputTypes::default(), Formats::Rtfs)
        .unwrap();
    let names: Vec<&str> = exported.manifests.iter().map(|m| m.tool.as_str()).collect();
    assert_eq!(names, ["search_code", "fetch"]);
    assert_eq!(exported.files.len(), 2);
    let [Warning::NotATool { server, error }] = exported.warnings.as_slice() else {
        panic!("{:?}", exported.warnings);
    };
    assert_eq!(server, "code");
    assert!(
        error.starts_with("'broken': ") && error.contains("missing field `inputSchema`"),
        "{error}"
    );
    assert_eq!(approvals.pending().unwrap().len(), 2);

    let approved = approvals.approve(&servers[0], &[], &now).await.unwrap();
    let stems: Vec<&str> = approved.manifests.iter().map(|m| m.tool.as_str()).collect();
    assert_eq!(stems, ["fetch", "search_code"]);
    assert_eq!(
        approved.pins,
        ["tool:fetch", "tool:search_code", "prompt:review"]
    );
    assert_eq!(approved.lock, dir.path().join(store::LOCK_FILE));
    assert!(approved.warnings.is_empty());
    assert!(approvals.pending().unwrap().is_empty());

    // The rug pull: the description changes after approval.
    let later = report(&[search("Searches code, and more."), fetch]);
    let verified = approvals.pins().verify(&servers, &later).await.unwrap();
    assert!(verified.violated());
    let [checked] = verified.servers.as_slice() else {
        panic!("{:?}", verified.servers);
    };
    let not_as_approved: Vec<(&str, PinStatus)> = checked
        .not_as_approved()
        .map(|c| (c.key.as_str(), c.status))
        .collect();
    assert_eq!(
        not_as_approved,
        [("tool:search_code", PinStatus::Changed)],
        "the broken tool, never approved, is gone now"
    );

    let revoked = approvals
        .revoke(&servers[0], &["search_code".into()])
        .await
        .unwrap();
    assert_eq!(revoked.pins, ["tool:search_code"]);
    assert_eq!(approvals.pending().unwrap().len(), 1);
    let nothing = approvals
        .revoke(&servers[0], &["search_code".into()])
        .await
        .unwrap();
    assert!(nothing.manifests.is_empty() && nothing.pins.is_empty());
}

#[tokio::test]
async fn approval_pins_nothing_when_the_server_is_down_or_no_longer_offers_a_tool() {
    let dir = tempfile::tempdir().unwrap();
    let approvals = approvals(dir.path());
    let servers = [server()];
    let now = report(&[search("Searches code.")]);
    approvals
        .export(&servers, &now, &OutputTypes::default(), Formats::Json)
        .unwrap();

    let down = DiscoveryReport {
        servers: vec![ServerReport::failed(
            "code",
            Failure {
                kind: "spawn".into(),
                message: "refusing to start again".into(),
            },
            std::time::Duration::ZERO,
        )],
    };
    let error = approvals
        .approve(&servers[0], &[], &down)
        .await
        .unwrap_err();
    assert!(
        matches!(&error.failure, ApprovalFailure::NotDiscovered { why, .. } if why == "refusing to start again"),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .ends_with("Nothing was approved or pinned.")
    );

    let gone = report(&[]);
    let error = approvals
        .approve(&servers[0], &[], &gone)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot approve 'code': it no longer offers 'search_code' (export again to review \
         what it offers now). Nothing was approved or pinned."
    );
    assert!(!dir.path().join(store::LOCK_FILE).exists());
    assert_eq!(
        approvals.pending().unwrap().len(),
        1,
        "the manifest stays pending"
    );

    // Nothing pending for a tool: nothing to approve, whatever the server says.
    let none = approvals
        .approve(&servers[0], &["other".into()], &down)
        .await
        .unwrap();
    assert!(none.manifests.is_empty() && none.pins.is_empty());
}

#[tokio::test]
async fn a_failed_step_keeps_the_warnings_it_had() {
    let dir = tempfile::tempdir().unwrap();
    let servers = [server()];
    let now = report(&[search("Searches code.")]);
    // The lock file's place is a folder: the pins cannot be written.
    let lock = dir.path().join("lock-is-a-folder");
    std::fs::create_dir(&lock).unwrap();
    let approvals = Approvals::new(
        CapabilityDir::new(dir.path().join("capabilities")),
        PinStore::new(&lock).with_shared_url("not a url", "p:"),
    );
    approvals
        .export(&servers, &now, &OutputTypes::default(), Formats::Rtfs)
        .unwrap();
    let error = approvals.approve(&servers[0], &[], &now).await.unwrap_err();
    assert!(matches!(error.failure, ApprovalFailure::Pins(_)), "{error}");
    assert!(
        matches!(
            error.warnings.as_slice(),
            [Warning::SharedPinsUnread { .. }]
        ),
        "{:?}",
        error.warnings
    );
}
