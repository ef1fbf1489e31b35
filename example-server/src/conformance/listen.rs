//! `subscriptions/listen` (2026-07-28): acknowledges the subscription, then
//! sends the list changes it asked for, each tagged with the subscription's
//! id (the listen request's id), until the client goes away.

use std::time::Duration;

use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::meta::SUBSCRIPTION_ID_KEY;
use mcpdisco_protocol::methods::{PromptListChanged, SubscriptionsAcknowledged, ToolListChanged};
use mcpdisco_protocol::types::{EmptyResult, Extra, MetaParams, SubscriptionsListenParams};
use tokio::sync::broadcast::error::RecvError;

use crate::context::Context;
use crate::shared::ListChange;

/// The longest one subscription stays open.
const LONGEST: Duration = Duration::from_secs(600);

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
    let acknowledged = SubscriptionsListenParams {
        notifications: params.notifications.clone(),
        meta: Some(tag.clone()),
        extra: Extra::new(),
    };
    peer.notify::<SubscriptionsAcknowledged>(&acknowledged)
        .await?;
    let tagged = MetaParams {
        meta: Some(tag),
        extra: Extra::new(),
    };
    let filter = params.notifications;
    let serve = async {
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
    let result: Result<(), ErrorObject> = tokio::select! {
        result = serve => result,
        () = peer.closed() => Ok(()),
        () = tokio::time::sleep(LONGEST) => Ok(()),
    };
    result.map(|()| EmptyResult::default())
}
