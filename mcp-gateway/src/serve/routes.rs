//! Which handler answers each message of a client.

use std::sync::Arc;

use mcpdisco_protocol::methods::{
    CancelTask, Cancelled, Complete, Discover, GetPrompt, GetSkill, GetTask, Initialize,
    Initialized, ListPrompts, ListResourceTemplates, ListResources, ListSkills, ListTools, Ping,
    ReadResource, SetLevel, Subscribe, SubscriptionsListen, Unsubscribe, UpdateTask,
};
use mcpdisco_protocol::types::{CancelledParams, MetaParams};
use mcpdisco_transport::server::Router;

use crate::supervisor::RelayCallTool;

use super::client::ClientLink;
use super::context::RequestContext;
use super::{
    calls, completion, handshake, lists, logging, resource_subscriptions, subscriptions, tasks,
};

/// The gateway's handlers.
pub(crate) struct Routes {
    /// Answered at once and in order: the handshake and ping.
    pub(crate) immediate: Router<RequestContext>,
    /// Answered each in a task of its own, which the client's cancel stops.
    pub(crate) concurrent: Router<RequestContext>,
    /// The client's notifications.
    pub(crate) notifications: Router<Arc<ClientLink>>,
}

impl Routes {
    /// Every handler of the gateway.
    pub(crate) fn new() -> Self {
        Self {
            immediate: Router::new()
                .on::<Initialize>(handshake::initialize)
                .on::<Discover>(handshake::discover)
                .on::<Ping>(handshake::ping),
            concurrent: Router::new()
                .on::<ListTools>(lists::list::<ListTools>)
                .on::<ListPrompts>(lists::list::<ListPrompts>)
                .on::<ListResources>(lists::list::<ListResources>)
                .on::<ListResourceTemplates>(lists::list::<ListResourceTemplates>)
                .on::<ListSkills>(lists::list::<ListSkills>)
                .on::<GetSkill>(lists::get_skill)
                .on_reply::<RelayCallTool>(calls::call_tool)
                .on::<ReadResource>(calls::read_resource)
                .on::<GetPrompt>(calls::get_prompt)
                .on::<SubscriptionsListen>(subscriptions::listen)
                .on::<Complete>(completion::complete)
                .on::<SetLevel>(logging::set_level)
                .on::<Subscribe>(resource_subscriptions::subscribe)
                .on::<Unsubscribe>(resource_subscriptions::unsubscribe)
                .on::<GetTask>(tasks::get_task)
                .on::<UpdateTask>(tasks::update_task)
                .on::<CancelTask>(tasks::cancel_task),
            notifications: Router::new()
                .on_notification::<Initialized>(initialized)
                .on_notification::<Cancelled>(cancelled),
        }
    }
}

/// `notifications/initialized`: a legacy client now hears of list changes.
async fn initialized(_: MetaParams, link: Arc<ClientLink>) {
    link.initialized();
}

/// `notifications/cancelled`: the request stops (a routed call at its server too), unanswered.
async fn cancelled(params: CancelledParams, link: Arc<ClientLink>) {
    if let Some(id) = params.request_id {
        link.cancel(&id);
    }
}
