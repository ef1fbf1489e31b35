//! Tool search (`serve --tool-search`): one `search_tools` query over the
//! BM25 index of 1,000 tools, the index built once beforehand as the gateway
//! builds it once per catalog. `cargo xtask bench` (case B5) reads the
//! median back and checks it against its target (under 5 ms).

use criterion::{Criterion, criterion_group, criterion_main};
use mcpdisco_gateway::serve::search::ToolIndex;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::types::Tool;
use serde_json::json;
use std::hint::black_box;

/// Servers, and tools of each: 1,000 tools.
const SERVERS: usize = 20;
const TOOLS_PER_SERVER: usize = 50;
/// Verbs and nouns the tools' names and descriptions are made of.
const VERBS: [&str; 10] = [
    "get", "list", "create", "update", "delete", "search", "read", "write", "send", "sync",
];
const NOUNS: [&str; 10] = [
    "issue",
    "file",
    "message",
    "user",
    "repository",
    "event",
    "invoice",
    "ticket",
    "page",
    "record",
];

/// 1,000 tools named `server_<s>__<verb>_<noun>_<n>`, each described in a
/// sentence, with two described parameters.
fn tools() -> Vec<Tool> {
    let mut tools = Vec::with_capacity(SERVERS * TOOLS_PER_SERVER);
    for server in 0..SERVERS {
        for i in 0..TOOLS_PER_SERVER {
            let verb = VERBS[i % VERBS.len()];
            let noun = NOUNS[(i / VERBS.len() + server) % NOUNS.len()];
            let schema = json!({"type": "object", "properties": {
                "id": {"type": "string", "description": format!("The {noun}'s identifier")},
                "pageSize": {"type": "integer", "description": "How many results per page"}
            }, "required": ["id"]});
            tools.push(Tool {
                description: Some(format!(
                    "{verb} a {noun} of service {server}. Returns the {noun} as JSON, with its fields and links."
                )),
                ..Tool::new(
                    format!("server_{server}__{verb}_{noun}_{i}"),
                    RawJson::from_value(&schema),
                )
            });
        }
    }
    tools
}

fn bench(c: &mut Criterion) {
    let index = ToolIndex::build(tools());
    assert_eq!(index.len(), SERVERS * TOOLS_PER_SERVER);
    let mut group = c.benchmark_group("tool search over 1000 tools");
    group.bench_function("search_tools, limit 10", |b| {
        b.iter(|| {
            black_box(
                index
                    .search(black_box("create an issue in a repository"), 10)
                    .len(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
