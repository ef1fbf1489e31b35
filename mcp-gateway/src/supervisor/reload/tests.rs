//! The reload plan (pure), and whole reloads of supervised in-memory
//! servers on tokio's paused clock.

use super::*;
use std::collections::HashMap;
use std::sync::Arc;

use mcpdisco::connect::{Connectors, MemoryConnector};
use mcpdisco_client::session::SessionOptions;
use mcpdisco_protocol::{Message, RawJson, Response};
use mcpdisco_transport::sync::Mutex;
use mcpdisco_transport::{Inbound, MemoryTransport, Transport};
use serde_json::json;

use super::super::{Status, SupervisorEvent, SupervisorOptions};

fn stdio(name: &str, args: &[&str]) -> ServerConfig {
    ServerConfig::stdio(name, "fixture", args.iter().copied(), "/tmp")
}

fn plan(old: &[ServerConfig], new: &[ServerConfig]) -> Vec<ServerChange> {
    ReloadPlan::between(old, new).changes
}

#[test]
fn an_unchanged_config_keeps_every_server() {
    let servers = [stdio("a", &["1"]), stdio("b", &[])];
    let changes = plan(&servers, &servers);
    assert_eq!(
        changes,
        [
            ServerChange::Keep("a".into()),
            ServerChange::Keep("b".into())
        ]
    );
    assert!(ReloadPlan::between(&servers, &servers).is_empty());
}

#[test]
fn new_removed_and_changed_servers_are_told_apart() {
    let old = [
        stdio("kept", &[]),
        stdio("changed", &["1"]),
        stdio("gone", &[]),
    ];
    let new = [
        stdio("changed", &["2"]),
        stdio("kept", &[]),
        stdio("new", &[]),
    ];
    assert_eq!(
        plan(&old, &new),
        [
            ServerChange::Restart("changed".into()),
            ServerChange::Stop("gone".into()),
            ServerChange::Keep("kept".into()),
            ServerChange::Start("new".into()),
        ]
    );
    assert!(!ReloadPlan::between(&old, &new).is_empty());
}

#[test]
fn env_url_and_headers_are_part_of_the_launch() {
    let mut with_env = stdio("a", &[]);
    if let Launch::Stdio { env, .. } = &mut with_env.launch {
        env.insert("TOKEN".into(), "one".to_owned().into());
    }
    let mut other_env = with_env.clone();
    if let Launch::Stdio { env, .. } = &mut other_env.launch {
        env.insert("TOKEN".into(), "two".to_owned().into());
    }
    assert_eq!(
        plan(std::slice::from_ref(&with_env), &[other_env]),
        [ServerChange::Restart("a".into())]
    );
    let http = ServerConfig::http("h", "http://127.0.0.1:1/mcp");
    let moved = ServerConfig::http("h", "http://127.0.0.1:2/mcp");
    assert_eq!(
        plan(std::slice::from_ref(&http), &[moved]),
        [ServerChange::Restart("h".into())]
    );
    let mut with_header = http.clone();
    if let Launch::Http { headers, .. } = &mut with_header.launch {
        headers.insert("Authorization".into(), "Bearer x".to_owned().into());
    }
    assert_eq!(
        plan(std::slice::from_ref(&http), &[with_header]),
        [ServerChange::Restart("h".into())]
    );
}

#[test]
fn disabling_or_retiming_a_server_restarts_it() {
    let on = stdio("a", &[]);
    let mut off = on.clone();
    off.enabled = false;
    assert_eq!(
        plan(std::slice::from_ref(&on), &[off]),
        [ServerChange::Restart("a".into())]
    );
    let mut slower = on.clone();
    slower.timeout = Some(std::time::Duration::from_secs(90));
    assert_eq!(
        plan(std::slice::from_ref(&on), &[slower]),
        [ServerChange::Restart("a".into())]
    );
}

#[test]
fn a_summary_names_every_server_by_what_happened() {
    let summary = ReloadSummary {
        started: vec!["new".into()],
        stopped: vec![],
        restarted: vec!["changed".into()],
        kept: vec!["a".into(), "b".into()],
    };
    assert_eq!(
        summary.to_string(),
        "started: new; restarted: changed; stopped: -; unchanged: a, b"
    );
}

/// In-memory servers: every start and every ended connection counted by
/// server name; each lists one tool, `t`.
#[derive(Default)]
struct Fakes {
    starts: Mutex<HashMap<String, usize>>,
    ended: Mutex<HashMap<String, usize>>,
}

impl Fakes {
    fn starts(&self, server: &str) -> usize {
        self.starts.lock().get(server).copied().unwrap_or(0)
    }

    fn ended(&self, server: &str) -> usize {
        self.ended.lock().get(server).copied().unwrap_or(0)
    }
}

