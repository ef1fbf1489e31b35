//! A tool as a capability manifest: its id, description, input and output
//! types, how to reach it, and its domains and categories, in RTFS or JSON.
//! The JSON form also keeps the tool's own schemas and annotations, which
//! the pins are computed from. Every text that came from the server or the
//! config passes through the server's masker.

use mcpdisco_protocol::types::Tool;
use serde_json::{Value, json};

use crate::infer;
use crate::types::{TypeExpr, write_string};

/// The version given to a manifest made from discovery.
pub const MANIFEST_VERSION: &str = "1.0.0";

/// How to reach a capability.
#[derive(Debug, Clone, PartialEq)]
pub enum Provider {
    /// An HTTP server (its URL, credentials masked).
    Http {
        /// The URL as safe to show.
        url: String,
    },
    /// A stdio server (flag values that look like secrets masked).
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A third-party transport.
    Other {
        /// Its `type`.
        transport: String,
    },
}

/// One tool as a capability.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// `mcp.<server>.<tool>`.
    pub id: String,
    /// The server's name in the config.
    pub server: String,
    /// The tool's name on its server.
    pub tool: String,
    /// The manifest's version.
    pub version: String,
    /// The tool's description.
    pub description: Option<String>,
    /// Its input type.
    pub input: TypeExpr,
    /// Its output type, when it declares one.
    pub output: Option<TypeExpr>,
    /// How to reach it.
    pub provider: Provider,
    /// What it is about.
    pub domains: Vec<String>,
    /// What it does.
    pub categories: Vec<String>,
    /// The tool as its server listed it (masked): name, description,
    /// schemas, annotations.
    pub tool_definition: Tool,
}

impl Manifest {
    /// The manifest of `tool` (as listed by the server named `server`,
    /// reached through `provider`). `tool` is taken as it is: mask what it
    /// may carry first.
    pub fn of(server: &str, provider: Provider, tool: &Tool) -> Manifest {
        let input = tool
            .input_schema
            .to_value()
            .map_or(TypeExpr::Any, |schema| TypeExpr::from_schema(&schema));
        let output = tool.output_schema.as_ref().map(|schema| {
            schema
                .to_value()
                .map_or(TypeExpr::Any, |schema| TypeExpr::from_schema(&schema))
        });
        let hints = tool.annotations.as_ref();
        Manifest {
            id: format!("mcp.{}.{}", keyword_part(server), keyword_part(&tool.name)),
            server: server.to_owned(),
            domains: infer::infer_domains(server, &tool.name),
            categories: infer::infer_category_with(
                &tool.name,
                hints.and_then(|h| h.read_only_hint),
                hints.and_then(|h| h.destructive_hint),
            ),
            tool: tool.name.clone(),
            version: MANIFEST_VERSION.to_owned(),
            description: tool.description.clone(),
            input,
            output,
            provider,
            tool_definition: tool.clone(),
        }
    }

    /// The RTFS form: `(capability :mcp.github.list_issues :version "1.0.0" …)`.
    pub fn to_rtfs(&self) -> String {
        let mut out = format!("(capability :{}\n  :version ", self.id);
        write_string(&mut out, &self.version);
        if let Some(description) = &self.description {
            out.push_str("\n  :description ");
            write_string(&mut out, description);
        }
        out.push_str("\n  :input-schema ");
        out.push_str(&self.input.to_rtfs());
        if let Some(output) = &self.output {
            out.push_str("\n  :output-schema ");
            out.push_str(&output.to_rtfs());
        }
        out.push_str("\n  :provider {:type :mcp ");
        match &self.provider {
            Provider::Http { url } => {
                out.push_str(":server-url ");
                write_string(&mut out, url);
            }
            Provider::Stdio { command, args } => {
                out.push_str(":command ");
                write_string(&mut out, command);
                out.push_str(" :args [");
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    write_string(&mut out, arg);
                }
                out.push(']');
            }
            Provider::Other { transport } => {
                out.push_str(":transport ");
                write_string(&mut out, transport);
            }
        }
        out.push_str(" :tool-name ");
        write_string(&mut out, &self.tool);
        out.push_str("}\n  :domains ");
        write_strings(&mut out, &self.domains);
        out.push_str("\n  :categories ");
        write_strings(&mut out, &self.categories);
        out.push_str(")\n");
        out
    }

    /// The JSON form: the same fields, plus the tool's own definition.
    pub fn to_json(&self) -> Value {
        let provider = match &self.provider {
            Provider::Http { url } => {
                json!({"type": "mcp", "serverUrl": url, "toolName": self.tool})
            }
            Provider::Stdio { command, args } => {
                json!({"type": "mcp", "command": command, "args": args, "toolName": self.tool})
            }
            Provider::Other { transport } => {
                json!({"type": "mcp", "transport": transport, "toolName": self.tool})
            }
        };
        json!({
            "id": self.id,
            "server": self.server,
            "tool": self.tool,
            "version": self.version,
            "description": self.description,
            "inputSchema": self.input.to_rtfs(),
            "outputSchema": self.output.as_ref().map(TypeExpr::to_rtfs),
            "provider": provider,
            "domains": self.domains,
            "categories": self.categories,
            "definition": self.tool_definition,
        })
    }
}

/// A name as part of a keyword: characters RTFS keywords cannot hold become `_`.
fn keyword_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_?!*+<>=".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write_strings(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_string(out, item);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_issue_example() {
        let manifest = Manifest::of(
            "github",
            Provider::Http {
                url: "https://api.github.com/mcp".into(),
            },
            &tool(json!({
                "name": "list_issues",
                "description": "List issues in a GitHub repository",
                "inputSchema": {"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"state":{"type":"string","enum":["open","closed","all"]}},"required":["owner","repo"]},
                "outputSchema": {"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"title":{"type":"string"},"state":{"type":"string"}},"required":["id","title","state"]}}
            })),
        );
        assert_eq!(
            manifest.to_rtfs(),
            "(capability :mcp.github.list_issues\n  :version \"1.0.0\"\n  :description \"List issues in a GitHub repository\"\n  :input-schema [:map [:owner :string] [:repo :string] [:state {:optional true} [:enum \"open\" \"closed\" \"all\"]]]\n  :output-schema [:vector [:map [:id :int] [:title :string] [:state :string]]]\n  :provider {:type :mcp :server-url \"https://api.github.com/mcp\" :tool-name \"list_issues\"}\n  :domains [\"github\" \"github.issues\"]\n  :categories [\"crud.read\"])\n"
        );
        let json = manifest.to_json();
        assert_eq!(
            json["definition"]["inputSchema"]["required"],
            json!(["owner", "repo"])
        );
    }

    #[test]
    fn stdio_provider_and_strings_are_escaped() {
        let provider = Provider::Stdio {
            command: "npx".into(),
            args: ["-y", "server-fs", "--token", "***"]
                .map(String::from)
                .to_vec(),
        };
        let manifest = Manifest::of(
            "fs",
            provider,
            &tool(
                json!({"name": "read \"file\"", "description": "line one\nline two", "inputSchema": {}}),
            ),
        );
        let rtfs = manifest.to_rtfs();
        assert!(
            rtfs.starts_with("(capability :mcp.fs.read__file_\n"),
            "{rtfs}"
        );
        assert!(
            rtfs.contains(":description \"line one\\nline two\""),
            "{rtfs}"
        );
        assert!(
            rtfs.contains(":command \"npx\" :args [\"-y\" \"server-fs\" \"--token\" \"***\"]"),
            "{rtfs}"
        );
        assert!(rtfs.contains(":tool-name \"read \\\"file\\\"\""), "{rtfs}");
    }
}
