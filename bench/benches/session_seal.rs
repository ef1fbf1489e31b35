//! Sealed session ids (`serve --http`, legacy sessions): what opening one
//! costs each request (base64url, XChaCha20-Poly1305, the claims' JSON, the
//! route, subject and age checks), and what sealing one costs each
//! `initialize`. `cargo xtask bench` (case B9, the fleet) reads the medians
//! back and checks opening against its target (under 5 µs).

use std::hint::black_box;
use std::time::{Duration, UNIX_EPOCH};

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdisco_transport::server::http::Subject;
use mcpdisco_transport::server::http::session_seal::{SessionClaims, SessionKeys};

/// The claims of a typical client: a few capabilities, its name and version.
fn claims() -> SessionClaims {
    SessionClaims {
        protocol_version: "2025-11-25".into(),
        client_capabilities: serde_json::from_str(
            r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}"#,
        )
        .expect("JSON"),
        client_info: Some(
            serde_json::from_str(r#"{"name":"claude-code","title":"Claude Code","version":"2.1.0"}"#)
                .expect("JSON"),
        ),
        route: "/profiles/engineering/mcp".into(),
        subject: Subject::jwt(Some("user-1234@example.com")),
        issued_at: 1_700_000_000,
    }
}

fn session_seal(c: &mut Criterion) {
    // Two keys, as during a rotation; the id sealed by the second (older) one.
    let old = SessionKeys::from_keys(&[[9; 32]]).expect("one key");
    let keys = SessionKeys::from_keys(&[[7; 32], [9; 32]]).expect("two keys");
    let claims = claims();
    let id = old.seal(&claims);
    let subject = Subject::jwt(Some("user-1234@example.com"));
    let now = UNIX_EPOCH + Duration::from_secs(1_700_000_060);
    let max_age = Duration::from_secs(24 * 3600);
    let mut group = c.benchmark_group("session_seal");
    group.bench_function("open", |b| {
        b.iter(|| {
            let opened = keys.open(black_box(&id)).expect("opens");
            opened
                .check(
                    "/profiles/engineering/mcp",
                    &subject,
                    black_box(now),
                    max_age,
                )
                .expect("holds");
            opened
        })
    });
    group.bench_function("seal", |b| b.iter(|| keys.seal(black_box(&claims))));
    group.finish();
}

criterion_group!(benches, session_seal);
criterion_main!(benches);
