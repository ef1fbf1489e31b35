//! The SSE decoder never panics, and any chunking gives the same events.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use mcpdisco_transport::codec::sse::{SseDecoder, SseEvent};
use tokio_util::codec::Decoder;

fn decode(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::with_max_event_len(256);
    let mut buf = BytesMut::new();
    let mut events = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while let Ok(Some(event)) = decoder.decode(&mut buf) {
            events.push(event);
        }
    }
    while let Ok(Some(event)) = decoder.decode_eof(&mut buf) {
        events.push(event);
    }
    events
}

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else { return };
    let cut = usize::from(split) % (bytes.len() + 1);
    let whole = decode(&[bytes]);
    let chunked = decode(&[&bytes[..cut], &bytes[cut..]]);
    assert_eq!(whole, chunked);
});
