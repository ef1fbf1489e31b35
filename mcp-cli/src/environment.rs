//! The environment variables `mcp-cli` reads in place of flags.

/// Where the cache lives (`--cache-dir`).
pub const CACHE_DIR: &str = "MCP_DISCOVERY_CACHE_DIR";
