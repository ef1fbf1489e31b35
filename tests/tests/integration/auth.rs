//! OAuth end to end: `mcp-cli` against a local authorization server and an
//! MCP server that requires its tokens (both in this test, on 127.0.0.1).
//! `discover` fails fast with `auth_required`; `login` runs the whole flow
//! (discovery, dynamic registration, PKCE, the redirect to the loopback
//! listener, the token) with this test as the browser; later commands use
//! the stored token, refresh it when the server stops accepting it;
//! `auth status` shows no token; `logout` forgets it. No token or secret
//! appears in any output.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Form, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use hmac_sha256::Hash as Sha256;
use mcp_tests::tools::workspace_bin;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const CLIENT_ID: &str = "e2e-client";
const CLIENT_SECRET: &str = "e2e-client-secret-4711";
const CODE: &str = "e2e-code";

/// What the authorization server saw and issued.
#[derive(Default)]
struct Seen {
    metadata_fetches: u32,
    registrations: u32,
    authorizations: u32,
    code_grants: u32,
    refresh_grants: u32,
    /// The latest PKCE challenge.
    challenge: Option<String>,
    /// Every access and refresh token issued (to check no output shows one).
    issued: Vec<String>,
    /// The access tokens the MCP server accepts.
    valid: HashSet<String>,
    refresh_tokens: HashSet<String>,
    problems: Vec<String>,
}

#[derive(Clone)]
struct Fixture {
    base: String,
    seen: Arc<Mutex<Seen>>,
}

impl Fixture {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap()
    }

    fn issue(&self, seen: &mut Seen) -> Value {
        let n = seen.issued.len();
        let access = format!("e2e-access-{n}-{:x}", std::process::id());
        let refresh = format!("e2e-refresh-{n}-{:x}", std::process::id());
        seen.issued.push(access.clone());
        seen.issued.push(refresh.clone());
        seen.valid.insert(access.clone());
        seen.refresh_tokens.insert(refresh.clone());
        json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600,
               "refresh_token": refresh, "scope": "mcp:read"})
    }
}

async fn protected_resource(State(fixture): State<Fixture>) -> Json<Value> {
    Json(json!({
        "resource": format!("{}/mcp", fixture.base),
        "authorization_servers": [format!("{}/as", fixture.base)],
        "scopes_supported": ["mcp:read"],
    }))
}

async fn server_metadata(State(fixture): State<Fixture>) -> Json<Value> {
    fixture.seen().metadata_fetches += 1;
    let issuer = format!("{}/as", fixture.base);
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "authorization_response_iss_parameter_supported": true,
    }))
}

async fn register(State(fixture): State<Fixture>, Json(body): Json<Value>) -> Response {
    let mut seen = fixture.seen();
    seen.registrations += 1;
    let redirect = body["redirect_uris"][0].as_str().unwrap_or_default();
    if !redirect.starts_with("http://127.0.0.1:") || body["application_type"] != "native" {
        seen.problems.push(format!("registration: {body}"));
    }
    (
        StatusCode::CREATED,
        Json(
            json!({"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                    "token_endpoint_auth_method": "client_secret_basic",
                    "redirect_uris": body["redirect_uris"]}),
        ),
    )
        .into_response()
}

async fn authorize(
    State(fixture): State<Fixture>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let mut seen = fixture.seen();
    seen.authorizations += 1;
    let get = |name: &str| query.get(name).cloned().unwrap_or_default();
    for (name, expected) in [
        ("response_type", "code".to_owned()),
        ("client_id", CLIENT_ID.to_owned()),
        ("code_challenge_method", "S256".to_owned()),
        ("resource", format!("{}/mcp", fixture.base)),
        ("scope", "mcp:read".to_owned()),
    ] {
        if get(name) != expected {
            seen.problems
                .push(format!("authorize: {name} = {:?}", get(name)));
        }
    }
    seen.challenge = Some(get("code_challenge"));
    let mut target = url::Url::parse(&get("redirect_uri")).unwrap();
    target
        .query_pairs_mut()
        .append_pair("code", CODE)
        .append_pair("state", &get("state"))
        .append_pair("iss", &format!("{}/as", fixture.base));
    (StatusCode::FOUND, [(header::LOCATION, target.to_string())]).into_response()
}

