//! Tests of the JSON-RPC envelope: decoding, classification, round trips.
use super::*;
use serde_json::json;

fn classify(value: Value) -> Result<Message, MessageError> {
    Message::from_value(value)
}

#[test]
fn integer_and_string_ids_stay_distinct() {
    let one = RequestId::from(1);
    let one_str = RequestId::from("1");
    assert_ne!(one, one_str);
    assert_eq!(one.to_string(), "1");
    assert_eq!(one_str.to_string(), "\"1\"");
    assert_eq!(serde_json::to_string(&one_str).unwrap(), "\"1\"");
    assert_eq!(serde_json::from_str::<RequestId>("1").unwrap(), one);
}

#[test]
fn field_order_does_not_matter() {
    let message =
        Message::from_slice(br#"{"result":{"tools":[]},"jsonrpc":"2.0","id":3}"#).unwrap();
    assert_eq!(
        message,
        Message::Response(Response {
            id: 3.into(),
            result: RawJson::from_value(&json!({"tools": []}))
        })
    );
}

#[test]
fn results_are_kept_as_sent_and_sliced_from_shared_bytes() {
    let line = Bytes::from_static(br#"{"jsonrpc":"2.0","id":"a","result": {"b" : 1.50, "a":[]} }"#);
    let Message::Response(response) = Message::from_bytes(&line).unwrap() else {
        panic!("not a response")
    };
    assert_eq!(response.result.as_str(), r#"{"b" : 1.50, "a":[]}"#);
    let offset = line.windows(4).position(|w| w == br#"{"b""#).unwrap();
    assert_eq!(response.result.as_bytes().as_ptr(), line[offset..].as_ptr());
    let copied = Message::from_slice(&line).unwrap();
    assert_eq!(copied, Message::Response(response.clone()));
    assert_eq!(
        String::from_utf8(copied.to_vec()).unwrap(),
        r#"{"jsonrpc":"2.0","id":"a","result":{"b" : 1.50, "a":[]}}"#
    );
    assert_eq!(copied.to_value()["result"]["a"], json!([]));
    let from_value =
        Message::from_value(json!({"jsonrpc":"2.0","id":1,"result":{"x":[1]}})).unwrap();
    let Message::Response(response) = from_value else {
        panic!("not a response")
    };
    assert_eq!(response.result.as_str(), r#"{"x":[1]}"#);
}

#[test]
fn text_that_is_not_utf8_is_refused_even_in_an_unknown_member() {
    let line = b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"x\":{\"k\xef\xff\":1}}";
    assert!(Message::from_slice(line).is_err());
    let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[],\"x\":\"\xc3\xa9\"}}";
    assert!(Message::from_slice(line).is_ok());
}

#[test]
fn a_scanned_result_splits_like_a_parsed_one() {
    let line = Bytes::from_static(
        br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"},{"name":"b\u0022"}],"nextCursor":"n","ttlMs":9,"tools2":[]}}"#,
    );
    let Message::Response(response) = Message::from_bytes(&line).unwrap() else {
        panic!("not a response")
    };
    let page = response.result.list_page("tools").unwrap();
    let reparsed = RawJson::parse(response.result.as_bytes().to_vec()).unwrap();
    assert_eq!(Some(&page), reparsed.list_page("tools").as_ref());
    assert_eq!(page.items.len(), 2);
    assert_eq!(page.items[1].as_str(), r#"{"name":"b\u0022"}"#);
    assert_eq!(page.next_cursor.as_deref(), Some("n"));
    assert_eq!(page.ttl_ms, Some(9));
    let range = line.as_ptr_range();
    assert!(
        page.items
            .iter()
            .all(|item| range.contains(&item.as_bytes().as_ptr()))
    );
    assert!(response.result.list_page("prompts").is_none());
    assert!(response.result.list_page("nextCursor").is_none());
}

#[test]
fn batch_results_are_slices_too() {
    let text = Bytes::from_static(
        br#"[{"jsonrpc":"2.0","id":1,"result":[7]}, 5, {"jsonrpc":"2.0","method":"n"}]"#,
    );
    let Incoming::Batch(items) = Incoming::from_bytes(&text).unwrap() else {
        panic!("not a batch")
    };
    let Ok(Message::Response(first)) = &items[0] else {
        panic!("not a response")
    };
    assert_eq!(first.result.as_str(), "[7]");
    assert!(
        text.as_ptr_range()
            .contains(&first.result.as_bytes().as_ptr())
    );
    assert_eq!(
        items[1].as_ref().unwrap_err().to_string(),
        "message is not a JSON object but a number"
    );
    assert!(matches!(items[2], Ok(Message::Notification(_))));
}

#[test]
fn classifies_all_four_shapes() {
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","id":"a","method":"ping"})),
        Ok(Message::Request(_))
    ));
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
        Ok(Message::Notification(_))
    ));
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","id":1,"result":{}})),
        Ok(Message::Response(_))
    ));
    assert!(matches!(
        classify(json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}})),
        Ok(Message::Error(_))
    ));
}

