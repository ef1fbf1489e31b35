//! Dispatch: each command loads, asks `mcp-discovery`, prints. No behaviour
//! lives here that a library user would want; the command families live in
//! their own modules (`listing`, `capabilities`, `login`, `registry`,
//! `serve`), and `call`, `ping` and `doctor` here. A command or flag whose
//! feature this build left out is refused here, naming the feature.

use std::process::ExitCode;
use std::time::Instant;

use mcpdisco::config::ServerConfig;
use mcpdisco::doctor::DoctorOptions;
use mcpdisco_client::policy::{RateLimit, RetryPolicy};
use mcpdisco_client::protocol::types::CallToolParams;
use mcpdisco_client::session::{ListKind, RequestOptions, SessionOptions};
use mcpdisco_client::telemetry::{SpanScope, Telemetry};
use mcpdisco_client::transport::trace::{JsonLinesTrace, Tracer};
use serde_json::{Map, Value, json};
use std::sync::Arc;

use crate::capabilities;
#[cfg(feature = "oauth")]
use crate::cli::AuthCommand;
use crate::cli::{Command, GlobalOptions, PinsCommand, SkillCommand};
use crate::closing::PendingCloses;
use crate::context::Context;
#[cfg(feature = "oauth")]
use crate::credentials::stored_context;
use crate::error::UsageError;
use crate::exit;
use crate::listing;
use crate::load::{Loaded, load};
use crate::logging::LogMasker;
use crate::opened::{Opened, open};
use crate::output::print_json;
use crate::render;

/// Runs `command`. The log lines are masked through `log` once the
/// configuration is read; the servers discovery stops are left in
/// `closing`, for the caller to wait for once everything is printed.
pub async fn run(
    global: &GlobalOptions,
    command: &Command,
    log: &LogMasker,
    closing: &PendingCloses,
    telemetry: Option<&Telemetry>,
) -> Result<ExitCode, UsageError> {
    // One trace per run, its root named after the command; `serve` has
    // none: each client request's span is the root of its own (or the
    // child of the client's `traceparent`).
    let root = match command {
        Command::Serve { .. } => SpanScope::none(),
        _ => SpanScope::root(telemetry, command.name()),
    };
    root.run(run_command(global, command, log, closing, telemetry))
        .await
}

