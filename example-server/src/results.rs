//! How the server's results are shaped, by the example's handlers and the
//! conformance catalog's alike: a list's page, and the caching hints
//! (SEP-2549) that modern results carry.

use mcpdisco_protocol::server;
use mcpdisco_protocol::types::{
    CacheScope, ItemList, ListResult, PaginatedParams, ReadResourceResult,
};
use mcpdisco_protocol::version::Era;
use mcpdisco_protocol::{ErrorCode, ErrorObject};
use serde::Serialize;

use crate::context::Context;

/// How long lists and the discovery stay fresh (an hour: they never change).
pub(crate) const TTL_MS: i64 = 3_600_000;

/// The page of `items` that `params` asks for; the cursor is the offset, written as text.
pub(crate) fn page<L>(
    items: &[L::Item],
    params: &PaginatedParams,
    context: &Context,
) -> Result<L, ErrorObject>
where
    L: ListResult,
    L::Item: Clone + Serialize,
{
    let items = ItemList::encode(items.iter().cloned())
        .map_err(|e| ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
    let page: L = server::list_page(&items, params.cursor.as_deref(), context.options.page_size)?;
    Ok(page.cached(TTL_MS, CacheScope::Public))
}

/// A read result with its caching hints, which modern results carry (SEP-2549).
pub(crate) fn cached_read(read: ReadResourceResult, context: &Context) -> ReadResourceResult {
    match context.request.era {
        Era::Modern => read.cached(TTL_MS, CacheScope::Public),
        Era::Legacy => read,
    }
}
