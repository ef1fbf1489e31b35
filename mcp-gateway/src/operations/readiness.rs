//! Readiness: every enabled server connected, or the list of those that
//! are not. The body of `GET /readyz`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::limits::StoreState;
use crate::supervisor::Status;

/// Each enabled server's state, and whether all of them can take requests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Readiness {
    /// Each enabled server's state name (`ready`, `starting`, `backoff`, …).
    pub servers: BTreeMap<String, &'static str>,
    /// Whether every server is connected (ready, or degraded: it still
    /// answers, only some pings went unanswered).
    #[serde(skip)]
    pub ready: bool,
    /// The shared session store (`up`, or `degraded` while it fails and
    /// what it shares is per replica); absent without a store.
    #[serde(rename = "sessionStore", skip_serializing_if = "Option::is_none")]
    pub session_store: Option<&'static str>,
    /// The features that use the store and are degraded now
    /// ([`StoreFeature::name`]); absent when none is.
    #[serde(rename = "degradedFeatures", skip_serializing_if = "Vec::is_empty")]
    pub degraded_features: Vec<&'static str>,
}

/// A feature that uses the shared session store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreFeature {
    /// `--client-rate-limit` counted by every replica.
    RateLimit,
    /// What changes during a session (deletion, log level, notifications).
    Sessions,
}

impl StoreFeature {
    /// `rateLimit` or `sessions`.
    pub fn name(self) -> &'static str {
        match self {
            StoreFeature::RateLimit => "rateLimit",
            StoreFeature::Sessions => "sessions",
        }
    }
}

impl Readiness {
    /// The readiness of servers in these states. No server at all is ready.
    pub fn of(statuses: impl IntoIterator<Item = (String, Status)>) -> Self {
        let mut ready = true;
        let servers = statuses
            .into_iter()
            .map(|(name, status)| {
                ready &= status.is_connected();
                (name, status.name())
            })
            .collect();
        Self {
            servers,
            ready,
            session_store: None,
            degraded_features: Vec::new(),
        }
    }

    /// The same, naming the shared store's state as each feature that
    /// uses it sees it (degraded when one is; a degraded store does not
    /// make the gateway unready). No feature: no store.
    pub fn session_store(mut self, features: Vec<(StoreFeature, StoreState)>) -> Self {
        self.degraded_features = features
            .iter()
            .filter(|(_, state)| *state == StoreState::Degraded)
            .map(|(feature, _)| feature.name())
            .collect();
        self.session_store = match features.is_empty() {
            true => None,
            false if self.degraded_features.is_empty() => Some(StoreState::Up.name()),
            false => Some(StoreState::Degraded.name()),
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use tokio::time::Instant;

    use super::*;

    #[test]
    fn ready_when_every_server_is_connected() {
        let readiness = Readiness::of([
            ("a".to_owned(), Status::Ready),
            ("b".to_owned(), Status::Degraded { missed: 2 }),
        ]);
        assert!(readiness.ready);
        assert_eq!(readiness.servers["b"], "degraded");
        assert!(Readiness::of([]).ready);
    }

    #[test]
    fn one_server_down_is_not_ready_and_its_state_is_named() {
        let readiness = Readiness::of([
            ("a".to_owned(), Status::Ready),
            (
                "b".to_owned(),
                Status::Backoff {
                    failures: 1,
                    until: Instant::now(),
                },
            ),
        ]);
        assert!(!readiness.ready);
        let body = serde_json::to_string(&readiness).unwrap();
        assert_eq!(body, r#"{"servers":{"a":"ready","b":"backoff"}}"#);
        assert!(!Readiness::of([("c".to_owned(), Status::Starting)]).ready);
    }

    #[test]
    fn a_degraded_store_is_named_and_leaves_the_gateway_ready() {
        let readiness = Readiness::of([("a".to_owned(), Status::Ready)]).session_store(vec![
            (StoreFeature::RateLimit, StoreState::Up),
            (StoreFeature::Sessions, StoreState::Degraded),
        ]);
        assert!(readiness.ready);
        let body = serde_json::to_string(&readiness).unwrap();
        assert_eq!(
            body,
            r#"{"servers":{"a":"ready"},"sessionStore":"degraded","degradedFeatures":["sessions"]}"#
        );
        let up = Readiness::of([]).session_store(vec![(StoreFeature::Sessions, StoreState::Up)]);
        assert_eq!(
            serde_json::to_string(&up).unwrap(),
            r#"{"servers":{},"sessionStore":"up"}"#
        );
        let none = Readiness::of([]).session_store(Vec::new());
        assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"servers":{}}"#);
    }
}
