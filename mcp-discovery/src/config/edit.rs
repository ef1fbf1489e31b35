//! Adding a server to a config file in that file's own format, keeping the
//! rest of the file as it was (`mcp-cli registry add --to FILE`).
//!
//! | file | written as | kept |
//! |---|---|---|
//! | JSON (`mcpServers`, `servers`, Zed's `context_servers`, VS Code's `mcp.servers`) | a new member, indented like its neighbours | every other byte: comments, order, trailing commas |
//! | Codex CLI `config.toml` | a `[mcp_servers.<name>]` table | every other line, comments included (`toml_edit`) |
//! | Goose `config.yaml` | an `extensions` entry | every value and its order; YAML comments are not kept |
//!
//! The entry is given in our `mcpServers` shape (`command`, `args`, `env`,
//! `type`, `url`, `headers`) and translated for the host. A new file is
//! created in the shape its name suggests. The file is replaced atomically.

use std::path::Path;

use serde_json::{Map, Value};

use super::ConfigFormat;
use super::error::ConfigError;

/// What [`add_server`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// The server was added to an existing file.
    Added,
    /// The server replaced one of the same name (`replace`).
    Replaced,
    /// The file did not exist and was created.
    Created,
}

/// Adds `entry` (our `mcpServers` shape) as server `name` to the config at
/// `path`, in that file's format. A server of that name already there is an
/// error unless `replace`.
pub fn add_server(
    path: &Path,
    name: &str,
    entry: &Value,
    replace: bool,
) -> Result<Added, ConfigError> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let kind = FileKind::of(path);
    let (text, outcome) = match &existing {
        None => (kind.new_file(name, entry, path)?, Added::Created),
        Some(text) => {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            match kind {
                FileKind::Toml => codex_add(path, text, name, entry, replace)?,
                FileKind::Yaml => goose_add(path, text, name, entry, replace)?,
                FileKind::Json => json_add(path, text, name, entry, replace)?,
            }
        }
    };
    write_atomically(path, &text)?;
    Ok(outcome)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Json,
    Toml,
    Yaml,
}

impl FileKind {
    fn of(path: &Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("toml") => Self::Toml,
            Some("yaml" | "yml") => Self::Yaml,
            _ => Self::Json,
        }
    }

    fn new_file(self, name: &str, entry: &Value, path: &Path) -> Result<String, ConfigError> {
        match self {
            Self::Toml => Ok(codex_add(path, "", name, entry, false)?.0),
            Self::Yaml => Ok(goose_add(path, "", name, entry, false)?.0),
            Self::Json => {
                let vscode = path
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|dir| dir == ".vscode");
                let key = if vscode { "servers" } else { "mcpServers" };
                let entry = if vscode {
                    vscode_entry(entry)
                } else {
                    entry.clone()
                };
                let mut servers = Map::new();
                servers.insert(name.to_owned(), entry);
                let mut root = Map::new();
                root.insert(key.into(), Value::Object(servers));
                let mut text = serde_json::to_string_pretty(&Value::Object(root))
                    .map_err(|error| invalid(path, error.to_string()))?;
                text.push('\n');
                Ok(text)
            }
        }
    }
}

/// Where the servers are in a JSON config, as a path of keys from the top.
fn json_servers_path(root: &Map<String, Value>, path: &Path) -> (Vec<&'static str>, ConfigFormat) {
    let vscode_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == ".vscode");
    let settings = path.file_name().is_some_and(|f| f == "settings.json");
    if root.contains_key("mcpServers") {
        (vec!["mcpServers"], ConfigFormat::McpServers)
    } else if root.contains_key("servers") {
        (vec!["servers"], ConfigFormat::VsCode)
    } else if root.contains_key("context_servers") {
        (vec!["context_servers"], ConfigFormat::Zed)
    } else if root.get("mcp").is_some_and(Value::is_object) {
        (vec!["mcp", "servers"], ConfigFormat::VsCodeSettings)
    } else if vscode_dir {
        (vec!["servers"], ConfigFormat::VsCode)
    } else if settings && path.to_string_lossy().contains("zed") {
        (vec!["context_servers"], ConfigFormat::Zed)
    } else if settings && path.to_string_lossy().contains("Code") {
        (vec!["mcp", "servers"], ConfigFormat::VsCodeSettings)
    } else {
        (vec!["mcpServers"], ConfigFormat::McpServers)
    }
}

/// VS Code wants a `type` on every server.
fn vscode_entry(entry: &Value) -> Value {
    let mut entry = entry.clone();
    if let Value::Object(fields) = &mut entry
        && !fields.contains_key("type")
    {
        let kind = if fields.contains_key("command") {
            "stdio"
        } else {
            "http"
        };
        fields.insert("type".into(), Value::String(kind.into()));
    }
    entry
}

