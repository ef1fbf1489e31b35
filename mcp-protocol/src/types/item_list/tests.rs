use std::cell::Cell as Counter;

use serde_json::json;

use super::*;
use crate::types::{ListToolsResult, Tool};

thread_local! {
    /// How many `Named` values this thread has decoded.
    static DECODED: Counter<usize> = const { Counter::new(0) };
}

fn decoded() -> usize {
    DECODED.with(Counter::get)
}

/// An item that counts its decodings.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Named {
    name: String,
}

impl<'de> Deserialize<'de> for Named {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Plain {
            name: String,
        }
        let plain = Plain::deserialize(deserializer)?;
        DECODED.with(|count| count.set(count.get() + 1));
        Ok(Named { name: plain.name })
    }
}

fn raw(text: &str) -> RawJson {
    RawJson::parse(text.to_owned()).unwrap()
}

fn list(texts: &[&str]) -> ItemList<Named> {
    texts.iter().map(|text| raw(text)).collect()
}

fn names<'a>(items: impl Iterator<Item = &'a Named>) -> Vec<&'a str> {
    items.map(|item| item.name.as_str()).collect()
}

#[test]
fn an_item_is_decoded_when_read_and_only_once() {
    let before = decoded();
    let items = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#]);
    assert_eq!(items.len(), 2);
    assert_eq!(items.raw()[1].as_str(), r#"{"name":"b"}"#);
    assert_eq!(decoded() - before, 0, "made and read raw: nothing decoded");
    assert_eq!(items.get(1).unwrap().unwrap().name, "b");
    assert_eq!(decoded() - before, 1, "one item read, one decoded");
    assert_eq!(names(items.valid()), ["a", "b"]);
    assert_eq!(names(items.valid()), ["a", "b"]);
    assert_eq!(
        decoded() - before,
        2,
        "each decoded once, however often read"
    );
    let copy = items.clone();
    assert_eq!(names(copy.valid()), ["a", "b"]);
    let owned = copy.into_valid();
    assert_eq!(owned[0].name, "a");
    assert_eq!(decoded() - before, 2, "a clone shares what was decoded");
    assert!(items.get(2).is_none());
}

#[test]
fn a_malformed_item_is_reported_with_its_place_and_reason_and_kept_as_sent() {
    let items = list(&[
        r#"{"name":"a"}"#,
        r#"{"name": 7, "uri": "x://odd"}"#,
        r#"{"name":"c"}"#,
    ]);
    let read: Vec<Result<&Named, MalformedItem>> = items.iter().collect();
    assert_eq!(read.len(), 3);
    let error = read[1].as_ref().unwrap_err();
    assert_eq!(error.index(), 1);
    assert_eq!(error.raw().as_str(), r#"{"name": 7, "uri": "x://odd"}"#);
    assert!(error.reason().contains("invalid type"), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("item 1 (\"x://odd\") of the list is malformed: "),
        "{error}"
    );
    assert_eq!(names(items.valid()), ["a", "c"]);
    let malformed: Vec<usize> = items.malformed().map(|item| item.index()).collect();
    assert_eq!(malformed, [1]);
    let owned: Vec<Result<Named, MalformedItem>> = items.clone().into_iter().collect();
    assert_eq!(owned[1].as_ref().unwrap_err().index(), 1);
    assert_eq!(items.into_valid().len(), 2);

    fn first_names(items: &ItemList<Named>) -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let mut names = Vec::new();
        for item in items {
            names.push(item?.name.clone());
        }
        Ok(names)
    }
    let good = list(&[r#"{"name":"a"}"#]);
    assert_eq!(first_names(&good).unwrap(), ["a"]);
    let bad = list(&[r#"{"name":"a"}"#, "[1]"]);
    let error = first_names(&bad).unwrap_err();
    assert!(
        error.to_string().starts_with("item 1 of the list"),
        "{error}"
    );
}

#[test]
fn owned_items_are_decoded_once_each_and_moved_when_not_shared() {
    let before = decoded();
    let items = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#]);
    assert_eq!(items.get(0).unwrap().unwrap().name, "a");
    let owned: Vec<Named> = items.into_iter().map(Result::unwrap).collect();
    assert_eq!(names(owned.iter()), ["a", "b"]);
    assert_eq!(
        decoded() - before,
        2,
        "the one read before is not read again"
    );
    let back = items_of_iterating_backwards();
    assert_eq!(back, ["b", "a"]);
}

fn items_of_iterating_backwards() -> Vec<String> {
    let items = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#]);
    let iter = items.iter();
    assert_eq!(iter.len(), 2);
    iter.rev().map(|item| item.unwrap().name.clone()).collect()
}

#[test]
fn serde_writes_the_items_as_sent_and_reads_them_without_decoding() {
    let text = r#"[{"name" : "a",  "x": 1.50},{"name":"\u0062"},[true]]"#;
    let before = decoded();
    let items: ItemList<Named> = serde_json::from_str(text).unwrap();
    assert_eq!(decoded() - before, 0);
    assert_eq!(items.len(), 3);
    assert_eq!(names(items.valid()), ["a", "b"]);
    assert_eq!(serde_json::to_string(&items).unwrap(), text);
    let from_value: ItemList<Named> = serde_json::from_value(json!([{"name": "v"}])).unwrap();
    assert_eq!(from_value.raw()[0].as_str(), r#"{"name":"v"}"#);
    assert!(serde_json::from_str::<ItemList<Named>>("{}").is_err());
}

#[test]
fn clones_and_slices_share_the_text() {
    let items = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#, r#"{"name":"c"}"#]);
    let copy = items.clone();
    assert_eq!(copy, items);
    assert_eq!(
        copy.raw()[0].as_bytes().as_ptr(),
        items.raw()[0].as_bytes().as_ptr()
    );
    let before = decoded();
    assert_eq!(names(items.valid()), ["a", "b", "c"]);
    let page = items.slice(1..9);
    assert_eq!(names(page.valid()), ["b", "c"]);
    assert!(items.slice(5..9).is_empty());
    assert_eq!(decoded() - before, 3, "a page keeps what was decoded");
    assert_eq!(
        format!("{page:?}"),
        r#"[RawJson({"name":"b"}), RawJson({"name":"c"})]"#
    );
}

#[test]
fn kept_items_stay_decoded_through_retain_and_push() {
    let mut items = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#, r#"{"name":"c"}"#]);
    let before = decoded();
    assert_eq!(items.valid().count(), 3);
    items.retain_raw(|item| !item.as_str().contains("\"b\""));
    items.push_raw(raw(r#"{"name":"d"}"#));
    assert_eq!(names(items.valid()), ["a", "c", "d"]);
    assert_eq!(decoded() - before, 4, "only the pushed item is new");
    let mut fresh = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#]);
    fresh.retain_raw(|item| item.as_str().contains("\"b\""));
    fresh.push_raw(raw("1"));
    assert_eq!(names(fresh.valid()), ["b"]);
    assert_eq!(fresh.malformed().count(), 1);
}

#[test]
fn encoded_values_are_text_and_already_decoded() {
    let before = decoded();
    let items = ItemList::encode([Named { name: "a".into() }, Named { name: "b".into() }]).unwrap();
    assert_eq!(items.raw()[1].as_str(), r#"{"name":"b"}"#);
    assert_eq!(names(items.valid()), ["a", "b"]);
    assert_eq!(decoded() - before, 0);
    assert_eq!(
        serde_json::to_string(&items).unwrap(),
        r#"[{"name":"a"},{"name":"b"}]"#
    );
}

#[test]
fn a_list_result_keeps_its_items_lazily_and_writes_them_back_exactly() {
    let text = r#"{"tools":[{"name":"add","inputSchema":{"type":"object"}},{"name":"bad"}],"nextCursor":"c"}"#;
    let result: ListToolsResult = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&result).unwrap(), text);
    let tools: Vec<&Tool> = result.tools.valid().collect();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "add");
    let bad = result.tools.malformed().next().unwrap();
    assert!(bad.reason().contains("inputSchema"), "{bad}");
    assert_eq!(serde_json::to_string(&result).unwrap(), text);
}

#[test]
fn a_list_shared_with_a_clone_keeps_what_was_decoded_through_retain_and_push() {
    let mut items = list(&[r#"{"name":"a"}"#, r#"{"name":"b"}"#, r#"{"name":"c"}"#]);
    assert_eq!(items.valid().count(), 3);
    let clone = items.clone();
    let before = decoded();
    items.retain_raw(|item| !item.as_str().contains("\"a\""));
    items.push_raw(raw(r#"{"name":"d"}"#));
    assert_eq!(names(items.valid()), ["b", "c", "d"]);
    assert_eq!(names(clone.valid()), ["a", "b", "c"]);
    assert_eq!(decoded() - before, 1, "only the pushed item is new");
}
