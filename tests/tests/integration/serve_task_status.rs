//! Task status notifications relayed by `mcp-cli serve --http` from
//! `mcp-example-server --tasks`: a modern client (our session) that
//! starts two `slow_report` tasks through the gateway and listens for them
//! hears each status change under the id the gateway gave it, one task to
//! `completed`, the other to `cancelled` after its cancel; an id the
//! gateway did not give out is not honoured. And, with the gateway and the
//! example server in this process: when the client's listen ends, the
//! listen the gateway holds at the server ends too.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_example_server::{Server, ServerOptions, serve_transport};
use mcp_tests::processes;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::workspace_bin;
use mcpdisco::config::{Launch, ServerConfig};
use mcpdisco::connect::{Connectors, MemoryConnector};
use mcpdisco_client::notification::ServerNotification;
use mcpdisco_client::session::{
    RequestOptions, Session, SessionOptions, Subscription, ToolCallStart,
};
use mcpdisco_gateway::serve::{Gateway, GatewayOptions};
use mcpdisco_gateway::supervisor::SupervisorOptions;
use mcpdisco_protocol::method::NotificationMethod;
use mcpdisco_protocol::methods::{SubscriptionsAcknowledged, TaskStatusChanged};
use mcpdisco_protocol::types::{CallToolParams, DetailedTask, SubscriptionFilter, TaskStatus};
use mcpdisco_transport::MemoryTransport;
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::trace::{Direction, MemoryTrace, TraceEvent, Tracer};
use serde_json::{Value, json};

/// The longest the test waits for one notification.
const WAIT: Duration = Duration::from_secs(20);

/// A task of the example server's `slow_report` through the gateway: its id.
async fn start_report(session: &Session, seconds: u32) -> String {
    let arguments = json!({"seconds": seconds});
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let params = CallToolParams::new("reports__slow_report", Some(arguments));
    match session
        .start_tool_call(params, RequestOptions::new().task(true))
        .await
        .unwrap()
    {
        ToolCallStart::Task(task) => task.task_id,
        other => panic!("no task: {other:?}"),
    }
}

/// Session options declaring the tasks extension.
fn declaring_tasks() -> SessionOptions {
    SessionOptions::default().capabilities(
        serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
            .unwrap(),
    )
}

/// The subscription's next notification (bounded).
async fn next(subscription: &mut Subscription) -> ServerNotification {
    tokio::time::timeout(WAIT, subscription.next())
        .await
        .expect("a notification in time")
        .expect("the subscription is open")
}

#[test]
fn status_changes_of_relayed_tasks_reach_a_listening_client_under_its_ids() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("{}-status", std::process::id());
    let config = dir.path().join("gateway.json");
    let backend = json!({
        "command": workspace_bin("mcp-example-server"),
        "args": ["stdio", "--tasks"],
        "env": {processes::MARKER_VARIABLE: &marker},
    });
    std::fs::write(
        &config,
        json!({"mcpServers": {"reports": backend}}).to_string(),
    )
    .unwrap();
    let mut command = Command::new(workspace_bin("mcp-cli"));
    command
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .args(["--http", "127.0.0.1:0"]);
    let serve = ServeHttp::start(command);

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let transport = HttpTransport::connect(
            HttpConfig::new("gateway", serve.url.clone()),
            &HttpClient::shared().unwrap(),
            HttpKind::StreamableHttp,
        )
        .await
        .unwrap();
        let session = Session::connect("gateway", transport, declaring_tasks())
            .await
            .unwrap();
        let completes = start_report(&session, 2).await;
        let cancelled = start_report(&session, 30).await;
        let foreign = "task-1".to_owned();
        let filter = SubscriptionFilter::default().with_task_ids([
            completes.clone(),
            foreign,
            cancelled.clone(),
        ]);
        let mut subscription = session
            .listen(filter, RequestOptions::default())
            .await
            .unwrap();
        let acknowledged = next(&mut subscription).await;
        let ServerNotification::Other {
            method,
            params: Some(params),
        } = &acknowledged
        else {
            panic!("no acknowledgement: {acknowledged:?}")
        };
        assert_eq!(method, SubscriptionsAcknowledged::METHOD);
        assert_eq!(
            params["notifications"]["taskIds"],
            json!([completes, cancelled]),
            "only the gateway's own ids are honoured"
        );

        // Each change under the client's id, until both tasks have ended.
        let mut ended = Vec::new();
        while ended.len() < 2 {
            let notification = next(&mut subscription).await;
            let ServerNotification::Other {
                method,
                params: Some(params),
            } = notification
            else {
                continue;
            };
            if method != TaskStatusChanged::METHOD {
                continue;
            }
            let task: DetailedTask = serde_json::from_value(params).unwrap();
            let id = task.task.task_id;
            assert!(id == completes || id == cancelled, "a client's id: {id}");
            match task.task.status {
                TaskStatus::Completed => {
                    assert_eq!(id, completes);
                    ended.push(TaskStatus::Completed);
                    session.cancel_task(&cancelled).await.unwrap();
                }
                TaskStatus::Cancelled => {
                    assert_eq!(id, cancelled);
                    ended.push(TaskStatus::Cancelled);
                }
                _ => {}
            }
        }
        assert_eq!(ended, [TaskStatus::Completed, TaskStatus::Cancelled]);
        drop(subscription);
        session.close().await.unwrap();
    });

    let status = serve.stop();
    assert!(status.success(), "serve exited with {status}");
    processes::assert_none_marked(&marker);
}

