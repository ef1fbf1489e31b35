//! Keeping secrets out of what we show: masked maps, masked flag values,
//! URLs without userinfo or secret query values.

use std::collections::BTreeMap;

use mcpdisco_transport::http::HttpKind;
use mcpdisco_transport::secret::{
    Masker, SecretString, is_secret_name, looks_like_credential, redact_url,
};
use mcpdisco_transport::stdio::EnvPolicy;
use serde_json::{Value, json};

/// The mask.
pub(crate) const MASK: &str = "***";

/// `{"KEY": "***"}` for every key.
pub(crate) fn masked_map(map: &BTreeMap<String, SecretString>) -> Value {
    Value::Object(
        map.keys()
            .map(|key| (key.clone(), Value::String(MASK.to_owned())))
            .collect(),
    )
}

/// Masks the value of an argument that follows a secret-looking flag
/// (`--api-key sk-1`), or is one (`--token=abc`, `API_KEY=abc`), and any
/// argument that looks like a credential (`ghp_…`, a long random token).
pub(crate) fn mask_flag_values(args: &[String]) -> Vec<String> {
    let mut shown = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if mask_next {
            shown.push(mask_secret_value(arg));
            mask_next = false;
            continue;
        }
        if let Some((name, value)) = arg.split_once('=') {
            if is_secret_name(name) || looks_like_credential(value) {
                shown.push(format!("{name}={}", mask_secret_value(value)));
                continue;
            }
        } else if arg.starts_with('-') && is_secret_name(arg) {
            mask_next = true;
        } else if looks_like_credential(arg) {
            shown.push(MASK.to_owned());
            continue;
        }
        shown.push(arg.clone());
    }
    shown
}

/// Custom transport settings as safe to show: every string under a
/// secret-looking name, `env` or `headers` is `***`; every other string is
/// masked by value (a URL's credentials, a credential-looking argument).
pub(crate) fn masked_settings(settings: &serde_json::Map<String, Value>, masker: &Masker) -> Value {
    fn hide_all(value: &mut Value) {
        match value {
            Value::String(text) => *text = MASK.to_owned(),
            Value::Array(items) => items.iter_mut().for_each(hide_all),
            Value::Object(members) => members.values_mut().for_each(hide_all),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    fn walk(object: &mut serde_json::Map<String, Value>, masker: &Masker) {
        for (key, value) in object.iter_mut() {
            if is_secret_name(key) || key == "env" || key == "headers" {
                hide_all(value);
            } else if let Value::Object(nested) = value {
                walk(nested, masker);
            } else {
                masker.mask_value(value);
            }
        }
    }
    let mut shown = settings.clone();
    walk(&mut shown, masker);
    if let Some(Value::String(url)) = shown.get_mut("url") {
        *url = url_for_display(url);
    }
    Value::Object(shown)
}

/// How an env policy shows: `{"inherit": "allowlist", "passthrough": […]}` or `{"inherit": "all"}`.
pub(crate) fn policy_view(policy: &EnvPolicy) -> Value {
    match policy {
        EnvPolicy::InheritAll => json!({"inherit": "all"}),
        EnvPolicy::Allowlist { passthrough } => {
            json!({"inherit": "allowlist", "passthrough": passthrough})
        }
    }
}

/// A secret value as safe to show: `***`, or, when it is a template, its
/// references as written with literal text and `${VAR:-default}` defaults
/// masked (`sk-${SUFFIX:-abc}` shows as `***${SUFFIX:-***}`).
fn mask_secret_value(value: &str) -> String {
    if !value.contains("${") {
        return MASK.to_owned();
    }
    let mut shown = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        if start > 0 {
            shown.push_str(MASK);
        }
        let reference = &rest[start..];
        let Some(end) = reference.find('}') else {
            // Unterminated: expansion has already refused it, show nothing of it.
            shown.push_str(MASK);
            return shown;
        };
        match reference[..end].split_once(":-") {
            Some((name, _)) => {
                shown.push_str(name);
                shown.push_str(":-");
                shown.push_str(MASK);
                shown.push('}');
            }
            None => shown.push_str(&reference[..=end]),
        }
        rest = &reference[end + 1..];
    }
    if !rest.is_empty() {
        shown.push_str(MASK);
    }
    shown
}

/// A URL as safe to show: userinfo and secret query values masked. A
/// template (with `${…}`) is shown as written otherwise, so references stay
/// visible and their values never appear.
pub(crate) fn url_for_display(url: &str) -> String {
    if !url.contains("${") {
        return redact_url(url);
    }
    let (url, fragment) = match url.find('#') {
        Some(hash) => url.split_at(hash),
        None => (url, ""),
    };
    let (base, query) = match url.find('?') {
        Some(question) => (&url[..question], Some(&url[question + 1..])),
        None => (url, None),
    };
    let mut shown = match base.find("://") {
        Some(scheme_end) => {
            let authority_start = scheme_end + 3;
            let authority_end = base[authority_start..]
                .find('/')
                .map_or(base.len(), |end| authority_start + end);
            match base[authority_start..authority_end].rfind('@') {
                Some(at) => format!(
                    "{}{MASK}{}",
                    &base[..authority_start],
                    &base[authority_start + at..]
                ),
                None => base.to_owned(),
            }
        }
        None => base.to_owned(),
    };
    if let Some(query) = query {
        shown.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value))
                    if is_secret_name(name)
                        || value.chars().count() >= mcpdisco_transport::secret::MIN_MASKED_LEN =>
                {
                    format!("{name}={}", mask_secret_value(value))
                }
                _ => pair.to_owned(),
            })
            .collect();
        shown.push_str(&pairs.join("&"));
    }
    shown.push_str(fragment);
    shown
}

