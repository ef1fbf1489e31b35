//! [`RegistryWarning`]: what a registry call could not do fully, though it
//! did what it could; a host shows each to its user.

use std::fmt;
use std::sync::Arc;

use super::error::RegistryError;
use super::resolved::{RequiredEnv, ResolveError};
use crate::config::ConfigError;

/// Something a registry call passed over or worked around. `Display` is
/// the sentence to show; no variant holds a credential.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RegistryWarning {
    /// The registry could not answer (unreachable, 429 or 5xx): the answer
    /// cached earlier was used.
    Stale {
        /// Why the registry could not answer.
        error: RegistryError,
    },
    /// A search stopped after the most pages it follows.
    PagesCut {
        /// How many pages were read.
        pages: usize,
    },
    /// The registry gave a cursor it had given before; the search stopped there.
    RepeatedCursor {
        /// The cursor.
        cursor: String,
    },
    /// An entry that does not read as a server was skipped.
    Skipped {
        /// Its name, or where it was (`entry 3 of page 1`).
        entry: String,
        /// Why it does not read.
        message: String,
    },
    /// A matching server was left out of
    /// [`RegistryClient::server_configs`](super::RegistryClient::server_configs).
    LeftOut {
        /// Its registry name.
        server: String,
        /// Why.
        reason: LeftOutReason,
    },
    /// No server matched.
    NoMatch {
        /// The registry's base URL.
        registry: String,
        /// What was searched for.
        query: String,
    },
}

/// Why a matching server was left out.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum LeftOutReason {
    /// It cannot be resolved into a config entry.
    Unresolvable(ResolveError),
    /// It needs variables that are not set.
    MissingEnv(Vec<RequiredEnv>),
    /// Its bundle could not be fetched, verified or read.
    Bundle(RegistryError),
    /// Its entry does not read as a server.
    Config(Arc<ConfigError>),
}

impl fmt::Display for RegistryWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stale { error } => write!(f, "{error}; using the answer cached earlier"),
            Self::PagesCut { pages } => {
                write!(f, "stopped after {pages} pages; narrow the search")
            }
            Self::RepeatedCursor { cursor } => {
                write!(
                    f,
                    "the registry repeated cursor \"{cursor}\"; stopped there"
                )
            }
            Self::Skipped { entry, message } => write!(f, "skipped {entry}: {message}"),
            Self::LeftOut { server, reason } => match reason {
                // The error names the server already.
                LeftOutReason::Unresolvable(error) => write!(f, "{error}; left out"),
                LeftOutReason::MissingEnv(missing) => {
                    let names: Vec<&str> = missing.iter().map(|env| env.name.as_str()).collect();
                    write!(
                        f,
                        "{server}: needs {} in the environment; left out",
                        names.join(", ")
                    )
                }
                LeftOutReason::Bundle(error) => write!(f, "{server}: {error}; left out"),
                LeftOutReason::Config(error) => write!(f, "{server}: {error}; left out"),
            },
            Self::NoMatch { registry, query } => {
                write!(f, "no server in {registry} matches '{query}'")
            }
        }
    }
}
