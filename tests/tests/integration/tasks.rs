//! Tool calls that run as tasks (extension `io.modelcontextprotocol/tasks`)
//! against the example server's task tools (`--conformance`): a call
//! followed to its result, cancelled at its deadline or when dropped,
//! resumed by id on a new session, its questions answered by the handler,
//! and a task-only tool called as one without being asked.

use std::time::Duration;

use async_trait::async_trait;
use mcp_example_server::{Server, ServerOptions, serve_http};
use mcp_tests::tools::workspace_bin;
use mcpdisco_client::session::{
    ClientHandler, ErrorKind, RequestOptions, Session, SessionOptions, ToolCallStart,
};
use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::types::{CallToolParams, ElicitParams, ElicitResult, Task, TaskStatus};
use mcpdisco_transport::Delivery;
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::stdio::{StdioConfig, StdioTransport};
use serde_json::{Map, Value, json};
use tokio::sync::watch;

/// Accepts every form with a name and a confirmation.
struct Accepting;

#[async_trait]
impl ClientHandler for Accepting {
    async fn elicit(&self, _params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let mut content = Map::new();
        content.insert("confirm".into(), json!(true));
        content.insert("name".into(), json!("Ada"));
        Ok(ElicitResult::accept(content))
    }
}

fn options() -> SessionOptions {
    SessionOptions::default()
        .handler(Accepting)
        .capabilities(serde_json::from_value(json!({"elicitation": {}})).unwrap())
}

async fn conformance_server() -> Session {
    let binary = workspace_bin("mcp-example-server");
    let config =
        StdioConfig::new("tasks", binary.to_string_lossy()).args(["stdio", "--conformance"]);
    Session::connect("tasks", StdioTransport::spawn(config).unwrap(), options())
        .await
        .unwrap()
}

fn call(tool: &str, arguments: Value) -> CallToolParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    CallToolParams::new(tool, Some(arguments))
}

fn text(result: &mcpdisco_protocol::types::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .collect::<Vec<_>>()
        .join("")
}

/// The id of the task the call runs as, once the status watch shows one.
/// Asserts that `tool`, called without asking for a task (and with no
/// time to take), answers at once, not as a task.
async fn answers_at_once(session: &Session, tool: &str) {
    let started = session
        .start_tool_call(call(tool, json!({"seconds": 0})), RequestOptions::new())
        .await
        .unwrap();
    assert!(
        matches!(started, ToolCallStart::Completed(_)),
        "{tool}: {started:?}"
    );
}

async fn task_id(statuses: &mut watch::Receiver<Option<Task>>) -> String {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Some(task) = statuses.borrow_and_update().clone() {
                return task.task_id;
            }
            statuses.changed().await.unwrap();
        }
    })
    .await
    .unwrap()
}

