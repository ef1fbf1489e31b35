//! [`ConfigError`] and [`ConfigWarning`]: what is wrong with a config file,
//! naming the file, the server and the field, never a secret value.

use std::fmt;
use std::path::PathBuf;

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
    /// The file is not valid JSON (comments and trailing commas are allowed).
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
    /// The JSON is valid but does not describe servers correctly.
    #[error("{}: {}{message}", path.display(), Location { server: server.as_deref(), field: field.as_deref() })]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The server, when the problem is inside one.
        server: Option<String>,
        /// The field, such as `args` or `env.API_KEY`.
        field: Option<String>,
        /// What is wrong (never a secret value).
        message: String,
    },
}

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Self::Read { path, .. } | Self::Syntax { path, .. } | Self::Invalid { path, .. } => {
                path
            }
        }
    }
}

/// Something odd but harmless, such as an unknown field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The file.
    pub file: PathBuf,
    /// The server, when the warning is about one.
    pub server: Option<String>,
    /// The field.
    pub field: Option<String>,
    /// What is odd.
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let location = Location {
            server: self.server.as_deref(),
            field: self.field.as_deref(),
        };
        write!(f, "{}: {location}{}", self.file.display(), self.message)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_file_server_and_field() {
        let error = ConfigError::Invalid {
            path: "/p/.mcp.json".into(),
            server: Some("github".into()),
            field: Some("args".into()),
            message: "expected an array of strings, found a number".into(),
        };
        assert_eq!(
            error.to_string(),
            "/p/.mcp.json: server 'github': field 'args': expected an array of strings, found a number"
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
    }
}
