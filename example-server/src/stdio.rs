//! Serving over stdio and over any transport, with the workspace's own
//! server-side framing (`mcpdisco_transport::server`).

use std::sync::Arc;
use std::time::Duration;

use mcpdisco_protocol::{ErrorCode, ErrorObject, ErrorResponse, Message};
use mcpdisco_transport::Transport;
use mcpdisco_transport::server::stdio::StdioServer;
use tokio::task::JoinSet;

use crate::Server;
use crate::peer::Peer;

/// Requests of one connection answered at once; more are refused (-32603).
const MAX_RUNNING: usize = 64;
/// How long requests still running get to finish once the client has gone.
const FINISH_GRACE: Duration = Duration::from_secs(5);

/// Serves `server` on stdin and stdout until stdin closes.
pub async fn serve_stdio(server: Server) -> std::io::Result<()> {
    serve_transport(server, StdioServer::new("mcp-example-server")).await;
    Ok(())
}

/// Serves `server` over any transport (an in-memory duplex, say) until it
/// ends. Requests are answered concurrently, so a handler can wait for the
/// client's answer to a request of its own (sampling, elicitation).
pub async fn serve_transport(server: Server, transport: impl Transport) {
    let transport: Arc<dyn Transport> = Arc::new(transport);
    let peer = Arc::new(Peer::new(Arc::clone(&transport)));
    let mut running = JoinSet::new();
    loop {
        tokio::select! {
            received = transport.receive() => {
                let Ok(Some(inbound)) = received else { break };
                // A client's connection has no answers of ours to lose.
                let Some(message) = inbound.into_message() else { continue };
                match message {
                    Message::Request(request) if running.len() >= MAX_RUNNING => {
                        let busy = Message::Error(ErrorResponse {
                            id: Some(request.id),
                            error: ErrorObject::new(ErrorCode::INTERNAL_ERROR, "too many requests at once"),
                        });
                        if transport.send(busy).await.is_err() {
                            break;
                        }
                    }
                    Message::Request(_) => {
                        let (server, peer, transport) =
                            (server.clone(), Arc::clone(&peer), Arc::clone(&transport));
                        running.spawn(async move {
                            if let Some(answer) = server.handle_on(&message, Some(peer)).await {
                                let _ = transport.send(answer).await;
                            }
                        });
                    }
                    Message::Response(_) | Message::Error(_) => {
                        peer.answer(message);
                    }
                    // `initialized`, `cancelled`, progress: nothing to do.
                    Message::Notification(_) => {}
                }
            }
            Some(_) = running.join_next(), if !running.is_empty() => {}
        }
    }
    peer.close();
    let _ = tokio::time::timeout(FINISH_GRACE, async {
        while running.join_next().await.is_some() {}
    })
    .await;
    running.shutdown().await;
    let _ = transport.close().await;
}
