//! The supervisor's states on tokio's paused clock, over in-memory servers
//! that crash, fall silent or refuse to start on cue.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mcpdisco_protocol::{ErrorCode, ErrorObject, ErrorResponse, Message, RawJson, Response};
use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
use serde_json::{Value, json};

use super::*;
use mcpdisco::config::{Filter, Filters};
use mcpdisco::connect::{Connectors, MemoryConnector};
use mcpdisco_client::session::{RequestOptions, SessionOptions};
use tokio::time::Instant;

/// How a fake backend behaves; shared with the test, which changes it.
#[derive(Default)]
struct Script {
    /// Starts refused so far, and how many to refuse.
    refused: AtomicUsize,
    refuse_starts: AtomicUsize,
    /// Starts accepted.
    starts: AtomicUsize,
    /// `tools/call`s received.
    calls: AtomicUsize,
    /// Crash (drop the connection) on receiving this call number (1-based; 0: never).
    crash_on_call: AtomicUsize,
    /// Answer calls with a result that is no `tools/call` result.
    malformed_results: AtomicBool,
    /// Stop answering pings.
    silent_pings: AtomicBool,
    /// `tools/list` requests received.
    lists: AtomicUsize,
    /// Answer `tools/list` with an error.
    refuse_lists: AtomicBool,
    /// Leave `tools/list` unanswered.
    silent_lists: AtomicBool,
    /// Connections that ended (the fake's end saw them close).
    disconnects: AtomicUsize,
    /// The tools listed.
    tools: parking_tools::Tools,
    /// Wakes the fake to send `notifications/tools/list_changed`.
    list_changed: tokio::sync::Notify,
}

/// The tools a fake lists, changeable (for list_changed).
mod parking_tools {
    use mcpdisco_transport::sync::Mutex;

    pub struct Tools(pub Mutex<Vec<String>>);

    impl Default for Tools {
        fn default() -> Self {
            Self(Mutex::new(vec!["echo".into(), "danger".into()]))
        }
    }
}

fn answer(id: &mcpdisco_protocol::RequestId, result: Value) -> Message {
    Message::Response(Response {
        id: id.clone(),
        result: RawJson::from_value(&result),
    })
}

async fn serve(end: MemoryTransport, script: Arc<Script>) {
    serve_until_closed(end, &script).await;
    script.disconnects.fetch_add(1, Ordering::SeqCst);
}

async fn serve_until_closed(end: MemoryTransport, script: &Script) {
    loop {
        let message = tokio::select! {
            received = end.receive() => match received {
                Ok(Some(Inbound::Message(message))) => message,
                _ => return,
            },
            () = script.list_changed.notified() => {
                let changed = Message::Notification(mcpdisco_protocol::Notification {
                    method: "notifications/tools/list_changed".into(),
                    params: None,
                });
                if end.send(changed).await.is_err() {
                    return;
                }
                continue;
            }
        };
        let Message::Request(request) = message else {
            continue;
        };
        let reply = match request.method.as_str() {
            "initialize" => answer(
                &request.id,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}},
                       "serverInfo": {"name": "fake", "version": "1"}}),
            ),
            "ping" if script.silent_pings.load(Ordering::SeqCst) => continue,
            "ping" => answer(&request.id, json!({})),
            "tools/list" if script.silent_lists.load(Ordering::SeqCst) => {
                script.lists.fetch_add(1, Ordering::SeqCst);
                continue;
            }
            "tools/list" if script.refuse_lists.load(Ordering::SeqCst) => {
                script.lists.fetch_add(1, Ordering::SeqCst);
                Message::Error(ErrorResponse {
                    id: Some(request.id.clone()),
                    error: ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the list is broken"),
                })
            }
            "tools/list" => {
                script.lists.fetch_add(1, Ordering::SeqCst);
                let tools: Vec<Value> = script
                    .tools
                    .0
                    .lock()
                    .iter()
                    .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
                    .collect();
                answer(&request.id, json!({"tools": tools}))
            }
            "tools/call" => {
                let n = script.calls.fetch_add(1, Ordering::SeqCst) + 1;
                if n == script.crash_on_call.load(Ordering::SeqCst) {
                    return; // the connection drops: the call may have run
                }
                if script.malformed_results.load(Ordering::SeqCst) {
                    answer(&request.id, json!({"content": "call {n}"}))
                } else {
                    answer(
                        &request.id,
                        json!({"content": [{"type": "text", "text": format!("call {n}")}]}),
                    )
                }
            }
            other => Message::Error(ErrorResponse {
                id: Some(request.id.clone()),
                error: ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, format!("no {other}")),
            }),
        };
        if end.send(reply).await.is_err() {
            return;
        }
    }
}

