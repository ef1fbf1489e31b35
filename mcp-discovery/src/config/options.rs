//! [`ParseOptions`]: what a reader is told besides the file.

use std::path::PathBuf;

/// How to read a config: which custom transport `type`s exist, and which
/// project `~/.claude.json` is read for. Built from
/// [`ParseOptions::default`] and the setters below (a new option is then
/// no breaking change).
///
/// ```
/// use mcpdisco::config::ParseOptions;
/// let options = ParseOptions::default()
///     .custom_types(["memory"])
///     .project_dir("/work/app");
/// assert_eq!(options.custom_types, ["memory"]);
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
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
    pub fn custom_types<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.custom_types = types.into_iter().map(Into::into).collect();
        self
    }

    /// Reads the entries `~/.claude.json` keeps for the project at `dir`.
    pub fn project_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_dir = Some(dir.into());
        self
    }
}
