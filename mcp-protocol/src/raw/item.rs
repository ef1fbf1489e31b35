//! Borrowed views of list items: a tool, a prompt, a resource or resource
//! template, a skill, read from the item's own text in one pass.
//!
//! This is the one way items are read for showing, naming and routing (the
//! CLI's signatures, the catalog's names, manifests, the gateway): the
//! members an item's readers need, borrowed, with the rest skipped and
//! nothing parsed into a tree. A member that is missing or of the wrong type
//! reads as absent, so a malformed item never fails its reader. For the
//! whole typed item, decode it: `item.decode::<Tool>()`.

use std::borrow::Cow;

use super::raw_json::RawJson;
use super::view::JsonView;

/// The text of a string member, or `None` when it is missing or not a string.
fn text<'a>(member: Option<JsonView<'a>>) -> Option<Cow<'a, str>> {
    member.and_then(JsonView::as_str)
}

/// A tool, borrowed from its text.
#[derive(Debug, Clone, Copy)]
pub struct ToolView<'a> {
    /// `name`.
    pub name: Option<JsonView<'a>>,
    /// `title`.
    pub title: Option<JsonView<'a>>,
    /// `description`.
    pub description: Option<JsonView<'a>>,
    /// `inputSchema`, as sent.
    pub input_schema: Option<JsonView<'a>>,
    /// `outputSchema`, as sent.
    pub output_schema: Option<JsonView<'a>>,
    /// `annotations`.
    pub annotations: Option<JsonView<'a>>,
}

impl<'a> ToolView<'a> {
    /// Reads the members of `tool` (all `None` when it is not an object).
    pub fn read(tool: JsonView<'a>) -> Self {
        let [
            name,
            title,
            description,
            input_schema,
            output_schema,
            annotations,
        ] = tool.pick([
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ]);
        Self {
            name,
            title,
            description,
            input_schema,
            output_schema,
            annotations,
        }
    }

    /// A view of `tool`.
    pub fn of(tool: &'a RawJson) -> Self {
        Self::read(JsonView::of(tool))
    }

    /// The name to call it by.
    pub fn name(&self) -> Option<Cow<'a, str>> {
        text(self.name)
    }

    /// The description.
    pub fn description(&self) -> Option<Cow<'a, str>> {
        text(self.description)
    }

    /// The name to show: `title`, else `annotations.title`, else `name`.
    pub fn display_name(&self) -> Option<Cow<'a, str>> {
        text(self.title)
            .or_else(|| text(self.annotations.and_then(|a| a.get("title"))))
            .or_else(|| self.name())
    }
}

/// A prompt, borrowed from its text.
#[derive(Debug, Clone, Copy)]
pub struct PromptView<'a> {
    /// `name`.
    pub name: Option<JsonView<'a>>,
    /// `title`.
    pub title: Option<JsonView<'a>>,
    /// `description`.
    pub description: Option<JsonView<'a>>,
    /// `arguments`.
    pub arguments: Option<JsonView<'a>>,
}

impl<'a> PromptView<'a> {
    /// Reads the members of `prompt` (all `None` when it is not an object).
    pub fn read(prompt: JsonView<'a>) -> Self {
        let [name, title, description, arguments] =
            prompt.pick(["name", "title", "description", "arguments"]);
        Self {
            name,
            title,
            description,
            arguments,
        }
    }

    /// A view of `prompt`.
    pub fn of(prompt: &'a RawJson) -> Self {
        Self::read(JsonView::of(prompt))
    }

    /// The name to get it by.
    pub fn name(&self) -> Option<Cow<'a, str>> {
        text(self.name)
    }

    /// The description.
    pub fn description(&self) -> Option<Cow<'a, str>> {
        text(self.description)
    }
}

/// A resource (`uri`) or resource template (`uriTemplate`), borrowed from its text.
#[derive(Debug, Clone, Copy)]
pub struct ResourceView<'a> {
    /// `uri` of a resource, or `uriTemplate` of a template.
    pub uri: Option<JsonView<'a>>,
    /// `name`.
    pub name: Option<JsonView<'a>>,
    /// `title`.
    pub title: Option<JsonView<'a>>,
    /// `description`.
    pub description: Option<JsonView<'a>>,
    /// `mimeType`.
    pub mime_type: Option<JsonView<'a>>,
}

impl<'a> ResourceView<'a> {
    /// Reads a resource (`template` false: its `uri`) or a resource template
    /// (`template` true: its `uriTemplate`).
    pub fn read(item: JsonView<'a>, template: bool) -> Self {
        let uri_key = if template { "uriTemplate" } else { "uri" };
        let [uri, name, title, description, mime_type] =
            item.pick([uri_key, "name", "title", "description", "mimeType"]);
        Self {
            uri,
            name,
            title,
            description,
            mime_type,
        }
    }

