//! `login`, `logout` and `auth status`: tokens for HTTP servers that require
//! OAuth. Other commands use what `login` stored and never open a browser:
//! a server without a usable token fails with `auth_required`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcpdisco::config::{Launch, ServerConfig};
use mcpdisco::connect::{ConnectOptions, connect};
use mcpdisco_client::auth::{
    AuthContext, AuthStatus, LoopbackBrowser, TokenStore, canonical_resource,
};
use mcpdisco_client::session::SessionOptions;
use mcpdisco_client::transport::secret::redact_url;
use serde_json::json;

use crate::cli::GlobalOptions;
use crate::credentials::{CLIENT_NAME, open_store as store};
use crate::error::UsageError;
use crate::exit;
use crate::output::print_json;

/// How long `login` waits for the browser to come back.
const LOGIN_WAIT: Duration = Duration::from_secs(300);

/// The resource key of an HTTP server, or a usage error for another kind.
fn resource_of(server: &ServerConfig) -> Result<String, UsageError> {
    let Launch::Http { url, .. } = &server.launch else {
        return Err(UsageError::NotHttp(server.name.clone()));
    };
    let parsed = url::Url::parse(url.expose_secret())
        .map_err(|e| UsageError::CredentialStore(format!("server '{}': {e}", server.name)))?;
    Ok(canonical_resource(&parsed))
}

/// `mcp-cli login <server>`: runs the authorization flow in the browser
/// (or prints its URL) and stores the tokens.
pub async fn login(
    global: &GlobalOptions,
    session: &SessionOptions,
    server: &ServerConfig,
    no_browser: bool,
) -> Result<ExitCode, UsageError> {
    let resource = resource_of(server)?;
    let store = Arc::new(store()?);
    let started = mcpdisco_client::auth::now_secs();
    let name = server.name.clone();
    let open = Arc::new(move |url: &url::Url| {
        if !no_browser && webbrowser::open(url.as_str()).is_ok() {
            eprintln!(
                "Opened a browser to authorize '{name}'; if nothing opened, go to:\n\n  {url}\n"
            );
        } else {
            eprintln!("Open this URL in a browser to authorize '{name}':\n\n  {url}\n");
        }
    });
    let context = AuthContext {
        client_name: CLIENT_NAME.into(),
        reuse_stored: false,
        ..AuthContext::stored(store.clone())
    }
    .with_provider(Arc::new(LoopbackBrowser::new(open, LOGIN_WAIT)));
    let options = ConnectOptions::default()
        .session(session.clone())
        .auth(context);
    let connected = connect(server, &options).await;
    let session = match connected {
        Ok(session) => session,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::from(exit::SERVER_FAILED));
        }
    };
    // Listing may ask for more scope (a step-up) on some servers.
    let listed = if session.capabilities().tools.is_some() {
        session.list_tools().await.map(drop)
    } else {
        Ok(())
    };
    let _ = session.close().await;
    if let Err(error) = listed {
        eprintln!("error: {error}");
        return Ok(ExitCode::from(exit::SERVER_FAILED));
    }
    let stored: Vec<AuthStatus> = store
        .for_resource(&resource)
        .map_err(|e| UsageError::CredentialStore(e.to_string()))?
        .iter()
        .filter(|entry| entry.updated_at >= started)
        .map(AuthStatus::of)
        .collect();
    if global.json {
        print_json(
            &json!({"server": server.name, "loggedIn": !stored.is_empty(),
                           "credentials": shown(&stored)}),
        );
    } else if let Some(status) = stored.first() {
        println!(
            "logged in to '{}' by {} (scopes: {}; {})",
            server.name,
            status.issuer,
            scopes_text(status),
            expiry_text(status)
        );
    } else {
        println!(
            "server '{}' did not ask for authorization; nothing was stored",
            server.name
        );
    }
    Ok(ExitCode::from(exit::OK))
}

/// `mcp-cli logout <server>`: forgets its tokens and client registrations.
pub fn logout(global: &GlobalOptions, server: &ServerConfig) -> Result<ExitCode, UsageError> {
    let resource = resource_of(server)?;
    let removed = store()?
        .remove_resource(&resource)
        .map_err(|e| UsageError::CredentialStore(e.to_string()))?;
    if global.json {
        print_json(&json!({"server": server.name, "removed": removed}));
    } else if removed == 0 {
        println!("no tokens were stored for '{}'", server.name);
    } else {
        println!("logged out of '{}'", server.name);
    }
    Ok(ExitCode::from(exit::OK))
}

/// `mcp-cli auth status`: which servers have tokens, their issuer, scopes
/// and expiry; never a token.
pub fn status(global: &GlobalOptions) -> Result<ExitCode, UsageError> {
    let store = store()?;
    let mut entries: Vec<AuthStatus> = store
        .list()
        .map_err(|e| UsageError::CredentialStore(e.to_string()))?
        .iter()
        .map(AuthStatus::of)
        .collect();
    entries.sort_by(|a, b| a.server.cmp(&b.server).then(a.issuer.cmp(&b.issuer)));
    if global.json {
        print_json(&json!({"store": store.path(), "credentials": shown(&entries)}));
        return Ok(ExitCode::from(exit::OK));
    }
    if entries.is_empty() {
        println!("no tokens stored ({})", store.path().display());
    }
    for status in &entries {
        println!(
            "{}: {} at {} (scopes: {}; {}{})",
            status.server,
            redact_url(&status.resource),
            status.issuer,
            scopes_text(status),
            expiry_text(status),
            if status.refreshable {
                ", refreshable"
            } else {
                ""
            }
        );
    }
    Ok(ExitCode::from(exit::OK))
}

/// Statuses as shown: URLs redacted.
fn shown(entries: &[AuthStatus]) -> Vec<AuthStatus> {
    entries
        .iter()
        .cloned()
        .map(|mut status| {
            status.resource = redact_url(&status.resource);
            status
        })
        .collect()
}

fn scopes_text(status: &AuthStatus) -> String {
    if status.scopes.is_empty() {
        "none".into()
    } else {
        status.scopes.join(" ")
    }
}

fn expiry_text(status: &AuthStatus) -> String {
    let now = mcpdisco_client::auth::now_secs();
    match status.expires_at {
        None => "no expiry given".into(),
        Some(at) if at <= now => "expired".into(),
        Some(at) => format!(
            "expires in {}",
            humantime::format_duration(Duration::from_secs(at - now))
        ),
    }
}