async fn fake_server(end: MemoryTransport, name: String, fakes: Arc<Fakes>) {
    while let Ok(Some(Inbound::Message(message))) = end.receive().await {
        let Message::Request(request) = message else {
            continue;
        };
        let result = match request.method.as_str() {
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                   "serverInfo": {"name": "fake", "version": "1"}}),
            "tools/list" => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            _ => json!({}),
        };
        let reply = Message::Response(Response {
            id: request.id.clone(),
            result: RawJson::from_value(&result),
        });
        if end.send(reply).await.is_err() {
            break;
        }
    }
    *fakes.ended.lock().entry(name).or_default() += 1;
}

/// A fake server named `name` whose launch is `variant`.
fn fake(name: &str, variant: u64) -> ServerConfig {
    let mut settings = serde_json::Map::new();
    settings.insert("variant".into(), json!(variant));
    ServerConfig::new(
        name,
        Launch::Custom {
            transport: "fake".into(),
            settings,
        },
    )
}

fn supervised(fakes: &Arc<Fakes>, servers: Vec<ServerConfig>) -> Supervisor {
    let factory = Arc::clone(fakes);
    let connectors = Connectors::builtin().with(
        "fake",
        Arc::new(MemoryConnector::new(move |server| {
            *factory
                .starts
                .lock()
                .entry(server.name.clone())
                .or_default() += 1;
            let (client, end) = MemoryTransport::pair();
            tokio::spawn(fake_server(end, server.name.clone(), Arc::clone(&factory)));
            Ok(client)
        })),
    );
    let options = SupervisorOptions {
        connectors,
        session: SessionOptions::default().era(mcpdisco_client::session::EraPreference::Legacy),
        ..SupervisorOptions::default()
    };
    Supervisor::new(servers, options)
}

fn tools(supervisor: &Supervisor) -> Vec<String> {
    supervisor
        .catalog()
        .tools
        .iter()
        .map(|entry| entry.qualified_name.clone())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_reload_starts_stops_restarts_and_keeps_each_as_its_config_says() {
    let fakes = Arc::new(Fakes::default());
    let supervisor = supervised(
        &fakes,
        vec![fake("keep", 1), fake("change", 1), fake("gone", 1)],
    );
    supervisor.start_all();
    supervisor.start_stopped().await;
    assert_eq!(tools(&supervisor), ["change__t", "gone__t", "keep__t"]);
    let generation = |supervisor: &Supervisor| {
        let unit = supervisor.inner.unit("keep").unwrap();
        unit.generation.load(std::sync::atomic::Ordering::SeqCst)
    };
    assert_eq!(generation(&supervisor), 1);
    let mut events = supervisor.subscribe();

    let summary = supervisor
        .reload(vec![fake("keep", 1), fake("change", 2), fake("new", 1)])
        .await;
    assert_eq!(summary.started, ["new"]);
    assert_eq!(summary.restarted, ["change"]);
    assert_eq!(summary.stopped, ["gone"]);
    assert_eq!(summary.kept, ["keep"]);
    // The stopped servers' connections are closed.
    eventually(|| fakes.ended("gone") == 1 && fakes.ended("change") == 1).await;
    assert_eq!(supervisor.status("gone"), None);
    supervisor.start_stopped().await;
    assert_eq!(tools(&supervisor), ["change__t", "keep__t", "new__t"]);
    assert_eq!(supervisor.servers(), ["change", "keep", "new"]);
    assert_eq!(
        fakes.starts("keep"),
        1,
        "the unchanged server never restarted"
    );
    assert_eq!(fakes.ended("keep"), 0);
    assert_eq!(fakes.starts("change"), 2);
    assert_eq!(fakes.starts("new"), 1);
    assert_eq!(generation(&supervisor), 1, "the same session serves it");
    assert!(
        supervisor.routes().tool("gone__t").is_none(),
        "its routes went too"
    );
    // Subscribers saw the catalog change.
    let mut catalogs = 0;
    while let Ok(event) = events.try_recv() {
        if matches!(event, SupervisorEvent::Catalog(_)) {
            catalogs += 1;
        }
    }
    assert!(catalogs >= 2, "{catalogs}");
    supervisor.shutdown().await;
    eventually(|| fakes.ended("keep") == 1).await;
}

/// Waits (on the paused clock, at most a minute of it) until `done`.
async fn eventually(done: impl Fn() -> bool) {
    for _ in 0..6000 {
        if done() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the condition never held");
}

#[tokio::test(start_paused = true)]
async fn reloading_the_same_config_changes_nothing() {
    let fakes = Arc::new(Fakes::default());
    let supervisor = supervised(&fakes, vec![fake("a", 1)]);
    supervisor.start_all();
    supervisor.start_stopped().await;
    let summary = supervisor.reload(vec![fake("a", 1)]).await;
    assert_eq!(summary.kept, ["a"]);
    assert!(
        summary.started.is_empty() && summary.stopped.is_empty() && summary.restarted.is_empty()
    );
    assert_eq!(fakes.starts("a"), 1);
    assert_eq!(supervisor.status("a"), Some(Status::Ready));
    supervisor.shutdown().await;
}
