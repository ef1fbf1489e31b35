//! [`OAuthClient`]: one HTTP server's authorization, from a refused request
//! to a stored token.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use mcpdisco_transport::http::RequestCredentials;
use mcpdisco_transport::secret::{ExposeSecret, Masker};
use mcpdisco_transport::sync::RwLock;
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointState,
    PkceCodeChallenge, RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse,
    TokenUrl,
};
use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use super::challenge::{self, Challenge};
use super::client_auth::{self, ClientAuth, JWT_BEARER_ASSERTION};
use super::dpop::DpopKey;
use super::http::AuthHttp;
use super::metadata::{self, ServerMetadata};
use super::store::{ClientRegistration, StoredCredentials, TokenSet, now_secs};
use super::{AuthContext, AuthError, AuthSettings, Grant};

/// Re-authorizations for more scope (403 `insufficient_scope`) before giving up.
pub(crate) const MAX_STEP_UPS: u32 = 2;
/// A token this close to its expiry (seconds) is refreshed before use.
const REFRESH_MARGIN_SECS: u64 = 60;
/// How long after a failed early refresh none is tried again.
const REFRESH_BACKOFF: std::time::Duration = std::time::Duration::from_secs(30);

/// What `mcp-cli auth status` shows of one stored entry (never a token).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthStatus {
    /// The server's name when the tokens were stored.
    pub server: String,
    /// The authorization server.
    pub issuer: String,
    /// The MCP server's URL.
    pub resource: String,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// When the access token expires (seconds since the Unix epoch).
    pub expires_at: Option<u64>,
    /// Whether it can be refreshed without the user.
    pub refreshable: bool,
    /// The client id used.
    pub client_id: Option<String>,
}

impl AuthStatus {
    /// The status of one stored entry.
    pub fn of(entry: &StoredCredentials) -> Self {
        Self {
            server: entry.server.clone(),
            issuer: entry.issuer.clone(),
            resource: entry.resource.clone(),
            scopes: entry
                .tokens
                .as_ref()
                .map(|t| t.scopes.clone())
                .unwrap_or_default(),
            expires_at: entry.tokens.as_ref().and_then(|t| t.expires_at),
            refreshable: entry
                .tokens
                .as_ref()
                .is_some_and(|t| t.refresh_token.is_some()),
            client_id: entry.client.as_ref().map(|c| c.client_id.clone()),
        }
    }
}

/// The current token, with the entry it belongs to.
#[derive(Clone)]
struct Current {
    entry: StoredCredentials,
    tokens: TokenSet,
}

/// The latest DPoP nonces (RFC 9449 §8, §9).
#[derive(Default)]
struct DpopNonces {
    authorization_server: Option<String>,
    resource: Option<String>,
}

/// Sends token requests: a DPoP proof on each when tokens are bound, and
/// once more with the authorization server's nonce when it asks for one.
#[derive(Clone)]
pub(super) struct TokenSender {
    http: AuthHttp,
    server: String,
    key: Option<Arc<DpopKey>>,
    nonces: Arc<RwLock<DpopNonces>>,
}

