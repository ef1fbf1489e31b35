//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use clap_complete::engine::ArgValueCompleter;
use mcpdisco_client::policy::{RateLimit, RetryPolicy};
use mcpdisco_gateway::serve::GatewayOptions;

/// See what every MCP server in your configuration offers: tools, resources,
/// resource templates and prompts, discovered in parallel and cached.
#[derive(Debug, Parser)]
#[command(name = "mcp-cli", version, about, long_about = None)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: GlobalOptions,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct GlobalOptions {
    /// A config file (repeatable), in any host's format. Without --config,
    /// --dir or --all-hosts: the first found of ./mcp_config.json,
    /// ./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json,
    /// ~/.cursor/mcp.json, Claude Desktop's config, ~/.claude.json, VS Code's
    /// user mcp.json and settings.json, Windsurf, Zed, Codex CLI, Gemini CLI
    /// and Goose configs.
    #[arg(long = "config", short = 'c', value_name = "FILE", global = true)]
    pub configs: Vec<PathBuf>,
    /// A folder of server definitions (repeatable): every *.json in it,
    /// recursively; a file holds one server (named after the file) or a
    /// whole config.
    #[arg(long = "dir", value_name = "PATH", global = true)]
    pub dirs: Vec<PathBuf>,
    /// Every host's config found on this machine, merged: the same server
    /// counts once, a different one under a taken name gets its host's prefix.
    #[arg(long, global = true)]
    pub all_hosts: bool,
    /// Only this server (repeatable).
    #[arg(long = "server", short = 's', value_name = "NAME", global = true)]
    pub servers: Vec<String>,
    /// The deadline of each server, in seconds (a server's own `timeout` wins).
    #[arg(long, value_name = "SECS", global = true, value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Neither read nor write the cache.
    #[arg(long, global = true, conflicts_with = "refresh")]
    pub no_cache: bool,
    /// Ask every server again and update the cache.
    #[arg(long, global = true)]
    pub refresh: bool,
    /// A server whose discovery fails is reported failed, never with its last
    /// good cached catalog marked stale (which is the default, for up to its
    /// `staleMaxAgeMs`, the cache's `DEFAULT_STALE_MAX_AGE` unless set). The
    /// cache keeps that catalog.
    #[arg(long, global = true, help = no_stale_help())]
    pub no_stale: bool,
    /// Where the cache lives.
    #[arg(
        long,
        value_name = "DIR",
        env = crate::environment::CACHE_DIR,
        global = true
    )]
    pub cache_dir: Option<PathBuf>,
    /// A shared cache in front of the files, for many hosts to share one
    /// catalog: redis://[:PASSWORD@]HOST:PORT/DB. When it cannot be reached,
    /// the file cache is used and a warning says so.
    #[arg(
        long = "cache",
        value_name = "URL",
        env = "MCP_DISCOVERY_CACHE_URL",
        hide_env_values = true,
        global = true
    )]
    pub cache_url: Option<String>,
    /// The MCP Registry to use (default: the official one).
    #[arg(long, value_name = "URL", env = "MCP_REGISTRY_URL", global = true)]
    pub registry: Option<String>,
    /// The prefix of the shared cache's keys.
    #[arg(
        long,
        value_name = "TEXT",
        env = "MCP_DISCOVERY_CACHE_PREFIX",
        default_value = mcpdisco::cache::DEFAULT_PREFIX,
        global = true
    )]
    pub cache_prefix: String,
    /// How many servers start at once (measured: see the README's table).
    #[arg(long, value_name = "N", default_value_t = default_concurrency(), global = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,
    /// Between server and item in namespaced names.
    #[arg(long, value_name = "TEXT", default_value = mcpdisco::catalog::DEFAULT_SEPARATOR, global = true)]
    pub separator: String,
    /// Let every stdio server see all of our environment variables (by
    /// default a server sees only a safe list plus its own `env`).
    #[arg(long, global = true)]
    pub inherit_env: bool,
    /// Write every JSON-RPC message in and out (and HTTP events) to FILE as
    /// JSON lines, with timestamps, sizes and timings; secrets masked.
    #[arg(long, value_name = "FILE", global = true)]
    pub trace: Option<PathBuf>,
    /// With OpenTelemetry export on (OTEL_EXPORTER_OTLP_ENDPOINT): record
    /// each tool call's arguments on its span (gen_ai.tool.call.arguments),
    /// secrets masked.
    #[arg(long, global = true)]
    pub otel_record_arguments: bool,
    /// With OpenTelemetry export on: record each tool call's result on its
    /// span (gen_ai.tool.call.result), secrets masked.
    #[arg(long, global = true)]
    pub otel_record_results: bool,
    /// How many times a failed request is sent again when that is safe (0: never).
    #[arg(long, value_name = "N", default_value_t = RetryPolicy::default().max_retries, global = true)]
    pub retries: usize,
    /// Operations per second to each server (a server's own `rateLimit`
    /// wins): a whole discovery, a `tools/call`, a `resources/read`, a
    /// `prompts/get`; the pages of a listing never wait. Default: the
    /// client's (`RateLimit::default()`) for the commands that ask servers
    /// themselves; none for `serve`, whose clients set the pace.
    #[arg(long, value_name = "RPS", global = true, value_parser = parse_rate, help = rate_limit_help())]
    pub rate_limit: Option<f64>,
    /// How many operations may go to a server at once before the rate limit applies.
    #[arg(long, value_name = "N", default_value_t = RateLimit::default().burst, global = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub burst: u32,
    /// The pins of approved tools (default: mcp-lock.json beside the first config).
    #[arg(long, value_name = "FILE", global = true)]
    pub lock: Option<PathBuf>,
    /// One JSON document on stdout instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
    /// More logging on stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(long, short = 'v', action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Configured servers: where from, enabled or disabled, last known status.
    Servers,
    /// Everything every server offers, per server. With pins (approved
    /// tools), each item's pin status too.
    Discover {
        /// Exit 3 when an approved item changed or vanished since approval.
        #[arg(long)]
        verify_pins: bool,
        /// Instead of the configured servers: the MCP Registry's servers
        /// matching QUERY, resolved and discovered; no config is written.
        #[arg(long, value_name = "QUERY", conflicts_with = "verify_pins")]
        from_registry: Option<String>,
        /// With --from-registry: at most N servers.
        #[arg(
            long,
            value_name = "N",
            default_value_t = 10,
            requires = "from_registry"
        )]
        limit: usize,
    },
    /// Refresh the cache of every enabled server (for a host's start-up or
    /// cron) and print what was done: succeeded, failed, items cached.
    Warm {
        /// Only servers whose cache entry is expired or missing.
        #[arg(long)]
        if_stale: bool,
    },
    /// Write a capability manifest per tool to DIR/pending/<server>/ for approval.
    Export {
        /// The form of the manifests.
        #[arg(long, value_enum, default_value_t = ExportFormat::Both)]
        format: ExportFormat,
        /// The capabilities folder.
        #[arg(
            long = "capabilities",
            value_name = "DIR",
            default_value = "capabilities/servers"
        )]
        dir: PathBuf,
        /// Learn the output type of read-only tools without an outputSchema
        /// by calling each once with the smallest valid input.
        #[arg(long)]
        introspect_output: bool,
    },
    /// The manifests awaiting approval.
    Pending {
        /// The capabilities folder.
        #[arg(
            long = "capabilities",
            value_name = "DIR",
            default_value = "capabilities/servers"
        )]
        dir: PathBuf,
    },
    /// Approve a server's manifests (all, or the tools named) and pin them.
    Approve {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// Its tools (all pending ones when none is named).
        tools: Vec<String>,
        /// The capabilities folder.
        #[arg(
            long = "capabilities",
            value_name = "DIR",
            default_value = "capabilities/servers"
        )]
        dir: PathBuf,
    },
    /// Take an approval back (all, or the tools named) and unpin them.
    Revoke {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// Its tools (all approved ones when none is named).
        tools: Vec<String>,
        /// The capabilities folder.
        #[arg(
            long = "capabilities",
            value_name = "DIR",
            default_value = "capabilities/servers"
        )]
        dir: PathBuf,
    },
    /// Pinned items: what changed since approval.
    Pins {
        /// What to show.
        #[command(subcommand)]
        command: PinsCommand,
    },
    /// Every tool of every server, with a compact signature.
    Tools,
    /// Every resource and resource template of every server.
    Resources,
    /// Every prompt of every server.
    Prompts,
    /// Every skill of every server (SEP-2640): its URI, description and how
    /// many files it has. No skill file is read.
    Skills,
    /// Load a skill, every file verified against its entry.
    Skill {
        #[command(subcommand)]
        command: SkillCommand,
    },
    /// Call a tool. Exits 5 when the tool reports an error (`isError`).
    Call {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// The tool, by its own name on that server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::tool_names))]
        tool: String,
        /// The arguments, a JSON object.
        #[arg(long, value_name = "JSON", default_value = "{}")]
        args: String,
        /// Ask for a task (extension io.modelcontextprotocol/tasks) where the
        /// server offers them, and follow it to its end; its id is said once
        /// on stderr (resume with `task get SERVER ID --wait`), and on a
        /// terminal its status and the time elapsed show there. A tool that
        /// only runs as a task is called as one without it.
        #[arg(long)]
        task: bool,
        /// With --task: print the task's id and exit, leaving it running
        /// (`mcp-cli task get|cancel SERVER ID` later).
        #[arg(long, requires = "task")]
        detach: bool,
    },
    /// A task of an earlier `call --task`: its status and result, or cancel it.
    Task {
        /// What to do.
        #[command(subcommand)]
        command: TaskCommand,
    },
    /// Check that a server answers.
    Ping {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
    },
    /// Serve every enabled server as one MCP server (a gateway): over stdio,
    /// or over Streamable HTTP at http://ADDR/mcp with --http. Tools and
    /// prompts are named <server>__<name>, as `mcp-cli tools` shows them
    /// (a server with "namespace": false keeps its own names; an item whose
    /// name another server holds is then left out, with an error naming both).
    /// Each profile of the config ("profiles": {NAME: {"servers": [...],
    /// "tools": {"allow": [globs], "deny": [globs]}, "toolSearch": true}})
    /// is served at http://ADDR/profiles/NAME/mcp, or over stdio with
    /// --profile NAME. The config is read again when one of its files or
    /// --dir folders changes, and on SIGHUP: new servers start, removed ones
    /// stop, changed ones restart, the others keep running; clients stay
    /// connected and are told which lists changed. A config that does not
    /// read changes nothing (a warning names the file). Stops on stdin's end
    /// (stdio), SIGTERM or Ctrl-C, and stops every server.
    Serve {
        /// Serve Streamable HTTP on this address (such as 127.0.0.1:8080)
        /// instead of stdio. A non-loopback address needs --http-token or
        /// --auth-jwks. Beside /mcp: GET /healthz (200 while serving, no
        /// auth), GET /readyz (200 when every enabled server is ready, else
        /// 503; {"servers": {NAME: STATE}}) and GET /metrics (Prometheus
        /// text); these two need the token or a JWT when auth is on.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// The bearer token HTTP clients must send (`Authorization: Bearer TOKEN`).
        #[arg(
            long,
            value_name = "TOKEN",
            env = "MCP_GATEWAY_TOKEN",
            hide_env_values = true,
            requires = "http",
            conflicts_with = "auth_jwks"
        )]
        http_token: Option<String>,
        /// Take bearer JWTs from an identity provider: verify them against
        /// the key set (JWKS) at this URL (RS256, ES256; refetched for an
        /// unknown key id, at most once a minute). Needs --auth-issuer and
        /// --auth-audience; the gateway then serves RFC 9728 metadata at
        /// /.well-known/oauth-protected-resource naming the issuer.
        #[arg(
            long,
            value_name = "URL",
            requires_all = ["http", "auth_issuer", "auth_audience"]
        )]
        auth_jwks: Option<String>,
        /// The issuer (`iss`) every token must name.
        #[arg(long, value_name = "ISS", requires = "auth_jwks")]
        auth_issuer: Option<String>,
        /// The audience (`aud`) every token must name.
        #[arg(long, value_name = "AUD", requires = "auth_jwks")]
        auth_audience: Option<String>,
        /// A scope every token must grant (repeatable); a token without it
        /// gets 403 insufficient_scope.
        #[arg(long = "auth-scope", value_name = "SCOPE", requires = "auth_jwks")]
        auth_scopes: Vec<String>,
        /// The gateway's URL as clients reach it (such as
        /// https://mcp.example.com behind a proxy): the base of the metadata
        /// URL in challenges. By default http:// and the request's Host.
        #[arg(long, value_name = "URL", requires = "http")]
        public_url: Option<String>,
        /// Items per page of every list.
        #[arg(long, value_name = "N", default_value_t = default_page_size(), value_parser = clap::value_parser!(u16).range(1..))]
        page_size: u16,
        /// On servers with approved tools, hide the tools that changed since
        /// approval or were never approved (their pins in the lock file
        /// differ, or there is none) until they are approved.
        #[arg(long)]
        hide_changed_tools: bool,
        /// List two tools instead of every server's: `search_tools`
        /// ({query, limit?}: the best matching tools, with their schemas) and
        /// `call_tool` ({name, arguments?}: calls one by its <server>__<name>).
        /// For hosts with many tools: the model's context holds two.
        #[arg(long)]
        tool_search: bool,
        /// Over stdio: serve only the view of this profile of the config
        /// (exit status 2 when there is none of that name).
        #[arg(long, value_name = "NAME", conflicts_with = "http")]
        profile: Option<String>,
        /// Do not watch the config for changes (SIGHUP then stops `serve`).
        #[arg(long)]
        no_reload: bool,
        /// Requests per second each client may send over HTTP (a JWT's
        /// `sub`, else the bearer token, is one client; without auth every
        /// request is one client); BURST (default: RATE rounded up) may go
        /// at once after a quiet spell. Over it: HTTP 429 with Retry-After
        /// (seconds). Counted by this process alone, or by every replica
        /// together with --session-store.
        #[arg(long, value_name = "RATE[/BURST]", requires = "http")]
        client_rate_limit: Option<mcpdisco_gateway::limits::ClientRateLimit>,
        /// A Redis shared by every replica (`redis://HOST:PORT[/DB]`): a
        /// legacy session's DELETE ends it on every replica, its log level
        /// holds on every replica, and its notifications reach its GET
        /// stream whichever replica holds it; --client-rate-limit counts
        /// are shared too. While it fails, calls go on (sealed ids still
        /// open) and all of that is per replica; /readyz's body and a
        /// metric say the store is degraded.
        #[arg(long, value_name = "URL", requires = "http")]
        session_store: Option<String>,
        /// The most SSE streams (GET streams and streamed POST answers)
        /// open at once in this process; one more gets HTTP 503 with
        /// Retry-After.
        #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
        max_streams: Option<u32>,
        /// A Host a request may name, HOST (any port) or HOST:PORT
        /// (repeatable); any other gets HTTP 421. Without it, a loopback
        /// --http address takes localhost, 127.0.0.1 and ::1 only, and
        /// another address takes any Host.
        #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
        allowed_hosts: Vec<mcpdisco_gateway::limits::HostPattern>,
        /// The keys that seal session ids, one per line (the standard
        /// base64 of 32 random bytes; blank lines and #-lines ignored): the
        /// first seals new ids, every one opens, so any replica given the
        /// same file serves any session, and keys rotate with a file of
        /// [new, old]. Refused (exit 2) when group or others can read it.
        /// Read again on reload. By default, a random key per process.
        #[arg(long, value_name = "FILE", requires = "http")]
        session_keys: Option<std::path::PathBuf>,
        /// How old a session id may be (30s, 10m, 24h): an older one is
        /// answered 404, as an unknown session.
        #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = parse_duration)]
        session_max_age: std::time::Duration,
    },
    /// Authorize with an HTTP server that requires OAuth: opens the browser
    /// at its authorization page (or prints the URL), waits for it to come
    /// back to 127.0.0.1, and stores the tokens for the other commands.
    Login {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// Print the authorization URL instead of opening a browser.
        #[arg(long)]
        no_browser: bool,
    },
    /// Forget a server's stored tokens and client registration.
    Logout {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
    },
    /// Stored tokens.
    Auth {
        /// What to show.
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// Print a shell completion script (static). For completion of server
    /// and tool names too, use `source <(COMPLETE=bash mcp-cli)` (zsh, fish
    /// and others alike) instead.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff).
    #[command(hide = true)]
    Manpage,
    /// The MCP Registry: search it, show a server, add one to a config.
    Registry {
        /// What to do.
        #[command(subcommand)]
        command: RegistryCommand,
    },
    /// Diagnose servers step by step (config, command, process, stdout,
    /// era probe, handshake, each list, stderr, HTTP), saying what to do.
    /// Exits 0 when every check passes.
    Doctor {
        /// The servers (all enabled ones when none is named).
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        servers: Vec<String>,
    },
}

