//! Scopes a token grants, and the check of those a resource requires
//! (the whole gateway, or a profile's `requiredScopes`).

use serde::Deserialize;

/// The scopes of a token: its `scope` claim (RFC 8693/9068, a string of
/// space-separated scopes) and its `scp` claim (a list or a string, as
/// some providers issue it), together.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct GrantedScopes {
    #[serde(default)]
    scope: Option<ScopeClaim>,
    #[serde(default)]
    scp: Option<ScopeClaim>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
enum ScopeClaim {
    Text(String),
    List(Vec<String>),
}

impl ScopeClaim {
    fn contains(&self, wanted: &str) -> bool {
        match self {
            ScopeClaim::Text(text) => text.split_ascii_whitespace().any(|scope| scope == wanted),
            ScopeClaim::List(list) => list.iter().any(|scope| scope == wanted),
        }
    }
}

impl GrantedScopes {
    /// A token's `scope` claim alone.
    pub fn from_scope_claim(scope: &str) -> Self {
        Self {
            scope: Some(ScopeClaim::Text(scope.to_owned())),
            scp: None,
        }
    }

    /// Whether the token grants `scope`.
    pub fn grants(&self, scope: &str) -> bool {
        [&self.scope, &self.scp]
            .into_iter()
            .flatten()
            .any(|claim| claim.contains(scope))
    }
}

/// The scopes of `required` the token does not grant, in their order;
/// empty when it may go on.
pub fn missing_scopes<'a>(granted: &GrantedScopes, required: &'a [String]) -> Vec<&'a str> {
    required
        .iter()
        .map(String::as_str)
        .filter(|scope| !granted.grants(scope))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn required(scopes: &[&str]) -> Vec<String> {
        scopes.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_scope_claim_is_split_on_spaces() {
        let granted = GrantedScopes::from_scope_claim("mcp:tools  mcp:ops");
        assert!(missing_scopes(&granted, &required(&["mcp:ops", "mcp:tools"])).is_empty());
        assert_eq!(
            missing_scopes(&granted, &required(&["mcp:admin", "mcp:ops", "mcp"])),
            ["mcp:admin", "mcp"]
        );
    }

    #[test]
    fn scp_as_a_list_or_a_string_counts_too() {
        let list: GrantedScopes =
            serde_json::from_str(r#"{"scp": ["mcp:ops"], "sub": "x"}"#).unwrap();
        assert!(list.grants("mcp:ops"));
        let text: GrantedScopes = serde_json::from_str(r#"{"scp": "a mcp:ops"}"#).unwrap();
        assert!(text.grants("mcp:ops"));
        let none: GrantedScopes = serde_json::from_str("{}").unwrap();
        assert_eq!(missing_scopes(&none, &required(&["a"])), ["a"]);
        assert!(missing_scopes(&none, &[]).is_empty());
    }
}
