//! What a held session's id was last opened (or sealed) with, so that the
//! next request with the same id is served without opening it again (an
//! XChaCha20-Poly1305 open and a JSON read per request): only while the
//! same subject presents it, the same keys are in use (a rotation opens
//! every id once more) and it is within its age. The table is keyed by the
//! exact id, so a changed byte misses it and is opened, and refused.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Subject;
use super::session_seal::{SessionClaims, SessionKeys};

/// What a held session's id was opened or sealed with.
#[derive(Clone)]
pub(super) struct OpenedWith {
    subject: Subject,
    issued_at: u64,
    keys: Arc<SessionKeys>,
}

impl OpenedWith {
    /// The id of `claims`, opened or sealed under `keys`.
    pub(super) fn new(claims: &SessionClaims, keys: Arc<SessionKeys>) -> Self {
        Self {
            subject: claims.subject,
            issued_at: claims.issued_at,
            keys,
        }
    }

    /// Whether a request by `subject` at `now`, with `keys` in use, is
    /// served as the id was opened: the same subject, the very same keys,
    /// and at most `max_age` old (counted as [`SessionClaims::check`] does).
    /// When not, the id is opened again (and refused there, with its reason).
    pub(super) fn still_serves(
        &self,
        subject: &Subject,
        keys: &Arc<SessionKeys>,
        now: SystemTime,
        max_age: Duration,
    ) -> bool {
        let now = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let age = Duration::from_secs(now.saturating_sub(self.issued_at));
        self.subject == *subject && Arc::ptr_eq(&self.keys, keys) && age <= max_age
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUED: u64 = 1_700_000_000;
    const DAY: Duration = Duration::from_secs(24 * 3600);

    fn claims(subject: Subject) -> SessionClaims {
        SessionClaims {
            protocol_version: "2025-11-25".into(),
            client_capabilities: Default::default(),
            client_info: None,
            route: "/mcp".into(),
            subject,
            issued_at: ISSUED,
        }
    }

    fn at(seconds_after_issue: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(ISSUED + seconds_after_issue)
    }

    #[test]
    fn the_same_subject_with_the_same_keys_within_its_age_is_served() {
        let keys = Arc::new(SessionKeys::random());
        let opened = OpenedWith::new(&claims(Subject::anonymous()), Arc::clone(&keys));
        assert!(opened.still_serves(&Subject::anonymous(), &keys, at(60), DAY));
        assert!(opened.still_serves(&Subject::anonymous(), &keys, at(24 * 3600), DAY));
    }

    #[test]
    fn another_subject_is_not_served_from_the_table() {
        let keys = Arc::new(SessionKeys::random());
        let opened = OpenedWith::new(&claims(Subject::token("one")), Arc::clone(&keys));
        assert!(!opened.still_serves(&Subject::token("two"), &keys, at(60), DAY));
        assert!(!opened.still_serves(&Subject::anonymous(), &keys, at(60), DAY));
    }

    #[test]
    fn replaced_keys_open_the_id_again_even_when_they_are_equal() {
        let keys = Arc::new(SessionKeys::random());
        let opened = OpenedWith::new(&claims(Subject::anonymous()), Arc::clone(&keys));
        let reread = Arc::new(SessionKeys::clone(&keys));
        assert!(!opened.still_serves(&Subject::anonymous(), &reread, at(60), DAY));
    }

    #[test]
    fn an_id_past_its_age_is_not_served_from_the_table() {
        let keys = Arc::new(SessionKeys::random());
        let opened = OpenedWith::new(&claims(Subject::anonymous()), Arc::clone(&keys));
        let max_age = Duration::from_secs(60);
        assert!(opened.still_serves(&Subject::anonymous(), &keys, at(60), max_age));
        assert!(!opened.still_serves(&Subject::anonymous(), &keys, at(61), max_age));
    }
}