impl Command {
    /// The command's name, as typed (`discover`, `call`, ...): the name of
    /// its run's root span.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Servers => "servers",
            Command::Discover { .. } => "discover",
            Command::Warm { .. } => "warm",
            Command::Export { .. } => "export",
            Command::Pending { .. } => "pending",
            Command::Approve { .. } => "approve",
            Command::Revoke { .. } => "revoke",
            Command::Pins { .. } => "pins",
            Command::Tools => "tools",
            Command::Resources => "resources",
            Command::Prompts => "prompts",
            Command::Skills => "skills",
            Command::Skill { .. } => "skill",
            Command::Call { .. } => "call",
            Command::Task { .. } => "task",
            Command::Ping { .. } => "ping",
            Command::Serve { .. } => "serve",
            Command::Login { .. } => "login",
            Command::Logout { .. } => "logout",
            Command::Auth { .. } => "auth",
            Command::Completions { .. } => "completions",
            Command::Manpage => "manpage",
            Command::Registry { .. } => "registry",
            Command::Doctor { .. } => "doctor",
        }
    }
}

/// `mcp-cli task …`.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// The task's status, and its result once it completed (exits 5 when
    /// the tool reported an error, 2 when the task failed).
    Get {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// The task's id, as `call --task` said it (or `--detach` printed it).
        id: String,
        /// Wait until the task ends (up to the server's timeout), then show its result.
        #[arg(long)]
        wait: bool,
    },
    /// Cancel the task.
    Cancel {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// The task's id.
        id: String,
    },
}

