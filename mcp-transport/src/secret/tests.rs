use proptest::prelude::*;

use super::*;

#[test]
fn every_occurrence_becomes_the_mask_and_other_text_is_untouched() {
    let masker = Masker::new(["sk-live-4f9a8b7c", "hunter2-password"]);
    assert_eq!(
        masker.mask("key=sk-live-4f9a8b7c and again sk-live-4f9a8b7c; pw hunter2-password."),
        "key=*** and again ***; pw ***."
    );
    let clean = "nothing to see here";
    assert!(matches!(masker.mask(clean), Cow::Borrowed(_)));
    assert_eq!(masker.mask_string(clean.to_owned()), clean);
}

#[test]
fn short_values_are_not_masked() {
    let masker = Masker::new(["abc", "12345", "prod"]);
    assert!(masker.is_empty());
    assert_eq!(masker.mask("abc 12345 prod"), "abc 12345 prod");
    assert_eq!(Masker::new(["123456"]).mask("x123456y"), "x***y");
}

#[test]
fn encoded_forms_of_a_secret_are_masked_too() {
    let secret = "p@ss word/+\"x";
    let masker = Masker::new([secret]);
    assert_eq!(masker.mask("raw p@ss word/+\"x"), "raw ***");
    assert_eq!(masker.mask("url p%40ss%20word%2F%2B%22x"), "url ***");
    assert_eq!(masker.mask("form p%40ss+word%2F%2B%22x"), "form ***");
    assert_eq!(masker.mask(r#"json "p@ss word/+\"x""#), r#"json "***""#);
}

#[cfg(feature = "url")]
#[test]
fn urls_give_their_userinfo_and_query_values() {
    let masker = Masker::builder()
        .url("https://alice-admin:s3cr%21t-pw@example.com/mcp?api_key=tok-123456&page=2&mode=streamable")
        .build();
    let text = "alice-admin s3cr!t-pw tok-123456 page=2 streamable";
    assert_eq!(masker.mask(text), "*** *** *** page=2 ***");
}

#[test]
fn command_lines_give_flag_values_and_credentials() {
    let masker = Masker::builder()
        .args(&[
            "-y",
            "@modelcontextprotocol/server-github@2026.8.31",
            "--api-key",
            "abcdef-123",
            "--password=letmein99",
            "GITHUB_TOKEN=tokenvalue1",
            "ghp_0123456789abcdefABCDEF0123456789abcd",
            "--port",
            "8080",
            "/home/user/projects/very-long-directory-name-2024",
        ])
        .build();
    assert_eq!(masker.len(), 4);
    let text = "abcdef-123 letmein99 tokenvalue1 ghp_0123456789abcdefABCDEF0123456789abcd 8080 /home/user/projects/very-long-directory-name-2024 @modelcontextprotocol/server-github@2026.8.31";
    assert_eq!(
        masker.mask(text),
        "*** *** *** *** 8080 /home/user/projects/very-long-directory-name-2024 @modelcontextprotocol/server-github@2026.8.31"
    );
}

#[test]
fn credentials_are_recognised_by_shape() {
    for credential in [
        "ghp_0123456789abcdefABCDEF0123456789abcd",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "sk-proj-aB3dE5fG7hI9jK1lM3nO5pQ7",
        "xoxb-1234567890-abcdefghij",
        "AKIAIOSFODNN7EXAMPLE",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
        "0123456789abcdef0123456789abcdef01234567",
        "Zx8Qm2Lp9Rt4Vw7Ky3Nb6Hc1",
    ] {
        assert!(looks_like_credential(credential), "{credential}");
    }
    for ordinary in [
        "--port",
        "8080",
        "server-filesystem",
        "/tmp/some/long/path/to/a/file.json",
        "@modelcontextprotocol/server-everything@2026.8.31",
        "https://example.com/a/b/c/d/e/f/g",
        "streamable-http",
        "mcp-server-time==2026.10.19",
        "a very long sentence with spaces in it",
        "the_quick_brown_fox_jumps_over",
        "sk-1",
    ] {
        assert!(!looks_like_credential(ordinary), "{ordinary}");
    }
}

#[test]
fn json_is_masked_inside_strings_and_kept_when_clean() {
    let masker = Masker::new(["sk-live-4f9a8b7c"]);
    let clean = RawJson::parse(r#"{"name":"echo","description":"no secret"}"#).unwrap();
    let kept = masker.mask_json(&clean);
    assert_eq!(kept.as_bytes().as_ptr(), clean.as_bytes().as_ptr());
    let dirty =
        RawJson::parse(r#"{"name":"echo","description":"key sk-live-4f9a8b7c","sk-live-4f9a8b7c":[1,"sk-live-4f9a8b7c"]}"#)
            .unwrap();
    let masked = masker.mask_json(&dirty);
    assert_eq!(
        masked.to_value().unwrap(),
        serde_json::json!({"name": "echo", "description": "key ***", "***": [1, "***"]})
    );
}

#[test]
fn union_knows_both_and_shares_when_it_can() {
    let a = Masker::new(["secret-a-123"]);
    let b = Masker::new(["secret-b-456"]);
    let both = a.union(&b);
    assert_eq!(both.mask("secret-a-123 secret-b-456"), "*** ***");
    assert_eq!(Masker::default().union(&a).len(), 1);
    assert_eq!(a.union(&Masker::default()).len(), 1);
}

#[cfg(feature = "url")]
#[test]
fn secret_url_shows_only_its_redacted_form() {
    let url = SecretUrl::new("https://user:pw-123456@h.example/mcp?token=abcdef123&x=1");
    assert_eq!(url.redacted(), "https://***@h.example/mcp?token=***&x=1");
    let shown = format!("{url:?}");
    assert!(
        !shown.contains("pw-123456") && !shown.contains("abcdef123"),
        "{shown}"
    );
    assert_eq!(
        url.expose_secret(),
        "https://user:pw-123456@h.example/mcp?token=abcdef123&x=1"
    );
}

#[cfg(feature = "url")]
#[test]
fn redacted_urls_hide_long_and_secret_named_query_values() {
    assert_eq!(
        redact_url("http://127.0.0.1:9/mcp?api_key=abc&page=2&state=verylongvalue"),
        "http://127.0.0.1:9/mcp?api_key=***&page=2&state=***"
    );
    assert_eq!(redact_url("not a url"), "<invalid URL>");
}

fn secret_strategy() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_\\-\\.]{6,40}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_planted_secret_never_survives(
        secret in secret_strategy(),
        before in "\\PC{0,80}",
        after in "\\PC{0,80}",
        repeat in 1usize..4,
    ) {
        let masker = Masker::new([secret.as_str()]);
        let mut text = before.clone();
        for _ in 0..repeat {
            text.push_str(&secret);
            text.push_str(&after);
        }
        let masked = masker.mask(&text);
        prop_assert!(!masked.contains(secret.as_str()), "{masked:?}");
        let mut value = serde_json::json!({"text": text, "list": [text.clone()]});
        masker.mask_value(&mut value);
        prop_assert!(!value.to_string().contains(secret.as_str()));
    }

    #[test]
    fn text_without_a_secret_passes_unchanged(
        secret in secret_strategy(),
        text in "\\PC{0,200}",
    ) {
        let masker = Masker::new([secret.as_str()]);
        prop_assume!(!masker.finds_secret_in(&text));
        prop_assert_eq!(masker.mask(&text), Cow::Borrowed(text.as_str()));
    }
}

#[test]
fn secrets_spelled_with_json_escapes_are_found_and_masked() {
    let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let masker = Masker::new([secret]);
    // A server that escapes '/' (PHP, some Java libraries) or writes ASCII only.
    for text in [
        r#"{"text":"key wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYEXAMPLEKEY"}"#,
        r#"{"text":"key w\u004aalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"#,
    ] {
        let raw = RawJson::parse(text).unwrap();
        let masked = masker.mask_json(&raw);
        assert_eq!(masked.to_value().unwrap()["text"], "key ***", "{text}");
        assert!(!masker.mask_json_text(text).contains("EXAMPLEKEY"));
    }
    let accented = Masker::new(["pässwörd-123"]);
    let raw = RawJson::parse(r#"{"p":"p\u00e4ssw\u00f6rd-123"}"#).unwrap();
    assert_eq!(accented.mask_json(&raw).to_value().unwrap()["p"], "***");
    // Escapes without a secret leave the text as it was.
    let clean = RawJson::parse(r#"{"text":"a\/b\n"}"#).unwrap();
    assert_eq!(
        masker.mask_json(&clean).as_bytes().as_ptr(),
        clean.as_bytes().as_ptr()
    );
}

#[test]
fn a_cut_never_shows_the_start_of_a_secret() {
    let masker = Masker::new(["sk-live-0815abcdef"]);
    let text = format!("{}sk-live-0815abcdef tail", "x".repeat(10));
    let cut = masker.mask_prefix(&text, 14);
    assert_eq!(cut, "xxxxxxxxxx*** ");
    assert_eq!(Masker::default().mask_prefix("abcdef", 3), "abc");
}
