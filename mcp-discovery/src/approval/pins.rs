//! Pins of configured servers: a server's pin scope (its identity as shown,
//! secrets masked), the items of a discovery report, and [`PinStore`],
//! where the pins live: the lock file (`mcp-lock.json` beside the first
//! config) and, for a fleet, a shared copy in the Redis cache that wins
//! when it answers.

use std::io;
use std::path::{Path, PathBuf};

use mcpdisco_capability::PinStatus;
use mcpdisco_capability::pins::{self, ItemCheck, ItemKind, PinFile, PinFileError, PinScope};
use mcpdisco_transport::fs::write_atomically;
use serde_json::Value;

use super::dir::file_stem;
use crate::config::ServerConfig;
use crate::report::ServerReport;
use mcpdisco_client::session::ListKind;

pub use mcpdisco_capability::pins::LOCK_FILE;

/// The scope of `server`'s pins: a hash of its name and what identifies
/// its launch (transport, command and arguments, or URL), as shown, so
/// rotating a secret keeps the pins while pointing the name at another
/// server does not.
pub fn scope_of(server: &ServerConfig) -> PinScope {
    let shown = server.redacted();
    let identity = serde_json::json!({
        "name": server.name,
        "transport": shown.get("transport"),
        "command": shown.get("command"),
        "args": shown.get("args"),
        "url": shown.get("url"),
        "settings": shown.get("settings"),
    });
    PinScope {
        key: pins::server_key(&identity),
        name: server.name.clone(),
    }
}

/// Every pinnable item of `report`, with its kind.
pub fn items_of(report: &ServerReport) -> Vec<(ItemKind, Value)> {
    let mut items = Vec::new();
    for (kind, list) in [
        (ItemKind::Tool, ListKind::Tools),
        (ItemKind::Prompt, ListKind::Prompts),
        (ItemKind::Resource, ListKind::Resources),
        (ItemKind::Template, ListKind::ResourceTemplates),
        (ItemKind::Skill, ListKind::Skills),
    ] {
        for item in report.items(list) {
            if let Ok(value) = item.to_value() {
                items.push((kind, value));
            }
        }
    }
    items
}

