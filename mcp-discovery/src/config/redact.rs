//! Keeping secrets out of what we show: masked maps, masked flag values,
//! URLs without userinfo or secret query values.

use std::collections::BTreeMap;

use mcp_transport::http::{HttpKind, is_secret_name, redact_url};
use serde_json::Value;

/// The mask.
pub(crate) const MASK: &str = "***";

/// `{"KEY": "***"}` for every key.
pub(crate) fn masked_map(map: &BTreeMap<String, String>) -> Value {
    Value::Object(
        map.keys()
            .map(|key| (key.clone(), Value::String(MASK.to_owned())))
            .collect(),
    )
}

/// Masks the value of an argument that follows a secret-looking flag
/// (`--api-key sk-1`), or is one (`--token=abc`, `API_KEY=abc`).
pub(crate) fn mask_flag_values(args: &[String]) -> Vec<String> {
    let mut shown = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for arg in args {
        if mask_next && !arg.contains("${") {
            shown.push(MASK.to_owned());
            mask_next = false;
            continue;
        }
        mask_next = false;
        if let Some((name, value)) = arg.split_once('=') {
            if is_secret_name(name) && !value.contains("${") {
                shown.push(format!("{name}={MASK}"));
                continue;
            }
        } else if arg.starts_with('-') && is_secret_name(arg) {
            mask_next = true;
        }
        shown.push(arg.clone());
    }
    shown
}

/// A URL as safe to show. A template (with `${…}`) is shown as written,
/// userinfo masked; a plain URL loses userinfo and secret query values.
pub(crate) fn url_for_display(url: &str) -> String {
    if !url.contains("${") {
        return redact_url(url);
    }
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let authority_start = scheme_end + 3;
    let authority_end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |end| authority_start + end);
    match url[authority_start..authority_end].rfind('@') {
        Some(at) => format!(
            "{}***{}",
            &url[..authority_start],
            &url[authority_start + at..]
        ),
        None => url.to_owned(),
    }
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
                "--token=${T}"
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
    }
}
