//! [`item_name`]: the own name of a listed item, read from the item as the
//! server sent it. The catalog names its entries with it, and a server's
//! filters (`config`) match it.

use std::borrow::Cow;

use mcpdisco_client::session::ListKind;
use mcpdisco_protocol::{JsonView, PromptView, RawJson, ResourceView, SkillView, ToolView};

/// The own name of an item: `name` (a skill's: its frontmatter's), else
/// the URI (template), else `?`.
/// Reads only those members; the rest of the item is skipped, not parsed.
pub fn item_name(kind: ListKind, item: &RawJson) -> String {
    // A member of another type counts as absent; a repeated one, the last counts.
    let name = match kind {
        ListKind::Tools => ToolView::of(item).name(),
        ListKind::Prompts => PromptView::of(item).name(),
        ListKind::Resources | ListKind::ResourceTemplates => {
            ResourceView::read(JsonView::of(item), kind == ListKind::ResourceTemplates)
                .name_or_uri()
        }
        ListKind::Skills => SkillView::of(item).name_or_uri(),
    };
    name.map_or_else(|| "?".to_owned(), Cow::into_owned)
}
