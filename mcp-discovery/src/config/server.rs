//! One server entry read into a [`ServerConfig`]: every problem of the
//! entry is said, and the server is read when none of them is an error.

use std::mem::take;

use serde_json::Value;

use super::ServerConfig;
use super::entry::read_entry;
use super::filter::Filters;
use super::json::kind_of;
use super::launch_entry::{LaunchReader, Transport};
use super::problems::ServerProblems;
use super::settings;

/// Reads the entry `raw` of the server `problems` is about, from the file at
/// `source`; `None` when it has an error (said in `problems`).
pub(crate) fn read_server(
    launches: &LaunchReader<'_>,
    source: &std::path::Path,
    raw: &Value,
    problems: &mut ServerProblems<'_, '_>,
) -> Option<ServerConfig> {
    let Value::Object(raw) = raw else {
        problems.error(None, format!("expected an object, found {}", kind_of(raw)));
        return None;
    };
    let before = problems.error_count();
    let mut entry = read_entry(raw);
    let transport = launches.transport(&mut entry, problems);
    if !matches!(transport, Ok(Some((_, Transport::Custom(_))))) {
        for field in entry.unknown.keys() {
            problems.warn(Some(field), "unknown field; ignored");
        }
    }
    let enabled = settings::enabled(
        take(&mut entry.enabled),
        take(&mut entry.disabled),
        problems,
    );
    let description = settings::text(take(&mut entry.description), "description", problems);
    let timeout = settings::timeout(
        take(&mut entry.timeout),
        take(&mut entry.timeout_ms),
        problems,
    );
    let stale_max_age = settings::stale_max_age(take(&mut entry.stale_max_age_ms), problems);
    let rate_limit = settings::rate_limit(take(&mut entry.rate_limit), problems);
    let ping = settings::ping(take(&mut entry.health), problems);
    let auth = settings::auth(take(&mut entry.auth), &launches.expander, problems);
    let filters = Filters {
        tools: settings::filter(take(&mut entry.tools), "tools", problems),
        prompts: settings::filter(take(&mut entry.prompts), "prompts", problems),
        resources: settings::filter(take(&mut entry.resources), "resources", problems),
    };
    let launch = launches.launch(&mut entry, raw, transport.unwrap_or(None), problems);
    if problems.error_count() > before {
        return None;
    }
    let read = launch?;
    let mut server = ServerConfig::new(problems.name(), read.launch);
    server.source = source.to_owned();
    server.line = problems.entry_line();
    server.enabled = enabled;
    server.description = description;
    server.timeout = timeout;
    server.stale_max_age = stale_max_age;
    server.rate_limit = rate_limit;
    server.ping = ping;
    server.auth = auth;
    server.filters = filters;
    server.shown_args = read.shown_args;
    server.shown_url = read.shown_url;
    Some(server)
}
