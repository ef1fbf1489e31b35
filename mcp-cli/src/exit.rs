//! The exit statuses of `mcp-cli`.

/// Every enabled server is ready.
pub const OK: u8 = 0;
/// A usage or configuration error.
pub const USAGE: u8 = 1;
/// One or more servers failed; everything else was still printed.
pub const SERVER_FAILED: u8 = 2;
/// `discover --verify-pins`: an approved item changed or vanished.
pub const PINS_CHANGED: u8 = 3;
/// `serve --profile NAME`: no profile has that name (as clap's usage errors).
pub const NO_SUCH_PROFILE: u8 = 2;
/// `serve --session-keys`: the key file cannot be used (others can read
/// it, or a line is not a key).
pub const BAD_SESSION_KEYS: u8 = 2;
/// `call` returned a tool error (`isError`).
pub const TOOL_ERROR: u8 = 5;
