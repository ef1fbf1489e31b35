//! Who may use the guarded endpoints: the static token, or a JWT.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mcpdisco_transport::secret::{ExposeSecret, SecretString};
#[cfg(feature = "jwt-auth")]
use mcpdisco_transport::server::http::Subject;

/// What a request to `/mcp`, `/readyz` or `/metrics` must carry.
#[derive(Clone, Default)]
pub enum Access {
    /// Nothing (a loopback address).
    #[default]
    Open,
    /// `Authorization: Bearer <this token>` (`--http-token`).
    Token(SecretString),
    /// A bearer JWT the resource server accepts (feature `jwt-auth`).
    #[cfg(feature = "jwt-auth")]
    Jwt(Arc<crate::resource_server::ResourceServer>),
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Open => f.write_str("Open"),
            Access::Token(_) => f.write_str("Token(..)"),
            #[cfg(feature = "jwt-auth")]
            Access::Jwt(server) => f.debug_tuple("Jwt").field(server).finish(),
        }
    }
}

impl Access {
    /// Whether JWTs are asked for.
    pub fn is_jwt(&self) -> bool {
        match self {
            Access::Open | Access::Token(_) => false,
            #[cfg(feature = "jwt-auth")]
            Access::Jwt(_) => true,
        }
    }
}

/// The access rule and what a challenge needs to name the metadata.
pub(super) struct Guard {
    pub(super) access: Access,
    /// Only challenges and the metadata (feature `jwt-auth`) name the URL.
    #[cfg_attr(not(feature = "jwt-auth"), allow(dead_code))]
    pub(super) public_url: Option<String>,
}

impl Guard {
    /// The gateway's base URL as a client of this request sees it.
    #[cfg_attr(not(feature = "jwt-auth"), allow(dead_code))]
    pub(super) fn base_url(&self, headers: &HeaderMap) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .filter(|host| {
                host.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
            })
            .unwrap_or("localhost");
        format!("http://{host}")
    }
}

