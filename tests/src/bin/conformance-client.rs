//! The client the official MCP conformance suite drives (`cargo xtask conformance`).
//!
//! The suite runs `conformance-client <server URL>` with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`, the wire revision in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`, and extra scenario data in
//! `MCP_CONFORMANCE_CONTEXT`. The client does what a real host would do for the
//! scenario, through `mcp-client`'s session and `mcp-transport`'s HTTP transport.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use async_trait::async_trait;
use mcpdisco_client::auth::{
    AuthContext, AuthLayer, AuthSettings, Grant, HeadlessRedirect, MemoryTokenStore, OAuthClient,
};
use mcpdisco_client::policy::LayerStack;
use mcpdisco_client::session::{
    ClientHandler, EraPreference, RequestOptions, Session, SessionOptions,
};
use mcpdisco_protocol::ErrorObject;
use mcpdisco_protocol::schema::{Schema, SchemaType};
use mcpdisco_protocol::types::{
    CallToolParams, ElicitParams, ElicitResult, GetPromptParams, ListRootsResult, MetaParams,
    ReadResourceParams, Tool,
};
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::secret::SecretString;
use serde_json::{Map, Value, json};

/// Accepts every elicitation, answering fields that have no default with a plausible value
/// (the session fills in schema defaults itself).
struct ConformanceHandler;

#[async_trait]
impl ClientHandler for ConformanceHandler {
    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let mut content = Map::new();
        if let Some(schema) = &params.requested_schema {
            for (name, property) in Schema::new(schema).properties() {
                if property.default_value().is_some() {
                    continue;
                }
                let value = match property.types() {
                    SchemaType::One("boolean") => json!(true),
                    SchemaType::One("integer" | "number") => json!(1),
                    SchemaType::One("string") => json!("yes"),
                    _ => continue,
                };
                content.insert(name.to_owned(), value);
            }
        }
        Ok(ElicitResult::accept(content))
    }

    async fn list_roots(&self, _params: MetaParams) -> Result<ListRootsResult, ErrorObject> {
        Ok(ListRootsResult::new(Vec::new()))
    }
}

