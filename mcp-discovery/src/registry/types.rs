//! The registry's documents, as its OpenAPI describes them (`ServerList`,
//! `ServerResponse`, and the `server.json` `ServerDetail`). Unknown fields
//! are ignored; every optional field may be missing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A `server.json`: what a server is and how to run or reach it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerJson {
    /// The reverse-DNS name, such as `io.github.user/weather`.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Its display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// Its homepage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Its source repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<Repository>,
    /// Packages that run it locally.
    #[serde(default)]
    pub packages: Vec<Package>,
    /// Endpoints where it already runs.
    #[serde(default)]
    pub remotes: Vec<Remote>,
}

/// Where a server's source is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repository {
    /// The repository URL.
    #[serde(default)]
    pub url: String,
    /// The forge (`github`).
    #[serde(default)]
    pub source: String,
}

/// One way to run a server locally.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb`, …
    pub registry_type: String,
    /// The package registry, when not the usual one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_base_url: Option<String>,
    /// The package name, image, or (for `mcpb`) download URL.
    pub identifier: String,
    /// The exact version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The SHA-256 of the file (required for `mcpb`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sha256: Option<String>,
    /// The runtime to use: `npx`, `uvx`, `docker`, `dnx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_hint: Option<String>,
    /// How to talk to it once it runs.
    #[serde(default)]
    pub transport: Transport,
    /// Arguments for the runtime (before the package).
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    /// Arguments for the package (after it).
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    /// Its environment.
    #[serde(default)]
    pub environment_variables: Vec<KeyValueInput>,
}

/// A transport: `stdio`, or `streamable-http` / `sse` at a URL template.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transport {
    /// `stdio`, `streamable-http` or `sse`.
    #[serde(rename = "type", default = "stdio")]
    pub kind: String,
    /// The URL template (HTTP transports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Headers to send (HTTP transports).
    #[serde(default)]
    pub headers: Vec<KeyValueInput>,
}

fn stdio() -> String {
    "stdio".to_owned()
}

/// A remote endpoint, with the variables of its URL template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remote {
    /// `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The URL template.
    pub url: String,
    /// Headers to send.
    #[serde(default)]
    pub headers: Vec<KeyValueInput>,
    /// The variables `{name}` of the URL template.
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}

/// A value the user may have to give.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default)]
    pub is_required: bool,
    /// Whether it is a secret (a token, a password).
    #[serde(default)]
    pub is_secret: bool,
    /// The fixed value, which may hold `{variable}` references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The value when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// An example, for prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// `string`, `number`, `boolean` or `filepath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The variables of `value`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Input>,
}

/// A named value: an environment variable or a header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyValueInput {
    /// The variable's or header's name.
    pub name: String,
    /// Its value and how to get it.
    #[serde(flatten)]
    pub input: Input,
}

/// A command-line argument.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `positional` or `named`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The flag, with its dashes (named arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A label for a positional argument's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_hint: Option<String>,
    /// Whether it may be given many times.
    #[serde(default)]
    pub is_repeated: bool,
    /// Its value and how to get it.
    #[serde(flatten)]
    pub input: Input,
}

/// The registry's own data about an entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Official {
    /// `active`, `deprecated` or `deleted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why, for a deprecated or deleted entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// When it last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Whether it is the latest version.
    #[serde(default)]
    pub is_latest: bool,
}

impl Official {
    /// Whether the entry is active (an entry without a status counts as active).
    pub fn is_active(&self) -> bool {
        self.status
            .as_deref()
            .is_none_or(|status| status == "active")
    }
}

/// The key of the registry's metadata in `_meta`.
pub const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

/// One entry of the registry: a `server.json` and the registry's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegistryEntry {
    /// The server.
    pub server: ServerJson,
    /// The registry's metadata (`_meta["io.modelcontextprotocol.registry/official"]`).
    #[serde(default)]
    pub official: Official,
}

impl RegistryEntry {
    /// Reads a `ServerResponse` (`{"server": …, "_meta": {…}}`).
    pub fn from_response(value: &Value) -> Result<Self, String> {
        let server = value
            .get("server")
            .ok_or_else(|| "no \"server\" object".to_owned())?;
        let server: ServerJson =
            serde_json::from_value(server.clone()).map_err(|error| error.to_string())?;
        let official = value
            .get("_meta")
            .and_then(|meta| meta.get(OFFICIAL_META))
            .and_then(|official| serde_json::from_value(official.clone()).ok())
            .unwrap_or_default();
        Ok(Self { server, official })
    }
}
