//! The integration tests, in one test binary: each module is one subject
//! (its own doc says what it drives and against what). One binary, not one
//! per file, because each links the whole workspace and its dependencies:
//! thirty-three of them took 1.4 GB of disk and as many links in every
//! build. nextest still runs each test in a process of its own, so no test
//! shares its process's state (environment, limits, signal handlers) with
//! another.

mod auth;
mod capabilities;
mod cli;
mod cli_tasks;
mod connectors;
mod discovery;
mod discovery_parallel;
mod doctor;
mod example_server;
mod gateway;
mod gateway_fleet;
mod gateway_legacy;
mod gateway_limits;
mod gateway_load;
mod gateway_operations;
mod gateway_reload;
mod gateway_sealed_sessions;
mod gateway_session_store;
mod hosts;
mod http_policies;
mod http_transport;
mod interop_discovery;
mod otel;
mod real_servers;
mod registry;
mod secrets;
mod serve_task_status;
mod serve_tasks;
mod shared_cache;
mod skills;
mod stale_cache;
mod stdio_transport;
mod tasks;
