//! A server entry as hosts write it: the union of every host's fields
//! (after [`shape`](super::shape) made the entry ours), as a serde model read
//! leniently. Every field is a [`Field`], which takes any value: one of
//! another type is kept as [`Field::Mistyped`] rather than failing the whole
//! entry, so a reader can report every mistyped field, and every unknown one
//! (`unknown`), and still read the rest.

use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value};

use super::json::kind_of;

/// One field as written.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Field<T> {
    /// Not in the entry.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// Of the expected type.
    Given(T),
    /// Of another type: what was found ("a number", "an object", …).
    Mistyped(&'static str),
}

impl<T> Field<T> {
    /// The value when given, `None` when absent or null, `Err(found)` when mistyped.
    pub fn given(self) -> Result<Option<T>, &'static str> {
        match self {
            Self::Absent | Self::Null => Ok(None),
            Self::Given(value) => Ok(Some(value)),
            Self::Mistyped(found) => Err(found),
        }
    }

    /// Whether the entry has the field, `null` or not.
    pub fn is_written(&self) -> bool {
        !matches!(self, Self::Absent)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.is_null() {
            return Ok(Self::Null);
        }
        let found = kind_of(&value);
        Ok(T::deserialize(value).map_or(Self::Mistyped(found), Self::Given))
    }
}

/// Text where hosts write text: a string, or a number or boolean taken as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(text) => Ok(Self(text)),
            Value::Number(number) => Ok(Self(number.to_string())),
            Value::Bool(flag) => Ok(Self(flag.to_string())),
            // The value may be a secret: the message never shows it.
            _ => Err(serde::de::Error::custom("not text")),
        }
    }
}

/// An object's members in file order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Members<T>(pub Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Members<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for MembersVisitor<T> {
            type Value = Members<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

/// A list of texts: `args`, `envPassthrough`, the globs of a filter.
pub(crate) type List<T> = Field<Vec<Field<T>>>;

/// Names and texts: `env`, `headers`.
pub(crate) type TextMap = Field<Members<Field<Text>>>;

/// One server's entry: every field any host defines.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct EntryFields {
    /// The program of a stdio server.
    pub command: Field<String>,
    /// Its arguments.
    pub args: List<Text>,
    /// Its environment.
    pub env: TextMap,
    /// Its working folder.
    pub cwd: Field<String>,
    /// The URL of an HTTP server.
    pub url: Field<String>,
    /// Its HTTP headers.
    pub headers: TextMap,
    /// The transport (`type`).
    #[serde(rename = "type")]
    pub transport_type: Field<String>,
    /// The transport, as some hosts name the field.
    pub transport: Field<String>,
    /// What it is for.
    pub description: Field<String>,
    /// Whether to start it.
    pub enabled: Field<bool>,
    /// Whether not to start it.
    pub disabled: Field<bool>,
    /// Its discovery deadline in seconds.
    pub timeout: Field<f64>,
    /// Its discovery deadline in milliseconds.
    pub timeout_ms: Field<f64>,
    /// How long its last good catalog may be served, in milliseconds.
    pub stale_max_age_ms: Field<Number>,
    /// Whether it sees all of our environment.
    pub inherit_env: Field<bool>,
    /// Variables it sees besides the safe list.
    pub env_passthrough: List<String>,
    /// Its own rate limit.
    pub rate_limit: Field<RateLimitEntry>,
    /// Its own health pings.
    pub health: Field<HealthEntry>,
    /// How to authorize with it.
    pub auth: Field<AuthEntry>,
    /// Which tools a host sees.
    pub tools: Field<FilterEntry>,
    /// Which prompts a host sees.
    pub prompts: Field<FilterEntry>,
    /// Which resources a host sees.
    pub resources: Field<FilterEntry>,
    /// Which skills a host sees.
    pub skills: Field<FilterEntry>,
    /// Whether the gateway and the catalog namespace its items (default true).
    pub namespace: Field<bool>,
    /// Other hosts' fields that change nothing here.
    #[serde(flatten)]
    #[expect(
        dead_code,
        reason = "read only so that these fields do not count as unknown"
    )]
    pub other_hosts: OtherHostsFields,
    /// Fields no host defines.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Fields some host defines that do not change how a server is reached or
/// listed (Claude Desktop, Cline, Gemini CLI, Windsurf, chatbot hosts).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct OtherHostsFields {
    env_file: Option<IgnoredAny>,
    name: Option<IgnoredAny>,
    auto_approve: Option<IgnoredAny>,
    always_allow: Option<IgnoredAny>,
    dev: Option<IgnoredAny>,
    oauth: Option<IgnoredAny>,
    trust: Option<IgnoredAny>,
    include_tools: Option<IgnoredAny>,
    exclude_tools: Option<IgnoredAny>,
    server_url: Option<IgnoredAny>,
    http_url: Option<IgnoredAny>,
}

