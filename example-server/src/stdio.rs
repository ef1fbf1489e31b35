//! Serving over stdio and over any transport, with the workspace's own
//! server-side framing (`mcpdisco_transport::server`).

use mcpdisco_transport::Transport;
use mcpdisco_transport::server::stdio::StdioServer;

use crate::Server;

/// Serves `server` on stdin and stdout until stdin closes.
pub async fn serve_stdio(server: Server) -> std::io::Result<()> {
    serve_transport(server, StdioServer::new("mcp-example-server")).await;
    Ok(())
}

/// Serves `server` over any transport (an in-memory duplex, say) until it ends.
pub async fn serve_transport(server: Server, transport: impl Transport) {
    while let Ok(Some(message)) = transport.receive().await {
        if let Some(answer) = server.handle(&message).await
            && transport.send(answer).await.is_err()
        {
            break;
        }
    }
    let _ = transport.close().await;
}
