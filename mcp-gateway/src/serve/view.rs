//! What one client sees: the whole gateway, or the view of one profile
//! (`/profiles/<name>/mcp`, `serve --profile NAME`).
//!
//! A profile shows the items of its servers (every server without a
//! `servers` list), and of their tools only those whose served name
//! (`<server>__<tool>`) its `tools` globs let through. What it does not
//! show is unknown to its clients: absent from lists, and refused in calls
//! with the error of a name no server offers. A profile that a reload
//! removed shows nothing to the clients still connected to it.

use std::sync::Arc;

use mcpdisco::catalog::Catalog;
use mcpdisco::config::{Profile, Profiles};
use mcpdisco_client::session::ListKind;

/// What one client sees.
#[derive(Debug, Clone)]
pub(crate) enum View {
    /// Every server's items.
    All,
    /// One profile's.
    Profile(Profile),
    /// Nothing: the client's profile is no longer configured.
    Gone,
}

impl View {
    /// The view named `profile` (every item when `None`) among `profiles`.
    pub(crate) fn of(profiles: &Profiles, profile: Option<&str>) -> Self {
        match profile {
            None => Self::All,
            Some(name) => profiles
                .get(name)
                .map_or(Self::Gone, |profile| Self::Profile(profile.clone())),
        }
    }

    /// Whether it shows the items of `server`.
    pub(crate) fn shows_server(&self, server: &str) -> bool {
        match self {
            Self::All => true,
            Self::Profile(profile) => profile.shows_server(server),
            Self::Gone => false,
        }
    }

    /// Whether it shows the tool of `server` served as `qualified_name`.
    pub(crate) fn shows_tool(&self, server: &str, qualified_name: &str) -> bool {
        match self {
            Self::All => true,
            Self::Profile(profile) => profile.shows_tool(server, qualified_name),
            Self::Gone => false,
        }
    }

    /// Whether its `tools/list` is tool search: the gateway's setting
    /// (`serve --tool-search`), or the profile's `toolSearch`.
    pub(crate) fn tool_search(&self, gateway: bool) -> bool {
        match self {
            Self::Profile(profile) => gateway || profile.tool_search,
            Self::All | Self::Gone => gateway,
        }
    }

    /// What it shows of `catalog` (the catalog itself for every item).
    pub(crate) fn catalog(&self, catalog: &Arc<Catalog>) -> Arc<Catalog> {
        match self {
            Self::All => Arc::clone(catalog),
            Self::Profile(_) | Self::Gone => Arc::new(catalog.retain(|kind, entry| match kind {
                ListKind::Tools => self.shows_tool(&entry.server, &entry.qualified_name),
                _ => self.shows_server(&entry.server),
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use mcpdisco::config::Filter;
    use mcpdisco::report::{ServerReport, ServerStatus};
    use mcpdisco_protocol::RawJson;

    fn ready(name: &str, tools: &[&str]) -> ServerReport {
        let mut report = ServerReport::disabled(name);
        report.status = ServerStatus::Ready;
        report.tools = tools
            .iter()
            .map(|tool| {
                RawJson::parse(format!(r#"{{"name":"{tool}","inputSchema":{{}}}}"#)).unwrap()
            })
            .collect();
        report.prompts = vec![RawJson::parse(r#"{"name":"p"}"#).unwrap()].into();
        report
    }

    fn profile(servers: Option<&[&str]>, allow: &[&str], deny: &[&str]) -> Profile {
        let globs = |globs: &[&str]| {
            globs
                .iter()
                .map(|glob| glob::Pattern::new(glob).unwrap())
                .collect()
        };
        Profile {
            name: "p".into(),
            source: "/c.json".into(),
            servers: servers.map(|s| s.iter().map(|s| (*s).to_owned()).collect()),
            tools: Filter {
                allow: globs(allow),
                deny: globs(deny),
            },
            tool_search: false,
            required_scopes: Vec::new(),
        }
    }

    fn names(catalog: &Catalog, kind: ListKind) -> Vec<String> {
        catalog
            .entries(kind)
            .iter()
            .map(|entry| entry.qualified_name.clone())
            .collect()
    }

    #[test]
    fn a_profile_shows_its_servers_and_the_tools_its_globs_allow() {
        let catalog = Arc::new(Catalog::build(
            &[
                ready("a", &["read", "write", "delete"]),
                ready("b", &["read"]),
                ready("c", &["read"]),
            ],
            &Default::default(),
        ));
        let view = View::Profile(profile(
            Some(&["a", "b"]),
            &["a__*", "b__re?d"],
            &["*delete"],
        ));
        let shown = view.catalog(&catalog);
        assert_eq!(
            names(&shown, ListKind::Tools),
            ["a__read", "a__write", "b__read"]
        );
        assert_eq!(names(&shown, ListKind::Prompts), ["a__p", "b__p"]);
        assert!(!view.shows_tool("c", "c__read"));
        assert!(!view.shows_tool("a", "a__delete"));
    }

    #[test]
    fn every_server_without_a_list_nothing_when_gone_all_without_a_profile() {
        let catalog = Arc::new(Catalog::build(
            &[ready("a", &["x"]), ready("b", &["x"])],
            &Default::default(),
        ));
        let every = View::Profile(profile(None, &[], &["b__*"]));
        assert_eq!(names(&every.catalog(&catalog), ListKind::Tools), ["a__x"]);
        assert_eq!(
            names(&every.catalog(&catalog), ListKind::Prompts),
            ["a__p", "b__p"]
        );
        assert!(View::Gone.catalog(&catalog).tools.is_empty());
        assert!(Arc::ptr_eq(&View::All.catalog(&catalog), &catalog));
        let profiles = Profiles::from([("p".to_owned(), profile(None, &[], &[]))]);
        assert!(matches!(View::of(&profiles, Some("p")), View::Profile(_)));
        assert!(matches!(View::of(&profiles, Some("q")), View::Gone));
        assert!(matches!(View::of(&profiles, None), View::All));
    }

    #[test]
    fn tool_search_is_the_gateways_or_the_profiles() {
        let mut searching = profile(None, &[], &[]);
        searching.tool_search = true;
        assert!(View::Profile(searching).tool_search(false));
        assert!(!View::Profile(profile(None, &[], &[])).tool_search(false));
        assert!(View::All.tool_search(true));
        assert!(!View::All.tool_search(false));
    }
}
