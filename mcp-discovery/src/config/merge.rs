//! Servers merged from many files ([`Merged`]), keeping configuration order.
//!
//! A server whose launch is the same as one already taken (the same
//! command, arguments and environment, or the same URL and headers) counts
//! once, whatever its name. The folder a stdio server starts in is left out
//! of that comparison: it defaults to the config file's own folder, which
//! differs between hosts. A different server under a name already taken is
//! renamed `<host>-<name>` when it comes from a host's config; from a file
//! or a folder the first definition wins, with a warning.

use serde_json::Value;

use super::config_file::ConfigFile;
use super::detect::Host;
use super::server::ServerConfig;

/// Where a file of servers came from, for merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Named with `--config`, or found first.
    File,
    /// A file of a `--dir` folder.
    Dir,
    /// A host's config, read with every other host's.
    Host(Host),
}

/// Servers merged from many files.
#[derive(Debug, Default)]
pub struct Merged {
    /// The servers, in the order their files were added.
    pub servers: Vec<ServerConfig>,
    /// Servers counted once, renamed, or left out, said in words.
    pub warnings: Vec<String>,
}

impl Merged {
    /// Adds the servers of `file`.
    pub fn add(&mut self, file: ConfigFile, origin: Origin) {
        for mut server in file.servers {
            let material = launch_identity(&server);
            if let Some(same) = self
                .servers
                .iter()
                .find(|taken| launch_identity(taken) == material)
            {
                if same.name != server.name || origin == Origin::Dir || origin == Origin::File {
                    self.warnings.push(format!(
                        "{}: server '{}' is the same server as '{}' of {}; counted once",
                        server.source.display(),
                        server.name,
                        same.name,
                        same.source.display()
                    ));
                }
                continue;
            }
            let Some(taken) = self.servers.iter().find(|taken| taken.name == server.name) else {
                self.servers.push(server);
                continue;
            };
            match origin {
                Origin::Host(host) => {
                    let base = format!("{}-{}", host.slug(), server.name);
                    let mut name = base.clone();
                    let mut counter = 2;
                    while self.servers.iter().any(|s| s.name == name) {
                        name = format!("{base}-{counter}");
                        counter += 1;
                    }
                    self.warnings.push(format!(
                        "{}: server '{}' differs from the one of that name in {}; it is named '{name}'",
                        server.source.display(),
                        server.name,
                        taken.source.display()
                    ));
                    server.name = name;
                    self.servers.push(server);
                }
                Origin::File | Origin::Dir => {
                    self.warnings.push(format!(
                        "{}: server '{}' is also defined in {}; the first definition is used",
                        server.source.display(),
                        server.name,
                        taken.source.display()
                    ));
                }
            }
        }
    }
}

/// What makes two configured servers the same server: the fingerprint
/// material without the working folder.
fn launch_identity(server: &ServerConfig) -> Value {
    let mut material = server.fingerprint_material();
    if let Value::Object(fields) = &mut material {
        fields.remove("cwd");
    }
    material
}
