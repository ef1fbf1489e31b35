use super::*;

const ISSUED: u64 = 1_700_000_000;
const DAY: Duration = Duration::from_secs(24 * 3600);

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(seconds)
}

fn claims() -> SessionClaims {
    SessionClaims {
        protocol_version: "2025-11-25".into(),
        client_capabilities: serde_json::from_str(
            r#"{"sampling":{},"roots":{"listChanged":true}}"#,
        )
        .unwrap(),
        client_info: Some(serde_json::from_str(r#"{"name":"client","version":"1.0"}"#).unwrap()),
        route: "/profiles/dev/mcp".into(),
        subject: Subject::jwt(Some("alice")),
        issued_at: ISSUED,
    }
}

fn key(byte: u8) -> [u8; KEY_LEN] {
    [byte; KEY_LEN]
}

#[test]
fn a_sealed_id_opens_to_its_claims_and_is_short_and_header_safe() {
    let keys = SessionKeys::from_keys(&[key(1)]).unwrap();
    let id = keys.seal(&claims());
    assert_eq!(keys.open(&id), Ok(claims()));
    assert!(id.len() < 400, "{} bytes", id.len());
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    // A fresh nonce each time: two seals of the same claims differ.
    assert_ne!(keys.seal(&claims()), id);
}

#[test]
fn capabilities_or_info_that_do_not_read_open_as_none_declared() {
    let keys = SessionKeys::from_keys(&[key(1)]).unwrap();
    let mut wire = claims().to_wire();
    wire.c = serde_json::Value::String("not capabilities".into());
    wire.i = serde_json::json!({"version": "no name"});
    let opened = keys.open(&keys.seal_wire(&wire)).unwrap();
    assert_eq!(opened.client_capabilities, ClientCapabilities::default());
    assert_eq!(opened.client_info, None);
    assert_eq!(opened.route, claims().route);
    // As a client that sent neither leaves them.
    wire.c = serde_json::Value::Null;
    wire.i = serde_json::Value::Null;
    let opened = keys.open(&keys.seal_wire(&wire)).unwrap();
    assert_eq!(opened.client_capabilities, ClientCapabilities::default());
    assert_eq!(opened.client_info, None);
}

#[test]
fn an_id_changed_in_any_byte_is_refused() {
    let keys = SessionKeys::from_keys(&[key(1)]).unwrap();
    let bytes = URL_SAFE_NO_PAD.decode(keys.seal(&claims())).unwrap();
    for at in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[at] ^= 0x01;
        let refusal = keys.open(&URL_SAFE_NO_PAD.encode(&changed)).unwrap_err();
        let expected = match at {
            0 => SessionRefusal::Malformed,
            1..=4 => SessionRefusal::UnknownKey,
            _ => SessionRefusal::Tampered,
        };
        assert_eq!(refusal, expected, "byte {at}");
    }
}

#[test]
fn an_id_sealed_with_another_key_is_refused() {
    let id = SessionKeys::from_keys(&[key(2)]).unwrap().seal(&claims());
    let keys = SessionKeys::from_keys(&[key(1)]).unwrap();
    assert_eq!(keys.open(&id), Err(SessionRefusal::UnknownKey));
}

#[test]
fn keys_rotate_the_first_seals_and_every_one_opens() {
    let old = SessionKeys::from_keys(&[key(1)]).unwrap();
    let old_id = old.seal(&claims());
    let rotated = SessionKeys::from_keys(&[key(2), key(1)]).unwrap();
    assert_eq!(rotated.open(&old_id), Ok(claims()));
    let new_id = rotated.seal(&claims());
    // Sealed with the new key: the old ring alone cannot open it.
    assert_eq!(old.open(&new_id), Err(SessionRefusal::UnknownKey));
    let new_only = SessionKeys::from_keys(&[key(2)]).unwrap();
    assert_eq!(new_only.open(&new_id), Ok(claims()));
}

#[test]
fn an_id_is_bound_to_its_route_and_subject() {
    let claims = claims();
    let alice = Subject::jwt(Some("alice"));
    assert_eq!(
        claims.check("/profiles/dev/mcp", &alice, at(ISSUED), DAY),
        Ok(())
    );
    assert_eq!(
        claims.check("/mcp", &alice, at(ISSUED), DAY),
        Err(SessionRefusal::OtherRoute {
            opened_on: "/profiles/dev/mcp".into(),
            presented_on: "/mcp".into(),
        })
    );
    for other in [
        Subject::jwt(Some("bob")),
        Subject::jwt(None),
        Subject::token("alice"),
        Subject::anonymous(),
    ] {
        assert_eq!(
            claims.check("/profiles/dev/mcp", &other, at(ISSUED), DAY),
            Err(SessionRefusal::OtherSubject)
        );
    }
}

#[test]
fn an_id_older_than_the_maximum_age_is_refused() {
    let claims = claims();
    let alice = Subject::jwt(Some("alice"));
    let route = "/profiles/dev/mcp";
    let max_age = Duration::from_secs(60);
    assert_eq!(
        claims.check(route, &alice, at(ISSUED + 60), max_age),
        Ok(())
    );
    assert_eq!(
        claims.check(route, &alice, at(ISSUED + 61), max_age),
        Err(SessionRefusal::Expired {
            age: Duration::from_secs(61),
            max_age,
        })
    );
    // A clock behind the issuer's is not an error.
    assert_eq!(claims.check(route, &alice, at(ISSUED - 5), max_age), Ok(()));
}

#[test]
fn anything_that_is_not_a_sealed_id_is_malformed() {
    let keys = SessionKeys::from_keys(&[key(1)]).unwrap();
    for id in ["", "abc", "not base64!", "0123456789abcdef0123456789abcdef"] {
        assert_eq!(keys.open(id), Err(SessionRefusal::Malformed), "{id:?}");
    }
    // A genuine id made too long (with base64 that decodes) is not read.
    let long = format!("{}{}", keys.seal(&claims()), "A".repeat(MAX_ID_LEN));
    assert_eq!(keys.open(&long), Err(SessionRefusal::Malformed));
}

#[test]
fn a_key_file_has_one_base64_key_a_line_with_comments_and_blank_lines() {
    let text = format!(
        "# new\n{}\n\n  # old\n{}\n",
        STANDARD.encode(key(2)),
        STANDARD.encode(key(1))
    );
    let keys = SessionKeys::parse(&text).unwrap();
    assert_eq!(keys.len(), 2);
    let old_id = SessionKeys::from_keys(&[key(1)]).unwrap().seal(&claims());
    assert!(keys.open(&old_id).is_ok());
    assert_eq!(
        SessionKeys::parse("# none\n\n").unwrap_err(),
        SessionKeyError::Empty
    );
    let short = format!(
        "{}\n{}\n",
        STANDARD.encode(key(1)),
        STANDARD.encode([0u8; 16])
    );
    assert_eq!(
        SessionKeys::parse(&short).unwrap_err(),
        SessionKeyError::BadKey { line: 2 }
    );
    assert_eq!(
        SessionKeys::parse("secret-not-base64").unwrap_err(),
        SessionKeyError::BadKey { line: 1 }
    );
    // The error names the line, never the key.
    let message = SessionKeys::parse("secret-not-base64")
        .unwrap_err()
        .to_string();
    assert!(!message.contains("secret"), "{message}");
}

#[test]
fn a_ring_s_clones_share_its_replaced_keys() {
    let ring = SessionKeyRing::new(SessionKeys::from_keys(&[key(1)]).unwrap());
    let clone = ring.clone();
    let id = clone.keys().seal(&claims());
    ring.replace(SessionKeys::from_keys(&[key(2)]).unwrap());
    assert_eq!(clone.keys().open(&id), Err(SessionRefusal::UnknownKey));
}