/// `rateLimit`: `{"requestsPerSecond": n, "burst": n}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct RateLimitEntry {
    /// Requests a second.
    pub requests_per_second: Field<f64>,
    /// Requests at once.
    pub burst: Field<Number>,
    /// Fields a rate limit does not have.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `health`: `{"pingInterval": seconds, "pingTimeout": seconds}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct HealthEntry {
    /// Between pings.
    pub ping_interval: Field<f64>,
    /// How long a ping may take.
    pub ping_timeout: Field<f64>,
    /// Fields health does not have.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `tools`, `prompts`, `resources`, `skills`: `{"allow": [glob…], "deny": [glob…]}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct FilterEntry {
    /// Names to keep.
    pub allow: List<String>,
    /// Names to hide.
    pub deny: List<String>,
    /// Fields a filter does not have.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `auth`: how to authorize with an HTTP server; secrets may be `${env:…}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct AuthEntry {
    /// A registered client's ID.
    pub client_id: Field<String>,
    /// Its secret.
    pub client_secret: Field<String>,
    /// Its private key (PEM) for `private_key_jwt`.
    pub private_key: Field<String>,
    /// The key's algorithm.
    pub signing_algorithm: Field<String>,
    /// Scopes, spaced or listed.
    pub scopes: Field<Scopes>,
    /// A client ID metadata document's URL.
    pub client_metadata_url: Field<String>,
    /// The grant.
    pub grant: Field<String>,
    /// A JWT assertion.
    pub assertion: Field<String>,
    /// A file holding one.
    pub assertion_file: Field<String>,
    /// The identity provider's token endpoint (enterprise grant).
    pub idp_token_endpoint: Field<String>,
    /// The identity provider's ID token.
    pub idp_id_token: Field<String>,
    /// Our client ID at the identity provider.
    pub idp_client_id: Field<String>,
    /// The authorization server expected.
    pub issuer: Field<String>,
    /// Fields `auth` does not have.
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `auth.scopes`: `"a b"` or `["a", "b"]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum Scopes {
    /// Space-separated.
    Spaced(String),
    /// Listed.
    Listed(Vec<Field<String>>),
}

/// Reads `entry` (an object) as a server entry; no field can fail it.
pub(crate) fn read_entry(entry: &Map<String, Value>) -> EntryFields {
    // Every field takes any value and the rest are kept as unknown, so this
    // cannot fail; should it, every field counts as absent and unknown.
    EntryFields::deserialize(Value::Object(entry.clone())).unwrap_or_else(|_| EntryFields {
        unknown: entry.clone(),
        ..EntryFields::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(value: Value) -> EntryFields {
        read_entry(value.as_object().unwrap())
    }

    #[test]
    fn fields_of_another_type_are_kept_as_mistyped() {
        let read = entry(json!({
            "command": 3, "args": ["a", 2, true, {}, null], "env": {"A": "x", "B": []},
            "enabled": "yes", "cwd": null, "colour": "blue", "trust": true
        }));
        assert_eq!(read.command, Field::Mistyped("a number"));
        assert_eq!(
            read.args,
            Field::Given(vec![
                Field::Given(Text("a".into())),
                Field::Given(Text("2".into())),
                Field::Given(Text("true".into())),
                Field::Mistyped("an object"),
                Field::Null,
            ])
        );
        assert_eq!(
            read.env,
            Field::Given(Members(vec![
                ("A".into(), Field::Given(Text("x".into()))),
                ("B".into(), Field::Mistyped("an array")),
            ]))
        );
        assert_eq!(read.enabled, Field::Mistyped("a string"));
        assert_eq!(read.cwd, Field::Null);
        assert_eq!(read.url, Field::Absent);
        let unknown: Vec<&String> = read.unknown.keys().collect();
        assert_eq!(
            unknown,
            ["colour"],
            "a known field of another host is not unknown"
        );
    }

    #[test]
    fn nested_entries_keep_their_own_unknown_fields() {
        let read = entry(json!({
            "health": {"pingInterval": 2, "other": 1},
            "auth": {"scopes": "a b", "grant": "client_credentials", "extra": true},
            "tools": {"allow": ["x*"], "except": []},
            "rateLimit": 5
        }));
        let Field::Given(health) = read.health else {
            panic!()
        };
        assert_eq!(health.ping_interval, Field::Given(2.0));
        assert!(health.unknown.contains_key("other"));
        let Field::Given(auth) = read.auth else {
            panic!()
        };
        assert_eq!(auth.scopes, Field::Given(Scopes::Spaced("a b".into())));
        assert!(auth.unknown.contains_key("extra"));
        let Field::Given(tools) = read.tools else {
            panic!()
        };
        assert!(tools.unknown.contains_key("except"));
        assert_eq!(read.rate_limit, Field::Mistyped("a number"));
    }
}
