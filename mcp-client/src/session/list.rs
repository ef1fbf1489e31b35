//! The five list methods and their pagination.

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{
    ListPrompts, ListResourceTemplates, ListResources, ListSkills, ListTools,
};
use mcpdisco_protocol::types::SKILLS_EXTENSION;

/// One of the five things a server lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
    /// `skills/list` (extension `io.modelcontextprotocol/skills`).
    Skills,
}

impl ListKind {
    /// All five, in the order discovery lists them.
    pub const ALL: [ListKind; 5] = [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
        ListKind::Skills,
    ];

    /// The method name.
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => ListTools::METHOD,
            ListKind::Resources => ListResources::METHOD,
            ListKind::ResourceTemplates => ListResourceTemplates::METHOD,
            ListKind::Prompts => ListPrompts::METHOD,
            ListKind::Skills => ListSkills::METHOD,
        }
    }

    /// The result member holding the items.
    pub fn items_key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
            ListKind::Skills => "skills",
        }
    }

    /// The server capability that advertises this list: a member of
    /// `capabilities`, or for skills the extension's identifier under
    /// `capabilities.extensions`.
    pub fn capability(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources | ListKind::ResourceTemplates => "resources",
            ListKind::Prompts => "prompts",
            ListKind::Skills => SKILLS_EXTENSION,
        }
    }
}

/// A whole list, every page followed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompleteList {
    /// The items of every page, in order, exactly as the server sent them.
    pub items: Vec<RawJson>,
    /// How many pages the server sent.
    pub pages: usize,
    /// Modern only: the smallest `ttlMs` of any page.
    pub ttl_ms: Option<u64>,
}

/// One page of a list, items kept exactly as the server sent them.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    /// The items, each sharing the bytes of the result it came in.
    pub items: Vec<RawJson>,
    /// The cursor of the next page; `None` ends the list.
    pub next_cursor: Option<String>,
    /// Modern only: how long the page stays fresh.
    pub ttl_ms: Option<u64>,
}

impl ListPage {
    /// Reads a page from a list result in one pass, without parsing the items.
    /// `None` when the result is not an object or its items member is missing
    /// or not an array.
    pub(crate) fn from_result(kind: ListKind, result: &RawJson) -> Option<Self> {
        let page = result.list_page(kind.items_key())?;
        Some(Self {
            items: page.items,
            next_cursor: page.next_cursor,
            ttl_ms: page.ttl_ms.map(|ttl| u64::try_from(ttl).unwrap_or(0)),
        })
    }
}