/// Arguments a host might send, built from an input schema.
fn sample_arguments(schema: &Value) -> Value {
    let mut arguments = Map::new();
    for (name, property) in Schema::new(schema).properties() {
        let value = match property.types() {
            SchemaType::One("string") => json!("us-west1"),
            SchemaType::One("integer") => json!(1),
            SchemaType::One("number") => json!(1.5),
            SchemaType::One("boolean") => json!(true),
            _ => continue,
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}

/// The Client ID Metadata Document URL the suite expects (it never fetches it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The authorization settings a scenario's context asks for: pre-registered
/// credentials, or the client credentials grant (a secret or a private key).
fn auth_settings(scenario: &str) -> Result<AuthSettings> {
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON")?,
        Err(_) => Value::Null,
    };
    let text = |name: &str| context[name].as_str().map(str::to_owned);
    let mut settings = AuthSettings::default().client_metadata_url(CLIENT_METADATA_URL);
    settings.client_id = text("client_id");
    settings.client_secret = text("client_secret").map(SecretString::from);
    settings.private_key = text("private_key_pem").map(SecretString::from);
    settings.signing_algorithm = text("signing_algorithm");
    settings.issuer = text("issuer");
    match scenario {
        "auth/client-credentials-jwt" | "auth/client-credentials-basic" => {
            settings.grant = Grant::ClientCredentials;
        }
        "auth/wif-jwt-bearer" => {
            settings.grant = Grant::JwtBearer;
            settings.assertion = text("valid_jwt").map(SecretString::from);
        }
        "auth/enterprise-managed-authorization" => {
            settings.grant = Grant::Enterprise;
            settings.idp_token_endpoint = text("idp_token_endpoint");
            settings.idp_id_token = text("idp_id_token").map(SecretString::from);
            settings.idp_client_id = text("idp_client_id");
        }
        _ => {}
    }
    Ok(settings)
}

async fn run(url: &str, scenario: &str, revision: &str) -> Result<()> {
    let modern = revision == "2026-07-28";
    let mut config = HttpConfig::new("conformance", url);
    let oauth = OAuthClient::new(
        "conformance",
        &url::Url::parse(url).context("the server URL is not a URL")?,
        auth_settings(scenario)?,
        AuthContext {
            client_name: "mcp-discovery-conformance".into(),
            ..AuthContext::stored(Arc::new(MemoryTokenStore::new()))
        }
        .with_provider(Arc::new(HeadlessRedirect::new(
            "http://localhost:3000/callback",
        ))),
    )?;
    config.credentials = Some(oauth.clone());
    let transport = HttpTransport::connect(config, &HttpClient::shared()?, HttpKind::Auto).await?;
    let options = SessionOptions::default()
        .stack(LayerStack::default().layer(AuthLayer::new(oauth)))
        .era(if modern {
            EraPreference::Modern
        } else {
            EraPreference::Legacy
        })
        .capabilities(serde_json::from_value(
            json!({"elicitation": {"form": {"applyDefaults": true}}, "roots": {}}),
        )?)
        .client_info(mcpdisco_protocol::types::Implementation::new(
            "mcp-discovery-conformance",
            env!("CARGO_PKG_VERSION"),
        ))
        .handler(ConformanceHandler)
        .request_timeout(Duration::from_secs(20));
    let session = Session::connect("conformance", transport, options).await?;
    let outcome = drive(&session, scenario).await;
    let closed = session.close().await;
    outcome?;
    closed?;
    Ok(())
}

/// A call of tool `name` with `arguments` (their members when they are
/// an object; none otherwise).
fn tool_call(name: &str, arguments: Value) -> CallToolParams {
    let arguments = match arguments {
        Value::Object(arguments) => arguments,
        _ => Map::new(),
    };
    CallToolParams::new(name, Some(arguments))
}

/// A tool's input schema, as a JSON value.
fn input_schema(tool: &Tool) -> Result<Value> {
    tool.input_schema
        .to_value()
        .context("an input schema is not readable JSON")
}

async fn drive(session: &Session, scenario: &str) -> Result<()> {
    let tools = session.list_tools().await?;
    let tool = |name: &str| tools.valid().find(|t| t.name == name);
    match scenario {
        "initialize" | "json-schema-ref-no-deref" | "request-metadata" => {}
        "tools_call" => {
            session
                .call_tool(
                    tool_call("add_numbers", json!({"a": 1, "b": 2})),
                    RequestOptions::default(),
                )
                .await?;
        }
        "elicitation-sep1034-client-defaults" => {
            session
                .call_tool(
                    tool_call("test_client_elicitation_defaults", json!({})),
                    RequestOptions::default(),
                )
                .await?;
        }
        "sse-retry" => {
            session
                .call_tool(
                    tool_call("test_reconnection", json!({})),
                    RequestOptions::default(),
                )
                .await?;
        }
        "sep-2322-client-request-state" | "http-invalid-tool-headers" => {
            // Invalid tools never reach us: the transport drops them from tools/list.
            for tool in &tools {
                let tool = tool?;
                let arguments = sample_arguments(&input_schema(tool)?);
                if let Err(error) = session
                    .call_tool(tool_call(&tool.name, arguments), RequestOptions::default())
                    .await
                {
                    eprintln!("{error}");
                }
            }
        }
        "http-standard-headers" => {
            if let Some(first) = tools.get(0) {
                let first = first?;
                let arguments = sample_arguments(&input_schema(first)?);
                session
                    .call_tool(tool_call(&first.name, arguments), RequestOptions::default())
                    .await?;
            }
            for resource in &session.list_resources().await? {
                session
                    .read_resource(
                        ReadResourceParams::new(&resource?.uri),
                        RequestOptions::default(),
                    )
                    .await?;
            }
            if let Some(prompt) = session.list_prompts().await?.get(0) {
                session
                    .get_prompt(
                        GetPromptParams::new(&prompt?.name, Some(BTreeMap::new())),
                        RequestOptions::default(),
                    )
                    .await?;
            }
        }
        "http-custom-headers" => {
            let context: Value = serde_json::from_str(
                &std::env::var("MCP_CONFORMANCE_CONTEXT")
                    .context("MCP_CONFORMANCE_CONTEXT is not set")?,
            )
            .context("MCP_CONFORMANCE_CONTEXT is not JSON")?;
            for call in context["toolCalls"].as_array().into_iter().flatten() {
                let name = call["name"].as_str().unwrap_or_default();
                session
                    .call_tool(
                        tool_call(name, call["arguments"].clone()),
                        RequestOptions::default(),
                    )
                    .await?;
            }
        }
        "json-schema-2020-12-preservation" => {
            let Some(focal) = tool("json_schema_2020_12_tool") else {
                bail!("the server lists no json_schema_2020_12_tool");
            };
            session
                .call_tool(
                    tool_call("json_schema_echo", json!({"schema": focal.input_schema})),
                    RequestOptions::default(),
                )
                .await?;
        }
        "sep-2640-client-no-prefetch" => {
            // Discovery lists the skills and reads none of their files.
            let (report, _) = mcpdisco::discovery::describe(session).await?;
            eprintln!("discovered {} skill(s)", report.skills.len());
        }
        "sep-2640-client-verify-digest"
        | "sep-2640-client-verify-size"
        | "sep-2640-client-verify-frontmatter" => {
            // Discover, then load the first skill through the library's
            // loader, which must refuse a SKILL.md that does not match its
            // entry (and so never read the supporting files).
            let (report, _) = mcpdisco::discovery::describe(session).await?;
            let Some(first) = report.skills.get(0) else {
                bail!("the server lists no skill");
            };
            let entry = first.context("the first skill entry is malformed")?;
            match mcpdisco::skills::load_skill(session, entry).await {
                Ok(loaded) => eprintln!("loaded {} file(s) of {}", loaded.files.len(), entry.uri),
                Err(refused) => eprintln!("refused: {refused}"),
            }
        }
        auth if auth.starts_with("auth/") => {
            // What a host does once authorized: list, then call (a step-up
            // or a changed authorization server shows on the call).
            if tool("test-tool").is_some() {
                session
                    .call_tool(tool_call("test-tool", json!({})), RequestOptions::default())
                    .await?;
            }
        }
        other => eprintln!("unknown scenario {other:?}: listed tools only"),
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    // The suite appends the URL as the last argument.
    let Some(url) = std::env::args().skip(1).next_back() else {
        eprintln!("usage: conformance-client <server URL>");
        return std::process::ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let revision =
        std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2025-11-25".into());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start the runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&url, &scenario, &revision)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client: {scenario}: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
