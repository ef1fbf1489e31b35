//! Framing codecs: bytes to messages (`tokio_util::codec`).

pub mod ndjson;
pub mod sse;
