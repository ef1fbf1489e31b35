//! A server's settings besides its launch, from its entry: `enabled`,
//! `description`, deadlines, `rateLimit`, `health`, `auth` and the filters.

use std::time::Duration;

use mcpdisco_client::auth::{AuthSettings, Grant};
use mcpdisco_client::policy::RateLimit;
use mcpdisco_transport::secret::SecretString;
use serde_json::{Map, Number, Value};

use super::entry::{AuthEntry, Field, FilterEntry, HealthEntry, List, RateLimitEntry, Scopes};
use super::expand::Expander;
use super::filter::Filter;
use super::ping::PingSettings;
use super::problems::ServerProblems;

/// Whether to start it: `enabled` (default true) and `disabled` (default false).
pub(crate) fn enabled(
    enabled: Field<bool>,
    disabled: Field<bool>,
    problems: &mut ServerProblems<'_, '_>,
) -> bool {
    let enabled = flag(enabled, "enabled", problems);
    let disabled = flag(disabled, "disabled", problems);
    !matches!((enabled, disabled), (Some(false), _) | (_, Some(true)))
}

/// `namespace` (default true): whether its items are namespaced.
pub(crate) fn namespaced(value: Field<bool>, problems: &mut ServerProblems<'_, '_>) -> bool {
    flag(value, "namespace", problems).unwrap_or(true)
}

fn flag(value: Field<bool>, field: &str, problems: &mut ServerProblems<'_, '_>) -> Option<bool> {
    value.given().unwrap_or_else(|found| {
        problems.mistyped(field, "true or false", found);
        None
    })
}