/// Compares what `report` found for `server` with its pins (nothing for a
/// server without pins: its items are then not even read).
pub fn check(pins: &PinFile, server: &ServerConfig, report: &ServerReport) -> Vec<ItemCheck> {
    let scope = scope_of(server);
    if !pins.has_pins(&scope) {
        return Vec::new();
    }
    pins.check(&scope, &items_of(report))
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
    let offered: Vec<Value> = report
        .tools
        .raw()
        .iter()
        .filter_map(|tool| tool.to_value().ok())
        .collect();
    let mut chosen = Vec::new();
    let mut missing = Vec::new();
    for stem in stems {
        match offered.iter().find(|tool| {
            tool.get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| file_stem(name) == *stem)
        }) {
            Some(tool) => chosen.push(tool),
            None => missing.push(stem.clone()),
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let scope = scope_of(server);
    Ok(chosen
        .into_iter()
        .filter_map(|tool| pins.pin(&scope, ItemKind::Tool, tool))
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

/// Why the pins could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PinStoreError {
    /// The lock file could not be read or written.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done (`cannot read`, `cannot write`).
        what: &'static str,
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The pins' text is not a lock file.
    #[error(transparent)]
    Format(#[from] PinFileError),
}

/// The key of the pins in a shared Redis cache (after its prefix).
#[cfg(feature = "redis")]
const SHARED_PINS: &str = "pins";
/// How long the shared pins may take to read or write.
#[cfg(feature = "redis")]
const SHARED_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Where the pins live: the lock file, and (with the `redis` feature and a
/// shared cache) the fleet's copy, which is read first and written too. A
/// shared copy that fails or does not answer in time is passed over with a
/// warning: the lock file holds the pins as well.
#[derive(Debug)]
pub struct PinStore {
    lock: PathBuf,
    #[cfg(feature = "redis")]
    shared: Option<crate::cache::RedisStore>,
}

impl PinStore {
    /// Pins in the lock file at `lock` only.
    pub fn new(lock: impl Into<PathBuf>) -> Self {
        Self {
            lock: lock.into(),
            #[cfg(feature = "redis")]
            shared: None,
        }
    }

    /// The same, with the fleet's shared copy in `shared` (under its
    /// prefix, as `pins`).
    #[cfg(feature = "redis")]
    pub fn with_shared(mut self, shared: crate::cache::RedisStore) -> Self {
        self.shared = Some(shared);
        self
    }

    /// The lock file beside `config` (`<dir>/mcp-lock.json`).
    pub fn path_beside(config: &Path) -> PathBuf {
        config.parent().unwrap_or(Path::new(".")).join(LOCK_FILE)
    }

    /// The lock file.
    pub fn lock(&self) -> &Path {
        &self.lock
    }

    /// The pins, and a warning for each place passed over: the shared copy
    /// when there is one and it holds pins, else the lock file (a missing
    /// one is no pins).
    pub async fn load(&self) -> Result<(PinFile, Vec<String>), PinStoreError> {
        #[allow(unused_mut)]
        let mut warnings = Vec::new();
        #[cfg(feature = "redis")]
        if let Some(store) = &self.shared {
            use crate::cache::CacheStore as _;
            match tokio::time::timeout(SHARED_LIMIT, store.get_document(SHARED_PINS)).await {
                Ok(Ok(Some(bytes))) => {
                    let place = format!("{} pins", store.describe());
                    return Ok((PinFile::from_bytes(&bytes, &place)?, warnings));
                }
                Ok(Ok(None)) => {}
                Ok(Err(error)) => warnings.push(format!(
                    "shared pins unavailable ({error}); using {}",
                    self.lock.display()
                )),
                Err(_) => warnings.push(format!(
                    "shared pins unavailable ({}: no answer within {} s); using {}",
                    store.describe(),
                    SHARED_LIMIT.as_secs(),
                    self.lock.display()
                )),
            }
        }
        let pins = match std::fs::read(&self.lock) {
            Ok(bytes) => PinFile::from_bytes(&bytes, &self.lock.display().to_string())?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => PinFile::default(),
            Err(source) => {
                return Err(PinStoreError::Io {
                    what: "cannot read",
                    path: self.lock.clone(),
                    source,
                });
            }
        };
        Ok((pins, warnings))
    }

    /// Writes the pins to the lock file (atomically) and to the shared copy
    /// when there is one; a warning for the shared copy if it was not
    /// updated (the lock file has them).
    pub async fn save(&self, pins: &PinFile) -> Result<Vec<String>, PinStoreError> {
        let text = pins.to_bytes();
        let io_error = |source| PinStoreError::Io {
            what: "cannot write",
            path: self.lock.clone(),
            source,
        };
        if let Some(dir) = self.lock.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_error)?;
        }
        write_atomically(&self.lock, &text).map_err(io_error)?;
        #[allow(unused_mut)]
        let mut warnings = Vec::new();
        #[cfg(feature = "redis")]
        if let Some(store) = &self.shared {
            use crate::cache::CacheStore as _;
            match tokio::time::timeout(SHARED_LIMIT, store.put_document(SHARED_PINS, &text)).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => warnings.push(format!(
                    "the shared pins were not updated ({error}); {} has them",
                    self.lock.display()
                )),
                Err(_) => warnings.push(format!(
                    "the shared pins were not updated ({}: no answer); {} has them",
                    store.describe(),
                    self.lock.display()
                )),
            }
        }
        Ok(warnings)
    }

    /// The pins in the lock file alone, read at once (for a policy that
    /// runs at every listing); a missing file is no pins.
    pub fn load_lock_file(&self) -> Result<PinFile, PinStoreError> {
        match std::fs::read(&self.lock) {
            Ok(bytes) => Ok(PinFile::from_bytes(
                &bytes,
                &self.lock.display().to_string(),
            )?),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(PinFile::default()),
            Err(source) => Err(PinStoreError::Io {
                what: "cannot read",
                path: self.lock.clone(),
                source,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::RawJson;
    use serde_json::json;

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
