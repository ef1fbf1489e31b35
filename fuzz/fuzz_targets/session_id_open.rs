//! Opening a session id never panics: any bytes in, a refusal out (or the
//! claims of a genuine id), and a genuine id changed in any byte is refused.
#![no_main]

use std::sync::LazyLock;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use libfuzzer_sys::fuzz_target;
use mcpdisco_transport::server::http::Subject;
use mcpdisco_transport::server::http::session_seal::{SessionClaims, SessionKeys};

/// A ring of two keys, as after a rotation.
static KEYS: LazyLock<SessionKeys> =
    LazyLock::new(|| SessionKeys::from_keys(&[[7; 32], [9; 32]]).expect("two keys"));

/// The bytes of a genuine id.
static SEALED: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let claims = SessionClaims {
        protocol_version: "2025-11-25".into(),
        client_capabilities: serde_json::from_str(r#"{"roots":{"listChanged":true}}"#)
            .expect("JSON"),
        client_info: Some(serde_json::from_str(r#"{"name":"fuzz","version":"1"}"#).expect("JSON")),
        route: "/mcp".into(),
        subject: Subject::anonymous(),
        issued_at: 1_700_000_000,
    };
    URL_SAFE_NO_PAD.decode(KEYS.seal(&claims)).expect("base64url")
});

/// Opens `id` and checks what it carries, as a request would.
fn present(id: &str) -> bool {
    match KEYS.open(id) {
        Ok(claims) => {
            let now = SystemTime::now();
            let _ = claims.check("/mcp", &Subject::anonymous(), now, Duration::from_secs(60));
            true
        }
        Err(refusal) => {
            let _ = refusal.to_string();
            false
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // As a header's text: whatever a client sends.
    if let Ok(text) = std::str::from_utf8(data) {
        present(text);
    }
    // As an id's bytes: past the base64 check, into the seal.
    present(&URL_SAFE_NO_PAD.encode(data));
    // As changes to a genuine id: each (position, mask) pair flips its bits.
    let mut id = SEALED.clone();
    for pair in data.chunks_exact(2) {
        let at = usize::from(pair[0]) % id.len();
        id[at] ^= pair[1];
    }
    let opened = present(&URL_SAFE_NO_PAD.encode(&id));
    assert_eq!(opened, id == *SEALED, "a changed id opened, or the genuine one did not");
});
