//! Serving over stdio: newline-delimited JSON on stdin and stdout, with the
//! workspace's own codec.

use futures::{SinkExt, StreamExt};
use mcp_protocol::Message;
use mcp_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use tokio_util::codec::{FramedRead, FramedWrite};

use crate::Server;

/// Serves `server` on stdin and stdout until stdin closes.
pub async fn serve_stdio(server: Server) -> std::io::Result<()> {
    let mut input = FramedRead::new(tokio::io::stdin(), NdjsonCodec::new());
    let mut output = FramedWrite::new(tokio::io::stdout(), NdjsonCodec::new());
    while let Some(frame) = input.next().await {
        let answers: Vec<Message> = match frame? {
            NdjsonFrame::Message(message) => server.handle(&message).into_iter().collect(),
            NdjsonFrame::Batch(messages) => messages
                .into_iter()
                .filter_map(|message| match message {
                    Ok(message) => server.handle(&message),
                    Err(error) => Some(Server::invalid(None, &error.to_string())),
                })
                .collect(),
            NdjsonFrame::Skipped(line) => {
                eprintln!(
                    "mcp-example-server: skipped a line of stdin: {:?}",
                    line.reason
                );
                Vec::new()
            }
        };
        for answer in answers {
            output.send(&answer).await?;
        }
    }
    Ok(())
}

/// Serves `server` over any transport (an in-memory duplex, say) until it ends.
pub async fn serve_transport(server: Server, transport: impl mcp_transport::Transport) {
    while let Ok(Some(message)) = transport.receive().await {
        if let Some(answer) = server.handle(&message)
            && transport.send(answer).await.is_err()
        {
            break;
        }
    }
}
