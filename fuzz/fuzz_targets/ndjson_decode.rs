//! The newline-JSON decoder never panics, and any chunking gives the same frames.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use mcpdisco_transport::codec::ndjson::{NdjsonCodec, NdjsonFrame};
use tokio_util::codec::Decoder;

fn decode(chunks: &[&[u8]]) -> Vec<NdjsonFrame> {
    let mut codec = NdjsonCodec::with_max_frame_len(256);
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while let Ok(Some(frame)) = codec.decode(&mut buf) {
            frames.push(frame);
        }
    }
    while let Ok(Some(frame)) = codec.decode_eof(&mut buf) {
        frames.push(frame);
    }
    frames
}

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else { return };
    let cut = usize::from(split) % (bytes.len() + 1);
    let whole = decode(&[bytes]);
    let chunked = decode(&[&bytes[..cut], &bytes[cut..]]);
    assert_eq!(whole, chunked);
});
