//! [`ToolIndex`]: BM25 over the words of each tool's fields, each field
//! weighted (a word of the name counts more than one of a parameter's
//! description), so one word found in a name beats the same word in a
//! long description.

use std::collections::HashMap;

use mcpdisco_protocol::schema::Schema;
use mcpdisco_protocol::types::Tool;
use serde_json::Value;

use super::tokenize::words;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// The most distinct query words a search looks up (the rest are ignored).
pub const MAX_QUERY_WORDS: usize = 64;

/// How much a word counts in each field of a tool.
#[derive(Debug, Clone, Copy)]
struct Weights;

impl Weights {
    const NAME: f32 = 3.0;
    const TITLE: f32 = 2.0;
    const PARAMETER_NAME: f32 = 1.5;
    const DESCRIPTION: f32 = 1.0;
    const PARAMETER_DESCRIPTION: f32 = 0.75;
}

/// One tool's weight of one word.
#[derive(Debug, Clone, Copy)]
struct Posting {
    tool: u32,
    frequency: f32,
}

/// A searchable set of tools, built once per catalog.
#[derive(Debug, Default)]
pub struct ToolIndex {
    tools: Vec<Tool>,
    /// Each tool's weighted length (sum of its words' weights).
    lengths: Vec<f32>,
    average_length: f32,
    postings: HashMap<String, Vec<Posting>>,
}

