//! Shared helpers for the workspace's integration tests.

pub mod tools;
