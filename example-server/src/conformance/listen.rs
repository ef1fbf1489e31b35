//! `subscriptions/listen` (2026-07-28): acknowledges the subscription, then
//! sends the list changes it asked for, and the status changes of the
//! tasks its filter names (`taskIds`, for a client that declared the tasks
//! extension) as `notifications/tasks`, each tagged with the
//! subscription's id (the listen request's id), until the client goes away.

use std::collections::BTreeSet;
use std::time::Duration;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::meta::SUBSCRIPTION_ID_KEY;
use mcpdisco_protocol::methods::{
    PromptListChanged, SubscriptionsAcknowledged, TaskStatusChanged, ToolListChanged,
};
use mcpdisco_protocol::types::{EmptyResult, Extra, MetaParams, SubscriptionsListenParams};
use tokio::sync::broadcast::error::RecvError;

use super::tasks::negotiated;
use crate::context::Context;
use crate::shared::ListChange;

/// The longest one subscription stays open.
const LONGEST: Duration = Duration::from_secs(600);
/// The most tasks one subscription follows.
const MOST_TASKS: usize = 256;

/// Serves one subscription until the client leaves or [`LONGEST`] has passed.
pub(crate) async fn listen(
    params: SubscriptionsListenParams,
    context: Context,
) -> Result<EmptyResult, ErrorObject> {
    let peer = context.peer()?.clone();
    let mut tag = Extra::new();
    tag.insert(
        SUBSCRIPTION_ID_KEY.to_owned(),
        context.request.id.to_value(),
    );
    let mut changes = context.shared.listen();
    let mut task_changes = context.shared.listen_tasks();
    let filter = if negotiated(&context) {
        params.notifications
    } else {
        params.notifications.without_task_ids()
    };
    let tasks: BTreeSet<String> = filter
        .task_ids()
        .unwrap_or_default()
        .into_iter()
        .take(MOST_TASKS)
        .collect();
    let acknowledged = SubscriptionsListenParams {
        notifications: filter.clone(),
        meta: Some(tag.clone()),
        extra: Extra::new(),
    };
    peer.notify::<SubscriptionsAcknowledged>(&acknowledged)
        .await?;
    let tagged = MetaParams {
        meta: Some(tag.clone()),
        extra: Extra::new(),
    };
    let list_changes = async {
        loop {
            let change = match changes.recv().await {
                Ok(change) => change,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return Ok(()),
            };
            match change {
                ListChange::Tools if filter.tools_list_changed == Some(true) => {
                    peer.notify::<ToolListChanged>(&tagged).await?;
                }
                ListChange::Prompts if filter.prompts_list_changed == Some(true) => {
                    peer.notify::<PromptListChanged>(&tagged).await?;
                }
                _ => {}
            }
        }
    };
    let task_statuses = async {
        if tasks.is_empty() {
            return std::future::pending().await;
        }
        loop {
            let mut task = match task_changes.recv().await {
                Ok(task) => task,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return Ok(()),
            };
            if tasks.contains(&task.task.task_id) {
                task.meta.get_or_insert_with(Extra::new).extend(tag.clone());
                peer.notify::<TaskStatusChanged>(&task).await?;
            }
        }
    };
    let result: Result<(), ErrorObject> = tokio::select! {
        result = list_changes => result,
        result = task_statuses => result,
        () = peer.closed() => Ok(()),
        () = tokio::time::sleep(LONGEST) => Ok(()),
    };
    result.map(|()| EmptyResult::default())
}
