//! [`ConfigFile`]: one config file as read, its servers and its warnings.

use std::path::PathBuf;

use super::error::ConfigWarning;
use super::format::ConfigFormat;
use super::profile::Profile;
use super::server::ServerConfig;

/// A file read.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its format.
    pub format: ConfigFormat,
    /// Its servers, in file order.
    pub servers: Vec<ServerConfig>,
    /// Unknown fields and other oddities.
    pub warnings: Vec<ConfigWarning>,
    /// Its `profiles`, in file order (JSON configs of our own shapes).
    pub profiles: Vec<Profile>,
}
