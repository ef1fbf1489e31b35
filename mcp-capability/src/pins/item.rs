//! What a pin is computed from: one item of a server's lists, borrowed from
//! the text its server sent ([`PinItem`]), or a typed item that can be read
//! as one ([`Pinnable`]).
//!
//! The hash is over the pinned fields exactly as sent: each member's own
//! text, decoded into a JSON value and canonicalized (RFC 8785). A member
//! the server sent as `null` is pinned as `null`, not as absent, so a pin
//! computed from a view matches every lock file written before. A typed
//! item ([`Tool`], …) is pinned as it serializes, which is the same text
//! unless its server sent `null` for an optional member (decoding drops
//! it): to verify what a server sent, pin and check its views.

use hmac_sha256::Hash as Sha256;
use mcpdisco_protocol::RawJson;
use mcpdisco_protocol::raw::{JsonView, PromptView, ResourceView, SkillView, ToolView};
use mcpdisco_protocol::types::{Prompt, Resource, ResourceTemplate, SkillEntry, Tool};
use serde_json::{Map, Value};

use super::{ItemKind, Pin};

/// One item of a server's lists, borrowed from the text its server sent.
#[derive(Debug, Clone, Copy)]
pub enum PinItem<'a> {
    /// A tool.
    Tool(ToolView<'a>),
    /// A prompt.
    Prompt(PromptView<'a>),
    /// A resource (read with `template` false).
    Resource(ResourceView<'a>),
    /// A resource template (read with `template` true: its `uri` is the
    /// `uriTemplate`).
    Template(ResourceView<'a>),
    /// A skill.
    Skill(SkillView<'a>),
}

impl<'a> PinItem<'a> {
    /// The item of kind `kind` whose text is `item`.
    pub fn read(kind: ItemKind, item: &'a RawJson) -> Self {
        let view = JsonView::of(item);
        match kind {
            ItemKind::Tool => PinItem::Tool(ToolView::read(view)),
            ItemKind::Prompt => PinItem::Prompt(PromptView::read(view)),
            ItemKind::Resource => PinItem::Resource(ResourceView::read(view, false)),
            ItemKind::Template => PinItem::Template(ResourceView::read(view, true)),
            ItemKind::Skill => PinItem::Skill(SkillView::read(view)),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ItemKind {
        match self {
            PinItem::Tool(_) => ItemKind::Tool,
            PinItem::Prompt(_) => ItemKind::Prompt,
            PinItem::Resource(_) => ItemKind::Resource,
            PinItem::Template(_) => ItemKind::Template,
            PinItem::Skill(_) => ItemKind::Skill,
        }
    }

    /// The member that identifies it (`name`, `uri` or `uriTemplate`), then
    /// each pinned field by name (see [`ItemKind`]), present or not.
    fn fields(
        &self,
    ) -> (
        Option<JsonView<'a>>,
        Vec<(&'static str, Option<JsonView<'a>>)>,
    ) {
        match *self {
            PinItem::Tool(tool) => (
                tool.name,
                vec![
                    ("name", tool.name),
                    ("description", tool.description),
                    ("inputSchema", tool.input_schema),
                    ("outputSchema", tool.output_schema),
                    ("annotations", tool.annotations),
                ],
            ),
            PinItem::Prompt(prompt) => (
                prompt.name,
                vec![
                    ("name", prompt.name),
                    ("description", prompt.description),
                    ("arguments", prompt.arguments),
                ],
            ),
            PinItem::Resource(resource) => (
                resource.uri,
                vec![
                    ("uri", resource.uri),
                    ("name", resource.name),
                    ("description", resource.description),
                    ("mimeType", resource.mime_type),
                ],
            ),
            PinItem::Template(template) => (
                template.uri,
                vec![
                    ("uriTemplate", template.uri),
                    ("name", template.name),
                    ("description", template.description),
                    ("mimeType", template.mime_type),
                ],
            ),
            PinItem::Skill(skill) => (
                skill.uri,
                vec![
                    ("uri", skill.uri),
                    ("frontmatter", skill.frontmatter),
                    ("resources", skill.resources),
                ],
            ),
        }
    }

    /// Its pin key (`tool:<name>`, …) and pin; `None` when its identity is
    /// missing or not a string.
    pub fn pin(&self) -> Option<(String, Pin)> {
        let (identity, pinned) = self.fields();
        let identity = identity?.as_str()?;
        let mut fields = Map::new();
        for (name, member) in pinned {
            if let Some(member) = member {
                fields.insert(name.to_owned(), serde_json::from_str(member.text()).ok()?);
            }
        }
        let fields = Value::Object(fields);
        let canonical = serde_jcs::to_string(&fields).ok()?;
        let sha256 = hex::encode(Sha256::hash(canonical.as_bytes()));
        Some((
            format!("{}:{identity}", self.kind().prefix()),
            Pin { sha256, fields },
        ))
    }
}

/// An item that can be pinned: a [`PinItem`] or one of the views it holds,
/// or a typed item ([`Tool`], [`Prompt`], [`Resource`],
/// [`ResourceTemplate`], [`SkillEntry`]), pinned as it serializes.
pub trait Pinnable {
    /// Its kind.
    fn kind(&self) -> ItemKind;

    /// Its pin key (`tool:<name>`, …) and pin; `None` without an identity.
    fn pin(&self) -> Option<(String, Pin)>;
}

impl Pinnable for PinItem<'_> {
    fn kind(&self) -> ItemKind {
        PinItem::kind(self)
    }

    fn pin(&self) -> Option<(String, Pin)> {
        PinItem::pin(self)
    }
}

impl<T: Pinnable + ?Sized> Pinnable for &T {
    fn kind(&self) -> ItemKind {
        (**self).kind()
    }

    fn pin(&self) -> Option<(String, Pin)> {
        (**self).pin()
    }
}

/// Views whose kind they say themselves.
macro_rules! pinnable_view {
    ($view:ident, $variant:ident) => {
        impl Pinnable for $view<'_> {
            fn kind(&self) -> ItemKind {
                ItemKind::$variant
            }

            fn pin(&self) -> Option<(String, Pin)> {
                PinItem::$variant(*self).pin()
            }
        }
    };
}

pinnable_view!(ToolView, Tool);
pinnable_view!(PromptView, Prompt);
pinnable_view!(SkillView, Skill);

/// Typed items, pinned through their JSON text.
macro_rules! pinnable_type {
    ($type:ident, $variant:ident) => {
        impl Pinnable for $type {
            fn kind(&self) -> ItemKind {
                ItemKind::$variant
            }

            fn pin(&self) -> Option<(String, Pin)> {
                let text = RawJson::encode(self).ok()?;
                PinItem::read(ItemKind::$variant, &text).pin()
            }
        }
    };
}

pinnable_type!(Tool, Tool);
pinnable_type!(Prompt, Prompt);
pinnable_type!(Resource, Resource);
pinnable_type!(ResourceTemplate, Template);
pinnable_type!(SkillEntry, Skill);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_item_pins_as_its_view_unless_a_null_was_dropped() {
        let text = RawJson::parse(
            r#"{"name": "t", "description": "d", "inputSchema": {"type": "object"}, "title": "x"}"#,
        )
        .unwrap();
        let tool: Tool = text.decode().unwrap();
        assert_eq!(tool.pin(), ToolView::of(&text).pin());
        assert_eq!(Pinnable::kind(&tool), ItemKind::Tool);
        let with_null =
            RawJson::parse(r#"{"name": "t", "description": null, "inputSchema": {}}"#).unwrap();
        let typed: Tool = with_null.decode().unwrap();
        assert_ne!(
            typed.pin().unwrap().1.sha256,
            ToolView::of(&with_null).pin().unwrap().1.sha256,
            "the view pins the null the server sent; the typed tool has none"
        );
    }

    #[test]
    fn templates_are_identified_by_their_uri_template() {
        let text = RawJson::parse(r#"{"uriTemplate": "file:///{p}", "name": "files", "uri": "x"}"#)
            .unwrap();
        let (key, pin) = PinItem::read(ItemKind::Template, &text).pin().unwrap();
        assert_eq!(key, "template:file:///{p}");
        assert_eq!(
            pin.fields,
            serde_json::json!({"uriTemplate": "file:///{p}", "name": "files"})
        );
        let template: ResourceTemplate = text.decode().unwrap();
        assert_eq!(template.pin().unwrap().0, key);
        let resource = Resource::new("file:///a", "a");
        assert_eq!(resource.pin().unwrap().0, "resource:file:///a");
    }
}
