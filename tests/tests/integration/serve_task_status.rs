//! Task status notifications relayed by `mcp-cli serve --http` from
//! `mcp-example-server --tasks`: a modern client (our session) that
//! starts two `slow_report` tasks through the gateway and listens for them
//! hears each status change under the id the gateway gave it, one task to
//! `completed`, the other to `cancelled` after its cancel; an id the
//! gateway did not give out is not honoured.

use std::process::Command;
use std::time::Duration;

use mcp_tests::processes;
use mcp_tests::serve_http::ServeHttp;
use mcp_tests::tools::workspace_bin;
use mcpdisco_client::notification::ServerNotification;
use mcpdisco_client::session::{
    RequestOptions, Session, SessionOptions, Subscription, ToolCallStart,
};
use mcpdisco_protocol::method::NotificationMethod;
use mcpdisco_protocol::methods::{SubscriptionsAcknowledged, TaskStatusChanged};
use mcpdisco_protocol::types::{CallToolParams, DetailedTask, SubscriptionFilter, TaskStatus};
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
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
        let declaring = SessionOptions::default().capabilities(
            serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
                .unwrap(),
        );
        let session = Session::connect("gateway", transport, declaring)
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
