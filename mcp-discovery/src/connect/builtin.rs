//! The built-in connectors: `stdio` (a child process; feature `stdio`) and
//! `http` (Streamable HTTP, legacy HTTP+SSE, or detect; feature `http`), and
//! what stands in for one whose feature was left out ([`LeftOut`]).

#[cfg(any(feature = "stdio", feature = "http"))]
use std::sync::Arc;

use async_trait::async_trait;
#[cfg(feature = "stdio")]
use mcpdisco_transport::codec::ndjson::SkipLog;
#[cfg(feature = "oauth")]
use mcpdisco_transport::http::RequestCredentials;
#[cfg(feature = "http")]
use mcpdisco_transport::http::{HttpClient, HttpConfig, HttpTransport};
#[cfg(all(feature = "http", not(feature = "oauth")))]
use mcpdisco_transport::secret::Masker;

#[cfg(feature = "oauth")]
use mcpdisco_client::auth::{AuthContext, AuthLayer, MemoryTokenStore, OAuthClient};
#[cfg(feature = "stdio")]
use mcpdisco_transport::stdio::{StdioConfig, StdioTransport};

use super::connection::Connection;
#[cfg(feature = "stdio")]
use super::connection::ConnectionDetails;
use super::connector::{ConnectContext, Connector};
#[cfg(any(feature = "stdio", feature = "http"))]
use crate::config::Launch;
use crate::config::ServerConfig;
use mcpdisco_client::session::{ErrorKind, SessionError};

/// Starts [`Launch::Stdio`] servers as child processes.
#[cfg(feature = "stdio")]
#[derive(Debug, Clone, Copy, Default)]
pub struct StdioConnector;

#[cfg(feature = "stdio")]
impl ConnectionDetails for StdioTransport {
    fn stderr_tail(&self) -> String {
        StdioTransport::stderr_tail(self)
    }

    fn skipped_lines(&self) -> Option<SkipLog> {
        Some(self.skipped())
    }
}

#[cfg(any(feature = "stdio", feature = "http"))]
fn wrong_launch(server: &ServerConfig, connector: &str) -> SessionError {
    SessionError::new(
        &server.name,
        "start",
        ErrorKind::Unsupported {
            reason: format!(
                "the {connector} connector cannot start a \"{}\" server",
                server.launch.transport_type()
            ),
        },
    )
}

#[cfg(feature = "stdio")]
#[async_trait]
impl Connector for StdioConnector {
    async fn open(
        &self,
        server: &ServerConfig,
        context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let Launch::Stdio {
            command,
            args,
            env,
            cwd,
            env_policy,
        } = &server.launch
        else {
            return Err(wrong_launch(server, "stdio"));
        };
        let mut config =
            StdioConfig::new(server.name.clone(), command.clone()).args(args.iter().cloned());
        config.env = env.clone();
        config.env_policy = env_policy.clone();
        config.masker = context.masker.union(&server.masker());
        config.cwd = Some(cwd.clone());
        config.shutdown_grace = context.graces.after_eof;
        config.term_grace = context.graces.after_term;
        let transport = Arc::new(
            StdioTransport::spawn(config)
                .map_err(|error| SessionError::from_transport(&server.name, "start", error))?,
        );
        Ok(Connection::with_details(transport.clone(), transport))
    }
}

/// Connects [`Launch::Http`] servers over the shared (or given) HTTP client.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpConnector;

#[cfg(feature = "http")]
#[async_trait]
impl Connector for HttpConnector {
    async fn open(
        &self,
        server: &ServerConfig,
        context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let Launch::Http { url, headers, kind } = &server.launch else {
            return Err(wrong_launch(server, "http"));
        };
        let mut config = HttpConfig::new(server.name.clone(), url.clone());
        config.headers = headers
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        config.masker = context.masker.union(&server.masker());
        config.tracer = context
            .tracer
            .as_ref()
            .map(|tracer| tracer.with_masker(&config.masker));
        let client = match &context.http {
            Some(client) => client.clone(),
            None => HttpClient::shared()
                .map_err(|error| SessionError::from_transport(&server.name, "connect", error))?,
        };
        #[cfg(feature = "oauth")]
        let oauth = authorization(server, context, &config)?;
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &oauth {
            config.credentials = Some(Arc::clone(oauth) as Arc<dyn RequestCredentials>);
        }
        #[cfg(not(feature = "oauth"))]
        let wants_oauth = without_oauth(server, &config)?;
        let transport = HttpTransport::connect(config, &client, *kind)
            .await
            .map_err(|error| SessionError::from_send(&server.name, "connect", error))?;
        let connection = Connection::new(Arc::new(transport));
        #[cfg(feature = "oauth")]
        let connection = match oauth {
            Some(oauth) => {
                let masker = oauth.masker();
                connection.with_layer(AuthLayer::new(oauth), masker)
            }
            None => connection,
        };
        #[cfg(not(feature = "oauth"))]
        let connection = if wants_oauth {
            connection.with_layer(
                mcpdisco_client::auth::missing_oauth_layer(),
                Masker::default(),
            )
        } else {
            connection
        };
        Ok(connection)
    }
}

