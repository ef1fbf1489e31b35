//! Profiles: a client of a profile lists what the profile shows, and a
//! reload's profiles reach a client that is already connected.

use mcpdisco::config::{Filter, Profile, Profiles};

use super::*;

/// One profile, `ops`, showing the tools that match `glob`.
fn ops_showing(glob: &str) -> Profiles {
    let profile = Profile {
        name: "ops".into(),
        source: "/c.json".into(),
        servers: None,
        tools: Filter {
            allow: vec![glob::Pattern::new(glob).unwrap()],
            deny: Vec::new(),
        },
        tool_search: false,
        required_scopes: Vec::new(),
    };
    Profiles::from([("ops".to_owned(), profile)])
}

/// The names of the tools `client` lists, asked with request `id`.
async fn tool_names(client: &MemoryTransport, id: i64) -> Vec<String> {
    send(
        client,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
    )
    .await;
    let listed = next(client, |m| m["id"] == id).await;
    listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_reloads_profiles_change_what_a_connected_client_of_a_profile_lists() {
    let seen = Arc::new(Seen::default());
    let script = Arc::clone(&seen);
    let options = GatewayOptions {
        profiles: ops_showing("s__slow"),
        ..GatewayOptions::default()
    };
    let gateway = scripted_gateway("s", move |end| scripted(end, Arc::clone(&script)), options);
    let (client, served) = MemoryTransport::pair();
    let serving = gateway.clone();
    tokio::spawn(async move { serving.serve_profile(served, "ops").await });
    initialize(&client, json!({})).await;
    assert_eq!(tool_names(&client, 2).await, ["s__slow"]);

    let servers = vec![gateway.supervisor().config("s").unwrap()];
    gateway.reload(servers, ops_showing("s__ask")).await;
    assert_eq!(gateway.profiles()["ops"].tools.allow[0].as_str(), "s__ask");
    assert_eq!(tool_names(&client, 3).await, ["s__ask"]);
    gateway.shutdown().await;
}
