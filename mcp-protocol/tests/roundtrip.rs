//! Property tests: for every message type, JSON → value → JSON is lossless and
//! value → JSON → value gives the same value, including unknown fields.

use mcpdisco_protocol::types::*;
use mcpdisco_protocol::{Message, Notification, RawJson, Request, RequestId, Response};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z0-9 _\u{e9}\u{4e16}]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Unknown fields: keys no MCP type uses.
fn arb_extra() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map("x-[a-z]{1,6}", arb_json(), 0..3)
        .prop_map(|m| m.into_iter().collect())
}

fn opt<T: Strategy>(s: T) -> impl Strategy<Value = Option<T::Value>> {
    proptest::option::of(s)
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ ./:-]{0,16}"
}

fn object(fields: Vec<(&str, Option<Value>)>, extra: Map<String, Value>) -> Value {
    let mut object: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
        .collect();
    object.extend(extra);
    Value::Object(object)
}

fn arb_tool() -> impl Strategy<Value = Value> {
    (
        text(),
        opt(text()),
        opt(text()),
        arb_json(),
        opt(arb_json()),
        opt((opt(text()), opt(any::<bool>()), opt(any::<bool>()))),
        opt(prop_oneof![
            Just("forbidden"),
            Just("optional"),
            Just("someday")
        ]),
        arb_extra(),
    )
        .prop_map(
            |(name, title, description, schema, output, annotations, tasks, extra)| {
                object(
                    vec![
                        ("name", Some(json!(name))),
                        ("title", title.map(Value::from)),
                        ("description", description.map(Value::from)),
                        (
                            "inputSchema",
                            Some(json!({"type": "object", "properties": {"p": schema}})),
                        ),
                        (
                            "outputSchema",
                            output.map(|o| json!({"type": "object", "x": o})),
                        ),
                        (
                            "annotations",
                            annotations.map(|(t, r, d)| {
                                object(
                                    vec![
                                        ("title", t.map(Value::from)),
                                        ("readOnlyHint", r.map(Value::from)),
                                        ("destructiveHint", d.map(Value::from)),
                                    ],
                                    Map::new(),
                                )
                            }),
                        ),
                        (
                            "execution",
                            tasks.map(|support| json!({"taskSupport": support})),
                        ),
                    ],
                    extra,
                )
            },
        )
}

fn arb_annotations() -> impl Strategy<Value = Value> {
    (
        opt(proptest::collection::vec(
            prop_oneof![Just("user"), Just("assistant"), Just("robot")],
            0..3,
        )),
        opt(0u32..=100),
        opt(text()),
        arb_extra(),
    )
        .prop_map(|(audience, priority, modified, extra)| {
            object(
                vec![
                    ("audience", audience.map(Value::from)),
                    ("priority", priority.map(|p| json!(f64::from(p) / 100.0))),
                    ("lastModified", modified.map(Value::from)),
                ],
                extra,
            )
        })
}

/// The blocks a sampling message may hold (2025-11-25), and unknown ones.
fn arb_sampling_block() -> impl Strategy<Value = Value> {
    prop_oneof![
        (text(), opt(arb_annotations())).prop_map(|(t, annotations)| object(
            vec![
                ("type", Some(json!("text"))),
                ("text", Some(json!(t))),
                ("annotations", annotations)
            ],
            Map::new()
        )),
        (text(), text()).prop_map(|(d, m)| json!({"type": "audio", "data": d, "mimeType": m})),
        (text(), text(), arb_extra(), arb_extra()).prop_map(|(id, name, input, extra)| object(
            vec![
                ("type", Some(json!("tool_use"))),
                ("id", Some(json!(id))),
                ("name", Some(json!(name))),
                ("input", Some(Value::Object(input))),
            ],
            extra
        )),
        (
            text(),
            proptest::collection::vec(arb_content(), 0..3),
            opt(arb_json()),
            opt(any::<bool>())
        )
            .prop_map(|(id, content, structured, is_error)| object(
                vec![
                    ("type", Some(json!("tool_result"))),
                    ("toolUseId", Some(json!(id))),
                    ("content", Some(Value::from(content))),
                    ("structuredContent", structured),
                    ("isError", is_error.map(Value::from)),
                ],
                Map::new()
            )),
        ("[a-z]{3,8}", arb_json())
            .prop_map(|(k, v)| json!({"type": format!("future-{k}"), "payload": v})),
    ]
}

/// One block, or several.
fn arb_sampling_content() -> impl Strategy<Value = Value> {
    prop_oneof![
        arb_sampling_block(),
        proptest::collection::vec(arb_sampling_block(), 0..3).prop_map(Value::from),
    ]
}

fn arb_sampling_message() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just("user"), Just("assistant")],
        arb_sampling_content(),
        opt(arb_extra()),
    )
        .prop_map(|(role, content, meta)| {
            object(
                vec![
                    ("role", Some(json!(role))),
                    ("content", Some(content)),
                    ("_meta", meta.map(Value::Object)),
                ],
                Map::new(),
            )
        })
}

