//! `--client-rate-limit RATE[/BURST]`: how many requests per second one
//! client subject may send, and who that subject is.

use std::str::FromStr;

use mcpdisco_client::policy::Gcra;

use super::LimitError;

/// Requests per second per subject, and the burst after a quiet spell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientRateLimit {
    /// Sustained requests per second (positive).
    pub rate: f64,
    /// How many may go at once after a quiet spell (at least 1).
    pub burst: u32,
}

impl ClientRateLimit {
    /// The rate as the GCRA keeps it.
    pub fn gcra(self) -> Gcra {
        Gcra::new(self.rate, self.burst)
    }
}

impl FromStr for ClientRateLimit {
    type Err = LimitError;

    /// `RATE` or `RATE/BURST`: RATE a positive number, BURST a whole
    /// number of at least 1; BURST defaults to RATE rounded up.
    fn from_str(text: &str) -> Result<Self, LimitError> {
        let invalid = || LimitError::Rate(text.to_owned());
        let (rate, burst) = match text.trim().split_once('/') {
            Some((rate, burst)) => (rate, Some(burst)),
            None => (text.trim(), None),
        };
        let rate: f64 = rate.trim().parse().map_err(|_| invalid())?;
        if !rate.is_finite() || rate <= 0.0 || rate > f64::from(u32::MAX) {
            return Err(invalid());
        }
        let burst = match burst {
            Some(burst) => burst.trim().parse::<u32>().map_err(|_| invalid())?,
            // At most u32::MAX (checked above), so the cast is exact.
            None => rate.ceil() as u32,
        };
        if burst == 0 {
            return Err(invalid());
        }
        Ok(Self { rate, burst })
    }
}

/// Who a request counts against: a JWT's subject, a bearer token (by its
/// hash), or nobody in particular (an open gateway). Only a hash is kept,
/// so no token is held or stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Subject(String);

impl Subject {
    /// The subject of a verified JWT: its `sub`, else the token itself.
    pub fn of_jwt(sub: Option<&str>, token: &str) -> Self {
        match sub {
            Some(sub) => Self::hashed("sub", sub.as_bytes()),
            None => Self::of_token(token),
        }
    }

    /// The subject of a bearer token.
    pub fn of_token(token: &str) -> Self {
        Self::hashed("token", token.as_bytes())
    }

    /// Every request of an open gateway.
    pub fn anonymous() -> Self {
        Self("anonymous".to_owned())
    }

    fn hashed(kind: &str, bytes: &[u8]) -> Self {
        let mut hash = hmac_sha256::Hash::new();
        hash.update(kind.as_bytes());
        hash.update([0]);
        hash.update(bytes);
        let digest = hash.finalize();
        Self(format!("{kind}:{}", hex::encode(&digest[..16])))
    }

    /// The key of its bucket: `anonymous`, `sub:<hash>` or `token:<hash>`.
    pub fn key(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(f64, u32), LimitError> {
        text.parse::<ClientRateLimit>()
            .map(|limit| (limit.rate, limit.burst))
    }

    #[test]
    fn rate_and_burst_are_read_and_the_burst_defaults_to_the_rate_rounded_up() {
        assert_eq!(parse("10").unwrap(), (10.0, 10));
        assert_eq!(parse("2.5").unwrap(), (2.5, 3));
        assert_eq!(parse("0.2").unwrap(), (0.2, 1));
        assert_eq!(parse("5/20").unwrap(), (5.0, 20));
        assert_eq!(parse(" 1 / 1 ").unwrap(), (1.0, 1));
    }

    #[test]
    fn a_rate_or_burst_that_is_not_a_positive_number_is_refused() {
        for text in [
            "", "0", "-1", "x", "NaN", "inf", "1/0", "1/", "/3", "1/2.5", "1/2/3",
        ] {
            let error = parse(text).unwrap_err();
            assert!(
                error.to_string().contains("RATE[/BURST]"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn subjects_are_told_apart_and_hold_no_token() {
        let token = Subject::of_token("s3cret-token");
        assert!(!token.key().contains("s3cret"));
        assert_eq!(token, Subject::of_jwt(None, "s3cret-token"));
        assert_ne!(
            Subject::of_jwt(Some("alice"), "t1"),
            Subject::of_jwt(Some("bob"), "t1")
        );
        assert_eq!(
            Subject::of_jwt(Some("alice"), "t1"),
            Subject::of_jwt(Some("alice"), "t2")
        );
        assert_ne!(Subject::of_jwt(Some("x"), "t"), Subject::of_token("x"));
    }
}