fn json_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &Value,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let plain = super::jsonc::to_plain_json(text);
    let root: Value = serde_json::from_str(&plain).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        line: error.line(),
        column: error.column(),
        message: super::parse::syntax_message(&error),
    })?;
    let Value::Object(root) = root else {
        return Err(invalid(path, "expected a JSON object at the top"));
    };
    let (keys, format) = json_servers_path(&root, path);
    let entry = match format {
        ConfigFormat::VsCode | ConfigFormat::VsCodeSettings => vscode_entry(entry),
        _ => entry.clone(),
    };
    let whole = Value::Object(root.clone());
    let mut servers = Some(&whole);
    for key in &keys {
        servers = servers.and_then(|value| value.get(*key));
    }
    let exists = servers
        .and_then(Value::as_object)
        .is_some_and(|servers| servers.contains_key(name));
    if exists && !replace {
        return Err(clash(path, name));
    }
    let scanner = Scanner::new(plain.as_bytes());
    // The deepest existing object on the way, and the keys still missing below it.
    let mut object = scanner
        .root()
        .ok_or_else(|| invalid(path, "no top-level object"))?;
    let mut missing: &[&str] = &keys;
    while let Some((first, rest)) = missing.split_first() {
        match scanner.member(object, first) {
            Some(Span::Object(inner)) => {
                object = inner;
                missing = rest;
            }
            Some(Span::Other { .. }) => {
                return Err(invalid(
                    path,
                    format!("\"{first}\" is not an object; cannot add a server to it"),
                ));
            }
            None => break,
        }
    }
    // What to place in `object`: the server itself, or the missing keys around it.
    let mut value = entry;
    let mut member_name = name.to_owned();
    for key in missing.iter().rev() {
        let mut wrapper = Map::new();
        wrapper.insert(member_name, value);
        value = Value::Object(wrapper);
        member_name = (*key).to_owned();
    }
    if exists {
        // Replace the old value in place.
        let old = match scanner.member(object, name) {
            Some(Span::Object((open, close))) => Some((open, close + 1)),
            Some(Span::Other { span }) => Some(span),
            None => None,
        };
        if let Some(old) = old {
            let indent = line_indent(text, old.0);
            let rendered = render(&value, &indent)?;
            let mut out = String::with_capacity(text.len() + rendered.len());
            out.push_str(&text[..old.0]);
            out.push_str(&rendered);
            out.push_str(&text[old.1..]);
            return Ok((out, Added::Replaced));
        }
    }
    let inserted = insert_member(text, &plain, object, &member_name, &value)?;
    Ok((inserted, Added::Added))
}

/// Inserts `"name": value` as the last member of the object spanning
/// `object` (its braces, inclusive).
fn insert_member(
    text: &str,
    plain: &str,
    object: (usize, usize),
    name: &str,
    value: &Value,
) -> Result<String, ConfigError> {
    let (open, close) = object;
    let bytes = plain.as_bytes();
    let inner = &plain[open + 1..close];
    let object_indent = line_indent(text, open);
    let member_indent = first_member_indent(text, plain, open, close)
        .unwrap_or_else(|| format!("{object_indent}  "));
    let key = serde_json::to_string(name).unwrap_or_else(|_| format!("\"{name}\""));
    let rendered = render(value, &member_indent)?;
    let member = format!("{member_indent}{key}: {rendered}");
    let mut out = String::with_capacity(text.len() + member.len() + 8);
    if inner.trim().is_empty() {
        out.push_str(&text[..=open]);
        out.push('\n');
        out.push_str(&member);
        out.push('\n');
        out.push_str(&object_indent);
        out.push_str(&text[close..]);
    } else {
        // After the last significant character of the last member.
        let mut end = close;
        while end > open + 1 && bytes[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        out.push_str(&text[..end]);
        out.push_str(",\n");
        out.push_str(&member);
        out.push_str(&text[end..]);
    }
    Ok(out)
}

/// The indentation of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The indentation of an object's first member, when it is on its own line.
fn first_member_indent(text: &str, plain: &str, open: usize, close: usize) -> Option<String> {
    let inner = &plain[open + 1..close];
    let offset = inner.find(|c: char| !c.is_ascii_whitespace())?;
    let at = open + 1 + offset;
    text[open + 1..at]
        .contains('\n')
        .then(|| line_indent(text, at))
}

/// `value` as pretty JSON whose continuation lines start with `indent`.
fn render(value: &Value, indent: &str) -> Result<String, ConfigError> {
    let pretty = serde_json::to_string_pretty(value).map_err(|error| ConfigError::Invalid {
        path: Default::default(),
        server: None,
        field: None,
        message: error.to_string(),
    })?;
    Ok(pretty.replace('\n', &format!("\n{indent}")))
}

/// Where a value sits in the text.
#[derive(Debug, Clone, Copy)]
enum Span {
    /// An object: the byte of `{` and the byte of its `}`.
    Object((usize, usize)),
    /// Another value: its first byte and the byte after it.
    Other { span: (usize, usize) },
}

/// A minimal scanner over plain JSON (comments blanked) that finds the
/// spans of members, so text around them is left untouched.
struct Scanner<'a> {
    bytes: &'a [u8],
}

