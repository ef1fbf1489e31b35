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

/// The filter member naming the tasks whose `notifications/tasks` a listen
/// asks for (extension `io.modelcontextprotocol/tasks`, SEP-2663).
pub const TASK_IDS_KEY: &str = "taskIds";

impl SubscriptionFilter {
    /// The tasks whose status changes this filter asks for (`taskIds`, an
    /// extension's member, so it is kept among the extra members); `None`
    /// when it names none or the member is not a list of strings.
    pub fn task_ids(&self) -> Option<Vec<String>> {
        self.extra
            .get(TASK_IDS_KEY)
            .and_then(|ids| serde_json::from_value(ids.clone()).ok())
    }

    /// This filter, also asking for the status changes of `ids`.
    pub fn with_task_ids(mut self, ids: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let ids: Vec<Value> = ids.into_iter().map(|id| Value::String(id.into())).collect();
        self.extra
            .insert(TASK_IDS_KEY.to_owned(), Value::Array(ids));
        self
    }

    /// This filter without `taskIds` (for a listener that did not declare
    /// the tasks extension).
    pub fn without_task_ids(mut self) -> Self {
        self.extra.remove(TASK_IDS_KEY);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_travel_as_the_extensions_member_of_the_filter() {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::default()
        }
        .with_task_ids(["task-1", "task-2"]);
        let wire = serde_json::to_value(&filter).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({"toolsListChanged": true, "taskIds": ["task-1", "task-2"]})
        );
        let read: SubscriptionFilter = serde_json::from_value(wire).unwrap();
        assert_eq!(
            read.task_ids(),
            Some(vec!["task-1".to_owned(), "task-2".to_owned()])
        );
        assert_eq!(read.clone().without_task_ids().task_ids(), None);
        assert_eq!(read.without_task_ids().tools_list_changed, Some(true));
        let odd: SubscriptionFilter =
            serde_json::from_value(serde_json::json!({"taskIds": "task-1"})).unwrap();
        assert_eq!(odd.task_ids(), None, "not a list of strings");
    }
}
