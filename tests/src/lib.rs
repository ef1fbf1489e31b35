//! Shared helpers for the workspace's integration tests.
//!
//! The tests in `tests/` are named after what they drive: the transports,
//! real servers, discovery, the CLI, the gateway, the registry, a shared
//! Redis cache, a fleet behind HAProxy, capabilities, telemetry, skills and
//! OAuth. Beside these
//! helpers, `bin/fixture-server.rs` is a stdio server that misbehaves on
//! request (exits at start, closes stdout, floods stderr, ignores SIGTERM,
//! prints noise or oversized lines, echoes its secret, …), and
//! `bin/conformance-client.rs` is the client the official conformance suite
//! drives. `fixtures/clients/` drive `mcp-cli serve` with the official
//! Python SDK client.

pub mod haproxy;
pub mod haproxy_config;
pub mod listeners;
pub mod otlp;
pub mod processes;
pub mod raw_http;
pub mod redis;
pub mod registry_server;
pub mod scripted_http;
pub mod serve_http;
pub mod session_keys;
pub mod skill_fixture;
pub mod tool_server;
pub mod tools;
