//! The whole flow of [`OAuthClient`], in process: the authorization server
//! and the protected resource are a [`ScriptedHttp`], the user's approval a
//! provider that answers the authorization URL at once. One test per path
//! the conformance auth scenarios take: discovery and its fallbacks, each
//! kind of client registration, PKCE, refresh, step-up, the `iss` check,
//! and (under `oauth-extensions`) DPoP and `private_key_jwt`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use oauth2::{PkceCodeChallenge, PkceCodeVerifier};
use serde_json::{Value, json};

use super::client::OAuthClient;
use super::context::AuthContext;
use super::http::{AuthRequest, Method};
use super::provider::{AuthProvider, PendingAuthorization};
use super::scripted_http::ScriptedHttp;
use super::settings::{AuthSettings, Grant};
use super::store::MemoryTokenStore;
use crate::error::AuthError;

const MCP: &str = "http://127.0.0.1:3000/mcp";
const RESOURCE_METADATA: &str = "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp";
const ISSUER: &str = "http://127.0.0.1:4000";
const SERVER_METADATA: &str = "http://127.0.0.1:4000/.well-known/oauth-authorization-server";
const AUTHORIZE: &str = "http://127.0.0.1:4000/authorize";
const TOKEN: &str = "http://127.0.0.1:4000/token";
const REGISTER: &str = "http://127.0.0.1:4000/register";
const REDIRECT: &str = "http://127.0.0.1:1/callback";
const CHALLENGE: &str = r#"Bearer scope="mcp:read""#;

/// The authorization server's metadata, with `extra` fields.
fn server_metadata(extra: Value) -> String {
    let mut metadata = json!({
        "issuer": ISSUER,
        "authorization_endpoint": AUTHORIZE,
        "token_endpoint": TOKEN,
        "registration_endpoint": REGISTER,
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
    });
    if let (Some(base), Value::Object(extra)) = (metadata.as_object_mut(), extra) {
        base.extend(extra);
    }
    metadata.to_string()
}

/// A token answer for `scope`.
fn token_answer(access_token: &str, scope: &str) -> String {
    json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": format!("refresh-of-{access_token}"),
        "scope": scope,
    })
    .to_string()
}

/// A resource with metadata, an authorization server with `extra`
/// metadata, dynamic registration and one token.
fn script(extra: Value) -> Arc<ScriptedHttp> {
    let http = ScriptedHttp::new();
    let resource = json!({"resource": MCP, "authorization_servers": [ISSUER]}).to_string();
    http.answer(Method::Get, RESOURCE_METADATA, 200, &resource)
        .answer(Method::Get, SERVER_METADATA, 200, &server_metadata(extra))
        .answer(
            Method::Post,
            REGISTER,
            201,
            r#"{"client_id":"registered-client"}"#,
        )
        .answer(
            Method::Post,
            TOKEN,
            200,
            &token_answer("token-1", "mcp:read"),
        );
    http
}

/// The user's part: approves at once, the redirect carrying `iss`.
#[derive(Debug)]
struct Approval {
    iss: Option<String>,
    seen: Arc<Mutex<Vec<url::Url>>>,
}

impl Approval {
    fn with_iss(iss: Option<&str>) -> Arc<Self> {
        Arc::new(Self {
            iss: iss.map(str::to_owned),
            seen: Arc::default(),
        })
    }

    /// The authorization URLs shown so far.
    fn seen(&self) -> Vec<url::Url> {
        self.seen.lock().unwrap().clone()
    }
}

struct Approving {
    iss: Option<String>,
    seen: Arc<Mutex<Vec<url::Url>>>,
}

#[async_trait]
impl AuthProvider for Approval {
    async fn begin(&self, _: &str) -> Result<Box<dyn PendingAuthorization>, AuthError> {
        Ok(Box::new(Approving {
            iss: self.iss.clone(),
            seen: Arc::clone(&self.seen),
        }))
    }
}

