//! Shared helpers for the workspace's integration tests.

pub mod otlp;
pub mod processes;
pub mod redis;
pub mod registry_server;
pub mod scripted_http;
pub mod serve_http;
pub mod skill_fixture;
pub mod tools;
