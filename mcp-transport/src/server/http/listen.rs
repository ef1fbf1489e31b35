//! Accepting TCP connections and serving each one's HTTP/1 with hyper, in a
//! task of its own, polled through [`PollAgain`] (hyper wakes a
//! connection's task on each request with a body; see there).
//!
//! What `axum::serve` does, but for that wrapper: accept errors are handled
//! by axum's listener (a connection error is skipped, any other waits a
//! second), each connection has `TCP_NODELAY`, and a stop lets open
//! requests finish. A connection that takes longer than
//! [`HEADER_READ_TIMEOUT`] to send a request's head is closed.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::serve::{Listener as _, ListenerExt as _};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::poll_again::PollAgain;

/// How long a connection may take to send a request's head once the server
/// waits for one: a client that trickles its headers (or sends none) holds a
/// task and a socket no longer than this. The wait starts when the
/// connection is ready for its next request, so an idle keep-alive
/// connection is closed after it too; a response that streams (an SSE
/// stream) is not a wait for a head.
pub(super) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `router` on `listener` until `stop` completes; then accepts no
/// more, asks each connection to close once its requests are answered, and
/// returns when all have, or after `grace`. The connections still open then
/// are dropped, as they are when this future is.
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    stop: impl Future<Output = ()>,
    grace: Duration,
) {
    // An answer goes out at once, not held back until the previous one is acknowledged.
    let mut listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY on a connection");
        }
    });
    let (close_all, close_signal) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            biased;
            () = &mut stop => break,
            // Reap finished connections as they end.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            (stream, _) = listener.accept() => {
                let connection = serve_connection(stream, router.clone(), close_signal.clone());
                connections.spawn(PollAgain::new(connection));
            }
        }
    }
    drop(listener);
    let _ = close_all.send(true);
    let all_closed = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(grace, all_closed).await;
}

/// Serves one connection until it ends, or until `closing` turns true and
/// its requests in progress are answered.
async fn serve_connection(stream: TcpStream, router: Router, mut closing: watch::Receiver<bool>) {
    let service = TowerToHyperService::new(router);
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let result = tokio::select! {
        biased;
        result = connection.as_mut() => result,
        () = told_to_close(&mut closing) => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        tracing::trace!(%error, "an HTTP connection ended with an error");
    }
}