async fn token(
    State(fixture): State<Fixture>,
    headers: HeaderMap,
    Form(form): Form<std::collections::HashMap<String, String>>,
) -> Response {
    let mut seen = fixture.seen();
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}"));
    if headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        != Some(&format!("Basic {basic}"))
    {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    let get = |name: &str| form.get(name).cloned().unwrap_or_default();
    match get("grant_type").as_str() {
        "authorization_code" => {
            seen.code_grants += 1;
            let verifier_hash = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::hash(get("code_verifier").as_bytes()));
            if get("code") != CODE || seen.challenge.as_deref() != Some(verifier_hash.as_str()) {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "invalid_grant"})),
                )
                    .into_response();
            }
            if get("resource") != format!("{}/mcp", fixture.base) {
                seen.problems
                    .push(format!("token: resource {:?}", get("resource")));
            }
        }
        "refresh_token" => {
            seen.refresh_grants += 1;
            if !seen.refresh_tokens.contains(&get("refresh_token")) {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": "invalid_grant"})),
                )
                    .into_response();
            }
        }
        other => {
            seen.problems.push(format!("token: grant {other}"));
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": "unsupported_grant_type"})),
            )
                .into_response();
        }
    }
    let answer = fixture.issue(&mut seen);
    Json(answer).into_response()
}

/// The MCP endpoint accepts only tokens the authorization server issued.
async fn require_token(State(fixture): State<Fixture>, request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let accepted = token.is_some_and(|t| fixture.seen().valid.contains(&t));
    if !accepted {
        let challenge = format!(
            r#"Bearer error="invalid_token", resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
            fixture.base
        );
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
            Json(json!({"error": "invalid_token"})),
        )
            .into_response();
    }
    next.run(request).await
}

async fn start_fixture() -> Fixture {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let fixture = Fixture {
        base,
        seen: Arc::default(),
    };
    let mcp = mcp_example_server::router(mcp_example_server::Server::default()).layer(
        axum::middleware::from_fn_with_state(fixture.clone(), require_token),
    );
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(protected_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server/as",
            get(server_metadata),
        )
        .route("/as/register", post(register))
        .route("/as/authorize", get(authorize))
        .route("/as/token", post(token))
        .with_state(fixture.clone())
        .merge(mcp);
    tokio::spawn(async move { axum::serve(listener, app).await });
    fixture
}

struct Cli {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Cli {
    fn new(fixture: &Fixture) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".mcp.json");
        let servers = json!({"mcpServers": {"e2e": {"url": format!("{}/mcp", fixture.base)}}});
        std::fs::write(&config, servers.to_string()).unwrap();
        Self { dir, config }
    }

    fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(workspace_bin("mcp-cli"));
        command
            .current_dir(self.dir.path())
            .env("MCP_DISCOVERY_CREDENTIALS", self.credentials())
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .args(["--config", self.config.to_str().unwrap(), "--no-cache"])
            .args(args)
            .kill_on_drop(true);
        command
    }

    fn credentials(&self) -> PathBuf {
        self.dir.path().join("credentials").join("credentials.json")
    }

    async fn run(&self, args: &[&str]) -> Output {
        tokio::time::timeout(Duration::from_secs(60), self.command(args).output())
            .await
            .expect("mcp-cli ends")
            .unwrap()
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(output)))
}

/// Checks that no output shows a token or the client secret.
fn assert_no_secret(fixture: &Fixture, outputs: &[String]) {
    let seen = fixture.seen();
    for output in outputs {
        assert!(!output.contains(CLIENT_SECRET), "client secret in {output}");
        for token in &seen.issued {
            assert!(
                !output.contains(token.as_str()),
                "token {token} in {output}"
            );
        }
    }
}

