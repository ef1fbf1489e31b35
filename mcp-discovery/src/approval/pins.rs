//! Pins of configured servers: a server's pin scope (its identity as
//! shown, secrets masked), the items of a discovery report as they were
//! sent, and the checks of every server that has pins. Where the pins are
//! kept is [`PinStore`](super::PinStore)'s.

use mcpdisco_capability::PinStatus;
use mcpdisco_capability::pins::{ItemCheck, ItemKind, PinFile, PinItem, PinScope, ServerIdentity};
use mcpdisco_client::session::ListKind;
use mcpdisco_protocol::raw::ToolView;

use super::dir::file_stem;
use crate::config::{Launch, ServerConfig};
use crate::report::{DiscoveryReport, ServerReport, ServerStatus};

/// What identifies `server` for its pins: its name and what launches it
/// (transport, command and arguments, URL, or a third party's settings),
/// as shown, so rotating a secret keeps the pins while pointing the name
/// at another server does not.
pub fn identity_of(server: &ServerConfig) -> ServerIdentity {
    let mut identity = ServerIdentity {
        name: server.name.clone(),
        transport: String::new(),
        command: None,
        args: None,
        url: None,
        settings: None,
    };
    match &server.launch {
        Launch::Stdio { command, .. } => {
            identity.transport = "stdio".into();
            identity.command = Some(command.clone());
            identity.args = Some(server.shown_args().to_vec());
        }
        Launch::Http { .. } => {
            identity.transport = "http".into();
            identity.url = server.shown_url().map(str::to_owned);
        }
        Launch::Custom { transport, .. } => {
            identity.transport = transport.clone();
            identity.settings = server.shown_settings();
        }
    }
    identity
}

/// The scope of `server`'s pins (see [`identity_of`]).
pub fn scope_of(server: &ServerConfig) -> PinScope {
    PinScope::of(&identity_of(server))
}

/// Every pinnable item of `report`, as its server sent it.
pub fn items_of(report: &ServerReport) -> Vec<PinItem<'_>> {
    [
        (ItemKind::Tool, ListKind::Tools),
        (ItemKind::Prompt, ListKind::Prompts),
        (ItemKind::Resource, ListKind::Resources),
        (ItemKind::Template, ListKind::ResourceTemplates),
        (ItemKind::Skill, ListKind::Skills),
    ]
    .into_iter()
    .flat_map(|(kind, list)| {
        report
            .items(list)
            .iter()
            .map(move |item| PinItem::read(kind, item))
    })
    .collect()
}

/// The pin checks of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerChecks {
    /// The server.
    pub server: String,
    /// Each item it offers, then each pinned item it no longer offers.
    pub items: Vec<ItemCheck>,
}

impl ServerChecks {
    /// The items not as approved: changed, new (never approved) or removed.
    pub fn not_as_approved(&self) -> impl Iterator<Item = &ItemCheck> {
        self.items
            .iter()
            .filter(|check| check.status != PinStatus::Unchanged)
    }
}

/// The checks of every ready server of `report` (configured in `servers`)
/// that has pins.
pub fn checks(
    pins: &PinFile,
    servers: &[ServerConfig],
    report: &DiscoveryReport,
) -> Vec<ServerChecks> {
    report
        .servers
        .iter()
        .filter(|r| r.status == ServerStatus::Ready)
        .filter_map(|r| {
            let server = servers.iter().find(|s| s.name == r.name)?;
            let items = check(pins, server, r);
            (!items.is_empty()).then(|| ServerChecks {
                server: r.name.clone(),
                items,
            })
        })
        .collect()
}

/// Compares what `report` found for `server` with its pins (nothing for a
/// server without pins: its items are then not even read).
pub fn check(pins: &PinFile, server: &ServerConfig, report: &ServerReport) -> Vec<ItemCheck> {
    let scope = scope_of(server);
    if !pins.has_pins(&scope) {
        return Vec::new();
    }
    pins.check(&scope, items_of(report))
}

/// The tools of `report` whose manifest file stem is each of `stems`, as
/// their server sent them; or the stems whose tool it no longer offers.
pub fn tools_of_stems<'a>(
    report: &'a ServerReport,
    stems: &[String],
) -> Result<Vec<ToolView<'a>>, Vec<String>> {
    let offered: Vec<ToolView<'a>> = report
        .items(ListKind::Tools)
        .iter()
        .map(ToolView::of)
        .collect();
    let mut chosen = Vec::new();
    let mut missing = Vec::new();
    for stem in stems {
        match offered
            .iter()
            .find(|tool| tool.name().is_some_and(|name| file_stem(&name) == *stem))
        {
            Some(tool) => chosen.push(*tool),
            None => missing.push(stem.clone()),
        }
    }
    if missing.is_empty() {
        Ok(chosen)
    } else {
        Err(missing)
    }
}

/// Pins, from `report` (a discovery made at approval time), the tool whose
/// manifest file stem is each of `stems`: the keys pinned, or the stems
/// whose tool the server no longer offers (then nothing is pinned).
pub fn pin_tools(
    pins: &mut PinFile,
    server: &ServerConfig,
    report: &ServerReport,
    stems: &[String],
) -> Result<Vec<String>, Vec<String>> {
    let chosen = tools_of_stems(report, stems)?;
    let scope = scope_of(server);
    Ok(chosen
        .iter()
        .filter_map(|tool| pins.pin(&scope, tool))
        .collect())
}

