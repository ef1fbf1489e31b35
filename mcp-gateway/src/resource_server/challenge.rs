//! The `WWW-Authenticate` challenge of a refused request (RFC 6750 §3, with
//! RFC 9728's `resource_metadata`), and the status that goes with it.

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    /// No bearer token: 401, the challenge without an error.
    NoToken,
    /// A token that is not valid: 401, `error="invalid_token"`.
    InvalidToken {
        /// What is wrong with it (no secret in it).
        description: String,
    },
    /// A valid token without the scopes needed: 403,
    /// `error="insufficient_scope"` and the `scope` needed.
    InsufficientScope {
        /// Every scope needed, space-separated.
        scope: String,
    },
}

impl Challenge {
    /// 401 or 403.
    pub fn status(&self) -> u16 {
        match self {
            Challenge::NoToken | Challenge::InvalidToken { .. } => 401,
            Challenge::InsufficientScope { .. } => 403,
        }
    }

    /// The `WWW-Authenticate` value pointing at `metadata_url`.
    pub fn header(&self, metadata_url: &str) -> String {
        let mut header = format!("Bearer resource_metadata=\"{}\"", quoted(metadata_url));
        match self {
            Challenge::NoToken => {}
            Challenge::InvalidToken { description } => {
                header.push_str(", error=\"invalid_token\", error_description=\"");
                header.push_str(&quoted(description));
                header.push('"');
            }
            Challenge::InsufficientScope { scope } => {
                header.push_str(", error=\"insufficient_scope\", scope=\"");
                header.push_str(&quoted(scope));
                header.push('"');
            }
        }
        header
    }

    /// The body of the refusal, for a person reading it.
    pub fn message(&self) -> String {
        match self {
            Challenge::NoToken => "a bearer token is required".to_owned(),
            Challenge::InvalidToken { description } => format!("invalid token: {description}"),
            Challenge::InsufficientScope { scope } => {
                format!("the token lacks the scope this needs: {scope}")
            }
        }
    }
}

/// A quoted-string's content: printable ASCII without `"` and `\`
/// (RFC 6750 allows no more in `error_description`), others dropped.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| matches!(c, ' '..='~') && *c != '"' && *c != '\\')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = "http://127.0.0.1:8080/.well-known/oauth-protected-resource";

    #[test]
    fn without_a_token_the_challenge_only_points_at_the_metadata() {
        let challenge = Challenge::NoToken;
        assert_eq!(challenge.status(), 401);
        assert_eq!(
            challenge.header(METADATA),
            format!("Bearer resource_metadata=\"{METADATA}\"")
        );
    }

    #[test]
    fn a_bad_token_is_an_invalid_token_with_a_clean_description() {
        let challenge = Challenge::InvalidToken {
            description: "expired \"exp\"\n".into(),
        };
        assert_eq!(challenge.status(), 401);
        assert_eq!(
            challenge.header(METADATA),
            format!(
                "Bearer resource_metadata=\"{METADATA}\", error=\"invalid_token\", error_description=\"expired exp\""
            )
        );
    }

    #[test]
    fn a_missing_scope_is_403_naming_the_scope() {
        let challenge = Challenge::InsufficientScope {
            scope: "mcp:ops mcp:tools".into(),
        };
        assert_eq!(challenge.status(), 403);
        assert!(
            challenge
                .header(METADATA)
                .ends_with(", error=\"insufficient_scope\", scope=\"mcp:ops mcp:tools\"")
        );
    }
}