/// `mcp-cli login e2e --no-browser`, with this test as the browser.
async fn login(cli: &Cli) -> (Output, String) {
    let mut child = cli
        .command(&["login", "e2e", "--no-browser"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut shown = String::new();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            shown.push_str(&line);
            shown.push('\n');
            if let Some(url) = line
                .split_whitespace()
                .find(|w| w.contains("/as/authorize"))
            {
                return url.to_owned();
            }
        }
        panic!("login printed no authorization URL: {shown}");
    })
    .await
    .expect("login prints the authorization URL");
    // The browser: the authorization server approves at once and redirects
    // to mcp-cli's loopback listener, which answers with a page.
    let client = mcpdisco_transport::http::tls::configure(reqwest::Client::builder())
        .unwrap()
        .build()
        .unwrap();
    let page = client.get(&url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("You can close this tab")
    );
    while let Ok(Some(line)) = stderr.next_line().await {
        shown.push_str(&line);
        shown.push('\n');
    }
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("login ends")
        .unwrap();
    (output, shown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_discover_refresh_status_and_logout_end_to_end() {
    let fixture = start_fixture().await;
    let cli = Cli::new(&fixture);
    let mut outputs = Vec::new();

    // Without a token, discovery fails at once: no metadata, no browser.
    let before = cli.run(&["--json", "discover"]).await;
    outputs.push(text(&before));
    assert_eq!(before.status.code(), Some(2), "{}", text(&before));
    let report = json_of(&before);
    let server = &report["servers"][0];
    assert_eq!(server["status"], "failed");
    assert_eq!(server["error"]["kind"], "auth_required", "{server}");
    assert!(
        server["error"]["message"]
            .as_str()
            .unwrap()
            .contains("run `mcp-cli login e2e`"),
        "{server}"
    );
    assert_eq!(fixture.seen().metadata_fetches, 0);
    assert_eq!(fixture.seen().authorizations, 0);

    // Login: discovery, registration, PKCE, the redirect, the token.
    let (output, shown) = login(&cli).await;
    outputs.push(text(&output));
    outputs.push(shown);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("logged in to 'e2e'"), "{said}");
    assert!(said.contains("mcp:read"), "{said}");
    {
        let seen = fixture.seen();
        assert_eq!(seen.registrations, 1);
        assert_eq!(seen.authorizations, 1);
        assert_eq!(seen.code_grants, 1);
        assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(cli.credentials())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // The stored token serves discovery.
    let after = cli.run(&["--json", "discover"]).await;
    outputs.push(text(&after));
    assert_eq!(after.status.code(), Some(0), "{}", text(&after));
    let tools = json_of(&after)["servers"][0]["tools"]
        .as_array()
        .map(Vec::len);
    assert_eq!(tools, Some(mcp_example_server::catalog::tools().len()));

    // The server stops accepting it: the refresh token gets a new one, no user.
    fixture.seen().valid.clear();
    let refreshed = cli.run(&["--json", "discover"]).await;
    outputs.push(text(&refreshed));
    assert_eq!(refreshed.status.code(), Some(0), "{}", text(&refreshed));
    assert_eq!(fixture.seen().refresh_grants, 1);
    assert_eq!(fixture.seen().authorizations, 1);

    // Status: issuer, scopes, expiry; no token.
    let status = cli.run(&["--json", "auth", "status"]).await;
    outputs.push(text(&status));
    let entries = json_of(&status)["credentials"].clone();
    assert_eq!(entries.as_array().map(Vec::len), Some(1), "{entries}");
    assert_eq!(entries[0]["server"], "e2e");
    assert_eq!(entries[0]["issuer"], format!("{}/as", fixture.base));
    assert_eq!(entries[0]["scopes"], json!(["mcp:read"]));
    assert_eq!(entries[0]["refreshable"], true);
    let human = cli.run(&["auth", "status"]).await;
    outputs.push(text(&human));
    assert!(text(&human).contains("e2e:"), "{}", text(&human));

    // Logout forgets it; discovery needs a login again.
    let logout = cli.run(&["logout", "e2e"]).await;
    outputs.push(text(&logout));
    assert!(text(&logout).contains("logged out of 'e2e'"));
    let empty = cli.run(&["--json", "auth", "status"]).await;
    assert_eq!(json_of(&empty)["credentials"], json!([]));
    let again = cli.run(&["--json", "discover"]).await;
    outputs.push(text(&again));
    assert_eq!(
        json_of(&again)["servers"][0]["error"]["kind"],
        "auth_required"
    );

    assert_no_secret(&fixture, &outputs);
}