/// Removes the pin of `server`'s tool whose manifest file stem is `stem`;
/// its key, if it was pinned.
pub fn unpin_tool_stem(pins: &mut PinFile, server: &ServerConfig, stem: &str) -> Option<String> {
    let scope = scope_of(server);
    let key = pins
        .keys(&scope)
        .find(|key| {
            key.strip_prefix("tool:")
                .is_some_and(|name| file_stem(name) == stem)
        })?
        .to_owned();
    pins.unpin(&scope, &key).then_some(key)
}

/// The names of `server`'s tools that are not as approved (changed, or
/// never approved) in `report`, when the server has pins.
pub fn tools_not_as_approved(
    pins: &PinFile,
    server: &ServerConfig,
    report: &ServerReport,
) -> Vec<String> {
    check(pins, server, report)
        .into_iter()
        .filter(|check| matches!(check.status, PinStatus::Changed | PinStatus::New))
        .filter_map(|check| check.key.strip_prefix("tool:").map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::PinStore;
    use crate::approval::store::LOCK_FILE;
    use mcpdisco_protocol::RawJson;
    use serde_json::{Value, json};

    fn report(tools: Vec<Value>) -> ServerReport {
        let mut report = ServerReport::empty("s", crate::report::ServerStatus::Ready);
        report.tools = tools.iter().map(RawJson::from_value).collect();
        report
    }

    #[test]
    fn scopes_keep_pins_across_a_rotated_secret_and_not_across_servers() {
        let mut rotated =
            ServerConfig::http("s", "http://127.0.0.1:1/mcp?key=sk-secret-rotated-0001");
        let mut original =
            ServerConfig::http("s", "http://127.0.0.1:1/mcp?key=sk-secret-original-01");
        rotated.description = Some("a new description".into());
        original.description = None;
        assert_eq!(scope_of(&rotated), scope_of(&original));
        assert_ne!(
            scope_of(&ServerConfig::http("s", "http://127.0.0.1:1/mcp")).key,
            scope_of(&ServerConfig::http("s", "http://127.0.0.1:2/mcp")).key
        );
    }

    /// Known answers for pin scopes, a stored format (the lock file files
    /// pins under them); the same vectors as `mcpdisco-capability`'s
    /// `pin_vectors`, reached from configured servers, secrets masked.
    #[test]
    fn scopes_have_known_answers() {
        let http = ServerConfig::http("github", "https://api.github.com/mcp");
        assert_eq!(scope_of(&http).key, "b7481e90fc00521bc8b02f0f191e87a9");
        let stdio = ServerConfig::stdio(
            "fs",
            "npx",
            ["-y", "server-fs", "--token", "sk-live-0123456789abcdef"],
            "/",
        );
        assert_eq!(scope_of(&stdio).key, "81e7d55e2c76b9e9eab0b71b6d5cd5be");
        assert_eq!(scope_of(&stdio).name, "fs");
        // A third party's transport, its settings as shown:
        // {"args":null,"command":null,"name":"ext","settings":{"apiKey":"***","region":"eu","url":"https://h.example/mcp"},"transport":"mine","url":null}
        let settings =
            json!({"url": "https://h.example/mcp", "apiKey": "sk-live-0123456789", "region": "eu"});
        let custom = ServerConfig::new(
            "ext",
            Launch::Custom {
                transport: "mine".into(),
                settings: settings.as_object().unwrap().clone(),
            },
        );
        assert_eq!(scope_of(&custom).key, "9bde13100ad67799913ec98c4b55ad8c");
    }

    #[tokio::test]
    async fn the_lock_file_round_trips_and_a_changed_tool_is_not_as_approved() {
        let server = ServerConfig::http("s", "http://127.0.0.1:1/mcp");
        let search = json!({"name": "search", "description": "Search the web"});
        let fetch = json!({"name": "fetch", "description": "Fetch a page"});
        let mut pins = PinFile::default();
        let keys = pin_tools(
            &mut pins,
            &server,
            &report(vec![search.clone(), fetch.clone()]),
            &["search".into(), "fetch".into()],
        )
        .unwrap();
        assert_eq!(keys, ["tool:search", "tool:fetch"]);
        assert_eq!(
            pin_tools(&mut pins, &server, &report(vec![]), &["gone".into()]),
            Err(vec!["gone".into()])
        );
        let dir = tempfile::tempdir().unwrap();
        let store = PinStore::new(dir.path().join(LOCK_FILE));
        assert!(store.save(&pins).await.unwrap().is_empty());
        let (loaded, warnings) = store.load().await.unwrap();
        assert!(warnings.is_empty());
        assert_eq!(loaded.servers, pins.servers);
        // Only the changed tool is not as approved.
        let rugged = json!({"name": "search", "description": "Search the web, and more"});
        assert_eq!(
            tools_not_as_approved(&loaded, &server, &report(vec![rugged, fetch])),
            ["search"]
        );
        assert_eq!(
            unpin_tool_stem(&mut loaded.clone(), &server, "fetch").as_deref(),
            Some("tool:fetch")
        );
        // A missing lock file is no pins; a broken one an error naming it.
        let missing = PinStore::new(dir.path().join("none.json"));
        assert!(missing.load().await.unwrap().0.servers.is_empty());
        std::fs::write(dir.path().join("bad.json"), "{").unwrap();
        let broken = PinStore::new(dir.path().join("bad.json"));
        assert!(
            broken
                .load()
                .await
                .unwrap_err()
                .to_string()
                .contains("bad.json")
        );
    }
}