/// The bearer token of a request, if it sent one.
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// `/readyz` and `/metrics`: whatever [`Access`] asks.
pub(super) async fn require_access(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let token_refused = match &guard.access {
        Access::Token(token) => {
            let given = bearer(request.headers()).unwrap_or_default();
            !constant_time_eq(given.as_bytes(), token.expose_secret().as_bytes())
        }
        _ => false,
    };
    if token_refused {
        let mut response = (StatusCode::UNAUTHORIZED, "a bearer token is required").into_response();
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    if guard.access.is_jwt() {
        return require_jwt(State(guard), request, next).await;
    }
    next.run(request).await
}

/// `/mcp` with JWT auth: a token the resource server accepts.
pub(super) async fn require_jwt(
    State(guard): State<Arc<Guard>>,
    #[cfg_attr(not(feature = "jwt-auth"), allow(unused_mut))] mut request: Request,
    next: Next,
) -> Response {
    #[cfg(feature = "jwt-auth")]
    if let Access::Jwt(server) = &guard.access {
        // Owned: the request (not `Sync`) is not borrowed across the wait.
        let token = bearer(request.headers()).map(str::to_owned);
        let verdict = server.authorize(token.as_deref(), &[]).await;
        return match verdict {
            Ok(claims) => {
                with_subject(&mut request, &claims, token.as_deref());
                next.run(request).await
            }
            Err(challenge) => refusal(&guard, request.headers(), &challenge),
        };
    }
    let _ = guard;
    next.run(request).await
}

/// `/profiles/<name>/mcp`: whatever [`Access`] asks, before the profile is
/// looked up (an unknown name is not told apart from a refused one), and
/// with JWTs the scopes the profile requires (`requiredScopes`) too.
pub(super) async fn require_profile_access(
    State((guard, gateway)): State<(Arc<Guard>, crate::serve::Gateway)>,
    #[cfg_attr(not(feature = "jwt-auth"), allow(unused_mut))] mut request: Request,
    next: Next,
) -> Response {
    #[cfg(feature = "jwt-auth")]
    if let Access::Jwt(server) = &guard.access {
        let required = crate::serve::http_views::profile_of(request.uri().path())
            .and_then(|name| {
                gateway
                    .profiles()
                    .get(name)
                    .map(|profile| profile.required_scopes.clone())
            })
            .unwrap_or_default();
        let token = bearer(request.headers()).map(str::to_owned);
        let verdict = server.authorize(token.as_deref(), &required).await;
        return match verdict {
            Ok(claims) => {
                with_subject(&mut request, &claims, token.as_deref());
                next.run(request).await
            }
            Err(challenge) => refusal(&guard, request.headers(), &challenge),
        };
    }
    let _ = &gateway;
    require_access(State(guard), request, next).await
}

/// Marks a request with its verified JWT's subject: the client rate limit
/// counts it, and the session ids it opens are bound to it (refused to
/// another subject).
#[cfg(feature = "jwt-auth")]
fn with_subject(
    request: &mut Request,
    claims: &crate::resource_server::TokenClaims,
    token: Option<&str>,
) {
    let sub = claims.sub.as_deref();
    let limited = crate::limits::jwt_rate_subject(sub, token.unwrap_or_default());
    request
        .extensions_mut()
        .insert(super::limit_checks::RateSubject(limited));
    request.extensions_mut().insert(Subject::jwt(sub));
}

/// The 401 or 403 of a challenge, pointing at the metadata.
#[cfg(feature = "jwt-auth")]
fn refusal(
    guard: &Guard,
    headers: &HeaderMap,
    challenge: &crate::resource_server::Challenge,
) -> Response {
    let metadata = format!(
        "{}{}",
        guard.base_url(headers),
        crate::resource_server::METADATA_PATH
    );
    let status = StatusCode::from_u16(challenge.status()).unwrap_or(StatusCode::UNAUTHORIZED);
    let mut response = (status, challenge.message()).into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge.header(&metadata)) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_token_is_read_whatever_the_scheme_s_case() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }

    /// The session's and the rate limit's subjects of a request verified
    /// with a JWT naming `sub`, sent as `token`.
    #[cfg(feature = "jwt-auth")]
    fn subjects_of(sub: Option<&str>, token: &str) -> (Option<Subject>, Option<Subject>) {
        use super::super::limit_checks::RateSubject;
        let claims = crate::resource_server::TokenClaims {
            sub: sub.map(str::to_owned),
            scopes: Default::default(),
        };
        let mut request = Request::new(axum::body::Body::empty());
        with_subject(&mut request, &claims, Some(token));
        let session = request.extensions().get::<Subject>().copied();
        let rate = request
            .extensions()
            .get::<RateSubject>()
            .map(|RateSubject(subject)| *subject);
        (session, rate)
    }

    #[cfg(feature = "jwt-auth")]
    #[test]
    fn a_verified_request_carries_its_jwt_subject_for_its_sessions_and_its_rate() {
        let (session, rate) = subjects_of(Some("alice"), "token-of-alice");
        assert_eq!(session, Some(Subject::jwt(Some("alice"))));
        assert_ne!(session, Some(Subject::jwt(Some("bob"))));
        assert_eq!(rate, Some(Subject::jwt(Some("alice"))));
        // A token without `sub`: its sessions belong to any such token,
        // its rate counts against the token alone.
        let (session, rate) = subjects_of(None, "token-one");
        assert_eq!(session, Some(Subject::jwt(None)));
        assert_eq!(rate, Some(Subject::token("token-one")));
        assert_ne!(subjects_of(None, "token-two").1, rate);
    }

    #[test]
    fn the_base_url_is_the_public_one_or_the_host_s() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        let guard = Guard {
            access: Access::Open,
            public_url: None,
        };
        assert_eq!(guard.base_url(&headers), "http://127.0.0.1:8080");
        headers.insert(header::HOST, HeaderValue::from_static("evil\"host"));
        assert_eq!(guard.base_url(&headers), "http://localhost");
        let public = Guard {
            access: Access::Open,
            public_url: Some("https://mcp.example.test".into()),
        };
        assert_eq!(public.base_url(&headers), "https://mcp.example.test");
    }
}