impl TokenSender {
    /// Sends one token request.
    pub(super) async fn send(
        self,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, AuthError> {
        let Some(key) = &self.key else {
            return self.http.execute(request).await;
        };
        let url =
            url::Url::parse(&request.uri().to_string()).map_err(|e| AuthError::Discovery {
                server: self.server.clone(),
                reason: format!("the token endpoint is not a URL: {e}"),
            })?;
        let mut answered_nonce = false;
        loop {
            let nonce = self.nonces.read().authorization_server.clone();
            let proof = key
                .proof(request.method().as_str(), &url, None, nonce.as_deref())
                .map_err(|reason| AuthError::Unsupported {
                    server: self.server.clone(),
                    reason,
                })?;
            let mut attempt = request.clone();
            if let Ok(value) = oauth2::http::HeaderValue::from_str(&proof) {
                attempt.headers_mut().insert("dpop", value);
            }
            let response = self.http.execute(attempt).await?;
            let new_nonce = response
                .headers()
                .get("dpop-nonce")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let asks_nonce = response.status().as_u16() == 400
                && String::from_utf8_lossy(response.body()).contains("use_dpop_nonce");
            if let Some(nonce) = new_nonce {
                self.nonces.write().authorization_server = Some(nonce);
                if asks_nonce && !answered_nonce {
                    answered_nonce = true;
                    continue;
                }
            }
            return Ok(response);
        }
    }
}

/// What the flow has learnt about the servers (kept between rounds).
#[derive(Default)]
struct FlowState {
    /// The authorization server in use and its metadata.
    server_metadata: Option<ServerMetadata>,
    /// Scopes asked for so far (step-up asks for their union with more).
    requested_scopes: Vec<String>,
}

/// One HTTP server's authorization: the token its transport sends, and the
/// flow that gets a new one when the server refuses it.
pub struct OAuthClient {
    pub(super) server: String,
    resource: url::Url,
    pub(super) settings: AuthSettings,
    context: AuthContext,
    pub(super) http: AuthHttp,
    masker: Masker,
    current: RwLock<Option<Current>>,
    /// Whether tokens are DPoP-bound (the authorization server offers it, or
    /// the resource challenged with `DPoP`).
    use_dpop: AtomicBool,
    /// The DPoP key, made on first use.
    dpop_key: OnceLock<Arc<DpopKey>>,
    /// The nonces the authorization server and the resource asked for.
    dpop_nonces: Arc<RwLock<DpopNonces>>,
    /// Bumped whenever the token changes, so concurrent refusals of one
    /// token run the flow once.
    generation: AtomicU64,
    flow: tokio::sync::Mutex<FlowState>,
    /// When an early refresh last failed.
    refresh_failed_at: mcpdisco_transport::sync::Mutex<Option<std::time::Instant>>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server", &self.server)
            .field("resource", &canonical_resource(&self.resource))
            .field("has_token", &self.current.read().is_some())
            .finish_non_exhaustive()
    }
}

impl RequestCredentials for OAuthClient {
    fn headers(&self, method: &str, url: &url::Url) -> Vec<(HeaderName, HeaderValue)> {
        // Never to another origin than the resource's.
        if url.origin() != self.resource.origin() {
            return Vec::new();
        }
        let current = self.current.read();
        let Some(current) = current.as_ref() else {
            return Vec::new();
        };
        let token = &current.tokens.access_token;
        let mut headers = Vec::new();
        if current.tokens.token_type.eq_ignore_ascii_case("dpop") {
            let Some(key) = self.dpop_key.get() else {
                return Vec::new();
            };
            let key = key.as_ref();
            let nonce = self.dpop_nonces.read().resource.clone();
            match key.proof(method, url, Some(token), nonce.as_deref()) {
                Ok(proof) => {
                    if let Ok(value) = HeaderValue::from_str(&proof) {
                        headers.push((HeaderName::from_static("dpop"), value));
                    }
                }
                Err(error) => tracing::warn!(server = %self.server, %error, "no DPoP proof"),
            }
            if let Ok(value) = HeaderValue::from_str(&format!("DPoP {token}")) {
                headers.push((AUTHORIZATION, value));
            }
        } else if let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}")) {
            headers.push((AUTHORIZATION, value));
        }
        headers
    }
}