/// A text field.
pub(crate) fn text(
    value: Field<String>,
    field: &str,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<String> {
    value.given().unwrap_or_else(|found| {
        problems.mistyped(field, "a string", found);
        None
    })
}

/// `timeoutMs`, else `timeout` (seconds).
pub(crate) fn timeout(
    timeout: Field<f64>,
    timeout_ms: Field<f64>,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<Duration> {
    let ms = seconds(timeout_ms, "timeoutMs", 0.001, problems);
    let seconds = seconds(timeout, "timeout", 1.0, problems);
    ms.or(seconds)
}

/// `staleMaxAgeMs`: how long the last good catalog may be served after
/// refreshing it failed; 0 never serves it stale.
pub(crate) fn stale_max_age(
    value: Field<Number>,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<Duration> {
    const FIELD: &str = "staleMaxAgeMs";
    /// A year, in milliseconds.
    const MOST: u64 = 366 * 24 * 60 * 60 * 1000;
    match value.given() {
        Ok(None) => None,
        Ok(Some(number)) => match number.as_u64() {
            Some(ms) if ms <= MOST => Some(Duration::from_millis(ms)),
            _ => {
                problems.error(
                    Some(FIELD),
                    "must be a whole number of milliseconds from 0 to a year",
                );
                None
            }
        },
        Err(found) => {
            problems.mistyped(FIELD, "a number", found);
            None
        }
    }
}

/// A positive duration of at most a day, in units of `scale` seconds.
fn seconds(
    value: Field<f64>,
    field: &str,
    scale: f64,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<Duration> {
    match value.given() {
        Ok(None) => None,
        Ok(Some(number)) => {
            let seconds = number * scale;
            if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 {
                Some(Duration::from_secs_f64(seconds))
            } else {
                problems.error(Some(field), "must be a positive duration of at most a day");
                None
            }
        }
        Err(found) => {
            problems.mistyped(field, "a number", found);
            None
        }
    }
}

/// Fields an object does not have, as warnings.
fn warn_unknown(unknown: &Map<String, Value>, object: &str, problems: &mut ServerProblems<'_, '_>) {
    for field in unknown.keys() {
        problems.warn(Some(&format!("{object}.{field}")), "unknown field; ignored");
    }
}

/// `rateLimit`: `{"requestsPerSecond": n, "burst": n}`.
pub(crate) fn rate_limit(
    value: Field<RateLimitEntry>,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<RateLimit> {
    let entry = match value.given() {
        Ok(entry) => entry?,
        Err(found) => {
            problems.mistyped(
                "rateLimit",
                "{\"requestsPerSecond\": …, \"burst\": …}",
                found,
            );
            return None;
        }
    };
    warn_unknown(&entry.unknown, "rateLimit", problems);
    let defaults = RateLimit::default();
    let rate = match entry.requests_per_second {
        Field::Absent => Some(defaults.requests_per_second),
        Field::Given(rate) if rate > 0.0 && rate.is_finite() => Some(rate),
        _ => {
            problems.error(
                Some("rateLimit.requestsPerSecond"),
                "must be a positive number",
            );
            None
        }
    };
    let burst = match entry.burst {
        Field::Absent => Some(defaults.burst),
        Field::Given(number) => number
            .as_u64()
            .and_then(|burst| u32::try_from(burst).ok())
            .filter(|burst| *burst > 0),
        _ => None,
    };
    if burst.is_none() {
        problems.error(Some("rateLimit.burst"), "must be a positive integer");
    }
    Some(RateLimit::new(rate?, burst?))
}

/// `health`: `{"pingInterval": seconds, "pingTimeout": seconds}`.
pub(crate) fn ping(
    value: Field<HealthEntry>,
    problems: &mut ServerProblems<'_, '_>,
) -> PingSettings {
    let entry = match value.given() {
        Ok(Some(entry)) => entry,
        Ok(None) => return PingSettings::default(),
        Err(found) => {
            problems.mistyped("health", "an object", found);
            return PingSettings::default();
        }
    };
    warn_unknown(&entry.unknown, "health", problems);
    PingSettings {
        interval: seconds(entry.ping_interval, "health.pingInterval", 1.0, problems),
        timeout: seconds(entry.ping_timeout, "health.pingTimeout", 1.0, problems),
    }
}

/// A filter: `{"allow": [glob…], "deny": [glob…]}`.
pub(crate) fn filter(
    value: Field<FilterEntry>,
    field: &str,
    problems: &mut ServerProblems<'_, '_>,
) -> Filter {
    let entry = match value.given() {
        Ok(Some(entry)) => entry,
        Ok(None) => return Filter::default(),
        Err(found) => {
            problems.mistyped(field, "{\"allow\": [glob…], \"deny\": [glob…]}", found);
            return Filter::default();
        }
    };
    for key in entry.unknown.keys() {
        problems.error(
            Some(&format!("{field}.{key}")),
            "unknown; a filter has \"allow\" and \"deny\"",
        );
    }
    Filter {
        allow: globs(entry.allow, &format!("{field}.allow"), problems),
        deny: globs(entry.deny, &format!("{field}.deny"), problems),
    }
}

fn globs(
    value: List<String>,
    field: &str,
    problems: &mut ServerProblems<'_, '_>,
) -> Vec<glob::Pattern> {
    let items = match value.given() {
        Ok(items) => items.unwrap_or_default(),
        Err(_) => {
            problems.error(Some(field), "expected an array of globs");
            return Vec::new();
        }
    };
    let mut patterns = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let place = format!("{field}[{index}]");
        match item {
            Field::Given(text) => match glob::Pattern::new(&text) {
                Ok(pattern) => patterns.push(pattern),
                Err(error) => problems.error(Some(&place), format!("not a valid glob: {error}")),
            },
            _ => problems.error(Some(&place), "expected a glob string"),
        }
    }
    patterns
}

/// `auth`: `{"clientId", "clientSecret", "privateKey", "signingAlgorithm",
/// "scopes", "clientMetadataUrl", "grant", …}`; secrets may be `${env:…}`.
pub(crate) fn auth(
    value: Field<AuthEntry>,
    expander: &Expander<'_>,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<AuthSettings> {
    let entry = match value.given() {
        Ok(entry) => entry?,
        Err(found) => {
            problems.mistyped("auth", "an object", found);
            return None;
        }
    };
    warn_unknown(&entry.unknown, "auth", problems);
    let mut text = |value: Field<String>, field: &str| auth_text(value, field, expander, problems);
    let grant = text(entry.grant, "grant");
    let mut settings = AuthSettings::default();
    settings.client_id = text(entry.client_id, "clientId");
    settings.client_secret = text(entry.client_secret, "clientSecret").map(SecretString::from);
    settings.private_key = text(entry.private_key, "privateKey").map(SecretString::from);
    settings.signing_algorithm = text(entry.signing_algorithm, "signingAlgorithm");
    settings.client_metadata_url = text(entry.client_metadata_url, "clientMetadataUrl");
    settings.assertion = text(entry.assertion, "assertion").map(SecretString::from);
    settings.assertion_file =
        text(entry.assertion_file, "assertionFile").map(std::path::PathBuf::from);
    settings.idp_token_endpoint = text(entry.idp_token_endpoint, "idpTokenEndpoint");
    settings.idp_id_token = text(entry.idp_id_token, "idpIdToken").map(SecretString::from);
    settings.idp_client_id = text(entry.idp_client_id, "idpClientId");
    settings.issuer = text(entry.issuer, "issuer");
    let grant = match grant.as_deref() {
        None | Some("authorization_code") => Grant::AuthorizationCode,
        Some("client_credentials") => Grant::ClientCredentials,
        Some("jwt_bearer") => Grant::JwtBearer,
        Some("enterprise") => Grant::Enterprise,
        Some(other) => {
            let message = format!(
                "unknown grant {other:?}; expected \"authorization_code\", \"client_credentials\", \"jwt_bearer\" or \"enterprise\""
            );
            problems.error(Some("auth.grant"), message);
            Grant::AuthorizationCode
        }
    };
    settings.scopes = scopes(entry.scopes, problems);
    Some(settings.grant(grant))
}

/// Text field `field` of `auth`, its references expanded.
fn auth_text(
    value: Field<String>,
    field: &str,
    expander: &Expander<'_>,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<String> {
    let place = format!("auth.{field}");
    let written = match value.given() {
        Ok(written) => written?,
        Err(found) => {
            problems.mistyped(&place, "a string", found);
            return None;
        }
    };
    problems
        .expand(expander, &place, &written)
        .map(|expanded| expanded.text)
}

/// `auth.scopes`: spaced or listed.
fn scopes(value: Field<Scopes>, problems: &mut ServerProblems<'_, '_>) -> Option<Vec<String>> {
    match value.given() {
        Ok(None) => None,
        Ok(Some(Scopes::Spaced(text))) => Some(mcpdisco_client::auth::split_scopes(&text)),
        Ok(Some(Scopes::Listed(items))) => {
            let mut scopes = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Field::Given(scope) => scopes.push(scope),
                    Field::Mistyped(found) => problems.mistyped("auth.scopes", "strings", found),
                    Field::Null | Field::Absent => {
                        problems.mistyped("auth.scopes", "strings", "null")
                    }
                }
            }
            Some(scopes)
        }
        Err(found) => {
            problems.mistyped("auth.scopes", "a list of strings", found);
            None
        }
    }
}
