//! `--client-rate-limit RATE[/BURST]`: how many requests per second one
//! client subject may send, and who a JWT's holder counts as (a
//! [`Subject`], the transport's: the one a sealed session is bound to).

use std::str::FromStr;

use mcpdisco_client::policy::Gcra;
#[cfg(feature = "http")]
pub use mcpdisco_transport::server::http::Subject;

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

/// Who a request with a verified JWT counts against: the JWT's subject
/// (`sub`), else (a token without one) the token itself, so that clients
/// whose tokens name no subject do not share one bucket. Only a digest is
/// kept ([`Subject`]), so no token is held or stored.
#[cfg(feature = "http")]
pub fn jwt_rate_subject(sub: Option<&str>, token: &str) -> Subject {
    match sub {
        Some(sub) => Subject::jwt(Some(sub)),
        None => Subject::token(token),
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

    #[cfg(feature = "http")]
    #[test]
    fn a_jwt_counts_by_its_subject_else_by_its_token() {
        assert_eq!(
            jwt_rate_subject(Some("alice"), "t1"),
            jwt_rate_subject(Some("alice"), "t2")
        );
        assert_ne!(
            jwt_rate_subject(Some("alice"), "t1"),
            jwt_rate_subject(Some("bob"), "t1")
        );
        assert_eq!(jwt_rate_subject(None, "t1"), Subject::token("t1"));
        assert_ne!(jwt_rate_subject(None, "t1"), jwt_rate_subject(None, "t2"));
        assert_ne!(jwt_rate_subject(Some("x"), "t"), Subject::token("x"));
    }
}
