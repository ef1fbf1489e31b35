//! Our session against the example server of the quick start: over stdio as
//! a real child process, and over Streamable HTTP in-process.

use mcp_example_server::{Server, ServerOptions, serve_http};
use mcp_tests::tools::workspace_bin;
use mcpdisco_client::Client;
use mcpdisco_client::session::{EraPreference, ListKind, RequestOptions, Session, SessionOptions};
use mcpdisco_protocol::types::{
    CallToolParams, GetPromptParams, MalformedItem, ReadResourceParams,
};
use mcpdisco_protocol::version::{Era, ProtocolVersion};
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpKind, HttpTransport};
use mcpdisco_transport::stdio::{StdioConfig, StdioTransport};
use serde_json::json;

/// The names (or URIs) of the items of a typed list, every item well-formed.
fn names<'a, T: 'a>(
    items: impl Iterator<Item = Result<&'a T, MalformedItem>>,
    name: impl Fn(&T) -> &str,
) -> Vec<String> {
    items.map(|item| name(item.unwrap()).to_owned()).collect()
}

async fn stdio(args: &[&str]) -> Session {
    let binary = workspace_bin("mcp-example-server");
    let config = StdioConfig::new("example", binary.to_string_lossy())
        .args(["stdio"])
        .args(args.iter().copied());
    Session::connect(
        "example",
        StdioTransport::spawn(config).unwrap(),
        SessionOptions::default(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn over_stdio_both_eras_are_detected_and_pages_are_followed() {
    let modern = stdio(&["--page-size", "2"]).await;
    assert_eq!(modern.era(), Era::Modern);
    assert_eq!(modern.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(modern.server_info().name, "mcp-example-server");
    let first = modern.list_page(ListKind::Tools, None).await.unwrap();
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.next_cursor.as_deref(), Some("offset-2"));
    let tools = modern.list_tools().await.unwrap();
    assert_eq!(
        names(tools.iter(), |t| &t.name),
        ["add", "echo", "word_count", "fail"]
    );
    let sum = modern
        .call_tool(
            CallToolParams::new("add", json!({"a": 2, "b": 3}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("5"));
    let failed = modern
        .call_tool(
            CallToolParams::new("fail", json!({}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert!(failed.is_error());
    modern.close().await.unwrap();

    let legacy = stdio(&["--era", "legacy"]).await;
    assert_eq!(legacy.era(), Era::Legacy);
    assert_eq!(legacy.protocol_version(), ProtocolVersion::V2025_11_25);
    let resources = legacy.list_resources().await.unwrap();
    assert_eq!(
        names(resources.iter(), |r| &r.uri),
        ["example://readme", "example://server-info"]
    );
    let templates = legacy.list_resource_templates().await.unwrap();
    assert_eq!(
        names(templates.iter(), |t| &t.uri_template),
        ["example://greeting/{name}"]
    );
    let greeting = legacy
        .read_resource(
            ReadResourceParams::new("example://greeting/Ada"),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(greeting.contents[0].to_value()["text"], "Hello, Ada!");
    legacy.ping().await.unwrap();
    legacy.close().await.unwrap();
}

/// The text of the `echo` tool's answer to `text`.
async fn echo(session: &Session, text: &str) -> String {
    let echoed = session
        .call_tool(
            CallToolParams::new("echo", json!({"text": text}).as_object().cloned()),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    echoed.content[0].as_text().unwrap().to_owned()
}

#[tokio::test]
async fn the_short_form_lists_typed_tools_and_masks_the_secrets_it_was_given() {
    let binary = workspace_bin("mcp-example-server");
    let session = Client::stdio(binary.to_string_lossy())
        .args(["stdio"])
        .env("EXAMPLE_TOKEN", "sk-example-0123456789")
        .connect()
        .await
        .unwrap();
    assert_eq!(session.name(), "mcp-example-server");
    let tools = session.list_tools().await.unwrap();
    let names: Vec<&str> = tools.valid().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "word_count", "fail"]);
    assert_eq!(tools.malformed().count(), 0);
    assert_eq!(
        echo(&session, "token sk-example-0123456789 here").await,
        "token *** here"
    );
    session.close().await.unwrap();
}

#[tokio::test]
async fn the_short_form_reaches_an_http_endpoint_and_masks_its_headers() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(
        listener,
        Server::new(ServerOptions::default()),
        async {
            let _ = stopped.await;
        },
    ));
    let session = Client::http(url)
        .header("X-Api-Key", "hdr-secret-0123456789")
        .connect()
        .await
        .unwrap();
    assert_eq!(session.name(), "127.0.0.1");
    assert_eq!(session.era(), Era::Modern);
    let prompts = session.list_prompts().await.unwrap();
    assert_eq!(names(prompts.iter(), |p| &p.name), ["greet", "summarize"]);
    assert_eq!(echo(&session, "key hdr-secret-0123456789").await, "key ***");
    session.close().await.unwrap();
    stop.send(()).unwrap();
    server.await.unwrap();
}

#[tokio::test]
async fn over_streamable_http_in_both_eras() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_http(
        listener,
        Server::new(ServerOptions::default()),
        async {
            let _ = stopped.await;
        },
    ));
    let client = HttpClient::shared().unwrap();
    for (era, expected) in [
        (EraPreference::Auto, Era::Modern),
        (EraPreference::Legacy, Era::Legacy),
    ] {
        let transport = HttpTransport::connect(
            HttpConfig::new("web", url.clone()),
            &client,
            HttpKind::StreamableHttp,
        )
        .await
        .unwrap();
        let options = SessionOptions::default().era(era);
        let session = Session::connect("web", transport, options).await.unwrap();
        assert_eq!(session.era(), expected);
        let prompts = session.list_prompts().await.unwrap();
        assert_eq!(names(prompts.iter(), |p| &p.name), ["greet", "summarize"]);
        let prompt = session
            .get_prompt(
                GetPromptParams::new(
                    "greet",
                    Some([("name".to_owned(), "Ada".to_owned())].into()),
                ),
                RequestOptions::default(),
            )
            .await
            .unwrap();
        assert!(
            prompt.messages[0]
                .content
                .as_text()
                .unwrap()
                .contains("Ada")
        );
        let words = session
            .call_tool(
                CallToolParams::new(
                    "word_count",
                    json!({"text": "one two three"}).as_object().cloned(),
                ),
                RequestOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(words.structured_content.unwrap()["words"], 3);
        session.close().await.unwrap();
    }
    let _ = stop.send(());
    server.await.unwrap();
}
