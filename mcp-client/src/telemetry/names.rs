//! The names telemetry writes: attribute keys and metric names of the
//! OpenTelemetry semantic conventions for MCP (GenAI conventions,
//! `model/mcp`, Development status), and the few this crate adds
//! (`mcp.server.name`, `mcp.request.attempt`, the supervisor's metrics).

/// The request's method, such as `tools/call`.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// The MCP protocol version of the session.
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// The legacy HTTP session id (never in 2026-07-28).
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// The URI of `resources/read`.
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
/// The configured name of a server (this crate's).
pub const MCP_SERVER_NAME: &str = "mcp.server.name";
/// The attempt a span covers, from 1 (this crate's).
pub const MCP_REQUEST_ATTEMPT: &str = "mcp.request.attempt";
/// The JSON-RPC id of a request.
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// Always `2.0`.
pub const JSONRPC_PROTOCOL_VERSION: &str = "jsonrpc.protocol.version";
/// The JSON-RPC error code of a failed request.
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// Why an operation failed: a JSON-RPC code, `tool_error`, or a short kind.
pub const ERROR_TYPE: &str = "error.type";
/// `pipe` (stdio) or `tcp` (HTTP).
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// The HTTP server's host.
pub const SERVER_ADDRESS: &str = "server.address";
/// The HTTP server's port.
pub const SERVER_PORT: &str = "server.port";
/// The tool of `tools/call`.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `execute_tool` for `tools/call`.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// The prompt of `prompts/get`.
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
/// A tool call's arguments (opt-in, masked).
pub const GEN_AI_TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// A tool call's result (opt-in, masked).
pub const GEN_AI_TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";

/// `error.type` of a tool result with `isError: true`.
pub const TOOL_ERROR: &str = "tool_error";

/// Histogram, seconds: one client request, all its attempts.
pub const CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// Histogram, seconds: a client session, connect to close.
pub const CLIENT_SESSION_DURATION: &str = "mcp.client.session.duration";
/// Histogram, seconds: one request a server (the gateway) answered.
pub const SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// Histogram, seconds: one client connection of a server (the gateway).
pub const SERVER_SESSION_DURATION: &str = "mcp.server.session.duration";
/// Counter: a supervised server's starts.
pub const SUPERVISOR_STARTS: &str = "mcp.supervisor.starts";
/// Counter: a supervised server's starts after its first.
pub const SUPERVISOR_RESTARTS: &str = "mcp.supervisor.restarts";
/// Gauge: 1 for a supervised server's current state, 0 for the one it left.
pub const SUPERVISOR_STATE: &str = "mcp.supervisor.state";
/// The state of [`SUPERVISOR_STATE`].
pub const SUPERVISOR_STATE_ATTRIBUTE: &str = "mcp.supervisor.state";

/// Span event: a retry is about to wait (`retry.delay_ms`).
pub const EVENT_RETRY: &str = "retry";
/// Span event: a request waited for a rate-limit token.
pub const EVENT_RATE_LIMIT_WAIT: &str = "rate_limit.wait";
/// Span event: a refusal made the client refresh or authorize.
pub const EVENT_AUTH_REFRESH: &str = "auth.refresh";

/// The histograms' bucket boundaries, in seconds (the conventions' advice).
pub const DURATION_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