/// Completes once `closing` turns true (or its sender is gone).
async fn told_to_close(closing: &mut watch::Receiver<bool>) {
    let _ = closing.wait_for(|closing| *closing).await;
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream as StdStream;

    use axum::body::Bytes;
    use axum::routing::post;
    use futures::StreamExt as _;

    use super::*;

    const REQUESTS: u64 = 300;

    /// Sends `REQUESTS` POSTs with a body on one keep-alive connection,
    /// one after another, each answered before the next.
    fn post_in_turn(address: std::net::SocketAddr) {
        let mut stream = StdStream::connect(address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        for _ in 0..REQUESTS {
            let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
            let request = format!(
                "POST /echo HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(request.as_bytes()).expect("write");
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).expect("read a header");
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().expect("a length");
                }
            }
            let mut answer = vec![0; length];
            reader.read_exact(&mut answer).expect("read the body");
            assert_eq!(answer, body.as_bytes());
        }
    }

    /// How often each worker of a two-worker runtime parked and woke while
    /// serving [`post_in_turn`].
    fn wake_ups_per_worker() -> Vec<u64> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let router = Router::new().route("/echo", post(|body: Bytes| async move { body }));
        let listener = runtime
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let stop_when = async move {
            let _ = stopped.await;
        };
        let server = runtime.spawn(serve(listener, router, stop_when, Duration::from_secs(1)));
        post_in_turn(address);
        let metrics = runtime.metrics();
        let wake_ups: Vec<u64> = (0..metrics.num_workers())
            .map(|worker| metrics.worker_park_unpark_count(worker))
            .collect();
        let _ = stop.send(());
        runtime.block_on(server).expect("the server ends");
        wake_ups
    }

    #[test]
    fn a_request_with_a_body_wakes_no_other_worker() {
        // One worker waits for the socket, and wakes for each request. The
        // other sleeps: before `PollAgain`, each request woke it (hyper's
        // connection wakes its own task, and tokio hands it to an idle
        // worker), in every round. A busy machine wakes it too, now and
        // then: the best of three rounds counts.
        const ROUNDS: usize = 3;
        let mut rounds = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let wake_ups = wake_ups_per_worker();
            let fewest = wake_ups.iter().min().copied().unwrap_or_default();
            rounds.push(wake_ups);
            if fewest < REQUESTS / 4 {
                return;
            }
        }
        panic!(
            "an idle worker was woken at least {} times over {REQUESTS} requests in each of {ROUNDS} rounds (by worker: {rounds:?})",
            REQUESTS / 4
        );
    }

    /// Sends `request` on a new connection and reads until the connection
    /// closes or `until` shows in what came.
    async fn exchange(address: std::net::SocketAddr, request: &str, until: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = TcpStream::connect(address).await.expect("connect");
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut seen = Vec::new();
        let mut buffer = [0; 1024];
        loop {
            let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
                .await
                .expect("an answer in time")
                .unwrap_or(0);
            if read == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..read]);
            if String::from_utf8_lossy(&seen).contains(until) {
                break;
            }
        }
        String::from_utf8_lossy(&seen).into_owned()
    }

    /// Reads `stream` until it closes, and checks that the server closed it
    /// at its header timeout (the runtime's clock, paused in the test that
    /// calls it).
    async fn closed_at_the_header_timeout(stream: &mut TcpStream) {
        use tokio::io::AsyncReadExt;
        let began = tokio::time::Instant::now();
        let mut buffer = [0; 1024];
        // Longer than the server's limit: with the clock paused, the
        // earliest timer is the one that fires.
        let limit = HEADER_READ_TIMEOUT * 4;
        while tokio::time::timeout(limit, stream.read(&mut buffer))
            .await
            .expect("the server closes the connection first")
            .unwrap_or(0)
            > 0
        {}
        let took = began.elapsed();
        assert!(
            took >= HEADER_READ_TIMEOUT && took < HEADER_READ_TIMEOUT * 2,
            "closed after {took:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_head_that_never_ends_and_an_idle_connection_are_closed_after_the_header_timeout() {
        use tokio::io::AsyncWriteExt;
        let router = Router::new().route("/echo", post(|body: Bytes| async move { body }));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let _server = tokio::spawn(serve(
            listener,
            router,
            std::future::pending(),
            Duration::from_secs(1),
        ));
        // Half a head, then nothing.
        let mut trickle = TcpStream::connect(address).await.expect("connect");
        trickle
            .write_all(b"POST /echo HTTP/1.1\r\nhost: x\r\n")
            .await
            .expect("write");
        closed_at_the_header_timeout(&mut trickle).await;
        // A request answered, then the connection kept alive and idle.
        let answer = exchange(
            address,
            "POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\nhi",
            "\r\n\r\nhi",
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        let mut idle = TcpStream::connect(address).await.expect("connect");
        idle.write_all(b"POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\nhi")
            .await
            .expect("write");
        closed_at_the_header_timeout(&mut idle).await;
    }

    #[tokio::test]
    async fn a_stop_lets_a_request_in_progress_finish_and_drops_a_stream_after_the_grace() {
        let (started, has_started) = tokio::sync::oneshot::channel::<()>();
        let started = std::sync::Arc::new(std::sync::Mutex::new(Some(started)));
        let router = Router::new()
            .route(
                "/slow",
                post(move || {
                    if let Some(started) = started.lock().ok().and_then(|mut s| s.take()) {
                        let _ = started.send(());
                    }
                    async {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        "done"
                    }
                }),
            )
            .route(
                "/stream",
                axum::routing::get(|| async {
                    let endless = futures::stream::once(async {
                        Ok::<_, std::io::Error>(Bytes::from_static(b"first"))
                    })
                    .chain(futures::stream::pending());
                    axum::body::Body::from_stream(endless)
                }),
            );
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let stop_when = async move {
            let _ = stopped.await;
        };
        let server = tokio::spawn(serve(
            listener,
            router,
            stop_when,
            Duration::from_millis(500),
        ));
        let stream = tokio::spawn(exchange(
            address,
            "GET /stream HTTP/1.1\r\nhost: x\r\n\r\n",
            "never there",
        ));
        let slow = tokio::spawn(exchange(
            address,
            "POST /slow HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n",
            "done",
        ));
        has_started.await.expect("the slow request started");
        let _ = stop.send(());
        // Answered, though the stop came while it ran.
        let answer = slow.await.expect("the slow request");
        assert!(
            answer.starts_with("HTTP/1.1 200") && answer.ends_with("done"),
            "{answer}"
        );
        // The stream outlasts the grace: dropped, its connection closed.
        tokio::time::timeout(Duration::from_secs(10), server)
            .await
            .expect("serve ends after the grace")
            .expect("serve");
        let streamed = stream.await.expect("the stream");
        assert!(streamed.contains("first"), "{streamed}");
        // Nothing is accepted any more.
        assert!(TcpStream::connect(address).await.is_err());
    }
}
