//! A local MCP Registry for tests: the fixture entries of
//! `tests/fixtures/registry/servers.json`, served as the registry's OpenAPI
//! describes (`GET /v0.1/servers`, `GET /v0.1/servers/{name}/versions/{version}`),
//! on 127.0.0.1 at a random port.
//!
//! * Pages of `limit` entries (4 by default); the first page's cursor is in
//!   `metadata.nextCursor`, the next one's in `metadata.next_cursor`, and so on.
//! * `search` (substring of the name), `version=latest`, `updated_since` and
//!   `include_deleted` filter as the official registry does (deleted entries
//!   only with `include_deleted=true` or `updated_since`).
//! * `search=loop` answers the same cursor forever.
//! * `/bundles/echo.mcpb` serves the bundle bytes given at start.
//! * Every registry request is counted.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use serde_json::{Value, json};

/// The fixture entries, with `{{BASE}}` and `{{BUNDLE_SHA256}}` to fill in.
pub const FIXTURE: &str = include_str!("../fixtures/registry/servers.json");

/// A running registry; stopped when dropped.
pub struct RegistryServer {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    requests: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RegistryServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl RegistryServer {
    /// How many registry requests it answered.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

#[derive(Clone)]
struct Shared {
    entries: Arc<Vec<Value>>,
    bundle: Arc<Vec<u8>>,
    requests: Arc<AtomicUsize>,
}

/// Starts the registry with `bundle` as `/bundles/echo.mcpb` (its SHA-256
/// fills `{{BUNDLE_SHA256}}`).
///
/// # Panics
/// When it cannot listen.
pub async fn start(bundle: Vec<u8>) -> RegistryServer {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .await
        .expect("the registry listens");
    let base_url = format!("http://{}", listener.local_addr().expect("an address"));
    let sha = { hex::encode(hmac_sha256::Hash::hash(&bundle)) };
    let text = FIXTURE
        .replace("{{BASE}}", &base_url)
        .replace("{{BUNDLE_SHA256}}", &sha);
    let entries: Vec<Value> = serde_json::from_str(&text).expect("the fixture is JSON");
    let requests = Arc::new(AtomicUsize::new(0));
    let shared = Shared {
        entries: Arc::new(entries),
        bundle: Arc::new(bundle),
        requests: Arc::clone(&requests),
    };
    let app = Router::new()
        .route("/v0.1/servers", get(list))
        .route("/v0.1/servers/{name}/versions/{version}", get(version))
        .route("/bundles/echo.mcpb", get(bundle_bytes))
        .with_state(shared);
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    RegistryServer {
        base_url,
        requests,
        task,
    }
}

fn official(entry: &Value) -> &Value {
    &entry["_meta"]["io.modelcontextprotocol.registry/official"]
}

async fn list(
    State(shared): State<Shared>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let search = query.get("search").map(|s| s.to_lowercase());
    if search.as_deref() == Some("loop") {
        return Json(json!({"servers": [shared.entries[0]], "metadata": {"nextCursor": "again", "count": 1}}))
            .into_response();
    }
    let since = query.get("updated_since");
    let include_deleted =
        since.is_some() || query.get("include_deleted").is_some_and(|v| v == "true");
    let latest = query.get("version").is_some_and(|v| v == "latest");
    let matching: Vec<&Value> = shared
        .entries
        .iter()
        .filter(|entry| {
            let name = entry["server"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_lowercase();
            search.as_deref().is_none_or(|s| name.contains(s))
        })
        .filter(|entry| include_deleted || official(entry)["status"] != "deleted")
        .filter(|entry| !latest || official(entry)["isLatest"] == true)
        .filter(|entry| {
            since.is_none_or(|since| {
                official(entry)["updatedAt"]
                    .as_str()
                    .is_some_and(|updated| updated >= since.as_str())
            })
        })
        .collect();
    let size: usize = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(4)
        .max(1);
    let offset: usize = match query.get("cursor") {
        None => 0,
        Some(cursor) => match cursor.strip_prefix("after-").and_then(|n| n.parse().ok()) {
            Some(offset) => offset,
            None => {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "invalid cursor"})),
                )
                    .into_response();
            }
        },
    };
    let page: Vec<&Value> = matching.iter().skip(offset).take(size).copied().collect();
    let next = offset + page.len();
    let mut metadata = json!({"count": page.len()});
    if next < matching.len() {
        // Alternate the spellings: the first page nextCursor, the second next_cursor, …
        let key = if (offset / size).is_multiple_of(2) {
            "nextCursor"
        } else {
            "next_cursor"
        };
        metadata[key] = json!(format!("after-{next}"));
    }
    Json(json!({"servers": page, "metadata": metadata})).into_response()
}

async fn version(
    State(shared): State<Shared>,
    Path((name, version)): Path<(String, String)>,
) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let found = shared.entries.iter().find(|entry| {
        entry["server"]["name"] == name.as_str()
            && if version == "latest" {
                official(entry)["isLatest"] == true
            } else {
                entry["server"]["version"] == version.as_str()
            }
    });
    match found {
        Some(entry) => Json(entry.clone()).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "Server not found"})),
        )
            .into_response(),
    }
}

async fn bundle_bytes(State(shared): State<Shared>) -> Response {
    shared.bundle.as_ref().clone().into_response()
}

/// A zip holding a `manifest.json` whose `server.mcp_config` runs `command args…`.
pub fn bundle(command: &str, args: &[&str]) -> Vec<u8> {
    use std::io::Write;
    let manifest = json!({
        "manifest_version": "0.2", "name": "echo", "version": "1.0.0",
        "server": {"type": "binary", "entry_point": "server",
                   "mcp_config": {"command": command, "args": args, "env": {"BUNDLE_DIR": "${__dirname}"}}}
    });
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("manifest.json", options)
        .expect("a zip entry");
    zip.write_all(manifest.to_string().as_bytes())
        .expect("written");
    zip.start_file("README.txt", options).expect("a zip entry");
    zip.write_all(b"a test bundle").expect("written");
    zip.finish().expect("a zip").into_inner()
}
