//! Shared helpers for the workspace's integration tests.