impl ToolIndex {
    /// The index of `tools` (under the names they are served by). Their
    /// name, title, description, and the names and descriptions of the
    /// top-level properties of their input schema are searched.
    pub fn build(tools: impl IntoIterator<Item = Tool>) -> Self {
        let mut index = Self::default();
        for tool in tools {
            let Ok(id) = u32::try_from(index.tools.len()) else {
                break;
            };
            let mut weights: HashMap<String, f32> = HashMap::new();
            for (text, weight) in fields(&tool) {
                for word in words(&text) {
                    *weights.entry(word).or_default() += weight;
                }
            }
            index.lengths.push(weights.values().sum());
            for (word, frequency) in weights {
                index.postings.entry(word).or_default().push(Posting {
                    tool: id,
                    frequency,
                });
            }
            index.tools.push(tool);
        }
        let total: f32 = index.lengths.iter().sum();
        index.average_length = if index.tools.is_empty() {
            0.0
        } else {
            total / index.tools.len() as f32
        };
        index
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether `query` has any word to search for (a query of only
    /// punctuation or spaces has none).
    pub fn is_searchable(query: &str) -> bool {
        !words(query).is_empty()
    }

    /// At most `limit` tools matching any word of `query`, best first
    /// (equal scores in the index's order). A query without words, or
    /// whose words no tool has, finds nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<&Tool> {
        let mut query_words = words(query);
        query_words.sort_unstable();
        query_words.dedup();
        query_words.truncate(MAX_QUERY_WORDS);
        let count = self.tools.len() as f32;
        let mut scores = vec![0.0_f32; self.tools.len()];
        for word in &query_words {
            let Some(postings) = self.postings.get(word) else {
                continue;
            };
            let found = postings.len() as f32;
            let rarity = (1.0 + (count - found + 0.5) / (found + 0.5)).ln();
            for posting in postings {
                let id = posting.tool as usize;
                let relative_length = self.lengths[id] / self.average_length.max(f32::EPSILON);
                let saturation = posting.frequency * (K1 + 1.0)
                    / (posting.frequency + K1 * (1.0 - B + B * relative_length));
                scores[id] += rarity * saturation;
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, score)| *score > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(id, _)| &self.tools[id])
            .collect()
    }
}

/// The searched texts of `tool`, each with its weight.
fn fields(tool: &Tool) -> Vec<(String, f32)> {
    let mut fields = vec![(tool.name.clone(), Weights::NAME)];
    let title = tool
        .title
        .as_ref()
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.as_ref()));
    if let Some(title) = title {
        fields.push((title.clone(), Weights::TITLE));
    }
    if let Some(description) = &tool.description {
        fields.push((description.clone(), Weights::DESCRIPTION));
    }
    if let Ok(schema) = tool.input_schema.to_value() {
        for (name, property) in Schema::new(&schema).properties() {
            fields.push((name.to_owned(), Weights::PARAMETER_NAME));
            if let Some(description) = property.keyword("description").and_then(Value::as_str) {
                fields.push((description.to_owned(), Weights::PARAMETER_DESCRIPTION));
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdisco_protocol::RawJson;
    use serde_json::json;

    fn tool(name: &str, description: &str, schema: Value) -> Tool {
        Tool {
            description: Some(description.to_owned()),
            ..Tool::new(name, RawJson::from_value(&schema))
        }
    }

    fn catalog() -> Vec<Tool> {
        vec![
            tool(
                "github__create_issue",
                "Creates an issue in a repository.",
                json!({"type": "object", "properties": {
                    "repo": {"type": "string", "description": "owner/name"},
                    "title": {"type": "string"}
                }}),
            ),
            tool(
                "github__list_pull_requests",
                "Lists the pull requests of a repository.",
                json!({"type": "object", "properties": {"repo": {"type": "string"}}}),
            ),
            tool(
                "weather__getForecast",
                "The forecast for a city.",
                json!({"type": "object", "properties": {
                    "city": {"type": "string", "description": "A city name, such as Paris"},
                    "days": {"type": "integer"}
                }}),
            ),
            tool(
                "files__read-file",
                "Reads a text file from disk.",
                json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            ),
        ]
    }

    fn names<'a>(found: &[&'a Tool]) -> Vec<&'a str> {
        found.iter().map(|tool| tool.name.as_str()).collect()
    }

    #[test]
    fn the_obvious_tool_ranks_first() {
        let index = ToolIndex::build(catalog());
        assert_eq!(
            names(&index.search("create an issue", 10))[0],
            "github__create_issue"
        );
        assert_eq!(
            names(&index.search("weather forecast", 10)),
            ["weather__getForecast"]
        );
        assert_eq!(names(&index.search("read file", 10))[0], "files__read-file");
        assert_eq!(
            names(&index.search("pull requests", 10))[0],
            "github__list_pull_requests"
        );
    }

    #[test]
    fn parameter_names_and_descriptions_are_searched() {
        let index = ToolIndex::build(catalog());
        assert_eq!(names(&index.search("Paris", 10)), ["weather__getForecast"]);
        assert_eq!(names(&index.search("days", 10)), ["weather__getForecast"]);
        assert_eq!(names(&index.search("owner", 10)), ["github__create_issue"]);
    }

    #[test]
    fn a_word_in_the_name_beats_the_same_word_in_a_description() {
        let index = ToolIndex::build(vec![
            tool(
                "a__describe",
                "Shows the repository",
                json!({"type": "object"}),
            ),
            tool("b__repository", "Shows it", json!({"type": "object"})),
        ]);
        assert_eq!(
            names(&index.search("repository", 10)),
            ["b__repository", "a__describe"]
        );
    }

    #[test]
    fn the_limit_cuts_the_best_first_list() {
        let index = ToolIndex::build(catalog());
        assert_eq!(index.search("repository", 10).len(), 2);
        assert_eq!(
            names(&index.search("repository", 1)),
            ["github__create_issue"]
        );
        assert!(index.search("repository", 0).is_empty());
    }

    #[test]
    fn a_query_without_words_or_matches_finds_nothing() {
        let index = ToolIndex::build(catalog());
        assert!(index.search("", 10).is_empty());
        assert!(index.search(" -- ", 10).is_empty());
        assert!(!ToolIndex::is_searchable(" -- "));
        assert!(ToolIndex::is_searchable("x"));
        assert!(index.search("nothing matches zzz", 10).is_empty());
        assert!(ToolIndex::build(Vec::new()).search("issue", 10).is_empty());
    }

    #[test]
    fn equal_scores_keep_the_index_order() {
        let index = ToolIndex::build(vec![
            tool("b__echo", "Echoes.", json!({})),
            tool("a__echo", "Echoes.", json!({})),
        ]);
        assert_eq!(names(&index.search("echo", 10)), ["b__echo", "a__echo"]);
    }
}
