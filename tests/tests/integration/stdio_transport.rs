//! The stdio transport against fixture servers that misbehave on purpose.
//! Every test checks that no process it started is left running, or left
//! as a zombie nobody waited for.

use std::time::Duration;

use mcp_tests::processes::{reaped, running};
use mcpdisco_protocol::{Message, Request, RequestId};
use mcpdisco_transport::stdio::{EnvPolicy, StdioConfig, StdioTransport};
use mcpdisco_transport::{ExitStatus, Inbound, Transport, TransportError};
use serde_json::json;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

fn config(name: &str, mode: &str) -> StdioConfig {
    let mut config = StdioConfig::new(name, FIXTURE).args([mode]);
    config.shutdown_grace = Duration::from_millis(300);
    config.term_grace = Duration::from_millis(300);
    config
}

fn request(id: i64, method: &str) -> Message {
    Message::Request(Request {
        id: RequestId::from(id),
        method: method.into(),
        params: Some(json!({}).into()),
    })
}

/// Waits (bounded) until a process is reaped: gone, not left as a zombie
/// of this test process ([`reaped`]).
async fn gone(pid: u32) -> bool {
    for _ in 0..100 {
        if reaped(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

async fn receive(transport: &StdioTransport) -> Result<Option<Message>, TransportError> {
    tokio::time::timeout(Duration::from_secs(10), transport.receive())
        .await
        .expect("receive hung")
        .map(|inbound| inbound.and_then(Inbound::into_message))
}

async fn ping(transport: &StdioTransport, id: i64) -> Message {
    transport.send(request(id, "ping")).await.unwrap();
    receive(transport).await.unwrap().unwrap()
}

#[tokio::test]
async fn well_behaved_server_answers_and_is_reaped_on_close() {
    let transport = StdioTransport::spawn(config("good", "well-behaved")).unwrap();
    let pid = transport.pid().unwrap();
    transport.send(request(1, "tools/list")).await.unwrap();
    let Some(Message::Response(response)) = receive(&transport).await.unwrap() else {
        panic!()
    };
    assert_eq!(response.id, RequestId::from(1));
    assert_eq!(
        response.result.to_value().unwrap()["tools"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        transport.describe(),
        format!("stdio: {FIXTURE} well-behaved")
    );
    transport.close().await.unwrap();
    transport.close().await.unwrap();
    assert!(reaped(pid), "the server outlived close() or was not reaped");
    assert!(matches!(
        transport.send(request(2, "ping")).await,
        Err(TransportError::Closed { .. })
    ));
}

#[tokio::test]
async fn exit_at_start_reports_status_and_stderr() {
    let transport = StdioTransport::spawn(config("github", "exit-at-start")).unwrap();
    let pid = transport.pid().unwrap();
    let error = receive(&transport).await.unwrap_err();
    assert!(
        matches!(
            &error,
            TransportError::Exited {
                status: ExitStatus::Code(3),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "server 'github' exited with status 3: fatal: missing API_TOKEN"
    );
    // Later operations fail at once, the same way.
    let later = transport.send(request(1, "ping")).await.unwrap_err();
    assert_eq!(later.to_string(), error.to_string());
    assert!(gone(pid).await);
}

#[tokio::test]
async fn closing_stdout_counts_as_exit_and_the_process_is_stopped() {
    let transport = StdioTransport::spawn(config("mute", "close-stdout")).unwrap();
    let pid = transport.pid().unwrap();
    let error = receive(&transport).await.unwrap_err();
    assert!(matches!(error, TransportError::Exited { .. }), "{error:?}");
    assert!(
        gone(pid).await,
        "a server that closed stdout must be stopped"
    );
}

#[tokio::test]
async fn stderr_flood_does_not_deadlock() {
    let transport = StdioTransport::spawn(config("loud", "stderr-flood")).unwrap();
    let pid = transport.pid().unwrap();
    let reply = ping(&transport, 7).await;
    assert_eq!(reply.response_id(), Some(&RequestId::from(7)));
    let tail = transport.stderr_tail();
    assert!(
        tail.len() <= 64 * 1024 && tail.len() > 60 * 1024,
        "tail is {} bytes",
        tail.len()
    );
    transport.close().await.unwrap();
    assert!(reaped(pid));
}

#[tokio::test]
async fn a_server_that_ignores_eof_and_sigterm_is_killed() {
    let transport = StdioTransport::spawn(config("stubborn", "ignore-term")).unwrap();
    let pid = transport.pid().unwrap();
    ping(&transport, 1).await;
    transport.close().await.unwrap();
    assert!(reaped(pid), "SIGKILL must end it, and close() reap it");
}

async fn grandchild_pid(transport: &StdioTransport) -> u32 {
    for _ in 0..200 {
        if let Some(pid) = transport
            .stderr_tail()
            .lines()
            .find_map(|line| line.strip_prefix("grandchild pid "))
            .and_then(|pid| pid.trim().parse().ok())
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the fixture never reported its grandchild");
}

#[tokio::test]
async fn close_stops_grandchildren_too() {
    let transport = StdioTransport::spawn(config("parent", "grandchild")).unwrap();
    let pid = transport.pid().unwrap();
    let grandchild = grandchild_pid(&transport).await;
    assert!(running(grandchild));
    transport.close().await.unwrap();
    assert!(reaped(pid));
    assert!(gone(grandchild).await, "the grandchild outlived close()");
}

#[tokio::test]
async fn drop_without_close_kills_the_group() {
    let transport = StdioTransport::spawn(config("dropped", "grandchild")).unwrap();
    let pid = transport.pid().unwrap();
    let grandchild = grandchild_pid(&transport).await;
    drop(transport);
    assert!(gone(pid).await, "the server outlived drop");
    assert!(gone(grandchild).await, "the grandchild outlived drop");
}

#[tokio::test]
async fn noise_and_invalid_utf8_are_skipped_and_counted() {
    for (mode, per_answer) in [("noise", 1), ("invalid-utf8", 1)] {
        let transport = StdioTransport::spawn(config(mode, mode)).unwrap();
        for id in 1..=3 {
            assert_eq!(
                ping(&transport, id).await.response_id(),
                Some(&RequestId::from(id))
            );
        }
        let skipped = transport.skipped();
        assert_eq!(skipped.count(), 3 * per_answer, "{mode}: {skipped}");
        transport.close().await.unwrap();
    }
}

#[tokio::test]
async fn oversized_line_is_skipped_and_the_stream_goes_on() {
    let mut config = config("big", "oversized");
    config.max_frame_len = 64 * 1024;
    let transport = StdioTransport::spawn(config).unwrap();
    assert_eq!(
        ping(&transport, 5).await.response_id(),
        Some(&RequestId::from(5))
    );
    let skipped = transport.skipped();
    assert_eq!(skipped.oversized(), 1);
    assert_eq!(skipped.first()[0].len, 1024 * 1024);
    transport.close().await.unwrap();
}

#[tokio::test]
async fn missing_command_is_a_spawn_error() {
    let error = StdioTransport::spawn(StdioConfig::new("ghost", "/nonexistent/mcp-server"))
        .err()
        .unwrap();
    assert!(matches!(error, TransportError::Spawn { .. }));
    let text = error.to_string();
    assert!(
        text.starts_with("server 'ghost': failed to start '/nonexistent/mcp-server': "),
        "{text}"
    );
    assert!(text.contains("No such file"), "{text}");
}

/// The variable names the `env` fixture reports seeing, under `policy`.
async fn visible_names(policy: EnvPolicy) -> (serde_json::Value, Vec<String>) {
    let mut config = config("env", "env").env("FIXTURE_SECRET", "s3cr3t-value");
    config.env_policy = policy;
    let transport = StdioTransport::spawn(config).unwrap();
    let Message::Response(reply) = ping(&transport, 1).await else {
        panic!()
    };
    transport.close().await.unwrap();
    let result = reply.result.to_value().unwrap();
    let names = result["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap().to_owned())
        .collect();
    (result, names)
}

#[tokio::test]
async fn by_default_a_server_sees_only_the_allowlist_and_its_own_env() {
    // Cargo sets these for every test process: host variables the server must not see.
    assert!(
        std::env::var_os("CARGO").is_some() && std::env::var_os("CARGO_MANIFEST_DIR").is_some()
    );
    let (result, names) = visible_names(EnvPolicy::default()).await;
    assert_eq!(result["secret"], "s3cr3t-value");
    assert_eq!(
        result["home"].as_str(),
        std::env::var("HOME").ok().as_deref()
    );
    assert!(names.contains(&"PATH".to_owned()), "{names:?}");
    for name in &names {
        assert!(
            name == "FIXTURE_SECRET" || mcpdisco_transport::stdio::is_inherited_by_default(name),
            "the server saw {name}: {names:?}"
        );
    }
    assert!(!names.contains(&"CARGO".to_owned()));

    let (_, passthrough) = visible_names(EnvPolicy::Allowlist {
        passthrough: vec!["CARGO_MANIFEST_DIR".into()],
    })
    .await;
    assert!(passthrough.contains(&"CARGO_MANIFEST_DIR".to_owned()));
    assert!(!passthrough.contains(&"CARGO".to_owned()));

    let (_, everything) = visible_names(EnvPolicy::InheritAll).await;
    assert!(everything.contains(&"CARGO".to_owned()));
    assert!(everything.contains(&"CARGO_MANIFEST_DIR".to_owned()));
}