/// Whether the server's config sends an `Authorization` header of its own
/// (then no OAuth is tried).
#[cfg(feature = "http")]
fn sends_own_authorization(config: &HttpConfig) -> bool {
    config
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
        || config.bearer_token.is_some()
}

/// In a build without the `oauth` feature: `"auth"` settings are an error
/// naming the missing feature; otherwise whether a refusal should say so
/// (the server sends no `Authorization` of its own).
#[cfg(all(feature = "http", not(feature = "oauth")))]
fn without_oauth(server: &ServerConfig, config: &HttpConfig) -> Result<bool, SessionError> {
    if let Some(settings) = &server.auth {
        settings
            .check_features(&server.name)
            .map_err(|error| SessionError::new(&server.name, "connect", ErrorKind::Auth(error)))?;
    }
    Ok(!sends_own_authorization(config))
}

/// The server's authorization: an [`OAuthClient`] with the context's store
/// and provider (or, without a context, a store for this process and no
/// user: a server that needs one fails with `auth_required`). None for a
/// server whose config sends its own `Authorization` header.
#[cfg(feature = "oauth")]
fn authorization(
    server: &ServerConfig,
    context: &ConnectContext,
    config: &HttpConfig,
) -> Result<Option<Arc<OAuthClient>>, SessionError> {
    if sends_own_authorization(config) && server.auth.is_none() {
        return Ok(None);
    }
    let Ok(url) = url::Url::parse(config.url.expose_secret()) else {
        // The transport reports the invalid URL.
        return Ok(None);
    };
    let auth = context
        .auth
        .clone()
        .unwrap_or_else(|| AuthContext::stored(Arc::new(MemoryTokenStore::new())));
    OAuthClient::new(
        &server.name,
        &url,
        server.auth.clone().unwrap_or_default(),
        auth,
    )
    .map(Some)
    .map_err(|error| {
        SessionError::new(
            &server.name,
            "connect",
            mcpdisco_client::session::ErrorKind::Auth(error),
        )
    })
}

/// Stands in for a built-in connector whose feature this build left out
/// (`stdio`, `http`): a server of its type fails to start with an error
/// naming the feature.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(all(feature = "stdio", feature = "http"), allow(dead_code))]
pub(super) struct LeftOut(pub(super) &'static str);

#[async_trait]
impl Connector for LeftOut {
    async fn open(
        &self,
        server: &ServerConfig,
        _context: &ConnectContext,
    ) -> Result<Connection, SessionError> {
        let feature = self.0;
        Err(SessionError::new(
            &server.name,
            "start",
            ErrorKind::Unsupported {
                reason: format!("{feature} servers need feature `{feature}` of mcpdisco"),
            },
        ))
    }
}

#[cfg(test)]
mod left_out_tests {
    use super::*;

    #[tokio::test]
    async fn a_type_whose_feature_was_left_out_fails_naming_the_server_and_feature() {
        let server = ServerConfig::http("docs", "http://127.0.0.1:9/mcp");
        let error = match LeftOut("http")
            .open(&server, &ConnectContext::default())
            .await
        {
            Ok(_) => panic!("a left-out connector opens nothing"),
            Err(error) => error,
        };
        let text = error.to_string();
        assert!(text.contains("docs"), "{text}");
        assert!(text.contains("feature `http` of mcpdisco"), "{text}");
    }
}

#[cfg(all(test, feature = "http", not(feature = "oauth")))]
mod tests {
    use mcpdisco_client::auth::AuthSettings;

    use super::*;

    #[tokio::test]
    async fn without_oauth_auth_settings_fail_naming_the_server_and_feature() {
        let mut server = ServerConfig::http("docs", "http://127.0.0.1:9/mcp");
        server.auth = Some(AuthSettings::default());
        let error = match HttpConnector
            .open(&server, &ConnectContext::default())
            .await
        {
            Ok(_) => panic!("a build without oauth cannot honour \"auth\""),
            Err(error) => error,
        };
        let ErrorKind::Auth(auth) = error.kind() else {
            panic!("not an authorization error: {error}");
        };
        let text = auth.to_string();
        assert!(text.contains("server 'docs'"), "{text}");
        assert!(text.contains("`oauth`"), "{text}");
    }

    #[test]
    fn without_oauth_a_refusal_is_explained_unless_the_config_authorizes() {
        let server = ServerConfig::http("docs", "http://127.0.0.1:9/mcp");
        let mut config = HttpConfig::new("docs", "http://127.0.0.1:9/mcp");
        assert!(without_oauth(&server, &config).unwrap());
        config.bearer_token = Some("token".into());
        assert!(!without_oauth(&server, &config).unwrap());
    }
}
