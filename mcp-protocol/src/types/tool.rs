//! Tools: definitions, the name guidance, `tools/list` and `tools/call`.

use serde_json::{Map, Value};

use super::content::ContentBlock;
use super::extra::Extra;
use super::implementation::Icon;
use super::item_list::ItemList;
use super::lifecycle::CacheScope;
use crate::raw::RawJson;

super::extra::struct_with_extra! {
    /// Hints about a tool's behaviour. They are hints: do not trust them from untrusted servers.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ToolAnnotations {
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// The tool does not change its environment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub read_only_hint: Option<bool>,
        /// The tool may destroy things.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub destructive_hint: Option<bool>,
        /// Calling it twice with the same arguments does nothing more.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub idempotent_hint: Option<bool>,
        /// The tool reaches an open world (the web).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub open_world_hint: Option<bool>,
    }
}

super::extra::struct_with_extra! {
    /// A tool definition, as listed by `tools/list`.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Tool {
        /// The name to call it by.
        pub name: String,
        /// A display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// What it does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub description: Option<String>,
        /// The JSON Schema of its arguments, kept as sent: never dereferenced,
        /// never reordered; `input_schema.to_value()` reads it.
        pub input_schema: RawJson,
        /// The JSON Schema of its structured output, kept as sent (2025-06-18).
        #[serde(
            default,
            deserialize_with = "super::present_field::present_raw",
            skip_serializing_if = "Option::is_none"
        )]
        pub output_schema: Option<RawJson>,
        /// Behaviour hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub annotations: Option<ToolAnnotations>,
        /// Icons (2025-11-25).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub icons: Option<Vec<Icon>>,
        /// How it runs (2025-11-25): whether it may run as a task.
        #[serde(
            default,
            deserialize_with = "super::present_field::present_typed",
            skip_serializing_if = "Option::is_none"
        )]
        pub execution: Option<ToolExecution>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::string_enum::open_string_enum!(
    /// Whether a tool may be called as a task (2025-11-25). Unknown values are kept.
    TaskSupport {
        /// Never as a task (the default).
        Forbidden => "forbidden",
        /// As a task or not, as the caller likes.
        Optional => "optional",
        /// Only as a task.
        Required => "required",
    }
);

super::extra::struct_with_extra! {
    /// How a tool runs (2025-11-25).
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct ToolExecution {
        /// Whether it may be called as a task (absent means `forbidden`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub task_support: Option<TaskSupport>,
    }
}

impl Tool {
    /// A tool called `name` whose arguments `input_schema` describes.
    pub fn new(name: impl Into<String>, input_schema: RawJson) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The name to show: `title`, else `annotations.title`, else `name`.
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }
}

/// Why a tool name falls outside the 2025-11-25 guidance (a SHOULD: warn, never reject).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolNameWarning {
    /// The name is empty.
    Empty,
    /// The name is longer than 128 characters.
    TooLong(usize),
    /// The name has characters outside `A-Za-z0-9_-.`.
    InvalidCharacters(Vec<char>),
}

impl std::fmt::Display for ToolNameWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolNameWarning::Empty => f.write_str("the name is empty"),
            ToolNameWarning::TooLong(len) => {
                write!(f, "the name has {len} characters, more than 128")
            }
            ToolNameWarning::InvalidCharacters(chars) => {
                write!(f, "the name has characters outside A-Za-z0-9_-.: {chars:?}")
            }
        }
    }
}

/// Checks a tool name against the 2025-11-25 guidance: 1 to 128 characters from `A-Za-z0-9_-.`.
pub fn check_tool_name(name: &str) -> Vec<ToolNameWarning> {
    let mut warnings = Vec::new();
    let len = name.chars().count();
    if len == 0 {
        warnings.push(ToolNameWarning::Empty);
    }
    if len > 128 {
        warnings.push(ToolNameWarning::TooLong(len));
    }
    let mut invalid: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .collect();
    invalid.dedup();
    if !invalid.is_empty() {
        warnings.push(ToolNameWarning::InvalidCharacters(invalid));
    }
    warnings
}