impl TaskCommand {
    /// The server the task runs on.
    pub fn server(&self) -> &str {
        match self {
            TaskCommand::Get { server, .. } | TaskCommand::Cancel { server, .. } => server,
        }
    }
}

/// `mcp-cli skill …`.
#[derive(Debug, Subcommand)]
pub enum SkillCommand {
    /// Read a skill's files (resources/read), SKILL.md first: each must
    /// have the size and sha256 digest its entry gives, and SKILL.md's
    /// frontmatter must equal the entry's, field by field. The first file
    /// that does not is named and nothing is shown; exits 2.
    Load {
        /// The server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: String,
        /// The skill: its frontmatter name, its path (acme/billing/refunds)
        /// or the URI of its SKILL.md.
        name: String,
    },
}

/// `mcp-cli registry …`.
#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// Servers whose name matches QUERY (latest versions, active ones).
    Search {
        /// A part of the name.
        query: String,
        /// At most N servers.
        #[arg(long, value_name = "N", default_value_t = 30)]
        limit: usize,
        /// Deprecated and deleted servers too.
        #[arg(long)]
        all: bool,
    },
    /// A server's `server.json`, and the config entry it resolves to.
    Show {
        /// Its registry name, such as io.github.user/server.
        name: String,
        /// A version (default: the latest).
        #[arg(long)]
        version: Option<String>,
        /// How to resolve it.
        #[command(flatten)]
        resolve: ResolveArgs,
    },
    /// Resolve a server and write it into a config file, in that file's
    /// own format, keeping the rest of the file.
    Add {
        /// Its registry name, such as io.github.user/server.
        name: String,
        /// A version (default: the latest).
        #[arg(long)]
        version: Option<String>,
        /// The config file (default: the first found, else ./.mcp.json).
        #[arg(long, value_name = "FILE")]
        to: Option<PathBuf>,
        /// Its name in the config (default: the last part of its registry name).
        #[arg(long = "as", value_name = "NAME")]
        local_name: Option<String>,
        /// Replace a server of that name.
        #[arg(long)]
        replace: bool,
        /// How to resolve it.
        #[command(flatten)]
        resolve: ResolveArgs,
    },
}

