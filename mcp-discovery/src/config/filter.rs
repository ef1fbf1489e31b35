//! Per-server filters: which tools, prompts, resources and skills a host sees.
//!
//! ```json
//! "github": {"command": "…", "tools": {"allow": ["*issue*"], "deny": ["delete_*"]}}
//! ```
//!
//! An item is visible when `allow` is empty or one of its globs matches,
//! and no `deny` glob matches. Tools and prompts match by name; resources,
//! templates and skills by name or by URI (a skill's: its `SKILL.md`). A hidden item is absent from lists and
//! refused in calls.

use glob::Pattern;

use crate::item_name::item_name;
use crate::report::ServerReport;
use mcpdisco_client::session::ListKind;

/// Allow and deny globs for one kind of item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Globs of what may be seen; empty means everything.
    pub allow: Vec<Pattern>,
    /// Globs of what is hidden, whatever `allow` says.
    pub deny: Vec<Pattern>,
}

impl Filter {
    /// Whether an item named `name` is visible.
    pub fn allows(&self, name: &str) -> bool {
        (self.allow.is_empty() || self.allow.iter().any(|p| p.matches(name)))
            && !self.deny.iter().any(|p| p.matches(name))
    }

    /// Whether it filters anything at all.
    pub fn is_open(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }
}

/// A server's filters, per kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    /// `tools`.
    pub tools: Filter,
    /// `prompts`.
    pub prompts: Filter,
    /// `resources` (resources and resource templates).
    pub resources: Filter,
    /// `skills`.
    pub skills: Filter,
}

impl Filters {
    /// The filter of `kind` (resources and templates share one).
    pub fn of(&self, kind: ListKind) -> &Filter {
        match kind {
            ListKind::Tools => &self.tools,
            ListKind::Prompts => &self.prompts,
            ListKind::Resources | ListKind::ResourceTemplates => &self.resources,
            ListKind::Skills => &self.skills,
        }
    }

    /// The report with the hidden items taken out (a report without filters
    /// is returned as it is).
    pub fn apply(&self, mut report: ServerReport) -> ServerReport {
        if self.tools.is_open()
            && self.prompts.is_open()
            && self.resources.is_open()
            && self.skills.is_open()
        {
            return report;
        }
        for kind in ListKind::ALL {
            let filter = self.of(kind);
            if filter.is_open() {
                continue;
            }
            report.items_retain(kind, |item| {
                let name = item_name(kind, item);
                let uri = match kind {
                    ListKind::Resources | ListKind::ResourceTemplates => {
                        mcpdisco_protocol::ResourceView::read(
                            mcpdisco_protocol::JsonView::of(item),
                            kind == ListKind::ResourceTemplates,
                        )
                        .uri()
                        .map(|uri| uri.into_owned())
                    }
                    ListKind::Skills => mcpdisco_protocol::SkillView::of(item)
                        .uri()
                        .map(|uri| uri.into_owned()),
                    ListKind::Tools | ListKind::Prompts => None,
                };
                match uri {
                    // Visible when either the name or the URI is allowed and neither is denied.
                    Some(uri) => {
                        (filter.allow.is_empty()
                            || filter
                                .allow
                                .iter()
                                .any(|p| p.matches(&name) || p.matches(&uri)))
                            && !filter
                                .deny
                                .iter()
                                .any(|p| p.matches(&name) || p.matches(&uri))
                    }
                    None => filter.allows(&name),
                }
            });
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ServerStatus;
    use serde_json::json;

    fn pattern(text: &str) -> Pattern {
        Pattern::new(text).unwrap()
    }

    #[test]
    fn allow_then_deny() {
        let filter = Filter {
            allow: vec![pattern("*issue*")],
            deny: vec![pattern("delete_*")],
        };
        assert!(filter.allows("create_issue"));
        assert!(!filter.allows("delete_issue"));
        assert!(!filter.allows("list_repos"));
        assert!(Filter::default().allows("anything"));
        let mut report = ServerReport::empty("gh", ServerStatus::Ready);
        report.tools = vec![
            json!({"name": "create_issue"}).into(),
            json!({"name": "delete_issue"}).into(),
        ]
        .into();
        report.resources = vec![json!({"uri": "file:///secret/x", "name": "x"}).into()].into();
        let filters = Filters {
            tools: filter,
            resources: Filter {
                allow: Vec::new(),
                deny: vec![pattern("file:///secret/*")],
            },
            ..Filters::default()
        };
        let report = filters.apply(report);
        assert_eq!(report.tools.len(), 1);
        assert!(report.resources.is_empty());
    }
}
