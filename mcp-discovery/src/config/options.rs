//! [`ParseOptions`]: what a reader is told besides the file.

use std::path::PathBuf;

/// How to read a config: which custom transport `type`s exist.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// `type`s served by registered third-party connectors.
    pub custom_types: Vec<String>,
    /// The project whose entries `~/.claude.json` adds (`projects[<dir>]`);
    /// the current directory when not set.
    pub project_dir: Option<PathBuf>,
}

impl ParseOptions {
    /// Accepts `types` as custom transports, besides the built-in ones
    /// (`Connectors::parse_options` gives those of registered connectors).
    pub fn with_custom_types<I, S>(types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            custom_types: types.into_iter().map(Into::into).collect(),
            project_dir: None,
        }
    }
}
