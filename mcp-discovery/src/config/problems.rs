//! Warnings and errors found while reading one file, each with the line of
//! the server or field it is about.

use std::path::Path;

use super::error::{ConfigError, ConfigWarning};
use super::expand::{Expanded, Expander};
use super::json::JsonDocument;

/// What reading one file found wrong or odd.
pub(crate) struct Problems<'a> {
    path: &'a Path,
    /// The file's JSON tree, which knows lines (none for TOML and YAML).
    document: Option<&'a JsonDocument<'a>>,
    /// Odd but harmless.
    pub warnings: Vec<ConfigWarning>,
    /// Wrong: the server or file concerned cannot be used.
    pub errors: Vec<ConfigError>,
}

impl<'a> Problems<'a> {
    /// None yet, for the file at `path`.
    pub fn new(path: &'a Path, document: Option<&'a JsonDocument<'a>>) -> Self {
        Self {
            path,
            document,
            warnings: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The line of the member at `at` (keys from the top), when known.
    pub fn line_of(&self, at: &[String]) -> Option<usize> {
        self.document.and_then(|document| document.line_of(at))
    }

    /// A warning about the member at `at`, outside any server.
    pub fn warn_at(&mut self, at: &[String], field: Option<&str>, message: &str) {
        let line = self.line_of(at);
        self.warnings.push(ConfigWarning {
            file: self.path.to_owned(),
            line,
            server: None,
            field: field.map(str::to_owned),
            message: message.to_owned(),
        });
    }

    /// An error about the member at `at`, outside any server.
    pub fn error_at(&mut self, at: &[String], message: impl Into<String>) {
        let line = self.line_of(at);
        self.errors.push(ConfigError::Invalid {
            path: self.path.to_owned(),
            line,
            server: None,
            field: None,
            message: message.into(),
        });
    }

    /// The problems of server `name`, whose entry is at `at`.
    pub fn server<'p>(&'p mut self, name: &'p str, at: &'p [String]) -> ServerProblems<'p, 'a> {
        ServerProblems {
            problems: self,
            name,
            at,
        }
    }
}

/// The problems of one server, placed at its fields' lines.
pub(crate) struct ServerProblems<'p, 'a> {
    problems: &'p mut Problems<'a>,
    name: &'p str,
    at: &'p [String],
}

impl ServerProblems<'_, '_> {
    /// The server's name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// How many errors the file has so far.
    pub fn error_count(&self) -> usize {
        self.problems.errors.len()
    }

    /// The line of the server's entry.
    pub fn entry_line(&self) -> Option<usize> {
        self.problems.line_of(self.at)
    }

    /// The line of `field` (`args[1]`, `env.KEY`), or of the nearest member
    /// on the way to it.
    fn line(&self, field: Option<&str>) -> Option<usize> {
        let mut at = self.at.to_vec();
        if let Some(field) = field {
            at.extend(segments(field));
        }
        self.problems.line_of(&at)
    }

    /// Something odd about `field` (or the whole entry).
    pub fn warn(&mut self, field: Option<&str>, message: impl Into<String>) {
        let line = self.line(field);
        self.problems.warnings.push(ConfigWarning {
            file: self.problems.path.to_owned(),
            line,
            server: Some(self.name.to_owned()),
            field: field.map(str::to_owned),
            message: message.into(),
        });
    }

    /// Something wrong with `field` (or the whole entry).
    pub fn error(&mut self, field: Option<&str>, message: impl Into<String>) {
        let line = self.line(field);
        self.problems.errors.push(ConfigError::Invalid {
            path: self.problems.path.to_owned(),
            line,
            server: Some(self.name.to_owned()),
            field: field.map(str::to_owned),
            message: message.into(),
        });
    }

    /// `field` of another type than `expected`.
    pub fn mistyped(&mut self, field: &str, expected: &str, found: &str) {
        self.error(Some(field), format!("expected {expected}, found {found}"));
    }

    /// `text` of `field` with its references expanded; a reference that
    /// cannot be is an error.
    pub fn expand(&mut self, expander: &Expander<'_>, field: &str, text: &str) -> Option<Expanded> {
        match expander.expand(text) {
            Ok(expanded) => Some(expanded),
            Err(message) => {
                self.error(Some(field), message);
                None
            }
        }
    }
}

/// `args[1]` as `["args", "1"]`, `env.KEY` as `["env", "KEY"]`.
fn segments(field: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in field.split('.') {
        let mut pieces = part.split('[');
        if let Some(name) = pieces.next() {
            out.push(name.to_owned());
        }
        out.extend(pieces.map(|index| index.trim_end_matches(']').to_owned()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_become_paths() {
        assert_eq!(segments("args[1]"), ["args", "1"]);
        assert_eq!(segments("env.KEY"), ["env", "KEY"]);
        assert_eq!(segments("tools.allow[0]"), ["tools", "allow", "0"]);
    }

    #[test]
    fn problems_carry_the_line_of_their_field() {
        let text = "{\"mcpServers\": {\n  \"a\": {\n    \"args\": [\n      \"x\",\n      {}\n    ],\n    \"colour\": 1\n  }\n}}";
        let path = Path::new("/p/.mcp.json");
        let document = super::super::json::parse(path, text).unwrap();
        let mut problems = Problems::new(path, Some(&document));
        let at = vec!["mcpServers".to_owned(), "a".to_owned()];
        let mut server = problems.server("a", &at);
        server.mistyped("args[1]", "a string", "an object");
        server.warn(Some("colour"), "unknown field; ignored");
        assert_eq!(server.entry_line(), Some(2));
        assert_eq!(
            problems.errors[0].to_string(),
            "/p/.mcp.json:5: server 'a': field 'args[1]': expected a string, found an object"
        );
        assert_eq!(
            problems.warnings[0].to_string(),
            "/p/.mcp.json:7: server 'a': field 'colour': unknown field; ignored"
        );
    }
}
