//! Opening one server: its connection (a process, an HTTP endpoint, a
//! custom connector), the handshake, and its first listing, all within the
//! start deadline.

use std::future::Future;
use std::time::Duration;

use mcpdisco::config::ServerConfig;
use mcpdisco::connect::{ConnectContext, options_for};
use mcpdisco::discovery::describe;
use mcpdisco::report::ServerReport;
use mcpdisco_client::session::Session;
use tokio::time::Instant;

use super::shared::Shared;

/// The start of the server of `config` with the options of `shared`, to be
/// awaited without `shared` (a supervisor dropped meanwhile is not kept
/// alive): its connected session and what it lists, or why it failed.
pub(crate) fn open(
    shared: &Shared,
    config: &ServerConfig,
    deadline: Duration,
) -> impl Future<Output = Result<(Session, ServerReport), String>> + Send + 'static {
    let mut options = options_for(config, &shared.options.session);
    options.deadline = Some(Instant::now() + deadline);
    if let Some(handlers) = &shared.options.handlers {
        options.handler = handlers(&config.name);
    }
    let context = ConnectContext::for_session(&options)
        .http(shared.http.read().clone())
        .graces(shared.options.graces);
    #[cfg(feature = "oauth")]
    let context = context.auth(shared.options.auth.clone());
    let connectors = shared.options.connectors.clone();
    let config = config.clone();
    async move {
        let name = config.name.clone();
        let work = async {
            let connection = connectors
                .open(&config, &context)
                .await
                .map_err(|e| e.to_string())?;
            let options = connection.session_options(options);
            let session = Session::connect_shared(&name, connection.transport(), options)
                .await
                .map_err(|e| e.to_string())?;
            match describe(&session).await {
                Ok((report, _)) => Ok((session, report)),
                Err(error) => {
                    let _ = session.close().await;
                    Err(error.to_string())
                }
            }
        };
        match tokio::time::timeout(deadline, work).await {
            Ok(Ok((session, report))) => {
                // The start deadline was the start's, not the session's.
                session.set_deadline(None);
                Ok((session, report))
            }
            Ok(Err(cause)) => Err(cause),
            Err(_) => Err(format!(
                "server '{name}': not ready within the {deadline:?} deadline"
            )),
        }
    }
}

/// What `session`'s server lists now, within `deadline`.
pub(crate) async fn list_again(
    session: &Session,
    deadline: Duration,
) -> Result<ServerReport, String> {
    match tokio::time::timeout(deadline, describe(session)).await {
        Ok(Ok((report, _))) => Ok(report),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!("no listing within the {deadline:?} deadline")),
    }
}
