//! The message decoder's one-pass scanner agrees with serde_json: it accepts
//! only JSON, decodes every message serde_json reads to the same message, and
//! a list page split from its record equals one split by serde_json.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdisco_protocol::{Message, RawJson};

fuzz_target!(|data: &[u8]| {
    let ours = Message::from_slice(data);
    if ours.is_ok() {
        assert!(
            serde_json::from_slice::<&serde_json::value::RawValue>(data).is_ok(),
            "accepted a text that is not JSON"
        );
    }
    if let Ok(theirs) = serde_json::from_slice::<serde_json::Value>(data)
        .map_err(drop)
        .and_then(|value| Message::from_value(value).map_err(drop))
    {
        let Ok(ours) = &ours else {
            panic!("refused a message serde_json reads");
        };
        assert_eq!(ours.to_value(), theirs.to_value());
    }
    if let Ok(Message::Response(response)) = ours {
        let Ok(reparsed) = RawJson::parse(response.result.as_bytes().to_vec()) else {
            panic!("a result is not JSON");
        };
        for key in ["tools", "a", ""] {
            assert_eq!(response.result.list_page(key), reparsed.list_page(key));
        }
    }
});