/// How a `server.json` is resolved.
#[derive(Debug, Args, Clone, Default)]
pub struct ResolveArgs {
    /// Take its remote endpoint rather than a package.
    #[arg(long)]
    pub remote: bool,
    /// Take the package of this registry type (npm, pypi, oci, nuget, mcpb).
    #[arg(long = "type", value_name = "TYPE")]
    pub registry_type: Option<String>,
    /// A value for a `{variable}` or input (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
}

/// `--concurrency`'s default: discovery's.
fn default_concurrency() -> u16 {
    u16::try_from(mcpdisco::discovery::DEFAULT_CONCURRENCY).unwrap_or(u16::MAX)
}

/// `serve --page-size`'s default: the gateway's.
fn default_page_size() -> u16 {
    u16::try_from(GatewayOptions::default().page_size).unwrap_or(u16::MAX)
}

/// `--no-stale`'s help, with the cache's default age of a stale catalog.
fn no_stale_help() -> String {
    let days = mcpdisco::cache::DEFAULT_STALE_MAX_AGE.as_secs() / (24 * 60 * 60);
    format!(
        "A server whose discovery fails is reported failed, never with its last good cached catalog marked stale (which is the default, for up to its `staleMaxAgeMs`, {days} days unless set). The cache keeps that catalog"
    )
}

