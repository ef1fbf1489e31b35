//! Params of progress, cancellation, resource updates and modern subscriptions.

use serde_json::Value;

use super::extra::Extra;
use crate::jsonrpc::RequestId;

super::extra::struct_with_extra! {
    /// `notifications/progress` params.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ProgressParams {
        /// The token the request carried (a string or a number).
        pub progress_token: Value,
        /// Progress so far; increases.
        pub progress: f64,
        /// The total, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub total: Option<f64>,
        /// A human-readable message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub message: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `notifications/cancelled` params.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct CancelledParams {
        /// The request being cancelled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_id: Option<RequestId>,
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reason: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `notifications/resources/updated` params.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ResourceUpdatedParams {
        /// The resource that changed.
        pub uri: String,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// Which notifications a modern `subscriptions/listen` asks for.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct SubscriptionFilter {
        /// `notifications/tools/list_changed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tools_list_changed: Option<bool>,
        /// `notifications/prompts/list_changed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prompts_list_changed: Option<bool>,
        /// `notifications/resources/list_changed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resources_list_changed: Option<bool>,
        /// `notifications/resources/updated` for these URIs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resource_subscriptions: Option<Vec<String>>,
    }
}

super::extra::struct_with_extra! {
    /// `subscriptions/listen` params (2026-07-28).
    #[derive(Debug, Clone, PartialEq)]
    pub struct SubscriptionsListenParams {
        /// What to listen for.
        pub notifications: SubscriptionFilter,
        /// Metadata (the modern envelope).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

/// `notifications/subscriptions/acknowledged` params (2026-07-28).
pub type SubscriptionsAcknowledgedParams = SubscriptionsListenParams;

impl CancelledParams {
    /// Cancels request `id`, saying why.
    pub fn new(id: RequestId, reason: impl Into<String>) -> Self {
        Self {
            request_id: Some(id),
            reason: Some(reason.into()),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ResourceUpdatedParams {
    /// An update of the resource `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl SubscriptionsListenParams {
    /// Listens for the notifications `filter` names.
    pub fn new(filter: SubscriptionFilter) -> Self {
        Self {
            notifications: filter,
            meta: None,
            extra: Extra::new(),
        }
    }
}
