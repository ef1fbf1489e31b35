//! [`Opened`]: a session with one configured server, connected for a
//! command about that server alone (`call`, `ping`, `skill load`), under
//! the server's span.

use std::process::ExitCode;

use mcpdisco::config::ServerConfig;
use mcpdisco_client::session::Session;
use mcpdisco_client::telemetry::SpanScope;
use mcpdisco_client::transport::secret::Masker;

use crate::context::Context;
use crate::exit;

/// A session with one configured server, under its span.
pub(crate) struct Opened {
    /// The session, connected.
    pub(crate) session: Session,
    /// The server's span: the session's requests run inside it.
    pub(crate) span: SpanScope,
    /// The server's masker.
    pub(crate) masker: Masker,
}

/// Connects to `server` for a command about it alone, under a span of the
/// server; the exit code to return when it is disabled (said on stderr)
/// or cannot be reached (the error said, the span failed).
pub(crate) async fn open(context: &Context<'_>, server: &ServerConfig) -> Result<Opened, ExitCode> {
    if let Some(code) = disabled(server) {
        return Err(code);
    }
    let masker = server.masker();
    let span = SpanScope::server(
        context.session.stack.telemetry_handle(),
        &server.name,
        &masker,
    );
    let session = match span.run(context.connect(server)).await {
        Ok(session) => session,
        Err(error) => {
            span.fail(error.kind_name(), &error.to_string(), &masker);
            eprintln!("error: {error}");
            return Err(ExitCode::from(exit::SERVER_FAILED));
        }
    };
    Ok(Opened {
        session,
        span,
        masker,
    })
}

fn disabled(server: &ServerConfig) -> Option<ExitCode> {
    if server.enabled {
        return None;
    }
    eprintln!(
        "error: server '{}' is disabled in {}",
        server.name,
        server.source.display()
    );
    Some(ExitCode::from(exit::USAGE))
}