impl<'a> Scanner<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    fn skip_blank(&self, mut at: usize) -> usize {
        while at < self.bytes.len() && self.bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        at
    }

    /// The top-level object's braces.
    fn root(&self) -> Option<(usize, usize)> {
        let at = self.skip_blank(0);
        (self.bytes.get(at) == Some(&b'{')).then(|| (at, self.value_end(at).saturating_sub(1)))
    }

    /// The byte after the string starting at `at` (a `"`).
    fn string_end(&self, mut at: usize) -> usize {
        at += 1;
        while at < self.bytes.len() {
            match self.bytes[at] {
                b'\\' => at += 2,
                b'"' => return at + 1,
                _ => at += 1,
            }
        }
        at
    }

    /// The byte after the value starting at `at`.
    fn value_end(&self, at: usize) -> usize {
        match self.bytes.get(at) {
            Some(b'"') => self.string_end(at),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                let mut i = at;
                while i < self.bytes.len() {
                    match self.bytes[i] {
                        b'"' => {
                            i = self.string_end(i);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i
            }
            _ => {
                let mut i = at;
                while i < self.bytes.len() && !matches!(self.bytes[i], b',' | b'}' | b']') {
                    i += 1;
                }
                while i > at && self.bytes[i - 1].is_ascii_whitespace() {
                    i -= 1;
                }
                i
            }
        }
    }

    /// The value of member `name` of the object spanning `object`.
    fn member(&self, object: (usize, usize), name: &str) -> Option<Span> {
        let (open, close) = object;
        let mut at = open + 1;
        loop {
            at = self.skip_blank(at);
            if at >= close || self.bytes.get(at) != Some(&b'"') {
                return None;
            }
            let key_end = self.string_end(at);
            let key: String = serde_json::from_slice(&self.bytes[at..key_end]).ok()?;
            at = self.skip_blank(key_end);
            if self.bytes.get(at) != Some(&b':') {
                return None;
            }
            let value_start = self.skip_blank(at + 1);
            let value_end = self.value_end(value_start);
            if key == name {
                return Some(if self.bytes.get(value_start) == Some(&b'{') {
                    Span::Object((value_start, value_end.saturating_sub(1)))
                } else {
                    Span::Other {
                        span: (value_start, value_end),
                    }
                });
            }
            at = self.skip_blank(value_end);
            if self.bytes.get(at) == Some(&b',') {
                at += 1;
            }
        }
    }
}

/// `${env:NAME}` alone: the variable's name.
fn env_reference(value: &str) -> Option<&str> {
    value.strip_prefix("${env:")?.strip_suffix('}')
}

fn codex_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &Value,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let mut document: toml_edit::DocumentMut =
        text.parse().map_err(|error: toml_edit::TomlError| {
            invalid(path, format!("not valid TOML: {}", error.message()))
        })?;
    let servers = document
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| invalid(path, "\"mcp_servers\" is not a table"))?;
    let exists = servers.contains_key(name);
    if exists && !replace {
        return Err(clash(path, name));
    }
    let mut table = toml_edit::Table::new();
    let fields = entry.as_object().cloned().unwrap_or_default();
    if let Some(command) = fields.get("command").and_then(Value::as_str) {
        table["command"] = toml_edit::value(command);
    }
    if let Some(Value::Array(args)) = fields.get("args") {
        let mut array = toml_edit::Array::new();
        for arg in args.iter().filter_map(Value::as_str) {
            array.push(arg);
        }
        table["args"] = toml_edit::value(array);
    }
    if let Some(Value::Object(env)) = fields.get("env") {
        let mut literal = toml_edit::InlineTable::new();
        let mut passed = toml_edit::Array::new();
        for (key, value) in env {
            let value = value.as_str().unwrap_or_default();
            match env_reference(value) {
                // Codex passes variables through by name rather than expanding references.
                Some(var) if var == key => passed.push(key.as_str()),
                _ => {
                    literal.insert(key, value.into());
                }
            }
        }
        if !literal.is_empty() {
            table["env"] = toml_edit::value(literal);
        }
        if !passed.is_empty() {
            table["env_vars"] = toml_edit::value(passed);
        }
    }
    if let Some(url) = fields.get("url").and_then(Value::as_str) {
        table["url"] = toml_edit::value(url);
    }
    if let Some(Value::Object(headers)) = fields.get("headers") {
        let mut literal = toml_edit::InlineTable::new();
        let mut from_env = toml_edit::InlineTable::new();
        for (header, value) in headers {
            let value = value.as_str().unwrap_or_default();
            if header.eq_ignore_ascii_case("authorization")
                && let Some(var) = value.strip_prefix("Bearer ").and_then(env_reference)
            {
                table["bearer_token_env_var"] = toml_edit::value(var);
            } else if let Some(var) = env_reference(value) {
                from_env.insert(header, var.into());
            } else {
                literal.insert(header, value.into());
            }
        }
        if !literal.is_empty() {
            table["http_headers"] = toml_edit::value(literal);
        }
        if !from_env.is_empty() {
            table["env_http_headers"] = toml_edit::value(from_env);
        }
    }
    servers.insert(name, toml_edit::Item::Table(table));
    let outcome = if exists {
        Added::Replaced
    } else {
        Added::Added
    };
    Ok((document.to_string(), outcome))
}