fn arb_completion_reference() -> impl Strategy<Value = Value> {
    prop_oneof![
        (text(), arb_extra()).prop_map(|(name, extra)| object(
            vec![
                ("type", Some(json!("ref/prompt"))),
                ("name", Some(json!(name)))
            ],
            extra
        )),
        (text(), arb_extra()).prop_map(|(uri, extra)| object(
            vec![
                ("type", Some(json!("ref/resource"))),
                ("uri", Some(json!(uri)))
            ],
            extra
        )),
        ("[a-z]{3,8}", arb_extra()).prop_map(|(kind, extra)| object(
            vec![("type", Some(json!(format!("ref/{kind}"))))],
            extra
        )),
    ]
}

fn arb_content() -> impl Strategy<Value = Value> {
    prop_oneof![
        (text(), opt(arb_annotations()), arb_extra()).prop_map(|(t, annotations, extra)| object(
            vec![
                ("type", Some(json!("text"))),
                ("text", Some(json!(t))),
                ("annotations", annotations)
            ],
            extra
        )),
        (text(), text()).prop_map(|(d, m)| json!({"type": "image", "data": d, "mimeType": m})),
        (text(), text()).prop_map(|(u, n)| json!({"type": "resource_link", "uri": u, "name": n})),
        (text(), text())
            .prop_map(|(u, t)| json!({"type": "resource", "resource": {"uri": u, "text": t}})),
        ("[a-z]{3,8}", arb_json())
            .prop_map(|(k, v)| json!({"type": format!("future-{k}"), "payload": v})),
    ]
}

fn arb_resource() -> impl Strategy<Value = Value> {
    (text(), text(), opt(text()), opt(any::<u32>()), arb_extra()).prop_map(
        |(uri, name, mime, size, extra)| {
            object(
                vec![
                    ("uri", Some(json!(uri))),
                    ("name", Some(json!(name))),
                    ("mimeType", mime.map(Value::from)),
                    ("size", size.map(Value::from)),
                ],
                extra,
            )
        },
    )
}

fn arb_prompt() -> impl Strategy<Value = Value> {
    (
        text(),
        opt(proptest::collection::vec(
            (text(), opt(any::<bool>())),
            0..3,
        )),
        arb_extra(),
    )
        .prop_map(|(name, args, extra)| {
            let args = args.map(|a| {
                Value::from(
                    a.into_iter()
                        .map(|(n, r)| {
                            object(
                                vec![("name", Some(json!(n))), ("required", r.map(Value::from))],
                                Map::new(),
                            )
                        })
                        .collect::<Vec<_>>(),
                )
            });
            object(
                vec![("name", Some(json!(name))), ("arguments", args)],
                extra,
            )
        })
}

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    json: &Value,
) -> Result<(), TestCaseError> {
    let value: T = serde_json::from_value(json.clone())
        .map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
    let again = serde_json::to_value(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&again, json);
    let back: T = serde_json::from_value(again).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(back, value);
    Ok(())
}

