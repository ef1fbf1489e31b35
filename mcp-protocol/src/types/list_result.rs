//! `list_result!`: declares the result of a paginated list method (its
//! items as an `ItemList`, the next cursor, and the
//! 2026-07-28 freshness hints). The caller has `ItemList`, `CacheScope` and
//! `Extra` in scope.

macro_rules! list_result {
    ($(#[$doc:meta])* $name:ident, $field:ident, $json:literal, $item:ty) => {
        $crate::types::extra::struct_with_extra! {
            $(#[$doc])*
            #[derive(Debug, Clone, PartialEq)]
            #[serde(rename_all = "camelCase")]
            pub struct $name {
                /// The items of this page.
                #[serde(rename = $json)]
                pub $field: ItemList<$item>,
                /// The cursor of the next page.
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub next_cursor: Option<String>,
                /// Freshness hint (2026-07-28).
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub ttl_ms: Option<i64>,
                /// Cache scope (2026-07-28).
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub cache_scope: Option<CacheScope>,
                /// Metadata.
                #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
                pub meta: Option<Extra>,
            }
        }
        $crate::types::item_list::impl_list_result!($name, $field, $item);
    };
}
pub(crate) use list_result;
