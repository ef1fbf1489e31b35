//! `WWW-Authenticate` challenges (RFC 6750 §3, RFC 9728 §5.1): which
//! metadata to read, which scopes to ask for, and why a token was refused.

/// One `Bearer` (or `DPoP`) challenge's parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// The scheme, lowercased (`bearer` or `dpop`).
    pub scheme: String,
    /// `resource_metadata`: the protected-resource metadata URL (RFC 9728).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs, space-separated.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, `invalid_request`, ….
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
}

impl Challenge {
    /// The scopes of `scope`, in order, without duplicates.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or_default())
    }

    /// Whether the token lacks a scope the request needs (a 403 step-up).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Splits a space-separated scope string, keeping the first of duplicates.
pub fn split_scopes(scope: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    for scope in scope.split_ascii_whitespace() {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    scopes
}

/// Reads the first `Bearer` or `DPoP` challenge of a `WWW-Authenticate`
/// value (which may hold several challenges, each with its parameters).
/// Lenient: unknown parameters are skipped, a malformed tail ends the read.
pub fn parse(header: &str) -> Option<Challenge> {
    let mut rest = header.trim();
    let mut found: Option<Challenge> = None;
    while !rest.is_empty() {
        // A scheme token, then parameters until the next scheme.
        let end = rest
            .find(|c: char| c.is_ascii_whitespace() || c == ',')
            .unwrap_or(rest.len());
        let scheme = rest[..end].to_ascii_lowercase();
        rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        let mut challenge = Challenge {
            scheme: scheme.clone(),
            ..Challenge::default()
        };
        while let Some((name, value, after)) = param(rest) {
            rest = after.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
            match name.to_ascii_lowercase().as_str() {
                "resource_metadata" => challenge.resource_metadata = Some(value),
                "scope" => challenge.scope = Some(value),
                "error" => challenge.error = Some(value),
                "error_description" => challenge.error_description = Some(value),
                _ => {}
            }
        }
        if found.is_none() && (scheme == "bearer" || scheme == "dpop") {
            found = Some(challenge);
        }
    }
    found
}

/// One `name=value` or `name="quoted value"` at the start of `text`.
fn param(text: &str) -> Option<(String, String, &str)> {
    let eq = text.find('=')?;
    let name = text[..eq].trim();
    if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace() || c == ',') {
        return None;
    }
    let after = text[eq + 1..].trim_start();
    if let Some(quoted) = after.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((index, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return Some((name.to_owned(), value, &quoted[index + 1..])),
                other => value.push(other),
            }
        }
        None
    } else {
        let end = after.find([',', ' ', '\t']).unwrap_or(after.len());
        Some((name.to_owned(), after[..end].to_owned(), &after[end..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_resource_metadata_and_scope() {
        let challenge = parse(
            r#"Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp", scope="mcp:basic mcp:read""#,
        )
        .unwrap();
        assert_eq!(challenge.scheme, "bearer");
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(challenge.scopes(), vec!["mcp:basic", "mcp:read"]);
    }

    #[test]
    fn reads_insufficient_scope_with_escapes_and_tokens() {
        let challenge = parse(
            r#"Bearer error="insufficient_scope", scope="a b", error_description="needs \"b\"""#,
        )
        .unwrap();
        assert!(challenge.is_insufficient_scope());
        assert_eq!(challenge.error_description.as_deref(), Some("needs \"b\""));
        let bare = parse("Bearer error=invalid_token").unwrap();
        assert_eq!(bare.error.as_deref(), Some("invalid_token"));
        assert_eq!(parse("Bearer").unwrap().scope, None);
    }

    #[test]
    fn picks_the_bearer_challenge_among_several() {
        let challenge =
            parse(r#"Basic realm="x", Bearer scope="s", resource_metadata="http://h/m""#).unwrap();
        assert_eq!(challenge.scope.as_deref(), Some("s"));
        assert_eq!(challenge.resource_metadata.as_deref(), Some("http://h/m"));
        assert_eq!(parse(r#"Basic realm="x""#), None);
        assert_eq!(parse(""), None);
        assert_eq!(parse(r#"Bearer scope="unterminated"#).unwrap().scope, None);
        // Line breaks and other whitespace between parts end, never loop.
        assert_eq!(
            parse("a\nb\x0cc\rBearer\nscope=x")
                .unwrap()
                .scope
                .as_deref(),
            Some("x")
        );
    }

    #[test]
    fn scopes_keep_order_and_drop_duplicates() {
        assert_eq!(split_scopes(" a  b a c "), vec!["a", "b", "c"]);
    }
}