super::extra::struct_with_extra! {
    /// `tools/list` result.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct ListToolsResult {
        /// The tools of this page.
        pub tools: ItemList<Tool>,
        /// The cursor of the next page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub next_cursor: Option<String>,
        /// Freshness hint (2026-07-28).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttl_ms: Option<i64>,
        /// Cache scope (2026-07-28).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cache_scope: Option<CacheScope>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::item_list::impl_list_result!(ListToolsResult, tools, Tool);

super::extra::struct_with_extra! {
    /// `tools/call` params.
    #[derive(Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct CallToolParams {
        /// The tool.
        pub name: String,
        /// Its arguments: a JSON object, free as the tool's input schema says
        /// (an explicit `null` reads as none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub arguments: Option<Map<String, Value>>,
        /// Answers to the server's input requests (2026-07-28 retries).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub input_responses: Option<Extra>,
        /// The server's request state, echoed unchanged (2026-07-28 retries).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub request_state: Option<String>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

super::extra::struct_with_extra! {
    /// `tools/call` result. A tool failure is `isError: true`, not a protocol error.
    #[derive(Debug, Clone, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct CallToolResult {
        /// The unstructured result.
        #[serde(default)]
        pub content: Vec<ContentBlock>,
        /// The structured result (2025-06-18).
        #[serde(
            default,
            deserialize_with = "super::present_field::present",
            skip_serializing_if = "Option::is_none"
        )]
        pub structured_content: Option<Value>,
        /// Whether the tool failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_error: Option<bool>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        pub meta: Option<Extra>,
    }
}

impl CallToolResult {
    /// A result of `content` (no structured content, not an error).
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// Whether the tool reported a failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// Whether a raw `tools/call` result says `isError: true`, read without
    /// decoding the rest of it.
    pub fn is_error_of(result: &RawJson) -> bool {
        matches!(result.member::<bool>("isError"), Ok(Some(true)))
    }

    /// Whether a `tools/call` result as a `Value` says `isError: true`.
    pub fn is_error_value(result: &Value) -> bool {
        result.get("isError").and_then(Value::as_bool) == Some(true)
    }
}

impl CallToolParams {
    /// A call of tool `name` with `arguments` (a JSON object).
    pub fn new(name: impl Into<String>, arguments: Option<Map<String, Value>>) -> Self {
        Self {
            name: name.into(),
            arguments,
            input_responses: None,
            request_state: None,
            meta: None,
            extra: Extra::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn display_name_prefers_title_then_annotation_title() {
        let mut tool: Tool = serde_json::from_value(
            json!({"name": "n", "inputSchema": {"type": "object"}, "annotations": {"title": "A"}}),
        )
        .unwrap();
        assert_eq!(tool.display_name(), "A");
        tool.title = Some("T".into());
        assert_eq!(tool.display_name(), "T");
        tool.title = None;
        tool.annotations = None;
        assert_eq!(tool.display_name(), "n");
    }

    #[test]
    fn name_guidance_warns_but_never_rejects() {
        assert!(check_tool_name("get_weather-v2.1").is_empty());
        assert_eq!(check_tool_name(""), vec![ToolNameWarning::Empty]);
        assert_eq!(
            check_tool_name("a b/c"),
            vec![ToolNameWarning::InvalidCharacters(vec![' ', '/'])]
        );
        assert_eq!(
            check_tool_name(&"x".repeat(129)),
            vec![ToolNameWarning::TooLong(129)]
        );
    }

    #[test]
    fn one_malformed_tool_does_not_lose_the_others() {
        let raw = json!({"tools": [
            {"name": "good", "inputSchema": {"type": "object"}},
            {"name": "bad-enum", "inputSchema": {"type": "object", "properties": {"x": {"enum": [""]}}}, "annotations": {"readOnlyHint": "yes"}},
            {"name": "good2", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}, "x-vendor": 1}
        ], "nextCursor": "c"});
        let list: ListToolsResult = serde_json::from_value(raw.clone()).unwrap();
        let names: Vec<_> = list.tools.valid().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["good", "good2"]);
        let malformed: Vec<usize> = list.tools.malformed().map(|item| item.index()).collect();
        assert_eq!(malformed, [1]);
        assert_eq!(serde_json::to_value(&list).unwrap(), raw);
    }
}