/// `https://host:port/…`: the origin only.
pub(crate) fn origin_of(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => format!("{}/…", parsed.origin().ascii_serialization()),
        Err(_) => "<invalid URL>".to_owned(),
    }
}

/// `auto`, `streamable` or `sse`.
pub(crate) fn kind_name(kind: HttpKind) -> &'static str {
    match kind {
        HttpKind::Auto => "auto",
        HttpKind::StreamableHttp => "streamable",
        HttpKind::Sse => "sse",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn flag_values_are_masked() {
        let shown = mask_flag_values(&strings(&[
            "-y",
            "server",
            "--api-key",
            "sk-123",
            "--token=abc",
            "GITHUB_TOKEN=ghp",
            "--port",
            "80",
            "--token=${T}",
            "--secret",
            "sk-${SUFFIX:-abc}",
            "key=${A}${B:-b}x",
        ]));
        assert_eq!(
            shown,
            strings(&[
                "-y",
                "server",
                "--api-key",
                "***",
                "--token=***",
                "GITHUB_TOKEN=***",
                "--port",
                "80",
                "--token=${T}",
                "--secret",
                "***${SUFFIX:-***}",
                "key=${A}${B:-***}***",
            ])
        );
    }

    #[test]
    fn urls_lose_userinfo_and_secret_query_values() {
        assert_eq!(
            url_for_display("https://user:pw@host.example/mcp?api_key=sk&x=1"),
            "https://***@host.example/mcp?api_key=***&x=1"
        );
        assert_eq!(
            url_for_display("http://127.0.0.1:${PORT:-8765}/mcp"),
            "http://127.0.0.1:${PORT:-8765}/mcp"
        );
        assert_eq!(
            url_for_display("https://${USER}:${PW}@h/x"),
            "https://***@h/x"
        );
        assert_eq!(
            url_for_display("https://u:literal@${HOST}/mcp?key=literal&t=${T}&page=2#top"),
            "https://***@${HOST}/mcp?key=***&t=${T}&page=2#top"
        );
    }
}