async fn run_command(
    global: &GlobalOptions,
    command: &Command,
    log: &LogMasker,
    closing: &PendingCloses,
    telemetry: Option<&Telemetry>,
) -> Result<ExitCode, UsageError> {
    match command {
        Command::Completions { .. } | Command::Manpage => {
            let written = match command {
                Command::Completions { shell } => crate::completions::write_script(*shell),
                _ => crate::completions::write_man_page(),
            };
            return Ok(match written {
                Ok(()) => ExitCode::from(exit::OK),
                Err(error) => {
                    eprintln!("error: cannot write to stdout: {error}");
                    ExitCode::from(exit::USAGE)
                }
            });
        }
        _ => {}
    }
    left_out(global, command)?;
    #[cfg(feature = "registry")]
    if let Command::Registry { command } = command {
        return crate::registry::run(global, command).await;
    }
    let loaded = match command {
        #[cfg(feature = "registry")]
        Command::Discover {
            from_registry: Some(query),
            limit,
            ..
        } => crate::registry::servers_from_registry(global, query, *limit).await?,
        _ => load(global)?,
    };
    let session = session_options(global, &loaded, telemetry)?;
    let context = Context::new(global, loaded, session, log, closing)?;
    let (loaded, session) = (&context.loaded, &context.session);
    match command {
        Command::Servers => Ok(listing::servers(&context)),
        Command::Warm { if_stale } => Ok(listing::warm(&context, *if_stale).await),
        Command::Discover { verify_pins, .. } => listing::discover(&context, *verify_pins).await,
        Command::Export {
            format,
            dir,
            introspect_output,
        } => {
            let report = context.discover(&loaded.servers, true).await;
            let outputs = if *introspect_output {
                capabilities::output_types(&context, &report).await
            } else {
                Default::default()
            };
            capabilities::export(global, loaded, &report, dir, *format, &outputs)
        }
        Command::Pending { dir } => capabilities::pending(global, loaded, dir),
        Command::Approve { server, tools, dir } => {
            // Approval pins what the server offers now: discover it afresh.
            let only: Vec<ServerConfig> = loaded
                .servers
                .iter()
                .filter(|s| &s.name == server)
                .cloned()
                .collect();
            let report = context.discover(&only, true).await;
            capabilities::approve(global, loaded, dir, server, tools, &report).await
        }
        Command::Revoke { server, tools, dir } => {
            capabilities::revoke(global, loaded, dir, server, tools).await
        }
        Command::Pins {
            command: PinsCommand::Diff { server },
        } => {
            let report = context.discover(&loaded.servers, true).await;
            let mut checks = capabilities::verify(global, loaded, &report).await?.servers;
            if let Some(server) = server {
                checks.retain(|checked| &checked.server == server);
            }
            Ok(capabilities::diff(global, &checks))
        }
        Command::Tools => Ok(listing::list(&context, &[ListKind::Tools]).await),
        Command::Resources => Ok(listing::list(
            &context,
            &[ListKind::Resources, ListKind::ResourceTemplates],
        )
        .await),
        Command::Prompts => Ok(listing::list(&context, &[ListKind::Prompts]).await),
        Command::Skills => Ok(listing::list(&context, &[ListKind::Skills]).await),
        Command::Skill {
            command: SkillCommand::Load { server, name },
        } => {
            let server = context.server(server)?;
            Ok(crate::skills::load(&context, server, name).await)
        }
        Command::Call {
            server,
            tool,
            args,
            task,
            detach,
        } => {
            let arguments: Value = serde_json::from_str(args)
                .map_err(|error| UsageError::Arguments(error.to_string()))?;
            let Value::Object(arguments) = arguments else {
                return Err(UsageError::Arguments(format!(
                    "got {}",
                    kind_of(&arguments)
                )));
            };
            let server = context.server(server)?;
            if *task {
                return Ok(crate::task::call(&context, server, tool, arguments, *detach).await);
            }
            Ok(call(&context, server, tool, arguments).await)
        }
        Command::Task { command } => {
            let server = context.server(command.server())?;
            Ok(crate::task::command(&context, server, command).await)
        }
        Command::Ping { server } => {
            let server = context.server(server)?;
            Ok(ping(&context, server).await)
        }
        Command::Serve {
            http,
            http_token,
            auth_jwks,
            auth_issuer,
            auth_audience,
            auth_scopes,
            public_url,
            page_size,
            hide_changed_tools,
            tool_search,
            profile,
            no_reload,
            client_rate_limit,
            session_store,
            max_streams,
            allowed_hosts,
            session_keys,
            session_max_age,
        } => {
            let session_keys = match session_keys
                .as_deref()
                .map(crate::serve::SessionKeyFile::read)
            {
                Some(Ok(file)) => Some(file),
                Some(Err(error)) => {
                    eprintln!("error: {error}");
                    return Ok(ExitCode::from(exit::BAD_SESSION_KEYS));
                }
                None => None,
            };
            // Without `jwt-auth`, `--auth-jwks` was refused by `left_out`.
            #[cfg(not(feature = "jwt-auth"))]
            let _ = (auth_jwks, auth_issuer, auth_audience, auth_scopes);
            let options = crate::serve::ServeOptions {
                http: *http,
                token: http_token.clone(),
                page_size: usize::from(*page_size),
                start_deadline: context.deadline(),
                separator: global.separator.clone(),
                hide_changed_tools: hide_changed_tools
                    .then(|| capabilities::lock_path(global, loaded)),
                tool_search: *tool_search,
                #[cfg(feature = "jwt-auth")]
                jwt: auth_jwks.as_ref().map(|jwks| {
                    crate::serve::JwtOptions::new(
                        jwks.clone(),
                        auth_issuer.clone().unwrap_or_default(),
                        auth_audience.clone().unwrap_or_default(),
                    )
                    .required_scopes(auth_scopes.clone())
                }),
                public_url: public_url.clone(),
                profile: profile.clone(),
                limits: crate::serve::LimitOptions {
                    client_rate_limit: *client_rate_limit,
                    session_store: session_store.clone(),
                    max_streams: max_streams.map(|n| n as usize),
                    allowed_hosts: allowed_hosts.clone(),
                },
                reloading: if *no_reload {
                    None
                } else {
                    Some(crate::serve::reloading(
                        global,
                        loaded,
                        log,
                        session_keys.as_ref(),
                    )?)
                },
                session_keys: session_keys.map(|file| file.ring),
                session_max_age: *session_max_age,
            };
            let mut session = session.clone();
            if global.rate_limit.is_none() {
                // A gateway forwards its clients' calls: they set the pace.
                session.stack.set_rate_limit(None);
            }
            crate::serve::serve(loaded, session, options).await
        }
        #[cfg(feature = "oauth")]
        Command::Login { server, no_browser } => {
            let server = context.server(server)?;
            crate::login::login(global, session, server, *no_browser).await
        }
        #[cfg(feature = "oauth")]
        Command::Logout { server } => {
            let server = context.server(server)?;
            crate::login::logout(global, server)
        }
        #[cfg(feature = "oauth")]
        Command::Auth {
            command: AuthCommand::Status,
        } => crate::login::status(global),
        // Refused by `left_out` above.
        #[cfg(not(feature = "oauth"))]
        Command::Login { .. } | Command::Logout { .. } | Command::Auth { .. } => {
            Err(UsageError::left_out(command.name(), "oauth"))
        }
        Command::Completions { .. } | Command::Manpage | Command::Registry { .. } => {
            Ok(ExitCode::from(exit::OK))
        }
        Command::Doctor { servers } => {
            let mut chosen = Vec::new();
            for name in servers {
                chosen.push(context.server(name)?.clone());
            }
            if chosen.is_empty() {
                chosen = loaded.servers.clone();
            }
            Ok(doctor(&context, &chosen).await)
        }
    }
}