#[async_trait]
impl PendingAuthorization for Approving {
    fn redirect_uri(&self) -> String {
        REDIRECT.to_owned()
    }

    async fn finish(self: Box<Self>, authorization_url: url::Url) -> Result<url::Url, AuthError> {
        let state = query(&authorization_url)
            .remove("state")
            .unwrap_or_default();
        self.seen.lock().unwrap().push(authorization_url);
        let mut callback = url::Url::parse(REDIRECT).unwrap();
        callback
            .query_pairs_mut()
            .append_pair("code", "the-code")
            .append_pair("state", &state);
        if let Some(iss) = &self.iss {
            callback.query_pairs_mut().append_pair("iss", iss);
        }
        Ok(callback)
    }
}

fn client(
    http: &Arc<ScriptedHttp>,
    settings: AuthSettings,
    approval: &Arc<Approval>,
) -> Arc<OAuthClient> {
    let store = Arc::new(MemoryTokenStore::new());
    let context =
        AuthContext::stored(store).with_provider(Arc::clone(approval) as Arc<dyn AuthProvider>);
    let url = url::Url::parse(MCP).unwrap();
    OAuthClient::with_http("docs", &url, settings, context, Arc::clone(http) as _).unwrap()
}

/// The server refuses the current token with `status` and `challenge`.
async fn refuse(client: &OAuthClient, status: u16, challenge: &str) -> Result<(), AuthError> {
    client
        .handle_refusal(client.generation(), status, Some(challenge), None, 0)
        .await
}

fn query(url: &url::Url) -> HashMap<String, String> {
    url.query_pairs().into_owned().collect()
}

fn form(request: &AuthRequest) -> HashMap<String, String> {
    request.form().into_iter().collect()
}

/// The access token held.
fn access_token(client: &OAuthClient) -> Option<String> {
    client
        .tokens
        .current()
        .map(|current| current.tokens.access_token)
}