#[test]
fn error_response_without_id_is_accepted() {
    // server-everything answers an unknown session like this.
    let raw = json!({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}});
    let Ok(Message::Error(e)) = classify(raw) else {
        panic!("not an error response")
    };
    assert_eq!(e.id, None);
    // FastMCP sends "id": null instead.
    let raw =
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}});
    assert!(matches!(
        classify(raw),
        Ok(Message::Error(ErrorResponse { id: None, .. }))
    ));
}

#[test]
fn each_invalid_shape_says_what_is_wrong() {
    let cases = [
        (json!([1]), "message is not a JSON object but an array"),
        (
            json!({"id":1,"result":{}}),
            "message has no \"jsonrpc\" member",
        ),
        (
            json!({"jsonrpc":"1.0","id":1,"result":{}}),
            "\"jsonrpc\" is \"1.0\", expected \"2.0\"",
        ),
        (
            json!({"jsonrpc":"2.0","method":5}),
            "\"method\" is not a string",
        ),
        (
            json!({"jsonrpc":"2.0","method":"x","params":3}),
            "\"params\" must be an object or an array",
        ),
        (
            json!({"jsonrpc":"2.0","id":null,"method":"x"}),
            "id is null",
        ),
        (json!({"jsonrpc":"2.0","id":null,"result":{}}), "id is null"),
        (json!({"jsonrpc":"2.0","result":{}}), "response has no id"),
        (
            json!({"jsonrpc":"2.0","id":1.5,"result":{}}),
            "id is a number that is not a 64-bit integer, expected a string or an integer",
        ),
        (
            json!({"jsonrpc":"2.0","id":true,"result":{}}),
            "id is a boolean, expected a string or an integer",
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"method":"x","result":{}}),
            "message has both \"method\" and \"result\"",
        ),
        (
            json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}),
            "response has both result and error",
        ),
        (
            json!({"jsonrpc":"2.0","id":1}),
            "message has no \"method\", \"result\" or \"error\"",
        ),
    ];
    for (value, expected) in cases {
        let error = classify(value.clone()).expect_err(&value.to_string());
        assert_eq!(error.to_string(), expected, "for {value}");
    }
    let error =
        classify(json!({"jsonrpc":"2.0","id":1,"error":{"message":"no code"}})).unwrap_err();
    assert!(
        error.to_string().starts_with("error object is invalid"),
        "{error}"
    );
}

#[test]
fn batches_keep_good_elements() {
    let incoming = Incoming::from_slice(
        br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0"},{"jsonrpc":"2.0","method":"n"}]"#,
    )
    .unwrap();
    let Incoming::Batch(items) = &incoming else {
        panic!("not a batch")
    };
    assert_eq!(items.len(), 3);
    assert!(items[1].is_err());
    assert_eq!(incoming.into_messages().len(), 2);
    assert_eq!(
        Incoming::from_slice(b"[]").unwrap_err().to_string(),
        "invalid JSON-RPC message: batch is empty"
    );
}

#[test]
fn encoding_is_compact_and_jsonrpc_first() {
    let message = Message::Request(Request {
        id: 1.into(),
        method: "tools/list".into(),
        params: Some(json!({"cursor": "a\nb"}).into()),
    });
    let bytes = message.to_vec();
    assert!(!bytes.contains(&b'\n'));
    assert_eq!(
        std::str::from_utf8(&bytes).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"a\nb"}}"#
    );
    assert_eq!(serde_json::to_value(&message).unwrap(), message.to_value());
    assert_eq!(Message::from_slice(&bytes).unwrap(), message);
}

#[test]
fn non_json_is_a_json_error() {
    assert!(matches!(
        Message::from_slice(b"hello"),
        Err(DecodeError::Json(_))
    ));
}

mod decoded_as_from_value {
    use super::*;
    use proptest::prelude::*;