fn goose_add(
    path: &Path,
    text: &str,
    name: &str,
    entry: &Value,
    replace: bool,
) -> Result<(String, Added), ConfigError> {
    let mut root: serde_yaml_ng::Value = if text.trim().is_empty() {
        serde_yaml_ng::Value::Mapping(Default::default())
    } else {
        serde_yaml_ng::from_str(text)
            .map_err(|error| invalid(path, format!("not valid YAML: {error}")))?
    };
    let serde_yaml_ng::Value::Mapping(top) = &mut root else {
        return Err(invalid(path, "expected a YAML mapping at the top"));
    };
    let extensions = top
        .entry("extensions".into())
        .or_insert_with(|| serde_yaml_ng::Value::Mapping(Default::default()));
    let serde_yaml_ng::Value::Mapping(extensions) = extensions else {
        return Err(invalid(path, "\"extensions\" is not a mapping"));
    };
    let key = serde_yaml_ng::Value::String(name.to_owned());
    let exists = extensions.contains_key(&key);
    if exists && !replace {
        return Err(clash(path, name));
    }
    let fields = entry.as_object().cloned().unwrap_or_default();
    let mut extension = Map::new();
    extension.insert("name".into(), Value::String(name.to_owned()));
    extension.insert("enabled".into(), Value::Bool(true));
    if let Some(command) = fields.get("command") {
        extension.insert("type".into(), "stdio".into());
        extension.insert("cmd".into(), command.clone());
        extension.insert(
            "args".into(),
            fields
                .get("args")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        );
        let mut envs = Map::new();
        let mut env_keys = Vec::new();
        if let Some(Value::Object(env)) = fields.get("env") {
            for (var, value) in env {
                match value.as_str().and_then(env_reference) {
                    Some(reference) if reference == var => {
                        env_keys.push(Value::String(var.clone()))
                    }
                    _ => {
                        envs.insert(var.clone(), value.clone());
                    }
                }
            }
        }
        extension.insert("envs".into(), Value::Object(envs));
        extension.insert("env_keys".into(), Value::Array(env_keys));
    } else {
        let kind = match fields.get("type").and_then(Value::as_str) {
            Some("sse") => "sse",
            _ => "streamable_http",
        };
        extension.insert("type".into(), kind.into());
        extension.insert(
            "uri".into(),
            fields.get("url").cloned().unwrap_or(Value::Null),
        );
        if let Some(headers) = fields.get("headers") {
            extension.insert("headers".into(), headers.clone());
        }
    }
    if let Some(description) = fields.get("description") {
        extension.insert("description".into(), description.clone());
    }
    extension.insert("timeout".into(), Value::from(300));
    let extension: serde_yaml_ng::Value = serde_yaml_ng::to_value(Value::Object(extension))
        .map_err(|error| invalid(path, error.to_string()))?;
    extensions.insert(key, extension);
    let text = serde_yaml_ng::to_string(&root).map_err(|error| invalid(path, error.to_string()))?;
    let outcome = if exists {
        Added::Replaced
    } else {
        Added::Added
    };
    Ok((text, outcome))
}

fn write_atomically(path: &Path, text: &str) -> Result<(), ConfigError> {
    let io_error = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => std::path::PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(io_error)?;
    let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(io_error)?;
    std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io_error)?;
    // Keep the permissions of the file replaced (a config may hold secrets).
    if let Ok(metadata) = std::fs::metadata(path) {
        std::fs::set_permissions(file.path(), metadata.permissions()).map_err(io_error)?;
    }
    file.persist(path).map_err(|error| io_error(error.error))?;
    Ok(())
}

fn clash(path: &Path, name: &str) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_owned(),
        server: Some(name.to_owned()),
        field: None,
        message: "a server of that name is already there; choose another name or replace it".into(),
    }
}

fn invalid(path: &Path, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_owned(),
        server: None,
        field: None,
        message: message.into(),
    }
}