/// The resource identifier of an MCP endpoint (RFC 8707, the MCP canonical
/// server URI): scheme, host, port and path; never its credentials, query
/// or fragment, which may hold secrets and must not reach an authorization
/// server.
pub fn canonical_resource(url: &url::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

impl OAuthClient {
    /// The authorization of server `server` at `url`, starting from the
    /// newest token stored for it (if any).
    pub fn new(
        server: &str,
        url: &url::Url,
        settings: AuthSettings,
        context: AuthContext,
    ) -> Result<Arc<Self>, AuthError> {
        let resource = canonical_resource(url);
        let stored = if context.reuse_stored {
            context.store.for_resource(&resource)?
        } else {
            Vec::new()
        };
        let current = stored.into_iter().find_map(|entry| {
            let tokens = entry.tokens.clone()?;
            Some(Current { entry, tokens })
        });
        // Tokens bound to a DPoP key need that key: it is stored with them.
        let dpop_key = OnceLock::new();
        let mut use_dpop = false;
        if let Some(current) = &current
            && current.tokens.token_type.eq_ignore_ascii_case("dpop")
        {
            match current
                .entry
                .dpop_key
                .as_ref()
                .map(|key| DpopKey::import(&key.0))
            {
                Some(Ok(key)) => {
                    let _ = dpop_key.set(Arc::new(key));
                    use_dpop = true;
                }
                _ => {
                    tracing::warn!(server = %server, "a stored DPoP-bound token has no usable key; authorizing again")
                }
            }
        }
        let current = current.filter(|c| {
            !c.tokens.token_type.eq_ignore_ascii_case("dpop") || dpop_key.get().is_some()
        });
        let masker = settings.masker();
        let client = Arc::new(Self {
            server: server.to_owned(),
            resource: url.clone(),
            http: AuthHttp::new(server)?,
            settings,
            context,
            masker,
            current: RwLock::new(current),
            use_dpop: AtomicBool::new(use_dpop),
            dpop_key,
            dpop_nonces: Arc::new(RwLock::new(DpopNonces::default())),
            generation: AtomicU64::new(0),
            flow: tokio::sync::Mutex::new(FlowState::default()),
            refresh_failed_at: Default::default(),
        });
        Ok(client)
    }

    /// The server's name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The masker of every secret this client holds (settings and tokens).
    pub fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        if let Some(current) = self.current.read().as_ref() {
            builder.secret(&current.tokens.access_token);
            if let Some(refresh) = &current.tokens.refresh_token {
                builder.secret(refresh);
            }
            if let Some(secret) = current
                .entry
                .client
                .as_ref()
                .and_then(|c| c.client_secret.as_ref())
            {
                builder.secret(secret);
            }
        }
        builder.build().union(&self.masker)
    }

    /// Whether a token is held.
    pub fn has_token(&self) -> bool {
        self.current.read().is_some()
    }

    /// Forgets the token held in memory (the store keeps it): the next
    /// refusal runs the whole flow. What `mcp-cli login` starts from.
    pub fn forget_token(&self) {
        *self.current.write() = None;
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Changes whenever the token does.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Refreshes the token first when it is about to expire and can be
    /// refreshed. A failed refresh is left to the server's refusal.
    pub async fn refresh_if_expiring(&self) {
        let expiring = self.current.read().as_ref().is_some_and(|c| {
            c.tokens.refresh_token.is_some() && c.tokens.expires_within(REFRESH_MARGIN_SECS)
        });
        if !expiring {
            return;
        }
        // After a failed refresh, requests go on with the token until the
        // server refuses it, without each one trying again.
        if self
            .refresh_failed_at
            .lock()
            .is_some_and(|at| at.elapsed() < REFRESH_BACKOFF)
        {
            return;
        }
        let seen = self.generation();
        let mut flow = self.flow.lock().await;
        if self.generation() != seen {
            return;
        }
        if let Err(error) = self.refresh(&mut flow).await {
            *self.refresh_failed_at.lock() = Some(std::time::Instant::now());
            tracing::debug!(server = %self.server, %error, "refreshing an expiring token failed");
        }
    }

    /// Handles the server's refusal of the token of generation `seen`:
    /// refreshes it, or runs the flow (for more scope on a 403
    /// `insufficient_scope`). Once for concurrent refusals of one token.
    ///
    /// `step_ups` is how many times the operation that was refused already
    /// asked for more scope: past `MAX_STEP_UPS` it fails.
    pub async fn handle_refusal(
        &self,
        seen: u64,
        status: u16,
        www_authenticate: Option<&str>,
        dpop_nonce: Option<&str>,
        step_ups: u32,
    ) -> Result<(), AuthError> {
        let mut flow = self.flow.lock().await;
        if self.generation() != seen {
            return Ok(());
        }
        let challenge = www_authenticate
            .and_then(challenge::parse)
            .unwrap_or_default();
        if challenge.error.as_deref() == Some("use_dpop_nonce")
            && let Some(nonce) = dpop_nonce
            && self.has_token()
        {
            // Not a new token: the same one, with a proof carrying the nonce.
            let mut nonces = self.dpop_nonces.write();
            if nonces.resource.as_deref() != Some(nonce) {
                nonces.resource = Some(nonce.to_owned());
                return Ok(());
            }
        }
        if challenge.scheme == "dpop" {
            self.use_dpop.store(true, Ordering::Release);
        }
        let result = if status == 403 || challenge.is_insufficient_scope() {
            self.step_up(&mut flow, &challenge, step_ups).await
        } else {
            let refreshable = self
                .current
                .read()
                .as_ref()
                .is_some_and(|c| c.tokens.refresh_token.is_some());
            let refreshed = if refreshable {
                match self.refresh(&mut flow).await {
                    Ok(()) => true,
                    Err(error) => {
                        tracing::debug!(server = %self.server, %error, "refresh failed; authorizing again");
                        false
                    }
                }
            } else {
                false
            };
            if refreshed {
                Ok(())
            } else {
                self.authorize(&mut flow, &challenge, None).await
            }
        };
        result.map_err(|error| error.masked(&self.masker()))
    }

    async fn step_up(
        &self,
        flow: &mut FlowState,
        challenge: &Challenge,
        step_ups: u32,
    ) -> Result<(), AuthError> {
        let refused = |reason: String| AuthError::Refused {
            server: self.server.clone(),
            reason,
        };
        if !challenge.is_insufficient_scope() {
            return Err(refused(format!(
                "HTTP 403{}",
                challenge
                    .error
                    .as_deref()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            )));
        }
        let wanted = challenge.scopes();
        let mut scopes = flow.requested_scopes.clone();
        let granted: Vec<String> = self
            .current
            .read()
            .as_ref()
            .map(|c| c.tokens.scopes.clone())
            .unwrap_or_default();
        if !wanted.is_empty() && wanted.iter().all(|scope| granted.contains(scope)) {
            return Err(refused(format!(
                "the server asks for scope {} although the token has it; authorizing again would not help",
                wanted.join(" ")
            )));
        }
        if step_ups >= MAX_STEP_UPS {
            return Err(refused(format!(
                "the server still asks for more scope ({}) after {MAX_STEP_UPS} re-authorizations",
                challenge.scope.as_deref().unwrap_or("unnamed")
            )));
        }
        for scope in granted.into_iter().chain(wanted) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        self.authorize(flow, challenge, Some(scopes)).await
    }

    /// Discovers the authorization server and gets a new token.
    async fn authorize(
        &self,
        flow: &mut FlowState,
        challenge: &Challenge,
        scopes: Option<Vec<String>>,
    ) -> Result<(), AuthError> {
        if self.settings.grant == Grant::AuthorizationCode && self.context.provider.is_none() {
            // Nobody to approve: fail before any request to the authorization server.
            return Err(AuthError::Required {
                server: self.server.clone(),
            });
        }
        let urls = metadata::resource_metadata_urls(
            &self.resource,
            challenge.resource_metadata.as_deref(),
        );
        let resource_metadata = metadata::fetch_resource_metadata(&self.http, &self.server, &urls)
            .await?
            .unwrap_or_default();
        // The resource as the server names it, verbatim (no URL normalization).
        let resource = match &resource_metadata.resource {
            Some(named) if metadata::resource_matches(named, &self.resource) => named.clone(),
            Some(named) => {
                return Err(AuthError::Discovery {
                    server: self.server.clone(),
                    reason: format!(
                        "the protected resource metadata is for {named}, not this server; no token is requested for it"
                    ),
                });
            }
            None => canonical_resource(&self.resource),
        };
        let issuer = match resource_metadata.authorization_servers.first() {
            Some(issuer) => issuer.clone(),
            // Before RFC 9728 (2025-03-26): the server's own origin.
            None => self.resource.origin().ascii_serialization(),
        };
        if self.settings.has_credentials() {
            match &self.settings.issuer {
                Some(expected) if *expected != issuer => {
                    return Err(AuthError::Unsupported {
                        server: self.server.clone(),
                        reason: format!(
                            "the server names the authorization server {issuer}, but the configured credentials belong to {expected} (auth.issuer); they are not sent"
                        ),
                    });
                }
                Some(_) => {}
                None => tracing::warn!(
                    server = %self.server,
                    %issuer,
                    "sending the configured credentials to the authorization server the MCP server names; set auth.issuer to allow only yours"
                ),
            }
        }
        let server_metadata =
            metadata::fetch_server_metadata(&self.http, &self.server, &issuer).await?;
        if server_metadata
            .dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|algs| algs.iter().any(|a| a == "ES256"))
        {
            self.use_dpop.store(true, Ordering::Release);
        }
        let mut scopes = scopes.unwrap_or_else(|| {
            let from_challenge = challenge.scopes();
            if !from_challenge.is_empty() {
                from_challenge
            } else if let Some(configured) = &self.settings.scopes {
                configured.clone()
            } else {
                resource_metadata
                    .scopes_supported
                    .clone()
                    .unwrap_or_default()
            }
        });
        // A refresh token where the authorization server offers one (SEP-2207).
        let offline = "offline_access";
        if server_metadata
            .scopes_supported
            .as_ref()
            .is_some_and(|supported| supported.iter().any(|s| s == offline))
            && !scopes.iter().any(|s| s == offline)
        {
            scopes.push(offline.to_owned());
        }
        flow.requested_scopes = scopes.clone();
        flow.server_metadata = Some(server_metadata.clone());
        let mut entry = self
            .context
            .store
            .load(&issuer, &resource)?
            .unwrap_or_else(|| StoredCredentials {
                server: self.server.clone(),
                issuer: issuer.clone(),
                resource: resource.clone(),
                ..Default::default()
            });
        entry.server = self.server.clone();
        entry.url = canonical_resource(&self.resource);
        let tokens = match self.settings.grant {
            Grant::ClientCredentials => {
                let client = self.configured_client().ok_or_else(|| AuthError::Unsupported {
                    server: self.server.clone(),
                    reason: "the client credentials grant needs auth.clientId (and a secret or a private key)".into(),
                })?;
                let tokens = self
                    .client_credentials(&server_metadata, &client, &resource, &scopes)
                    .await?;
                entry.client = Some(client);
                tokens
            }
            Grant::AuthorizationCode => {
                self.authorization_code(&server_metadata, &mut entry, &resource, &scopes)
                    .await?
            }
            Grant::JwtBearer => {
                self.jwt_bearer(&server_metadata, &resource, &scopes)
                    .await?
            }
            Grant::Enterprise => {
                let (client, tokens) = self
                    .enterprise(&server_metadata, &resource, &scopes)
                    .await?;
                entry.client = Some(client);
                tokens
            }
        };
        self.install(entry, tokens)
    }

    /// Stores `tokens` for `entry` and makes them current.
    fn install(&self, mut entry: StoredCredentials, tokens: TokenSet) -> Result<(), AuthError> {
        entry.dpop_key = if tokens.token_type.eq_ignore_ascii_case("dpop") {
            self.dpop_key
                .get()
                .map(|key| super::store::PrivateKey(key.export()))
        } else {
            None
        };
        entry.tokens = Some(tokens.clone());
        self.context.store.save(&entry)?;
        *self.current.write() = Some(Current { entry, tokens });
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    pub(super) fn configured_client(&self) -> Option<ClientRegistration> {
        let client_id = self.settings.client_id.clone()?;
        Some(ClientRegistration {
            client_id,
            client_secret: self
                .settings
                .client_secret
                .as_ref()
                .map(|s| s.expose_secret().to_owned()),
            token_endpoint_auth_method: None,
            redirect_uri: None,
        })
    }

    /// The client's identity at this authorization server, in the
    /// specification's order: configured, a metadata document URL, a
    /// registration kept from before for this redirect URI, a new
    /// registration.
    async fn client_identity(
        &self,
        server_metadata: &ServerMetadata,
        entry: &StoredCredentials,
        redirect_uri: &str,
    ) -> Result<ClientRegistration, AuthError> {
        if let Some(client) = self.configured_client() {
            return Ok(client);
        }
        if let Some(url) = &self.settings.client_metadata_url
            && server_metadata.client_id_metadata_document_supported == Some(true)
        {
            return Ok(ClientRegistration {
                client_id: url.clone(),
                token_endpoint_auth_method: Some(
                    if self.settings.private_key.is_some() {
                        "private_key_jwt"
                    } else {
                        "none"
                    }
                    .into(),
                ),
                ..Default::default()
            });
        }
        if let Some(client) = &entry.client
            && client.redirect_uri.as_deref() == Some(redirect_uri)
        {
            return Ok(client.clone());
        }
        let Some(endpoint) = &server_metadata.registration_endpoint else {
            return Err(AuthError::Unsupported {
                server: self.server.clone(),
                reason: "the authorization server offers neither dynamic client registration nor client ID metadata documents: set auth.clientId (and auth.clientSecret) in the config".into(),
            });
        };
        self.register(endpoint, server_metadata, redirect_uri).await
    }

    /// Dynamic client registration (RFC 7591), as a native client.
    async fn register(
        &self,
        endpoint: &str,
        server_metadata: &ServerMetadata,
        redirect_uri: &str,
    ) -> Result<ClientRegistration, AuthError> {
        let url = self.endpoint(Some(endpoint), "registration_endpoint")?;
        let method = ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| server_metadata.supports_auth_method(m))
            .unwrap_or("client_secret_basic");
        let body = serde_json::json!({
            "client_name": self.context.client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": "native",
        });
        let fetched = self.http.post_json(&url, &body).await?;
        if !fetched.is_success() {
            return Err(AuthError::Refused {
                server: self.server.clone(),
                reason: format!(
                    "client registration: HTTP {}: {}",
                    fetched.status,
                    fetched.preview()
                ),
            });
        }
        #[derive(serde::Deserialize)]
        struct Registered {
            client_id: String,
            #[serde(default)]
            client_secret: Option<String>,
            #[serde(default)]
            token_endpoint_auth_method: Option<String>,
        }
        let registered: Registered = fetched.json().map_err(|reason| AuthError::Refused {
            server: self.server.clone(),
            reason: format!("client registration: {reason}"),
        })?;
        Ok(ClientRegistration {
            client_id: registered.client_id,
            client_secret: registered.client_secret,
            token_endpoint_auth_method: registered.token_endpoint_auth_method,
            redirect_uri: Some(redirect_uri.to_owned()),
        })
    }

    /// The authorization code grant with PKCE S256.
    async fn authorization_code(
        &self,
        server_metadata: &ServerMetadata,
        entry: &mut StoredCredentials,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let Some(provider) = self.context.provider.clone() else {
            return Err(AuthError::Required {
                server: self.server.clone(),
            });
        };
        if !server_metadata.supports_s256() {
            return Err(AuthError::Unsupported {
                server: self.server.clone(),
                reason: "the authorization server does not offer PKCE with S256 (code_challenge_methods_supported); refusing to authorize without it".into(),
            });
        }
        let authorization_endpoint = self.endpoint(
            server_metadata.authorization_endpoint.as_deref(),
            "authorization_endpoint",
        )?;
        let token_endpoint =
            self.endpoint(server_metadata.token_endpoint.as_deref(), "token_endpoint")?;
        let pending = provider.begin(&self.server).await?;
        let redirect_uri = pending.redirect_uri();
        let client = self
            .client_identity(server_metadata, entry, &redirect_uri)
            .await?;
        entry.client = Some(client.clone());
        let redirect =
            RedirectUrl::new(redirect_uri.clone()).map_err(|e| AuthError::Unsupported {
                server: self.server.clone(),
                reason: format!("invalid redirect URI: {e}"),
            })?;
        let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
            .set_auth_uri(AuthUrl::from_url(authorization_endpoint))
            .set_token_uri(TokenUrl::from_url(token_endpoint.clone()))
            .set_redirect_uri(redirect);
        let (pkce_challenge, pkce_verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = oauth
            .authorize_url(CsrfToken::new_random)
            .set_pkce_challenge(pkce_challenge)
            .add_extra_param("resource", resource);
        if !scopes.is_empty() {
            request = request.add_scopes(scopes.iter().cloned().map(Scope::new));
        }
        let (authorization_url, state) = request.url();
        let callback = pending.finish(authorization_url).await?;
        let code = self.check_callback(&callback, state.secret(), server_metadata)?;
        let method = ClientAuth::choose(
            &client,
            self.settings.private_key.is_some(),
            server_metadata,
        );
        let oauth = self.with_client_auth(oauth, &client, method);
        let mut exchange = oauth
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(pkce_verifier)
            .add_extra_param("resource", resource);
        for (name, value) in self.assertion_params(method, &client, server_metadata)? {
            exchange = exchange.add_extra_param(name, value);
        }
        let sender = self.token_sender()?;
        let response = exchange
            .request_async(&|request| sender.clone().send(request))
            .await
            .map_err(|e| self.token_error("token request", e))?;
        Ok(token_set(&response, scopes, None))
    }

    /// Checks the redirect: no `error`, the `state` sent, the issuer
    /// (RFC 9207: a present `iss` must be the issuer, character for
    /// character; an absent one is refused when the server advertises it).
    fn check_callback(
        &self,
        callback: &url::Url,
        state: &str,
        server_metadata: &ServerMetadata,
    ) -> Result<String, AuthError> {
        let rejected = |reason: String| AuthError::Rejected {
            server: self.server.clone(),
            reason,
        };
        let param = |name: &str| {
            callback
                .query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
        };
        if let Some(error) = param("error") {
            let description = param("error_description")
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            return Err(rejected(format!(
                "the authorization server answered {error}{description}"
            )));
        }
        if param("state").as_deref() != Some(state) {
            return Err(rejected("the state does not match the one sent".into()));
        }
        match param("iss") {
            Some(iss) if iss != server_metadata.issuer => {
                return Err(rejected(format!(
                    "the response's issuer {iss:?} is not {:?}",
                    server_metadata.issuer
                )));
            }
            None if server_metadata.authorization_response_iss_parameter_supported
                == Some(true) =>
            {
                return Err(rejected(
                    "the authorization server advertises the iss parameter but the response has none"
                        .into(),
                ));
            }
            _ => {}
        }
        param("code").ok_or_else(|| rejected("the redirect carries no code".into()))
    }

    /// The client credentials grant.
    async fn client_credentials(
        &self,
        server_metadata: &ServerMetadata,
        client: &ClientRegistration,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let token_endpoint =
            self.endpoint(server_metadata.token_endpoint.as_deref(), "token_endpoint")?;
        let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
            .set_token_uri(TokenUrl::from_url(token_endpoint));
        let method =
            ClientAuth::choose(client, self.settings.private_key.is_some(), server_metadata);
        let oauth = self.with_client_auth(oauth, client, method);
        let mut exchange = oauth
            .exchange_client_credentials()
            .add_extra_param("resource", resource);
        if !scopes.is_empty() {
            exchange = exchange.add_scopes(scopes.iter().cloned().map(Scope::new));
        }
        for (name, value) in self.assertion_params(method, client, server_metadata)? {
            exchange = exchange.add_extra_param(name, value);
        }
        let sender = self.token_sender()?;
        let response = exchange
            .request_async(&|request| sender.clone().send(request))
            .await
            .map_err(|e| self.token_error("client credentials", e))?;
        Ok(token_set(&response, scopes, None))
    }

    /// Refreshes the current token.
    async fn refresh(&self, flow: &mut FlowState) -> Result<(), AuthError> {
        let Some(current) = self.current.read().clone() else {
            return Err(AuthError::Required {
                server: self.server.clone(),
            });
        };
        let Some(refresh_token) = current.tokens.refresh_token.clone() else {
            return Err(AuthError::Required {
                server: self.server.clone(),
            });
        };
        // Another process may have refreshed already (and the refresh token
        // rotated): take its tokens rather than spend the old refresh token.
        if let Ok(Some(stored)) = self
            .context
            .store
            .load(&current.entry.issuer, &current.entry.resource)
            && let Some(tokens) = stored.tokens.clone()
            && tokens.access_token != current.tokens.access_token
            && !tokens.expires_within(REFRESH_MARGIN_SECS)
            // A DPoP token is bound to its process's key.
            && !tokens.token_type.eq_ignore_ascii_case("dpop")
        {
            *self.current.write() = Some(Current {
                entry: stored,
                tokens,
            });
            self.generation.fetch_add(1, Ordering::AcqRel);
            return Ok(());
        }
        let server_metadata = match &flow.server_metadata {
            Some(found) if found.issuer == current.entry.issuer => found.clone(),
            _ => {
                let found = metadata::fetch_server_metadata(
                    &self.http,
                    &self.server,
                    &current.entry.issuer,
                )
                .await?;
                flow.server_metadata = Some(found.clone());
                found
            }
        };
        let client = current
            .entry
            .client
            .clone()
            .or_else(|| self.configured_client())
            .ok_or_else(|| AuthError::Required {
                server: self.server.clone(),
            })?;
        let token_endpoint =
            self.endpoint(server_metadata.token_endpoint.as_deref(), "token_endpoint")?;
        let oauth = BasicClient::new(ClientId::new(client.client_id.clone()))
            .set_token_uri(TokenUrl::from_url(token_endpoint));
        let method = ClientAuth::choose(
            &client,
            self.settings.private_key.is_some(),
            &server_metadata,
        );
        let oauth = self.with_client_auth(oauth, &client, method);
        let token = RefreshToken::new(refresh_token.clone());
        let mut exchange = oauth
            .exchange_refresh_token(&token)
            .add_extra_param("resource", current.entry.resource.clone());
        for (name, value) in self.assertion_params(method, &client, &server_metadata)? {
            exchange = exchange.add_extra_param(name, value);
        }
        let sender = self.token_sender()?;
        let response = exchange
            .request_async(&|request| sender.clone().send(request))
            .await
            .map_err(|e| self.token_error("refresh", e))?;
        let tokens = token_set(&response, &current.tokens.scopes, Some(refresh_token));
        self.install(current.entry, tokens)
    }

    /// What sends this client's token requests (owned, for the `oauth2`
    /// crate's request futures): with a DPoP proof when tokens are bound.
    pub(super) fn token_sender(&self) -> Result<TokenSender, AuthError> {
        let key = if self.use_dpop.load(Ordering::Acquire) {
            Some(self.dpop_key()?)
        } else {
            None
        };
        Ok(TokenSender {
            http: self.http.clone(),
            server: self.server.clone(),
            key,
            nonces: Arc::clone(&self.dpop_nonces),
        })
    }

    fn dpop_key(&self) -> Result<Arc<DpopKey>, AuthError> {
        if let Some(key) = self.dpop_key.get() {
            return Ok(Arc::clone(key));
        }
        let key = DpopKey::generate().map_err(|reason| AuthError::Unsupported {
            server: self.server.clone(),
            reason,
        })?;
        Ok(Arc::clone(self.dpop_key.get_or_init(|| Arc::new(key))))
    }

    pub(super) fn endpoint(&self, value: Option<&str>, name: &str) -> Result<url::Url, AuthError> {
        let value = value.ok_or_else(|| AuthError::Discovery {
            server: self.server.clone(),
            reason: format!("the authorization server metadata has no {name}"),
        })?;
        let url = url::Url::parse(value).map_err(|e| AuthError::Discovery {
            server: self.server.clone(),
            reason: format!("the {name} is not a URL: {e}"),
        })?;
        if !metadata::is_secure_endpoint(&url) {
            return Err(AuthError::Discovery {
                server: self.server.clone(),
                reason: format!(
                    "the {name} {} is neither HTTPS nor on this machine; it is not used",
                    super::http::origin_and_path(&url)
                ),
            });
        }
        Ok(url)
    }

    fn with_client_auth<A, B, C, D, E>(
        &self,
        client: BasicClient<A, B, C, D, E>,
        registration: &ClientRegistration,
        method: ClientAuth,
    ) -> BasicClient<A, B, C, D, E>
    where
        A: EndpointState,
        B: EndpointState,
        C: EndpointState,
        D: EndpointState,
        E: EndpointState,
    {
        match (method, &registration.client_secret) {
            (ClientAuth::SecretBasic, Some(secret)) => client
                .set_client_secret(ClientSecret::new(secret.clone()))
                .set_auth_type(AuthType::BasicAuth),
            (ClientAuth::SecretPost, Some(secret)) => client
                .set_client_secret(ClientSecret::new(secret.clone()))
                .set_auth_type(AuthType::RequestBody),
            _ => client.set_auth_type(AuthType::RequestBody),
        }
    }

    /// The `client_assertion` parameters of `private_key_jwt`, if that is the method.
    fn assertion_params(
        &self,
        method: ClientAuth,
        client: &ClientRegistration,
        server_metadata: &ServerMetadata,
    ) -> Result<Vec<(&'static str, String)>, AuthError> {
        if method != ClientAuth::PrivateKeyJwt {
            return Ok(Vec::new());
        }
        let key = self
            .settings
            .private_key
            .as_ref()
            .ok_or_else(|| AuthError::Unsupported {
                server: self.server.clone(),
                reason: "private_key_jwt needs auth.privateKey".into(),
            })?;
        let assertion = client_auth::client_assertion(
            &self.server,
            &client.client_id,
            &server_metadata.issuer,
            key,
            self.settings.signing_algorithm.as_deref(),
        )?;
        Ok(vec![
            ("client_assertion_type", JWT_BEARER_ASSERTION.to_owned()),
            ("client_assertion", assertion),
        ])
    }

    pub(super) fn token_error(
        &self,
        what: &str,
        error: RequestTokenError<AuthError, BasicErrorResponse>,
    ) -> AuthError {
        let reason = match error {
            RequestTokenError::ServerResponse(response) => {
                let description = response
                    .error_description()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default();
                format!("{what}: {}{description}", response.error().as_ref())
            }
            RequestTokenError::Request(inner) => return inner,
            RequestTokenError::Parse(error, _) => {
                format!("{what}: the token response cannot be read: {error}")
            }
            RequestTokenError::Other(reason) => format!("{what}: {reason}"),
        };
        AuthError::Refused {
            server: self.server.clone(),
            reason: self.masker().mask_string(reason),
        }
    }
}

/// The tokens of a token response; scopes default to those requested, a
/// refresh token to the one that was used.
fn token_set(
    response: &BasicTokenResponse,
    requested: &[String],
    previous_refresh: Option<String>,
) -> TokenSet {
    TokenSet {
        access_token: response.access_token().secret().clone(),
        token_type: match response.token_type() {
            oauth2::basic::BasicTokenType::Extension(kind) if kind.eq_ignore_ascii_case("dpop") => {
                "DPoP".into()
            }
            _ => "Bearer".into(),
        },
        refresh_token: response
            .refresh_token()
            .map(|t| t.secret().clone())
            .or(previous_refresh),
        expires_at: response
            .expires_in()
            .map(|d| now_secs().saturating_add(d.as_secs())),
        scopes: response
            .scopes()
            .map(|scopes| scopes.iter().map(|s| s.to_string()).collect())
            .unwrap_or_else(|| requested.to_vec()),
    }
}
