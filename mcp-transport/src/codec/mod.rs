//! Framing codecs: bytes to messages (`tokio_util::codec`).

pub mod sse;
