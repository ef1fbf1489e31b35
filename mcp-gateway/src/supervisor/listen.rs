//! A modern server's list changes: a 2026-07-28 server tells a client of
//! them only on a `subscriptions/listen` the client holds open, so the
//! runner holds one for each modern session whose server declares
//! `listChanged` for any list. What arrives on it also reaches the
//! session's notifications, where the runner hears it and lists again.

use mcpdisco_client::session::{RequestOptions, Session};
use mcpdisco_protocol::types::{ServerCapabilities, SubscriptionFilter};
use mcpdisco_protocol::version::Era;
use tokio::task::JoinHandle;

/// The held-open listen of one session; cancelled when dropped.
pub(super) struct ListChangeListen(JoinHandle<()>);

impl Drop for ListChangeListen {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Opens the listen of `session` when it is modern and its server declares
/// list changes; `None` otherwise (a legacy server's arrive unasked).
pub(super) fn listen_for_list_changes(session: &Session) -> Option<ListChangeListen> {
    if session.era() != Era::Modern {
        return None;
    }
    let filter = list_change_filter(&session.capabilities())?;
    let session = session.clone();
    let server = session.name().to_owned();
    Some(ListChangeListen(tokio::spawn(async move {
        match session.listen(filter, RequestOptions::default()).await {
            // Drained here; the runner hears each one on the session's notifications.
            Ok(mut subscription) => while subscription.next().await.is_some() {},
            Err(error) => {
                tracing::info!(%server, %error, "cannot listen for the server's list changes");
            }
        }
    })))
}

/// The list changes `capabilities` declares, as a listen filter; `None` when there are none.
fn list_change_filter(capabilities: &ServerCapabilities) -> Option<SubscriptionFilter> {
    let on = |declared: bool| declared.then_some(true);
    let filter = SubscriptionFilter {
        tools_list_changed: on(capabilities
            .tools
            .as_ref()
            .is_some_and(|tools| tools.list_changed == Some(true))),
        prompts_list_changed: on(capabilities
            .prompts
            .as_ref()
            .is_some_and(|prompts| prompts.list_changed == Some(true))),
        resources_list_changed: on(capabilities
            .resources
            .as_ref()
            .is_some_and(|resources| resources.list_changed == Some(true))),
        ..SubscriptionFilter::default()
    };
    let any = filter.tools_list_changed.is_some()
        || filter.prompts_list_changed.is_some()
        || filter.resources_list_changed.is_some();
    any.then_some(filter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::types::ListChangedCapability;

    #[test]
    fn only_declared_list_changes_are_listened_for() {
        assert_eq!(list_change_filter(&ServerCapabilities::default()), None);
        let capabilities = ServerCapabilities {
            tools: Some(ListChangedCapability {
                list_changed: Some(true),
                ..ListChangedCapability::default()
            }),
            prompts: Some(ListChangedCapability::default()),
            ..ServerCapabilities::default()
        };
        let filter = list_change_filter(&capabilities).unwrap();
        assert_eq!(filter.tools_list_changed, Some(true));
        assert_eq!(filter.prompts_list_changed, None);
        assert_eq!(filter.resources_list_changed, None);
    }
}
