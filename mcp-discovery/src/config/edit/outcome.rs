//! What adding a server did, and the clash that stops it.

use std::path::Path;

use super::super::error::ConfigError;

/// What [`add_server`](super::add_server) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// The server was added to an existing file.
    Added,
    /// The server replaced one of the same name (`replace`).
    Replaced,
    /// The file did not exist and was created.
    Created,
}

impl Added {
    /// `Replaced` when a server of that name `existed`, else `Added`.
    #[cfg(any(feature = "toml", feature = "yaml"))]
    pub(crate) fn when(existed: bool) -> Self {
        if existed { Self::Replaced } else { Self::Added }
    }
}

/// A server of that name is already in the file.
pub(crate) fn clash(path: &Path, name: &str) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_owned(),
        line: None,
        server: Some(name.to_owned()),
        field: None,
        message: "a server of that name is already there; choose another name or replace it".into(),
    }
}
