//! [`ConfigError`] and [`ConfigWarning`]: what is wrong with a config file,
//! naming the file, the line, the server and the field, never a secret value.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a config file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid JSON (comments and trailing commas are allowed),
    /// TOML or YAML.
    #[error("{}:{line}:{column}: invalid JSON: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The file is valid but does not describe servers correctly.
    #[error("{}: {}{message}", Place { path, line: *line }, Location { server: server.as_deref(), field: field.as_deref() })]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line of the server or field, when known.
        line: Option<usize>,
        /// The server, when the problem is inside one.
        server: Option<String>,
        /// The field, such as `args` or `env.API_KEY`.
        field: Option<String>,
        /// What is wrong (never a secret value).
        message: String,
    },
    /// The file is in a host's format that this build cannot read: the
    /// feature of this crate that reads it was left out.
    #[error("{}: {format} needs feature `{feature}` of mcpdisco", path.display())]
    NeedsFeature {
        /// The file.
        path: PathBuf,
        /// The format, as "Codex's TOML" or "Goose's YAML".
        format: &'static str,
        /// The feature that reads it (`toml`, `yaml`).
        feature: &'static str,
    },
    /// More than one problem in one file: every one, in file order, one a line.
    #[error("{}", Lines(errors))]
    Several {
        /// The file.
        path: PathBuf,
        /// The problems.
        errors: Vec<ConfigError>,
    },
}

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::Read { path, .. }
            | Self::Syntax { path, .. }
            | Self::Invalid { path, .. }
            | Self::NeedsFeature { path, .. }
            | Self::Several { path, .. } => path,
        }
    }

    /// A problem with the file as a whole.
    pub fn invalid(path: &Path, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.to_owned(),
            line: None,
            server: None,
            field: None,
            message: message.into(),
        }
    }

    /// `errors` of the file at `path` as one error (the error itself when
    /// there is one); `None` when there are none.
    pub fn from_all(path: &Path, mut errors: Vec<ConfigError>) -> Option<Self> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Self::Several {
                path: path.to_owned(),
                errors,
            }),
        }
    }
}

/// Something odd but harmless, such as an unknown field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The file.
    pub file: PathBuf,
    /// The line of the server or field, when known.
    pub line: Option<usize>,
    /// The server, when the warning is about one.
    pub server: Option<String>,
    /// The field.
    pub field: Option<String>,
    /// What is odd.
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = Place {
            path: &self.file,
            line: self.line,
        };
        let location = Location {
            server: self.server.as_deref(),
            field: self.field.as_deref(),
        };
        write!(f, "{place}: {location}{}", self.message)
    }
}

/// "file" or "file:line".
struct Place<'a> {
    path: &'a Path,
    line: Option<usize>,
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        Ok(())
    }
}

/// "server 'x': field 'y': ".
struct Location<'a> {
    server: Option<&'a str>,
    field: Option<&'a str>,
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(server) = self.server {
            write!(f, "server '{server}': ")?;
        }
        if let Some(field) = self.field {
            write!(f, "field '{field}': ")?;
        }
        Ok(())
    }
}

/// Errors one a line.
struct Lines<'a>(&'a [ConfigError]);

impl fmt::Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_file_line_server_and_field() {
        let error = ConfigError::Invalid {
            path: "/p/.mcp.json".into(),
            line: Some(3),
            server: Some("github".into()),
            field: Some("args".into()),
            message: "expected an array of strings, found a number".into(),
        };
        assert_eq!(
            error.to_string(),
            "/p/.mcp.json:3: server 'github': field 'args': expected an array of strings, found a number"
        );
        let syntax = ConfigError::Syntax {
            path: "/p/a.json".into(),
            line: 12,
            column: 5,
            message: "expected `,` or `}`".into(),
        };
        assert_eq!(
            syntax.to_string(),
            "/p/a.json:12:5: invalid JSON: expected `,` or `}`"
        );
        let whole = ConfigError::invalid("/p/a.json".as_ref(), "not an MCP config");
        assert_eq!(whole.to_string(), "/p/a.json: not an MCP config");
    }

    #[test]
    fn several_errors_show_one_a_line() {
        let path = Path::new("/p/a.json");
        assert!(ConfigError::from_all(path, Vec::new()).is_none());
        let one = ConfigError::from_all(path, vec![ConfigError::invalid(path, "one")]);
        assert_eq!(one.unwrap().to_string(), "/p/a.json: one");
        let two = ConfigError::from_all(
            path,
            vec![
                ConfigError::invalid(path, "one"),
                ConfigError::invalid(path, "two"),
            ],
        )
        .unwrap();
        assert_eq!(two.to_string(), "/p/a.json: one\n/p/a.json: two");
        assert_eq!(two.path(), path);
    }
}