proptest! {
    #[test]
    fn tools(tool in arb_tool()) { round_trip::<Tool>(&tool)?; }

    #[test]
    fn tool_lists(tools in proptest::collection::vec(arb_tool(), 0..4), cursor in opt(text()), ttl in opt(any::<i32>()), extra in arb_extra()) {
        let list = object(vec![("tools", Some(Value::from(tools))), ("nextCursor", cursor.map(Value::from)), ("ttlMs", ttl.map(Value::from))], extra);
        round_trip::<ListToolsResult>(&list)?;
    }

    #[test]
    fn content_blocks(block in arb_content()) { round_trip::<ContentBlock>(&block)?; }

    #[test]
    fn call_tool_results(content in proptest::collection::vec(arb_content(), 0..3), structured in opt(arb_json()), is_error in opt(any::<bool>()), extra in arb_extra()) {
        let result = object(vec![("content", Some(Value::from(content))), ("structuredContent", structured), ("isError", is_error.map(Value::from))], extra);
        round_trip::<CallToolResult>(&result)?;
    }

    #[test]
    fn resources_and_templates(resource in arb_resource(), name in text(), template in text()) {
        round_trip::<Resource>(&resource)?;
        round_trip::<ResourceTemplate>(&json!({"uriTemplate": template, "name": name}))?;
        round_trip::<ListResourcesResult>(&json!({"resources": [resource]}))?;
    }

    #[test]
    fn prompts(prompt in arb_prompt(), role in prop_oneof![Just("user"), Just("assistant"), Just("narrator")], content in arb_content()) {
        round_trip::<Prompt>(&prompt)?;
        round_trip::<GetPromptResult>(&json!({"messages": [{"role": role, "content": content}]}))?;
    }

    #[test]
    fn sampling(
        messages in proptest::collection::vec(arb_sampling_message(), 0..3),
        hint in opt(text()),
        priority in opt(0u32..=10),
        context in opt(prop_oneof![Just("none"), Just("thisServer"), Just("elsewhere")]),
        temperature in opt(0u32..=20),
        max_tokens in any::<u32>(),
        stops in opt(proptest::collection::vec(text(), 0..2)),
        metadata in opt(arb_extra()),
        tools in opt(proptest::collection::vec(arb_tool(), 0..2)),
        choice in opt(prop_oneof![Just("auto"), Just("required"), Just("none"), Just("any")]),
        extra in arb_extra(),
        content in arb_sampling_content(),
        stop in opt(prop_oneof![Just("endTurn"), Just("toolUse"), Just("vendorStop")]),
    ) {
        let preferences = (hint.is_some() || priority.is_some()).then(|| object(vec![
            ("hints", hint.map(|name| json!([{"name": name}]))),
            ("costPriority", priority.map(|p| json!(f64::from(p) / 10.0))),
        ], Map::new()));
        let params = object(vec![
            ("messages", Some(Value::from(messages))),
            ("modelPreferences", preferences),
            ("includeContext", context.map(Value::from)),
            ("temperature", temperature.map(|t| json!(f64::from(t) / 10.0))),
            ("maxTokens", Some(json!(max_tokens))),
            ("stopSequences", stops.map(Value::from)),
            ("metadata", metadata.map(Value::Object)),
            ("tools", tools.map(Value::from)),
            ("toolChoice", choice.map(|mode| json!({"mode": mode}))),
        ], extra.clone());
        round_trip::<CreateMessageParams>(&params)?;
        let result = object(vec![
            ("role", Some(json!("assistant"))),
            ("content", Some(content)),
            ("model", Some(json!("m"))),
            ("stopReason", stop.map(Value::from)),
        ], extra);
        round_trip::<CreateMessageResult>(&result)?;
    }

    #[test]
    fn completions(
        reference in arb_completion_reference(),
        name in text(),
        value in text(),
        context in opt(proptest::collection::btree_map("[a-z]{1,6}", text(), 0..3)),
        values in proptest::collection::vec(text(), 0..4),
        total in opt(any::<u32>()),
        more in opt(any::<bool>()),
        extra in arb_extra(),
    ) {
        let params = object(vec![
            ("ref", Some(reference)),
            ("argument", Some(json!({"name": name, "value": value}))),
            ("context", context.map(|c| json!({"arguments": c}))),
        ], extra.clone());
        round_trip::<CompleteParams>(&params)?;
        let completion = object(vec![
            ("values", Some(Value::from(values))),
            ("total", total.map(Value::from)),
            ("hasMore", more.map(Value::from)),
        ], Map::new());
        round_trip::<CompleteResult>(&object(vec![("completion", Some(completion))], extra))?;
    }

    #[test]
    fn handshakes(name in text(), version in text(), instructions in opt(text()), extra in arb_extra(), ttl in opt(any::<i32>())) {
        let info = json!({"name": name, "version": version});
        round_trip::<Implementation>(&info)?;
        round_trip::<InitializeResult>(&object(vec![
            ("protocolVersion", Some(json!("2025-11-25"))),
            ("capabilities", Some(json!({"tools": {"listChanged": true}, "resources": {"subscribe": true}, "logging": {}, "x-cap": 1}))),
            ("serverInfo", Some(info.clone())),
            ("instructions", instructions.map(Value::from)),
        ], extra.clone()))?;
        round_trip::<InitializeParams>(&json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {"applyDefaults": true}}, "roots": {}}, "clientInfo": info}))?;
        round_trip::<DiscoverResult>(&object(vec![
            ("supportedVersions", Some(json!(["2026-07-28"]))),
            ("capabilities", Some(json!({}))),
            ("ttlMs", ttl.map(Value::from)),
            ("cacheScope", Some(json!("private"))),
            ("resultType", Some(json!("complete"))),
        ], extra))?;
    }

    #[test]
    fn notifications(level in prop_oneof![Just("info"), Just("emergency"), Just("verbose")], data in arb_json(), token in prop_oneof![any::<i64>().prop_map(Value::from), text().prop_map(Value::from)], progress in 0u32..1000) {
        round_trip::<LoggingMessageParams>(&json!({"level": level, "logger": "l", "data": data}))?;
        round_trip::<ProgressParams>(&json!({"progressToken": token, "progress": f64::from(progress), "total": 1000.0}))?;
        round_trip::<CancelledParams>(&json!({"requestId": 3, "reason": "timeout"}))?;
        round_trip::<ElicitResult>(&json!({"action": "accept", "content": {"x": data}}))?;
    }

    #[test]
    fn messages(id in prop_oneof![any::<i64>().prop_map(RequestId::from), text().prop_map(RequestId::from)], method in "[a-z/_]{1,20}", params in opt(arb_json()), result in arb_json()) {
        let params = params.map(|p| json!({"p": p}));
        for message in [
            Message::Request(Request { id: id.clone(), method: method.clone(), params: params.clone().map(RawJson::from) }),
            Message::Notification(Notification { method, params }),
            Message::Response(Response { id, result: RawJson::from_value(&result) }),
        ] {
            let bytes = message.to_vec();
            prop_assert!(!bytes.contains(&b'\n'));
            // The hand-written writer writes what serde writes.
            prop_assert_eq!(&bytes, &serde_json::to_vec(&message).unwrap());
            prop_assert_eq!(Message::from_slice(&bytes).unwrap(), message);
        }
    }
}
