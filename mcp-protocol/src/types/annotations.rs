//! [`Annotations`]: the audience, priority and age hints of a content
//! block or a resource.

use super::role::Role;

super::extra::struct_with_extra! {
    /// Hints for a client about a content block or a resource: who it is
    /// for, how much it matters, when it last changed. An explicit `null`
    /// is not an `Annotations`: the block (or item) holding it is kept as
    /// sent, unread.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct Annotations {
        /// Who it is meant for (`user`, `assistant`, or both).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub audience: Option<Vec<Role>>,
        /// How much it matters, from 0 (least) to 1 (required).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub priority: Option<f64>,
        /// When it last changed (ISO 8601), as sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_modified: Option<String>,
    }
}

impl Annotations {
    /// Meant for `audience`, no other hint.
    pub fn for_audience(audience: Vec<Role>) -> Self {
        Self {
            audience: Some(audience),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn annotations_read_typed_and_write_back() {
        let value = json!({"audience": ["user", "robot"], "priority": 0.5,
                           "lastModified": "2025-01-12T15:00:58Z", "x-hint": 1});
        let annotations: Annotations = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(
            annotations.audience,
            Some(vec![Role::User, Role::Other("robot".into())])
        );
        assert_eq!(annotations.priority, Some(0.5));
        assert_eq!(serde_json::to_value(&annotations).unwrap(), value);
    }
}