/// A supervisor over one fake server named `fake`, pinned to the legacy era.
fn supervised(script: &Arc<Script>, filters: Filters) -> Supervisor {
    supervised_with(script, filters, Duration::from_secs(60))
}

/// [`supervised`], with calls that wait up to `ready_wait` for the server.
fn supervised_with(script: &Arc<Script>, filters: Filters, ready_wait: Duration) -> Supervisor {
    let factory_script = Arc::clone(script);
    let connectors = Connectors::builtin().with(
        "fake",
        Arc::new(MemoryConnector::new(move |_server| {
            let script = &factory_script;
            if script.refused.load(Ordering::SeqCst) < script.refuse_starts.load(Ordering::SeqCst) {
                script.refused.fetch_add(1, Ordering::SeqCst);
                return Err("the fake refuses to start".into());
            }
            script.starts.fetch_add(1, Ordering::SeqCst);
            let (client, server) = MemoryTransport::pair();
            tokio::spawn(serve(server, Arc::clone(script)));
            Ok(client)
        })),
    );
    let mut server = ServerConfig::new(
        "fake",
        mcpdisco::config::Launch::Custom {
            transport: "fake".into(),
            settings: serde_json::Map::new(),
        },
    );
    server.filters = filters;
    let options = SupervisorOptions {
        connectors,
        session: SessionOptions::default().era(mcpdisco_client::session::EraPreference::Legacy),
        ready_wait,
        ..SupervisorOptions::default()
    };
    Supervisor::new(vec![server], options)
}

