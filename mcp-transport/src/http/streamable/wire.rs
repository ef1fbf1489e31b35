//! Small helpers of the Streamable HTTP pump: quoting a body in an error
//! message, and setting a header from text.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// How much of an unexpected body an error quotes.
const QUOTED_BODY: usize = 200;

/// The start of a body, for an error message: lossy UTF-8 on one line, cut short.
pub(super) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(QUOTED_BODY * 4)]);
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if line.chars().count() > QUOTED_BODY {
        let cut: String = line.chars().take(QUOTED_BODY).collect();
        format!("{cut}…")
    } else {
        line
    }
}

/// Sets header `name` to `value`; a name or value HTTP cannot carry is
/// skipped (and logged).
pub(super) fn insert(headers: &mut HeaderMap, name: &str, value: &str) {
    match (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(value),
    ) {
        (Ok(name), Ok(value)) => {
            headers.insert(name, value);
        }
        _ => tracing::debug!(header = name, "skipping a header that cannot be sent"),
    }
}