/// The messages the gateway's sessions sent their servers, as traced.
fn sent_to_servers(trace: &MemoryTrace) -> Vec<Value> {
    trace
        .events()
        .into_iter()
        .filter_map(|event| match event {
            TraceEvent::Message {
                direction: Direction::Out,
                text,
                ..
            } => serde_json::from_str(&text).ok(),
            _ => None,
        })
        .collect()
}

/// Waits (bounded) until `found` finds something in what the gateway sent
/// its servers.
async fn sent_until<T>(trace: &MemoryTrace, found: impl Fn(&[Value]) -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(found) = found(&sent_to_servers(trace)) {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "not sent in {WAIT:?}: {:#?}",
            sent_to_servers(trace)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_gateways_listen_at_the_server_ends_with_the_clients_listen() {
    // The example server with tasks, in this process; the gateway's session
    // with it traced, so the test sees what the gateway sends it.
    let connectors = Connectors::builtin().with(
        "memory",
        Arc::new(MemoryConnector::new(|_: &ServerConfig| {
            let (client, server_end) = MemoryTransport::pair();
            let example = Server::new(ServerOptions {
                tasks: true,
                ..ServerOptions::default()
            });
            tokio::spawn(serve_transport(example, server_end));
            Ok(client)
        })),
    );
    let trace = Arc::new(MemoryTrace::default());
    let traced = SessionOptions::default().tracer(Tracer::new(trace.clone(), Masker::default()));
    let supervisor = SupervisorOptions::default()
        .connectors(connectors)
        .session(traced);
    let server = ServerConfig::new(
        "reports",
        Launch::Custom {
            transport: "memory".into(),
            settings: serde_json::Map::new(),
        },
    );
    let gateway = Gateway::new(vec![server], supervisor, GatewayOptions::default());
    let (client_end, served) = MemoryTransport::pair();
    let serving = gateway.clone();
    tokio::spawn(async move { serving.serve(served).await });

    let session = Session::connect("gateway", client_end, declaring_tasks())
        .await
        .unwrap();
    let task = start_report(&session, 30).await;
    let filter = SubscriptionFilter::default().with_task_ids([task.clone()]);
    let mut subscription = session
        .listen(filter, RequestOptions::default())
        .await
        .unwrap();
    let acknowledged = next(&mut subscription).await;
    assert!(
        matches!(&acknowledged, ServerNotification::Other { method, .. } if method == SubscriptionsAcknowledged::METHOD),
        "{acknowledged:?}"
    );
    // The gateway listens at the server before it acknowledges.
    let listen_id = sent_until(&trace, |sent| {
        sent.iter()
            .find(|message| message["method"] == "subscriptions/listen")
            .map(|listen| listen["id"].clone())
    })
    .await;
    let cancels_listen = |sent: &[Value]| {
        sent.iter()
            .any(|message| {
                message["method"] == "notifications/cancelled"
                    && message["params"]["requestId"] == listen_id
            })
            .then_some(())
    };
    assert!(cancels_listen(&sent_to_servers(&trace)).is_none());

    // The client's listen ends: so does the gateway's at the server.
    drop(subscription);
    sent_until(&trace, cancels_listen).await;

    session.cancel_task(&task).await.unwrap();
    session.close().await.unwrap();
}