/// Waits (on the paused clock) until `server` is, or passes through, a state `want` accepts.
async fn until(supervisor: &Supervisor, want: impl Fn(Status) -> bool) -> Status {
    let mut events = supervisor.subscribe();
    if let Some(status) = supervisor.status("fake")
        && want(status)
    {
        return status;
    }
    loop {
        match tokio::time::timeout(Duration::from_secs(3600), events.recv()).await {
            Ok(Ok(SupervisorEvent::Status { status, .. })) if want(status) => return status,
            Ok(Ok(_)) => {}
            other => panic!(
                "no state change: {other:?}; now {:?}",
                supervisor.status("fake")
            ),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn concurrent_first_uses_start_a_server_once() {
    let script = Arc::new(Script::default());
    let supervisor = supervised(&script, Filters::default());
    assert_eq!(supervisor.status("fake"), Some(Status::Stopped));
    let (a, b) = tokio::join!(supervisor.session("fake"), supervisor.session("fake"));
    a.unwrap();
    b.unwrap();
    assert_eq!(script.starts.load(Ordering::SeqCst), 1);
    assert_eq!(supervisor.status("fake"), Some(Status::Ready));
    assert_eq!(supervisor.catalog().tools.len(), 2);
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_crash_is_noticed_at_once_and_the_next_call_waits_for_the_restart() {
    let script = Arc::new(Script::default());
    script.crash_on_call.store(2, Ordering::SeqCst);
    let supervisor = supervised(&script, Filters::default());
    let first = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(first.content[0].as_text().unwrap(), "call 1");
    let mut events = supervisor.subscribe();
    // The second call crashes the server: it may have run, so it is not sent again.
    let error = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("may have run"), "{error}");
    assert_eq!(script.calls.load(Ordering::SeqCst), 2);
    // The exit is noticed at once: backoff, then a restart after about a second.
    let backoff = until(&supervisor, |s| matches!(s, Status::Backoff { .. })).await;
    assert!(matches!(backoff, Status::Backoff { failures: 1, .. }));
    // A call now was never delivered (the server is down): it waits for the restart.
    let third = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(third.content[0].as_text().unwrap(), "call 3");
    assert_eq!(script.starts.load(Ordering::SeqCst), 2);
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let SupervisorEvent::Status { status, .. } = event {
            seen.push(status.name());
        }
    }
    assert_eq!(seen, ["backoff", "starting", "ready"]);
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn missed_pings_degrade_a_server_and_three_restart_it() {
    let script = Arc::new(Script::default());
    let supervisor = supervised(&script, Filters::default());
    supervisor.session("fake").await.unwrap();
    let started = Instant::now();
    script.silent_pings.store(true, Ordering::SeqCst);
    let degraded = until(&supervisor, |s| matches!(s, Status::Degraded { .. })).await;
    assert_eq!(degraded, Status::Degraded { missed: 1 });
    // 30 s to the first ping, 5 s for its timeout.
    assert_eq!(started.elapsed(), Duration::from_secs(35));
    until(&supervisor, |s| s == Status::Degraded { missed: 2 }).await;
    script.silent_pings.store(false, Ordering::SeqCst);
    // One answer brings it back.
    until(&supervisor, |s| s == Status::Ready).await;
    script.silent_pings.store(true, Ordering::SeqCst);
    until(&supervisor, |s| matches!(s, Status::Backoff { .. })).await;
    until(&supervisor, |s| s == Status::Ready).await;
    assert_eq!(script.starts.load(Ordering::SeqCst), 2);
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn five_failed_starts_make_a_server_inactive_until_the_cooldown_or_a_reconnect() {
    let script = Arc::new(Script::default());
    script.refuse_starts.store(100, Ordering::SeqCst);
    let supervisor = supervised(&script, Filters::default());
    let started = Instant::now();
    supervisor.start_all();
    let inactive = until(&supervisor, |s| matches!(s, Status::Inactive { .. })).await;
    assert_eq!(script.refused.load(Ordering::SeqCst), 5);
    // Backoffs of about 1, 2, 4 and 8 s (jittered by 10 %) before the fifth failure.
    let waited = started.elapsed().as_secs_f64();
    assert!((13.5..=16.5).contains(&waited), "{waited}");
    let Status::Inactive { until: cooldown } = inactive else {
        unreachable!()
    };
    assert_eq!(cooldown - Instant::now(), Duration::from_secs(300));
    assert!(supervisor.catalog().tools.is_empty());
    let error = supervisor
        .call_tool_on("fake", "echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("is not ready (inactive)"),
        "{error}"
    );
    assert!(error.to_string().contains("refuses to start"), "{error}");
    // After the cooldown: one attempt (half-open), which fails, and it is inactive again.
    until(&supervisor, |s| s == Status::Starting).await;
    until(&supervisor, |s| matches!(s, Status::Inactive { .. })).await;
    assert_eq!(script.refused.load(Ordering::SeqCst), 6);
    // A reconnect tries at once, and a server that starts is ready again.
    script.refuse_starts.store(0, Ordering::SeqCst);
    supervisor.reconnect("fake").unwrap();
    until(&supervisor, |s| s == Status::Ready).await;
    assert_eq!(supervisor.catalog().tools.len(), 2);
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_list_change_is_listed_again_and_published() {
    let script = Arc::new(Script::default());
    let supervisor = supervised(&script, Filters::default());
    supervisor.session("fake").await.unwrap();
    let mut events = supervisor.subscribe();
    script.tools.0.lock().push("fresh".into());
    script.list_changed.notify_one();
    let mut list_changed = false;
    loop {
        match events.recv().await.unwrap() {
            SupervisorEvent::ListChanged { server } => {
                assert_eq!(server, "fake");
                list_changed = true;
            }
            SupervisorEvent::Catalog(catalog) if catalog.tools.len() == 3 => break,
            _ => {}
        }
    }
    assert!(list_changed);
    assert!(supervisor.catalog().tool("fake__fresh").is_some());
    assert_eq!(
        script.starts.load(Ordering::SeqCst),
        1,
        "listed again, not restarted"
    );
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_filtered_tool_is_neither_listed_nor_callable() {
    let script = Arc::new(Script::default());
    let filters = Filters {
        tools: Filter {
            allow: Vec::new(),
            deny: vec![glob::Pattern::new("dang*").unwrap()],
        },
        ..Filters::default()
    };
    let supervisor = supervised(&script, filters);
    supervisor.session("fake").await.unwrap();
    let catalog = supervisor.catalog();
    assert!(catalog.tool("fake__echo").is_some());
    assert!(catalog.tool("fake__danger").is_none());
    let error = supervisor
        .call_tool_on("fake", "danger", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("hidden by the server's filter"),
        "{error}"
    );
    assert_eq!(script.calls.load(Ordering::SeqCst), 0);
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_result_that_is_no_call_result_is_an_error_naming_it() {
    let script = Arc::new(Script::default());
    script.malformed_results.store(true, Ordering::SeqCst);
    let supervisor = supervised(&script, Filters::default());
    let error = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, SupervisorError::Session(session)
            if session.to_string().contains("malformed result")
                && session.delivery() == mcpdisco_transport::Delivery::Answered),
        "{error}"
    );
    assert_eq!(script.calls.load(Ordering::SeqCst), 1, "delivered once");
    supervisor.shutdown().await;
}

/// The arguments of a tool that takes none.
fn no_arguments() -> Option<serde_json::Map<String, Value>> {
    Some(serde_json::Map::new())
}

/// Lets every task run until all wait on the (paused) clock or on each other.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[tokio::test(start_paused = true)]
async fn a_failed_listing_keeps_the_last_good_catalog() {
    let script = Arc::new(Script::default());
    let supervisor = supervised(&script, Filters::default());
    supervisor.session("fake").await.unwrap();
    assert_eq!(script.lists.load(Ordering::SeqCst), 1);
    let mut events = supervisor.subscribe();
    // The server answers the new listing with an error.
    script.refuse_lists.store(true, Ordering::SeqCst);
    script.tools.0.lock().push("fresh".into());
    script.list_changed.notify_one();
    assert!(matches!(
        events.recv().await.unwrap(),
        SupervisorEvent::ListChanged { .. }
    ));
    settle().await;
    assert_eq!(script.lists.load(Ordering::SeqCst), 2, "listed again");
    let catalog = supervisor.catalog();
    assert_eq!(catalog.tools.len(), 2, "{:?}", catalog.tools);
    assert!(catalog.tool("fake__echo").is_some());
    // The server does not answer the next listing at all (within the deadline).
    script.refuse_lists.store(false, Ordering::SeqCst);
    script.silent_lists.store(true, Ordering::SeqCst);
    script.list_changed.notify_one();
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert_eq!(script.lists.load(Ordering::SeqCst), 3, "listed again");
    assert_eq!(supervisor.catalog().tools.len(), 2);
    assert_eq!(supervisor.status("fake"), Some(Status::Ready));
    let called = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(called.content[0].as_text().unwrap(), "call 1");
    // A listing that succeeds is taken.
    script.silent_lists.store(false, Ordering::SeqCst);
    script.list_changed.notify_one();
    settle().await;
    assert!(supervisor.catalog().tool("fake__fresh").is_some());
    assert_eq!(script.starts.load(Ordering::SeqCst), 1, "never restarted");
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_restarting_server_keeps_its_routes_and_a_call_is_told_it_is_not_ready() {
    let script = Arc::new(Script::default());
    script.crash_on_call.store(1, Ordering::SeqCst);
    let supervisor = supervised(&script, Filters::default());
    supervisor.session("fake").await.unwrap();
    // The server crashes and will not start again.
    script.refuse_starts.store(100, Ordering::SeqCst);
    let error = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("may have run"), "{error}");
    until(&supervisor, |s| matches!(s, Status::Backoff { .. })).await;
    // Down, it leaves the catalog, but its items are still routed to it.
    assert!(supervisor.catalog().tool("fake__echo").is_none());
    assert_eq!(
        supervisor
            .routes()
            .tool("fake__echo")
            .map(|e| e.server.as_str()),
        Some("fake")
    );
    assert_eq!(
        supervisor.resolve_tool("fake__echo").await.unwrap(),
        ("fake".to_owned(), "echo".to_owned())
    );
    // A call waits for the restart, which fails until the server is inactive.
    let error = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, SupervisorError::NotReady { server, status: Status::Inactive { .. }, .. } if server == "fake"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("server 'fake' is not ready (inactive)"),
        "{error}"
    );
    assert!(error.to_string().contains("refuses to start"), "{error}");
    // An unknown name is still unknown.
    assert!(matches!(
        supervisor
            .call_tool("fake__nothing", no_arguments(), RequestOptions::default())
            .await,
        Err(SupervisorError::UnknownItem { .. })
    ));
    assert_eq!(script.calls.load(Ordering::SeqCst), 1);
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_call_during_a_backoff_that_outlasts_the_wait_names_the_server_and_its_state() {
    let script = Arc::new(Script::default());
    script.crash_on_call.store(1, Ordering::SeqCst);
    let supervisor = supervised_with(&script, Filters::default(), Duration::from_millis(100));
    supervisor.session("fake").await.unwrap();
    script.refuse_starts.store(100, Ordering::SeqCst);
    supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    until(&supervisor, |s| matches!(s, Status::Backoff { .. })).await;
    let error = supervisor
        .call_tool("fake__echo", no_arguments(), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("server 'fake' is not ready (backoff"),
        "{error}"
    );
    supervisor.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_supervisor_dropped_without_a_shutdown_closes_its_sessions() {
    let script = Arc::new(Script::default());
    let supervisor = supervised(&script, Filters::default());
    supervisor.session("fake").await.unwrap();
    assert_eq!(script.disconnects.load(Ordering::SeqCst), 0);
    drop(supervisor);
    settle().await;
    assert_eq!(script.disconnects.load(Ordering::SeqCst), 1);
}