/// `--rate-limit`'s help, with the client's default rate.
fn rate_limit_help() -> String {
    format!(
        "Operations per second to each server (a server's own `rateLimit` wins): a whole discovery, a `tools/call`, a `resources/read`, a `prompts/get`; the pages of a listing never wait. Default: {} for the commands that ask servers themselves; none for `serve`, whose clients set the pace",
        RateLimit::default().requests_per_second
    )
}

fn parse_var(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .filter(|(name, _)| !name.is_empty())
        .ok_or_else(|| "expected NAME=VALUE".to_owned())
}

/// The form of exported manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// RTFS (`.rtfs`).
    Rtfs,
    /// JSON (`.json`, with the tool's own schemas; what approval pins).
    Json,
    /// Both.
    Both,
}

/// `mcp-cli pins …`.
#[derive(Debug, Subcommand)]
pub enum PinsCommand {
    /// What changed, field by field: old and new text, the schema paths that differ.
    Diff {
        /// Only this server.
        #[arg(add = ArgValueCompleter::new(crate::dynamic_completion::server_names))]
        server: Option<String>,
    },
}

/// `mcp-cli auth …`.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Which servers have tokens: issuer, scopes and expiry (never a token).
    Status,
}

fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(text)
        .map_err(|error| format!("'{text}': {error} (such as 30s, 10m, 24h)"))
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of requests per second"))?;
    if rate.is_finite() && rate > 0.0 {
        Ok(rate)
    } else {
        Err(format!("'{text}' must be a positive number"))
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 {
        Ok(seconds)
    } else {
        Err(format!("'{text}' must be between 0 and 86400 seconds"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn global_options_go_before_or_after_the_command() {
        let cli =
            Cli::try_parse_from(["mcp-cli", "tools", "--json", "--config", "a.json"]).unwrap();
        assert!(cli.global.json);
        assert_eq!(cli.global.configs, [PathBuf::from("a.json")]);
        assert!(Cli::try_parse_from(["mcp-cli", "--no-cache", "--refresh", "tools"]).is_err());
        assert!(Cli::try_parse_from(["mcp-cli", "--timeout", "-1", "tools"]).is_err());
    }

    #[test]
    fn defaults_are_the_librarys() {
        let cli = Cli::try_parse_from(["mcp-cli", "serve"]).unwrap();
        let global = &cli.global;
        assert_eq!(
            usize::from(global.concurrency),
            mcpdisco::discovery::DEFAULT_CONCURRENCY
        );
        assert_eq!(global.separator, mcpdisco::catalog::DEFAULT_SEPARATOR);
        assert_eq!(global.retries, RetryPolicy::default().max_retries);
        assert_eq!(global.burst, RateLimit::default().burst);
        assert_eq!(global.rate_limit, None);
        let Command::Serve { page_size, .. } = cli.command else {
            panic!("{:?}", cli.command)
        };
        assert_eq!(usize::from(page_size), GatewayOptions::default().page_size);
        let help = rate_limit_help();
        let rate = RateLimit::default().requests_per_second;
        assert!(help.contains(&format!("Default: {rate} ")), "{help}");
    }
}