/// Waits (bounded) until the server shows the task `id` in `status`.
async fn until_status(session: &Session, id: &str, status: TaskStatus) {
    let mut last = None;
    for _ in 0..100 {
        let seen = session.get_task(id).await.unwrap();
        if seen.task.status == status {
            return;
        }
        last = Some(seen.task.status);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never became {status:?}; last {last:?}");
}

#[tokio::test]
async fn a_call_answered_with_a_task_is_followed_to_its_result() {
    let session = conformance_server().await;
    assert!(session.offers_tasks());
    let (sender, mut statuses) = watch::channel(None);
    let result = session
        .call_tool(
            call("slow_compute", json!({"seconds": 1, "label": "report"})),
            RequestOptions::new().task(true).task_status(sender),
        )
        .await
        .unwrap();
    assert!(text(&result).contains("report"), "{}", text(&result));
    let last = statuses
        .borrow_and_update()
        .clone()
        .expect("a task was followed");
    assert_eq!(last.status, TaskStatus::Completed);
    // Without asking, the same tool answers at once.
    answers_at_once(&session, "slow_compute").await;
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_deadline_is_the_whole_tasks_and_cancels_it_at_the_server() {
    let session = conformance_server().await;
    let (sender, mut statuses) = watch::channel(None);
    let error = session
        .call_tool(
            call("slow_compute", json!({"seconds": 30})),
            RequestOptions::new()
                .task(true)
                .task_status(sender)
                .timeout(Duration::from_millis(1500)),
        )
        .await
        .unwrap_err();
    assert!(matches!(error.kind(), ErrorKind::Timeout { .. }), "{error}");
    assert_eq!(error.operation(), "tools/call", "{error}");
    assert_eq!(
        error.delivery(),
        Delivery::Answered,
        "answered with its task"
    );
    let id = task_id(&mut statuses).await;
    until_status(&session, &id, TaskStatus::Cancelled).await;
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_dropped_call_cancels_its_task() {
    let session = conformance_server().await;
    let (sender, mut statuses) = watch::channel(None);
    let caller = session.clone();
    let running = tokio::spawn(async move {
        caller
            .call_tool(
                call("slow_compute", json!({"seconds": 30})),
                RequestOptions::new().task(true).task_status(sender),
            )
            .await
    });
    let id = task_id(&mut statuses).await;
    assert_eq!(
        session.get_task(&id).await.unwrap().task.status,
        TaskStatus::Working
    );
    running.abort();
    let _ = running.await;
    until_status(&session, &id, TaskStatus::Cancelled).await;
    session.close().await.unwrap();
}

#[tokio::test]
async fn questions_inside_a_task_are_answered_by_the_handler() {
    let session = conformance_server().await;
    let (sender, statuses) = watch::channel(None);
    let result = session
        .call_tool(
            call("confirm_delete", json!({"filename": "old.txt"})),
            RequestOptions::new()
                .task(true)
                .task_status(sender)
                .timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap();
    assert_eq!(text(&result), "Deleted old.txt.");
    assert!(statuses.borrow().is_some(), "it ran as a task");
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_tool_that_only_runs_as_a_task_is_called_as_one_unasked() {
    let session = conformance_server().await;
    let (sender, statuses) = watch::channel(None);
    let result = session
        .call_tool(
            call("test_tool_with_task", json!({})),
            RequestOptions::new()
                .task_status(sender)
                .timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap();
    assert!(text(&result).contains("Ada"), "{}", text(&result));
    assert!(statuses.borrow().is_some(), "it ran as a task");
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_task_is_resumed_by_id_on_a_new_session_and_cancelled_from_one() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(
        listener,
        Server::new(ServerOptions {
            conformance: true,
            ..ServerOptions::default()
        }),
        async {
            let _ = stopped.await;
        },
    ));
    let client = HttpClient::shared().unwrap();
    let connect = || async {
        let transport = HttpTransport::connect(
            HttpConfig::new("tasks", url.clone()),
            &client,
            HttpKind::StreamableHttp,
        )
        .await
        .unwrap();
        Session::connect("tasks", transport, options())
            .await
            .unwrap()
    };
    let first = connect().await;
    let started = first
        .start_tool_call(
            call("slow_compute", json!({"seconds": 1, "label": "later"})),
            RequestOptions::new().task(true),
        )
        .await
        .unwrap();
    let ToolCallStart::Task(task) = started else {
        panic!("no task: {started:?}")
    };
    let second_task = match first
        .start_tool_call(
            call("slow_compute", json!({"seconds": 30})),
            RequestOptions::new().task(true),
        )
        .await
        .unwrap()
    {
        ToolCallStart::Task(task) => task,
        other => panic!("no task: {other:?}"),
    };
    first.close().await.unwrap();

    let second = connect().await;
    let result = second
        .await_task(
            &task.task_id,
            RequestOptions::new().timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap();
    assert!(text(&result).contains("later"), "{}", text(&result));
    second.cancel_task(&second_task.task_id).await.unwrap();
    until_status(&second, &second_task.task_id, TaskStatus::Cancelled).await;
    second.close().await.unwrap();
    let _ = stop.send(());
    let _ = server.await;
}

#[tokio::test]
async fn the_example_servers_slow_report_runs_as_a_task_with_tasks() {
    let binary = workspace_bin("mcp-example-server");
    let config = StdioConfig::new("reports", binary.to_string_lossy()).args(["stdio", "--tasks"]);
    let session = Session::connect(
        "reports",
        StdioTransport::spawn(config).unwrap(),
        SessionOptions::default(),
    )
    .await
    .unwrap();
    assert!(session.offers_tasks());
    let tools = session.list_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.unwrap().name == "slow_report"));
    let (sender, statuses) = watch::channel(None);
    let result = session
        .call_tool(
            call("slow_report", json!({"seconds": 0.5})),
            RequestOptions::new()
                .task(true)
                .task_status(sender)
                .timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap();
    assert_eq!(text(&result), "report ready after 0.5s");
    assert!(statuses.borrow().is_some(), "it ran as a task");
    answers_at_once(&session, "slow_report").await;
    let ToolCallStart::Task(long) = session
        .start_tool_call(
            call("slow_report", json!({"seconds": 30})),
            RequestOptions::new().task(true),
        )
        .await
        .unwrap()
    else {
        panic!("no task")
    };
    session.cancel_task(&long.task_id).await.unwrap();
    until_status(&session, &long.task_id, TaskStatus::Cancelled).await;
    session.close().await.unwrap();
}

#[tokio::test]
async fn a_session_that_declares_the_extension_is_answered_with_tasks_unasked() {
    let binary = workspace_bin("mcp-example-server");
    let config =
        StdioConfig::new("tasks", binary.to_string_lossy()).args(["stdio", "--conformance"]);
    let declaring = SessionOptions::default().capabilities(
        serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
            .unwrap(),
    );
    let session = Session::connect("tasks", StdioTransport::spawn(config).unwrap(), declaring)
        .await
        .unwrap();
    let started = session
        .start_tool_call(
            call("slow_compute", json!({"seconds": 0, "label": "declared"})),
            RequestOptions::new(),
        )
        .await
        .unwrap();
    assert!(matches!(started, ToolCallStart::Task(_)), "{started:?}");
    let (sender, statuses) = watch::channel(None);
    let result = session
        .call_tool(
            call("slow_compute", json!({"seconds": 0, "label": "declared"})),
            RequestOptions::new()
                .task_status(sender)
                .timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap();
    assert!(text(&result).contains("declared"), "{}", text(&result));
    assert!(statuses.borrow().is_some(), "it ran as a task");
    session.close().await.unwrap();
}