    /// The URI (or URI template).
    pub fn uri(&self) -> Option<Cow<'a, str>> {
        text(self.uri)
    }

    /// The name, else the URI: what a resource is called in a catalog.
    pub fn name_or_uri(&self) -> Option<Cow<'a, str>> {
        text(self.name).or_else(|| self.uri())
    }

    /// The name to show: `title`, else `name`.
    pub fn display_name(&self) -> Option<Cow<'a, str>> {
        text(self.title).or_else(|| text(self.name))
    }

    /// The MIME type.
    pub fn mime_type(&self) -> Option<Cow<'a, str>> {
        text(self.mime_type)
    }
}

/// A skill (a `skills/list` entry), borrowed from its text.
#[derive(Debug, Clone, Copy)]
pub struct SkillView<'a> {
    /// `uri`: its `SKILL.md`.
    pub uri: Option<JsonView<'a>>,
    /// `frontmatter`, whole.
    pub frontmatter: Option<JsonView<'a>>,
    /// `frontmatter.name`.
    pub name: Option<JsonView<'a>>,
    /// `frontmatter.description`.
    pub description: Option<JsonView<'a>>,
    /// `resources`: its files.
    pub resources: Option<JsonView<'a>>,
}

impl<'a> SkillView<'a> {
    /// Reads the members of `skill` (all `None` when it is not an object).
    pub fn read(skill: JsonView<'a>) -> Self {
        let [uri, frontmatter, resources] = skill.pick(["uri", "frontmatter", "resources"]);
        let [name, description] = frontmatter
            .map(|frontmatter| frontmatter.pick(["name", "description"]))
            .unwrap_or([None, None]);
        Self {
            uri,
            frontmatter,
            name,
            description,
            resources,
        }
    }

    /// A view of `skill`.
    pub fn of(skill: &'a RawJson) -> Self {
        Self::read(JsonView::of(skill))
    }

    /// The URI of its `SKILL.md`.
    pub fn uri(&self) -> Option<Cow<'a, str>> {
        text(self.uri)
    }

    /// The name its frontmatter gives, else its URI.
    pub fn name_or_uri(&self) -> Option<Cow<'a, str>> {
        text(self.name).or_else(|| self.uri())
    }

    /// The description its frontmatter gives.
    pub fn description(&self) -> Option<Cow<'a, str>> {
        text(self.description)
    }

    /// How many files it lists (`None` when `resources` is absent or not an array:
    /// a dynamic skill).
    pub fn file_count(&self) -> Option<usize> {
        self.resources?.elements().map(|files| files.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_reads_its_frontmatter_and_files() {
        let raw = RawJson::parse(
            r#"{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"Does A"},"resources":[{"uri":"skill://a/SKILL.md"}]}"#,
        )
        .unwrap();
        let skill = SkillView::of(&raw);
        assert_eq!(skill.name_or_uri().unwrap(), "a");
        assert_eq!(skill.description().unwrap(), "Does A");
        assert_eq!(skill.file_count(), Some(1));
        let bare = RawJson::parse(r#"{"uri":"skill://b/SKILL.md","frontmatter":7}"#).unwrap();
        let skill = SkillView::of(&bare);
        assert_eq!(skill.name_or_uri().unwrap(), "skill://b/SKILL.md");
        assert_eq!(skill.file_count(), None);
    }

    #[test]
    fn a_tool_reads_its_members_and_tolerates_wrong_types() {
        let raw = RawJson::parse(
            r#"{"name":"add","description":7,"inputSchema":{"type":"object"},"annotations":{"title":"Add"},"x":[1]}"#,
        )
        .unwrap();
        let tool = ToolView::of(&raw);
        assert_eq!(tool.name().unwrap(), "add");
        assert!(
            tool.description().is_none(),
            "a number is not a description"
        );
        assert_eq!(tool.input_schema.unwrap().text(), r#"{"type":"object"}"#);
        assert_eq!(tool.display_name().unwrap(), "Add");
        let not_an_object = RawJson::parse("[1]").unwrap();
        assert!(ToolView::of(&not_an_object).name().is_none());
    }

    #[test]
    fn resources_and_templates_are_named_by_name_else_uri() {
        let raw = RawJson::parse(r#"{"uri":"file:///a","mimeType":"text/plain"}"#).unwrap();
        let resource = ResourceView::read(JsonView::of(&raw), false);
        assert_eq!(resource.name_or_uri().unwrap(), "file:///a");
        assert_eq!(resource.mime_type().unwrap(), "text/plain");
        let template =
            RawJson::parse(r#"{"uriTemplate":"file:///{p}","name":"files","title":"Files"}"#)
                .unwrap();
        let template = ResourceView::read(JsonView::of(&template), true);
        assert_eq!(template.uri().unwrap(), "file:///{p}");
        assert_eq!(template.name_or_uri().unwrap(), "files");
        assert_eq!(template.display_name().unwrap(), "Files");
    }

    #[test]
    fn a_prompt_reads_its_arguments_borrowed() {
        let raw =
            RawJson::parse(r#"{"name":"greet","arguments":[{"name":"who","required":true}]}"#)
                .unwrap();
        let prompt = PromptView::of(&raw);
        assert_eq!(prompt.name().unwrap(), "greet");
        assert_eq!(prompt.arguments.unwrap().elements().unwrap().len(), 1);
    }
}