#[tokio::test]
async fn dynamic_registration_then_the_code_grant_with_pkce_s256() {
    let http = script(json!({}));
    let approval = Approval::with_iss(None);
    let client = client(&http, AuthSettings::default(), &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
    assert_eq!(access_token(&client).as_deref(), Some("token-1"));
    assert_eq!(
        http.asked(),
        [
            format!("GET {RESOURCE_METADATA}"),
            format!("GET {SERVER_METADATA}"),
            format!("POST {REGISTER}"),
            format!("POST {TOKEN}"),
        ]
    );
    let registration: Value = serde_json::from_slice(&http.requests_to(REGISTER)[0].body).unwrap();
    assert_eq!(registration["redirect_uris"], json!([REDIRECT]));
    let shown = approval.seen();
    let authorization = query(&shown[0]);
    assert_eq!(authorization["client_id"], "registered-client");
    assert_eq!(authorization["code_challenge_method"], "S256");
    assert_eq!(authorization["resource"], MCP);
    assert_eq!(authorization["scope"], "mcp:read");
    let token = form(&http.requests_to(TOKEN)[0]);
    assert_eq!(token["grant_type"], "authorization_code");
    assert_eq!(token["code"], "the-code");
    assert_eq!(token["redirect_uri"], REDIRECT);
    assert_eq!(token["resource"], MCP);
    assert_eq!(token["client_id"], "registered-client");
    let verifier = PkceCodeVerifier::new(token["code_verifier"].clone());
    assert_eq!(
        PkceCodeChallenge::from_code_verifier_sha256(&verifier).as_str(),
        authorization["code_challenge"],
        "the verifier sent is the one the challenge was made of"
    );
}

#[tokio::test]
async fn without_s256_nothing_is_authorized() {
    let http = script(json!({"code_challenge_methods_supported": ["plain"]}));
    let approval = Approval::with_iss(None);
    let client = client(&http, AuthSettings::default(), &approval);
    let refused = refuse(&client, 401, CHALLENGE).await.unwrap_err();
    assert!(refused.to_string().contains("S256"), "{refused}");
    assert!(approval.seen().is_empty());
    assert!(http.requests_to(TOKEN).is_empty());
}

#[tokio::test]
async fn a_pre_registered_client_authenticates_with_its_secret() {
    let http = script(json!({}));
    let approval = Approval::with_iss(None);
    let settings = AuthSettings {
        client_id: Some("pre-registered".into()),
        client_secret: Some("its-secret".into()),
        ..Default::default()
    };
    let client = client(&http, settings, &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
    assert!(
        http.requests_to(REGISTER).is_empty(),
        "not registered again"
    );
    assert_eq!(query(&approval.seen()[0])["client_id"], "pre-registered");
    let request = &http.requests_to(TOKEN)[0];
    // base64("pre-registered:its-secret")
    assert_eq!(
        request.header("authorization"),
        Some("Basic cHJlLXJlZ2lzdGVyZWQ6aXRzLXNlY3JldA==")
    );
    assert!(!form(request).contains_key("client_secret"));
}

#[tokio::test]
async fn a_client_id_metadata_document_url_is_the_client_id() {
    let http = script(json!({"client_id_metadata_document_supported": true}));
    let approval = Approval::with_iss(None);
    let document = "https://client.example.com/oauth/client.json";
    let settings = AuthSettings {
        client_metadata_url: Some(document.into()),
        ..Default::default()
    };
    let client = client(&http, settings, &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
    assert!(http.requests_to(REGISTER).is_empty(), "no registration");
    assert_eq!(query(&approval.seen()[0])["client_id"], document);
    assert_eq!(form(&http.requests_to(TOKEN)[0])["client_id"], document);
}

#[tokio::test]
async fn the_challenge_names_the_metadata_and_openid_connect_describes_the_issuer() {
    let http = ScriptedHttp::new();
    let named = "http://127.0.0.1:3000/meta/resource.json";
    let openid = "http://127.0.0.1:4000/.well-known/openid-configuration";
    let resource = json!({"resource": MCP, "authorization_servers": [ISSUER]}).to_string();
    http.answer(Method::Get, named, 200, &resource)
        .answer(Method::Get, openid, 200, &server_metadata(json!({})))
        .answer(Method::Post, REGISTER, 201, r#"{"client_id":"c"}"#)
        .answer(
            Method::Post,
            TOKEN,
            200,
            &token_answer("token-1", "mcp:read"),
        );
    let approval = Approval::with_iss(None);
    let client = client(&http, AuthSettings::default(), &approval);
    let challenge = format!(r#"Bearer resource_metadata="{named}", scope="mcp:read""#);
    refuse(&client, 401, &challenge).await.unwrap();
    assert_eq!(
        http.asked()[..3],
        [
            format!("GET {named}"),
            format!("GET {SERVER_METADATA}"),
            format!("GET {openid}"),
        ]
    );
    assert_eq!(access_token(&client).as_deref(), Some("token-1"));
}

#[tokio::test]
async fn a_server_without_metadata_gets_the_default_endpoints() {
    let http = ScriptedHttp::new();
    let base = "http://127.0.0.1:3000";
    http.answer(
        Method::Post,
        &format!("{base}/register"),
        201,
        r#"{"client_id":"legacy-client"}"#,
    )
    .answer(
        Method::Post,
        &format!("{base}/token"),
        200,
        &token_answer("legacy-token", "mcp:read"),
    );
    let approval = Approval::with_iss(None);
    let client = client(&http, AuthSettings::default(), &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
    assert_eq!(access_token(&client).as_deref(), Some("legacy-token"));
    assert_eq!(
        http.asked(),
        [
            format!("GET {RESOURCE_METADATA}"),
            format!("GET {base}/.well-known/oauth-protected-resource"),
            format!("GET {base}/.well-known/oauth-authorization-server"),
            format!("GET {base}/.well-known/openid-configuration"),
            format!("POST {base}/register"),
            format!("POST {base}/token"),
        ]
    );
    assert!(
        approval.seen()[0]
            .as_str()
            .starts_with(&format!("{base}/authorize?"))
    );
}

#[tokio::test]
async fn a_refused_token_is_refreshed_without_the_user() {
    let http = script(json!({}));
    http.answer(
        Method::Post,
        TOKEN,
        200,
        &token_answer("token-2", "mcp:read"),
    );
    let approval = Approval::with_iss(None);
    let client = client(&http, AuthSettings::default(), &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
    refuse(&client, 401, r#"Bearer error="invalid_token""#)
        .await
        .unwrap();
    assert_eq!(access_token(&client).as_deref(), Some("token-2"));
    assert_eq!(approval.seen().len(), 1, "one approval only");
    let refresh = form(&http.requests_to(TOKEN)[1]);
    assert_eq!(refresh["grant_type"], "refresh_token");
    assert_eq!(refresh["refresh_token"], "refresh-of-token-1");
    assert_eq!(refresh["resource"], MCP);
    assert_eq!(refresh["client_id"], "registered-client");
}

#[tokio::test]
async fn insufficient_scope_authorizes_again_with_the_union_of_scopes() {
    let http = script(json!({}));
    http.answer(
        Method::Post,
        TOKEN,
        200,
        &token_answer("token-2", "mcp:read mcp:write"),
    );
    let approval = Approval::with_iss(None);
    let client = client(&http, AuthSettings::default(), &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
    refuse(
        &client,
        403,
        r#"Bearer error="insufficient_scope", scope="mcp:write""#,
    )
    .await
    .unwrap();
    let shown = approval.seen();
    assert_eq!(shown.len(), 2);
    assert_eq!(query(&shown[1])["scope"], "mcp:read mcp:write");
    assert_eq!(access_token(&client).as_deref(), Some("token-2"));
    // Asking for a scope the token has would not help.
    let refused = refuse(
        &client,
        403,
        r#"Bearer error="insufficient_scope", scope="mcp:write""#,
    )
    .await
    .unwrap_err();
    assert!(
        refused.to_string().contains("although the token has it"),
        "{refused}"
    );
}

#[tokio::test]
async fn the_redirect_must_come_from_the_issuer() {
    for (iss, advertised) in [(Some("http://127.0.0.1:9999"), false), (None, true)] {
        let http = script(json!({ "authorization_response_iss_parameter_supported": advertised }));
        let approval = Approval::with_iss(iss);
        let client = client(&http, AuthSettings::default(), &approval);
        let refused = refuse(&client, 401, CHALLENGE).await.unwrap_err();
        assert!(matches!(refused, AuthError::Rejected { .. }), "{refused}");
        assert!(http.requests_to(TOKEN).is_empty(), "no code is spent");
    }
    let http = script(json!({ "authorization_response_iss_parameter_supported": true }));
    let approval = Approval::with_iss(Some(ISSUER));
    let client = client(&http, AuthSettings::default(), &approval);
    refuse(&client, 401, CHALLENGE).await.unwrap();
}

#[tokio::test]
async fn the_client_credentials_grant_needs_no_user() {
    let http = script(json!({}));
    let settings = AuthSettings {
        grant: Grant::ClientCredentials,
        client_id: Some("machine".into()),
        client_secret: Some("machine-secret".into()),
        ..Default::default()
    };
    let store = Arc::new(MemoryTokenStore::new());
    let url = url::Url::parse(MCP).unwrap();
    let client = OAuthClient::with_http(
        "docs",
        &url,
        settings,
        AuthContext::stored(store),
        Arc::clone(&http) as _,
    )
    .unwrap();
    refuse(&client, 401, CHALLENGE).await.unwrap();
    let request = &http.requests_to(TOKEN)[0];
    let token = form(request);
    assert_eq!(token["grant_type"], "client_credentials");
    assert_eq!(token["scope"], "mcp:read");
    assert_eq!(token["resource"], MCP);
    assert!(
        request
            .header("authorization")
            .is_some_and(|v| v.starts_with("Basic "))
    );
}

#[cfg(feature = "oauth-extensions")]
mod extensions {
    use base64::Engine;

    use super::*;

    /// A P-256 key made for these tests only.
    const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSUB9KsbKvzKUwhw0
2s2/fucK9lZfJ9IxWEdVp63cJBShRANCAAQbbWWL+rnjsZ9XRlA9iy2Z8238B1JG
vk5PZrt1pLvpzda677e4EtiuhzLPVGxMEhh9O5py5VOM6yIjyf0Kd0mM
-----END PRIVATE KEY-----
";

    /// The header and claims of a JWT.
    fn jwt(token: &str) -> (Value, Value) {
        let part = |index: usize| {
            let text = token.split('.').nth(index).unwrap();
            let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(text)
                .unwrap();
            serde_json::from_slice::<Value>(&bytes).unwrap()
        };
        (part(0), part(1))
    }

    #[tokio::test]
    async fn tokens_are_dpop_bound_where_offered_and_the_nonce_is_answered() {
        let http = ScriptedHttp::new();
        let resource = json!({"resource": MCP, "authorization_servers": [ISSUER]}).to_string();
        let dpop_answer = json!({
            "access_token": "bound", "token_type": "DPoP", "expires_in": 3600
        })
        .to_string();
        http.answer(Method::Get, RESOURCE_METADATA, 200, &resource)
            .answer(
                Method::Get,
                SERVER_METADATA,
                200,
                &server_metadata(json!({"dpop_signing_alg_values_supported": ["ES256"]})),
            )
            .answer(Method::Post, REGISTER, 201, r#"{"client_id":"c"}"#)
            .answer_with(
                Method::Post,
                TOKEN,
                400,
                &[("dpop-nonce", "nonce-1")],
                r#"{"error":"use_dpop_nonce"}"#,
            )
            .answer(Method::Post, TOKEN, 200, &dpop_answer);
        let approval = Approval::with_iss(None);
        let client = client(&http, AuthSettings::default(), &approval);
        refuse(&client, 401, CHALLENGE).await.unwrap();
        let current = client.tokens.current().unwrap();
        assert_eq!(current.tokens.token_type, "DPoP");
        let sent = http.requests_to(TOKEN);
        assert_eq!(sent.len(), 2, "once more with the nonce");
        let (header, first) = jwt(sent[0].header("dpop").unwrap());
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(first["htm"], "POST");
        assert_eq!(first["htu"], TOKEN);
        assert!(first.get("nonce").is_none());
        let (_, second) = jwt(sent[1].header("dpop").unwrap());
        assert_eq!(second["nonce"], "nonce-1");
        assert_eq!(form(&sent[0]), form(&sent[1]), "the same request");
    }

    #[tokio::test]
    async fn a_private_key_signs_the_client_assertion() {
        let http = script(json!({
            "token_endpoint_auth_methods_supported": ["private_key_jwt"]
        }));
        let approval = Approval::with_iss(None);
        let settings = AuthSettings {
            client_id: Some("keyed-client".into()),
            private_key: Some(TEST_KEY.into()),
            ..Default::default()
        };
        let client = client(&http, settings, &approval);
        refuse(&client, 401, CHALLENGE).await.unwrap();
        let request = &http.requests_to(TOKEN)[0];
        let token = form(request);
        assert_eq!(
            token["client_assertion_type"],
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        );
        let (header, claims) = jwt(&token["client_assertion"]);
        assert_eq!(header["alg"], "ES256");
        assert_eq!(claims["iss"], "keyed-client");
        assert_eq!(claims["sub"], "keyed-client");
        assert_eq!(claims["aud"], ISSUER);
        assert!(!token.contains_key("client_secret"));
        assert!(request.header("authorization").is_none());
    }
}
