//! Which of its servers' optional features the gateway declares in its
//! handshake: `logging` and `resources.subscribe` (legacy clients only),
//! `completions` (both eras) and the tasks extension (modern clients).
//!
//! The rule: a feature is declared when at least one server the client
//! sees declared it when it was last ready. Before any of them has been
//! ready (the handshake is answered at once, without waiting for servers),
//! all of them are declared: a request a server cannot serve then gets that
//! server's own error, which names it.

use mcpdisco_protocol::types::{ServerCapabilities, TASKS_EXTENSION};

/// The optional features the gateway passes on to its servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offered {
    /// `logging/setLevel` and log messages.
    pub(crate) logging: bool,
    /// `completion/complete`.
    pub(crate) completions: bool,
    /// `resources/subscribe` and resource updates.
    pub(crate) subscribe: bool,
    /// The extension `io.modelcontextprotocol/tasks`: tasks relayed.
    pub(crate) tasks: bool,
}

impl Offered {
    /// Of the servers' last declarations (`None`: never ready): each
    /// feature some server declares; every one while none has declared.
    pub(crate) fn of(declared: impl IntoIterator<Item = Option<ServerCapabilities>>) -> Self {
        let known: Vec<ServerCapabilities> = declared.into_iter().flatten().collect();
        if known.is_empty() {
            return Self {
                logging: true,
                completions: true,
                subscribe: true,
                tasks: true,
            };
        }
        let any = |declares: fn(&ServerCapabilities) -> bool| known.iter().any(declares);
        Self {
            logging: any(|server| server.logging.is_some()),
            completions: any(|server| server.completions.is_some()),
            subscribe: any(|server| {
                server
                    .resources
                    .as_ref()
                    .is_some_and(|resources| resources.subscribe == Some(true))
            }),
            tasks: any(|server| server.has_extension(TASKS_EXTENSION)),
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpdisco_protocol::types::ResourcesCapability;
    use serde_json::{Map, Value};

    use super::*;

    fn declaring(logging: bool, completions: bool, subscribe: bool) -> ServerCapabilities {
        let empty = || Value::Object(Map::new());
        let tasks = Map::from_iter([(TASKS_EXTENSION.to_owned(), empty())]);
        ServerCapabilities {
            extensions: subscribe.then_some(tasks),
            logging: logging.then(empty),
            completions: completions.then(empty),
            resources: Some(ResourcesCapability {
                subscribe: Some(subscribe),
                ..ResourcesCapability::default()
            }),
            ..ServerCapabilities::default()
        }
    }

    #[test]
    fn a_feature_is_declared_when_one_server_declares_it() {
        let offered = Offered::of([
            Some(declaring(true, false, false)),
            None,
            Some(declaring(false, false, true)),
        ]);
        assert_eq!(
            offered,
            Offered {
                logging: true,
                completions: false,
                subscribe: true,
                tasks: true,
            }
        );
        let none = Offered::of([Some(ServerCapabilities::default())]);
        assert!(!none.logging && !none.completions && !none.subscribe && !none.tasks);
    }

    #[test]
    fn everything_is_declared_before_any_server_was_ready() {
        let all = Offered::of([None, None]);
        assert!(all.logging && all.completions && all.subscribe && all.tasks);
        assert_eq!(Offered::of([]), all);
    }
}
