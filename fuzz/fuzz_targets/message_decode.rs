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
    if let Ok(original) = serde_json::from_slice::<serde_json::Value>(data)
        && let Ok(theirs) = Message::from_value(original.clone())
    {
        let Ok(ours) = &ours else {
            panic!("refused a message serde_json reads");
        };
        match (ours, &theirs) {
            // Ours keeps the result's text; theirs writes its `Value` again,
            // which may spell a float differently. Compare what each reads as.
            (Message::Response(ours), Message::Response(theirs)) => {
                assert_eq!(ours.id, theirs.id);
                assert_eq!(ours.result.to_value().ok(), original.get("result").cloned());
            }
            (ours, theirs) => assert_eq!(ours, theirs),
        }
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