    /// Keys, some escaped, and member texts in plain and unusual forms.
    const KEYS: [&str; 9] = [
        "jsonrpc",
        "id",
        "method",
        "params",
        "result",
        "error",
        "x",
        r"j\u0073onrpc",
        r"m\u0065thod",
    ];
    const VALUES: [&str; 24] = [
        r#""2.0""#,
        r#""1.0""#,
        "2.0",
        r#""\u0032.0""#,
        "7",
        "-7",
        "-0",
        "0",
        "1.5",
        "9223372036854775808",
        "null",
        "true",
        r#""7""#,
        r#""a\"b""#,
        r#""tools/list""#,
        "{}",
        "[]",
        r#"{"code":1,"message":"m"}"#,
        r#"{"message":"m"}"#,
        r#"[1,{"a":"\u00e9"}]"#,
        "1e400",
        r#""\ud800""#,
        r#"{"tools":[{"name":"a"}],"nextCursor":"c"}"#,
        r#""é""#,
    ];

    fn text() -> impl Strategy<Value = String> {
        // Most texts start as a valid message, so that the members after
        // (which may repeat and replace a member) decide.
        let start = prop_oneof![
            Just(""),
            Just(r#""jsonrpc":"2.0""#),
            Just(r#""jsonrpc":"2.0","result":{}"#),
            Just(r#""jsonrpc":"2.0","method":"m""#),
            Just(r#""jsonrpc":"2.0","error":{"code":1,"message":"m"}"#),
        ];
        (
            start,
            proptest::collection::vec((0..KEYS.len(), 0..VALUES.len()), 0..6),
            any::<bool>(),
        )
            .prop_map(|(start, members, long)| {
                let mut members: Vec<String> = std::iter::once(start.to_owned())
                    .filter(|start| !start.is_empty())
                    .chain(
                        members
                            .into_iter()
                            .map(|(key, value)| format!(r#""{}":{}"#, KEYS[key], VALUES[value])),
                    )
                    .collect();
                if long {
                    // Past the length from which a result is recorded.
                    members.push(format!(r#""pad":"{}""#, "p".repeat(1100)));
                }
                format!("{{{}}}", members.join(","))
            })
    }

    /// Ours against `Message::from_value` of serde_json's tree: the same
    /// message or the same error, whenever serde_json reads the text.
    fn agree(ours: Result<Message, DecodeError>, text: &str) -> Result<(), TestCaseError> {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            if ours.is_ok() {
                prop_assert!(serde_json::from_str::<&RawValue>(text).is_ok());
            }
            return Ok(());
        };
        match (ours, Message::from_value(value)) {
            (Ok(Message::Response(ours)), Ok(Message::Response(theirs))) => {
                prop_assert_eq!(ours.id, theirs.id);
                prop_assert_eq!(ours.result.to_value().ok(), theirs.result.to_value().ok());
            }
            // A request's params are its text as sent (`\u00e9` stays
            // escaped), the tree's are written again: the same JSON.
            (Ok(Message::Request(ours)), Ok(Message::Request(theirs))) => {
                prop_assert_eq!(&ours.id, &theirs.id);
                prop_assert_eq!(&ours.method, &theirs.method);
                let value = |params: &Option<RawJson>| params.as_ref().map(|p| p.to_value().ok());
                prop_assert_eq!(value(&ours.params), value(&theirs.params));
            }
            (Ok(ours), Ok(theirs)) => prop_assert_eq!(ours, theirs),
            (Err(DecodeError::Message(ours)), Err(theirs)) => prop_assert_eq!(ours, theirs),
            (ours, theirs) => prop_assert!(false, "ours {:?}, from the tree {:?}", ours, theirs),
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn a_message_read_from_bytes_is_the_one_its_tree_makes(text in text()) {
            agree(Message::from_slice(text.as_bytes()), &text)?;
            // A batch element is read by serde_json's pass, not the scanner.
            let batch = format!("[{text}]");
            let element = match Incoming::from_slice(batch.as_bytes()) {
                Ok(Incoming::Batch(mut items)) if items.len() == 1 => {
                    items.pop().map(|item| item.map_err(DecodeError::Message))
                }
                Ok(other) => return Err(TestCaseError::fail(format!("{other:?}"))),
                Err(error) => Some(Err(error)),
            };
            if let Some(element) = element {
                agree(element, &text)?;
            }
        }
    }
}
