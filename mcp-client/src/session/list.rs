//! The five list methods and their pagination: typed whole lists
//! ([`Session::list_tools`] and its siblings), and the raw pages under them
//! for passing items on as they came ([`Session::list_page`],
//! [`Session::list_complete`]).

use std::collections::HashSet;

use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::method::RequestMethod;
use mcpdisco_protocol::methods::{
    ListPrompts, ListResourceTemplates, ListResources, ListSkills, ListTools,
};
use mcpdisco_protocol::types::{
    ItemList, PaginatedParams, Prompt, Resource, ResourceTemplate, SKILLS_EXTENSION, SkillEntry,
    Tool,
};

use super::{RequestOptions, Session, SessionError};

impl Session {
    /// `tools/list`, every page: the server's tools as [`Tool`]s, each
    /// decoded when first read (a malformed one reads as a
    /// [`MalformedItem`](mcpdisco_protocol::types::MalformedItem), the
    /// others stay usable). Follows cursors up to
    /// [`SessionOptions::page_cap`](super::SessionOptions::page_cap); a repeated cursor is an error.
    pub async fn list_tools(&self) -> Result<ItemList<Tool>, SessionError> {
        self.list_items(ListKind::Tools).await
    }

    /// `resources/list`, every page, as [`Resource`]s (like [`list_tools`](Self::list_tools)).
    pub async fn list_resources(&self) -> Result<ItemList<Resource>, SessionError> {
        self.list_items(ListKind::Resources).await
    }

    /// `resources/templates/list`, every page, as [`ResourceTemplate`]s
    /// (like [`list_tools`](Self::list_tools)).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<ItemList<ResourceTemplate>, SessionError> {
        self.list_items(ListKind::ResourceTemplates).await
    }

    /// `prompts/list`, every page, as [`Prompt`]s (like [`list_tools`](Self::list_tools)).
    pub async fn list_prompts(&self) -> Result<ItemList<Prompt>, SessionError> {
        self.list_items(ListKind::Prompts).await
    }

    /// `skills/list` (extension `io.modelcontextprotocol/skills`), every
    /// page, as [`SkillEntry`]s (like [`list_tools`](Self::list_tools)).
    pub async fn list_skills(&self) -> Result<ItemList<SkillEntry>, SessionError> {
        self.list_items(ListKind::Skills).await
    }

    /// Every page of `kind`, its items kept as sent until read as `T`.
    async fn list_items<T>(&self, kind: ListKind) -> Result<ItemList<T>, SessionError> {
        self.list_complete(kind)
            .await
            .map(|list| ItemList::from_raw(list.items))
    }

    /// One page of a list, its items exactly as sent (slices of the
    /// response, not parsed): for passing a page on. The typed lists
    /// ([`list_tools`](Self::list_tools) and the others) follow every page.
    pub async fn list_page(
        &self,
        kind: ListKind,
        cursor: Option<&str>,
    ) -> Result<ListPage, SessionError> {
        let params = PaginatedParams::after(cursor.map(str::to_owned));
        let options = RequestOptions::default();
        let result = match kind {
            ListKind::Tools => self.send::<ListTools>(&params, options).await,
            ListKind::Resources => self.send::<ListResources>(&params, options).await,
            ListKind::ResourceTemplates => {
                self.send::<ListResourceTemplates>(&params, options).await
            }
            ListKind::Prompts => self.send::<ListPrompts>(&params, options).await,
            ListKind::Skills => self.send::<ListSkills>(&params, options).await,
        }?;
        ListPage::from_result(kind, &result).ok_or_else(|| {
            self.violation(
                kind.method(),
                format!("result has no \"{}\" array", kind.items_key()),
            )
        })
    }

    /// Every page of a list, its items exactly as sent, with how many pages
    /// it took and the smallest `ttlMs` any page carried: for passing a
    /// whole list on (discovery, its cache, the gateway). Follows cursors up
    /// to [`SessionOptions::page_cap`](super::SessionOptions::page_cap); a
    /// repeated cursor is an error.
    pub async fn list_complete(&self, kind: ListKind) -> Result<CompleteList, SessionError> {
        let mut list = CompleteList::default();
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        let page_cap = self.options().page_cap;
        for _ in 0..page_cap {
            let page = self.list_page(kind, cursor.as_deref()).await?;
            list.items.extend(page.items);
            list.pages += 1;
            list.ttl_ms = match (list.ttl_ms, page.ttl_ms) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match page.next_cursor {
                None => return Ok(list),
                Some(next) => {
                    if !seen.insert(next.clone()) {
                        return Err(self.violation(
                            kind.method(),
                            format!("the server repeated cursor {next:?}"),
                        ));
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(self.violation(kind.method(), format!("more than {page_cap} pages")))
    }
}

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

/// A whole list, every page followed, its items as sent
/// ([`Session::list_complete`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompleteList {
    /// The items of every page, in order, exactly as the server sent them.
    pub items: Vec<RawJson>,
    /// How many pages the server sent.
    pub pages: usize,
    /// Modern only: the smallest `ttlMs` of any page.
    pub ttl_ms: Option<u64>,
}

/// One page of a list, items kept exactly as the server sent them
/// ([`Session::list_page`]).
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
