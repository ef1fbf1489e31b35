//! The messages the benchmarks move: tools with realistic schemas, a `tools/list`
//! result of any size, and a stream of small messages.
//!
//! Everything is built by formatting text, never through a `serde_json::Value`,
//! so building a 40 MB message costs 40 MB and nothing more.

use std::fmt::Write as _;

/// One tool definition, compact JSON: a name, title, description, an input
/// schema with three properties and annotations (about 560 bytes).
pub fn tool(index: usize) -> String {
    let description =
        "Does a thing with the given parameters and returns a structured result. ".repeat(3);
    format!(
        concat!(
            r#"{{"name":"tool_{index}","title":"Tool number {index}","description":"{description}","#,
            r#""inputSchema":{{"type":"object","properties":{{"path":{{"type":"string","description":"A path"}},"#,
            r#""depth":{{"type":"integer","minimum":0}},"flags":{{"type":"array","items":{{"type":"string","enum":["a","b","c"]}}}}}},"#,
            r#""required":["path"]}},"annotations":{{"readOnlyHint":true,"openWorldHint":false}}}}"#
        ),
        index = index,
        description = description.trim_end(),
    )
}

/// A `tools/list` result object with `count` tools: `{"tools":[…]}`.
pub fn tools_list_result(count: usize) -> String {
    let mut out = String::from(r#"{"tools":["#);
    for index in 0..count {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&tool(index));
    }
    out.push_str("]}");
    out
}

/// One `tools/list` response line (with its newline) of at least `target` bytes.
pub fn big_tools_list_line(target: usize) -> String {
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":["#;
    const TAIL: &str = "]}}\n";
    let one = tool(0).len() + 1;
    // Reserve the whole line at once: growing by doubling would touch pages a
    // peak-memory measurement would then count.
    let mut out = String::with_capacity(HEAD.len() + target + 2 * one + TAIL.len());
    out.push_str(HEAD);
    let mut index = 0;
    while out.len() < target {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&tool(index));
        index += 1;
    }
    out.push_str(TAIL);
    out
}

/// `count` small messages as newline-delimited JSON: `ping` requests and short
/// tool results, alternating.
pub fn small_messages(count: usize) -> String {
    let mut out = String::with_capacity(count * 80);
    for id in 0..count {
        // Writing to a String cannot fail.
        let _ = if id % 2 == 0 {
            writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
        } else {
            writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"ok {id}"}}]}}}}"#
            )
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn tool_is_valid_json_with_a_schema() {
        let value: Value = serde_json::from_str(&tool(7)).unwrap();
        assert_eq!(value["name"], "tool_7");
        assert_eq!(value["inputSchema"]["type"], "object");
        assert!(!value["description"].as_str().unwrap().ends_with(' '));
    }

    #[test]
    fn tools_list_result_has_every_tool() {
        let value: Value = serde_json::from_str(&tools_list_result(50)).unwrap();
        assert_eq!(value["tools"].as_array().unwrap().len(), 50);
        let empty: Value = serde_json::from_str(&tools_list_result(0)).unwrap();
        assert_eq!(empty["tools"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn big_line_is_one_response_of_at_least_the_target() {
        let line = big_tools_list_line(100_000);
        assert!(line.len() >= 100_000);
        assert!(line.len() < 101_000);
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.ends_with('\n'));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert!(value["result"]["tools"].as_array().unwrap().len() > 100);
    }

    #[test]
    fn small_messages_alternate_pings_and_results() {
        let text = small_messages(4);
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["method"], "ping");
        assert_eq!(lines[1]["result"]["content"][0]["text"], "ok 1");
        assert_eq!(lines[3]["id"], 3);
    }
}