/// Refuses a command or flag whose feature this build left out, naming
/// the feature: `login`, `logout`, `auth` (`oauth`), `registry` and
/// `discover --from-registry` (`registry`), `serve --auth-jwks`
/// (`jwt-auth`), `--otel-record-*` (`otel`), `--cache` (`redis`).
fn left_out(global: &GlobalOptions, command: &Command) -> Result<(), UsageError> {
    // (asked for, what was typed, its feature, whether this build has it)
    let asked: [(bool, &str, &'static str, bool); 8] = [
        (
            matches!(
                command,
                Command::Login { .. } | Command::Logout { .. } | Command::Auth { .. }
            ),
            command.name(),
            "oauth",
            cfg!(feature = "oauth"),
        ),
        (
            matches!(command, Command::Registry { .. }),
            command.name(),
            "registry",
            cfg!(feature = "registry"),
        ),
        (
            matches!(
                command,
                Command::Discover {
                    from_registry: Some(_),
                    ..
                }
            ),
            "discover --from-registry",
            "registry",
            cfg!(feature = "registry"),
        ),
        (
            matches!(
                command,
                Command::Serve {
                    auth_jwks: Some(_),
                    ..
                }
            ),
            "serve --auth-jwks",
            "jwt-auth",
            cfg!(feature = "jwt-auth"),
        ),
        (
            global.otel_record_arguments,
            "--otel-record-arguments",
            "otel",
            cfg!(feature = "otel"),
        ),
        (
            global.otel_record_results,
            "--otel-record-results",
            "otel",
            cfg!(feature = "otel"),
        ),
        (
            global.cache_url.is_some() && !global.no_cache,
            "--cache",
            "redis",
            cfg!(feature = "redis"),
        ),
        (
            matches!(
                command,
                Command::Serve {
                    session_store: Some(_),
                    ..
                }
            ),
            "serve --session-store",
            "redis",
            cfg!(feature = "redis"),
        ),
    ];
    match asked
        .into_iter()
        .find(|(asked, _, _, built)| *asked && !built)
    {
        Some((_, what, feature, _)) => Err(UsageError::left_out(what, feature)),
        None => Ok(()),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The session options every command uses: policies and the trace.
pub(crate) fn session_options(
    global: &GlobalOptions,
    loaded: &Loaded,
    telemetry: Option<&Telemetry>,
) -> Result<SessionOptions, UsageError> {
    let mut options = SessionOptions::default();
    if let Some(telemetry) = telemetry {
        options.stack = options.stack.telemetry(telemetry.clone());
    }
    // The policies are the client's defaults, but for what the flags say.
    options.stack.set_retry(
        (global.retries > 0).then(|| RetryPolicy::default().max_retries(global.retries)),
    );
    options.stack.set_rate_limit(Some(RateLimit::new(
        global
            .rate_limit
            .unwrap_or(RateLimit::default().requests_per_second),
        global.burst,
    )));
    if let Some(path) = &global.trace {
        let sink = JsonLinesTrace::create(path).map_err(|source| UsageError::Trace {
            path: path.clone(),
            source,
        })?;
        options.tracer = Some(Tracer::new(Arc::new(sink), loaded.masker()));
    }
    Ok(options)
}

async fn call(
    context: &Context<'_>,
    server: &ServerConfig,
    tool: &str,
    arguments: Map<String, Value>,
) -> ExitCode {
    let global = context.global;
    let Opened { session, span, .. } = match open(context, server).await {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let result = span
        .run(session.call_tool(
            CallToolParams::new(tool, Some(arguments)),
            RequestOptions::default(),
        ))
        .await;
    let _ = session.close().await;
    drop(span);
    match result {
        Ok(result) => {
            if global.json {
                print_json(&result);
            } else {
                print!("{}", render::call_result(&result));
            }
            if result.is_error() {
                if !global.json {
                    eprintln!(
                        "error: tool '{tool}' on server '{}' reported an error",
                        server.name
                    );
                }
                ExitCode::from(exit::TOOL_ERROR)
            } else {
                ExitCode::from(exit::OK)
            }
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(exit::SERVER_FAILED)
        }
    }
}

async fn ping(context: &Context<'_>, server: &ServerConfig) -> ExitCode {
    let global = context.global;
    let started = Instant::now();
    let Opened { session, span, .. } = match open(context, server).await {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let connected = started.elapsed();
    let pinged = Instant::now();
    let result = span.run(session.ping()).await;
    let round_trip = pinged.elapsed();
    let (era, version) = (session.era(), session.protocol_version());
    let _ = session.close().await;
    match result {
        Ok(()) => {
            if global.json {
                print_json(&json!({
                    "server": server.name,
                    "ok": true,
                    "era": era,
                    "protocolVersion": version.as_str(),
                    "connectMs": connected.as_millis() as u64,
                    "roundTripMs": round_trip.as_secs_f64() * 1000.0,
                }));
            } else {
                println!(
                    "server '{}' answered in {:.1} ms ({era} {}, connected in {} ms)",
                    server.name,
                    round_trip.as_secs_f64() * 1000.0,
                    version.as_str(),
                    connected.as_millis()
                );
            }
            ExitCode::from(exit::OK)
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(exit::SERVER_FAILED)
        }
    }
}

async fn doctor(context: &Context<'_>, servers: &[ServerConfig]) -> ExitCode {
    let (global, style) = (context.global, context.style);
    let options = DoctorOptions::default()
        .session(context.session.clone())
        .deadline(context.deadline());
    #[cfg(feature = "oauth")]
    let options = options.auth(stored_context());
    let diagnoses = futures::future::join_all(servers.iter().map(|server| {
        let options = options.clone();
        async move {
            let deadline = server.timeout.unwrap_or(options.deadline);
            let options = options.deadline(deadline);
            mcpdisco::doctor::diagnose(server, &options).await
        }
    }))
    .await;
    if global.json {
        print_json(&json!({"servers": diagnoses}));
    } else {
        print!("{}", render::diagnoses(&diagnoses, style));
    }
    if diagnoses.iter().all(|diagnosis| diagnosis.passed()) {
        ExitCode::from(exit::OK)
    } else {
        ExitCode::from(exit::SERVER_FAILED)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::Cli;

    #[test]
    fn a_command_or_flag_is_refused_exactly_when_its_feature_was_left_out() {
        let serve_jwt = [
            "mcp-cli",
            "serve",
            "--http",
            "127.0.0.1:1",
            "--auth-jwks",
            "https://idp.example/jwks",
            "--auth-issuer",
            "i",
            "--auth-audience",
            "a",
        ];
        let cases: [(&[&str], &str, &str, bool); 9] = [
            (
                &["mcp-cli", "login", "docs"],
                "login",
                "oauth",
                cfg!(feature = "oauth"),
            ),
            (
                &["mcp-cli", "auth", "status"],
                "auth",
                "oauth",
                cfg!(feature = "oauth"),
            ),
            (
                &["mcp-cli", "registry", "search", "time"],
                "registry",
                "registry",
                cfg!(feature = "registry"),
            ),
            (
                &["mcp-cli", "discover", "--from-registry", "time"],
                "discover --from-registry",
                "registry",
                cfg!(feature = "registry"),
            ),
            (
                &serve_jwt,
                "serve --auth-jwks",
                "jwt-auth",
                cfg!(feature = "jwt-auth"),
            ),
            (
                &["mcp-cli", "--otel-record-results", "tools"],
                "--otel-record-results",
                "otel",
                cfg!(feature = "otel"),
            ),
            (
                &["mcp-cli", "--cache", "redis://127.0.0.1:6379/0", "tools"],
                "--cache",
                "redis",
                cfg!(feature = "redis"),
            ),
            // `--no-cache` turns the shared cache off: nothing to refuse.
            (
                &[
                    "mcp-cli",
                    "--cache",
                    "redis://127.0.0.1:6379/0",
                    "--no-cache",
                    "tools",
                ],
                "",
                "",
                true,
            ),
            (&["mcp-cli", "tools"], "", "", true),
        ];
        for (args, what, feature, built) in cases {
            let cli = Cli::try_parse_from(args).unwrap();
            let refused = left_out(&cli.global, &cli.command);
            match (built, refused) {
                (true, Ok(())) => {}
                (false, Err(error)) => assert_eq!(
                    error.to_string(),
                    format!(
                        "{what} needs feature `{feature}` of mcpdisco-cli, which this build left out"
                    )
                ),
                (built, refused) => panic!("{args:?}: built {built}, refused {refused:?}"),
            }
        }
    }
}
