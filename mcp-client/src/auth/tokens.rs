//! The token state of one server's authorization: the tokens held and the
//! stored entry they belong to, a generation that changes with them, whether
//! they are about to expire, and when an early refresh last failed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcpdisco_transport::secret::Masker;
use mcpdisco_transport::sync::{Mutex, RwLock};

use super::store::{StoredCredentials, TokenSet};

/// A token this close to its expiry (seconds) is refreshed before use.
pub(super) const REFRESH_MARGIN_SECS: u64 = 60;
/// How long after a failed early refresh none is tried again.
const REFRESH_BACKOFF: Duration = Duration::from_secs(30);

/// The current tokens, with the entry they belong to.
#[derive(Clone)]
pub(super) struct Current {
    /// The stored entry (issuer, resource, client).
    pub(super) entry: StoredCredentials,
    /// Its tokens.
    pub(super) tokens: TokenSet,
}

impl Current {
    /// The tokens of a stored entry, if it holds any.
    pub(super) fn of(entry: StoredCredentials) -> Option<Self> {
        let tokens = entry.tokens.clone()?;
        Some(Self { entry, tokens })
    }

    /// Whether the tokens are DPoP-bound.
    pub(super) fn is_dpop(&self) -> bool {
        self.tokens.token_type.eq_ignore_ascii_case("dpop")
    }
}

/// The tokens held, and what decides when they change.
#[derive(Default)]
pub(super) struct TokenState {
    current: RwLock<Option<Current>>,
    /// Bumped whenever the tokens change, so concurrent refusals of one
    /// token run the flow once.
    generation: AtomicU64,
    /// When an early refresh last failed.
    refresh_failed_at: Mutex<Option<Instant>>,
}

impl TokenState {
    /// Starting from `current` (stored tokens), or from none.
    pub(super) fn new(current: Option<Current>) -> Self {
        Self {
            current: RwLock::new(current),
            ..Default::default()
        }
    }

    /// A copy of the current tokens.
    pub(super) fn current(&self) -> Option<Current> {
        self.current.read().clone()
    }

    /// `read` of the current tokens, without copying them.
    pub(super) fn with_current<T>(&self, read: impl FnOnce(&Current) -> T) -> Option<T> {
        self.current.read().as_ref().map(read)
    }

    /// Whether tokens are held.
    pub(super) fn is_held(&self) -> bool {
        self.current.read().is_some()
    }

    /// Makes `current` the tokens in use.
    pub(super) fn replace(&self, current: Current) {
        *self.current.write() = Some(current);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Forgets the tokens held.
    pub(super) fn forget(&self) {
        *self.current.write() = None;
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Changes whenever the tokens do.
    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the tokens held carry a refresh token.
    pub(super) fn is_refreshable(&self) -> bool {
        self.with_current(|c| c.tokens.refresh_token.is_some())
            .unwrap_or(false)
    }

    /// Whether to refresh before the next request: the tokens expire within
    /// the margin, can be refreshed, and no early refresh failed lately
    /// (after one, requests go on with the token until the server refuses
    /// it, without each one trying again).
    pub(super) fn needs_early_refresh(&self) -> bool {
        let expiring = self
            .with_current(|c| {
                c.tokens.refresh_token.is_some() && c.tokens.expires_within(REFRESH_MARGIN_SECS)
            })
            .unwrap_or(false);
        expiring
            && !self
                .refresh_failed_at
                .lock()
                .is_some_and(|at| at.elapsed() < REFRESH_BACKOFF)
    }

    /// Notes that an early refresh failed now.
    pub(super) fn early_refresh_failed(&self) {
        *self.refresh_failed_at.lock() = Some(Instant::now());
    }

    /// The scopes the tokens held were granted.
    pub(super) fn granted_scopes(&self) -> Vec<String> {
        self.with_current(|c| c.tokens.scopes.clone())
            .unwrap_or_default()
    }

    /// A masker of the tokens and the client secret held.
    pub(super) fn masker(&self) -> Masker {
        let mut builder = Masker::builder();
        if let Some(current) = self.current.read().as_ref() {
            builder.secret(&current.tokens.access_token);
            if let Some(refresh) = &current.tokens.refresh_token {
                builder.secret(refresh);
            }
            if let Some(secret) = current
                .entry
                .client
                .as_ref()
                .and_then(|c| c.client_secret.as_ref())
            {
                builder.secret(secret);
            }
        }
        builder.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::store::now_secs;

    fn current(refresh: bool, expires_in: u64) -> Current {
        Current {
            entry: StoredCredentials::default(),
            tokens: TokenSet {
                access_token: "access".into(),
                refresh_token: refresh.then(|| "refresh".into()),
                expires_at: Some(now_secs() + expires_in),
                ..Default::default()
            },
        }
    }

    #[test]
    fn an_expiring_refreshable_token_is_refreshed_early_until_that_fails() {
        let state = TokenState::new(Some(current(true, 10)));
        assert!(state.needs_early_refresh());
        state.early_refresh_failed();
        assert!(!state.needs_early_refresh(), "backs off after a failure");
        assert!(!TokenState::new(Some(current(false, 10))).needs_early_refresh());
        assert!(!TokenState::new(Some(current(true, 3600))).needs_early_refresh());
        assert!(!TokenState::new(None).needs_early_refresh());
    }

    #[test]
    fn every_change_is_a_new_generation() {
        let state = TokenState::new(None);
        let first = state.generation();
        state.replace(current(true, 3600));
        assert!(state.is_held() && state.is_refreshable());
        assert_ne!(state.generation(), first);
        let second = state.generation();
        state.forget();
        assert!(!state.is_held());
        assert_ne!(state.generation(), second);
    }
}
