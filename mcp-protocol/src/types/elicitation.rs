//! Elicitation: a server asks the client's user a question, as a form
//! (`requestedSchema`) or a URL to open (2025-11-25).

use serde_json::Value;

use super::extra::Extra;

super::extra::struct_with_extra! {
    /// `elicitation/create` params: form mode (`requestedSchema`) or URL mode (`url`).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ElicitParams {
        /// `form` or `url` (absent means form).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mode: Option<String>,
        /// What to ask the user.
        pub message: String,
        /// The form's schema (form mode), kept raw.
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub requested_schema: Option<Value>,
        /// The URL to open (URL mode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub url: Option<String>,
        /// The elicitation's id (URL mode).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elicitation_id: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::string_enum::open_string_enum!(
    /// What the user did with an elicitation. Unknown actions are kept.
    ElicitAction {
        /// Submitted the form.
        Accept => "accept",
        /// Said no.
        Decline => "decline",
        /// Dismissed it.
        Cancel => "cancel",
    }
);

super::extra::struct_with_extra! {
    /// `elicitation/create` result.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ElicitResult {
        /// What the user did.
        pub action: ElicitAction,
        /// The submitted form, when accepted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub content: Option<Extra>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `notifications/elicitation/complete` params (URL mode, 2025-11-25).
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ElicitationCompleteParams {
        /// The elicitation that completed.
        pub elicitation_id: String,
    }
}

impl ElicitResult {
    /// The user submitted the form with `content`.
    pub fn accept(content: Extra) -> Self {
        Self::with_action(ElicitAction::Accept, Some(content))
    }

    /// The user said no.
    pub fn decline() -> Self {
        Self::with_action(ElicitAction::Decline, None)
    }

    /// The user dismissed the question.
    pub fn cancel() -> Self {
        Self::with_action(ElicitAction::Cancel, None)
    }

    fn with_action(action: ElicitAction, content: Option<Extra>) -> Self {
        Self {
            action,
            content,
            meta: None,
            extra: Extra::new(),
        }
    }
}
