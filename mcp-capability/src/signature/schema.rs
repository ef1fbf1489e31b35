//! The parameters of an input schema, read in one pass over its text.
//!
//! A schema is whatever its server wrote, so every reader here is lenient: a
//! member of an unexpected type reads as "not there" (a property schema of
//! `true` is a property of any type), and nothing is kept that a signature
//! does not show.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// Visitor methods that read the named kinds of JSON value as
/// `Default::default()`, skipping arrays and objects whole.
macro_rules! read_as_default {
    ($($kind:ident),* $(,)?) => { $( read_as_default!(@ $kind); )* };
    (@ scalars) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@ strings) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
    (@ arrays) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
    (@ objects) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
}

/// Implements `Deserialize` for a type through `deserialize_any` and a visitor.
macro_rules! deserialize_with {
    ($type:ident, $visitor:ident) => {
        impl<'de> Deserialize<'de> for $type<'de> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any($visitor)
            }
        }
    };
}

/// An object schema's `properties`, in the order written, and its `required` names.
#[derive(Debug, Default)]
pub struct Parameters<'a> {
    /// Each property's name and type.
    pub properties: Vec<(Cow<'a, str>, PropertyType<'a>)>,
    /// The names listed in `required` (names that are not strings are left out).
    pub required: Vec<Cow<'a, str>>,
}

impl<'a> Parameters<'a> {
    /// Reads the parameters of the schema `text`; `None` when serde_json
    /// cannot, as for a property name holding a lone surrogate (which the
    /// check made when a result arrives lets through).
    pub fn read(text: &'a str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

/// What a signature shows of one property's schema.
#[derive(Debug, Default)]
pub struct PropertyType<'a> {
    /// `enum`, when it is an array: its options as written.
    pub options: Option<Vec<&'a RawValue>>,
    /// `type`.
    pub kind: Kind<'a>,
    /// `items`, the type of an array's elements.
    pub items: Option<Box<PropertyType<'a>>>,
    /// Whether there is a `$ref`.
    pub reference: bool,
    /// Whether there is an `anyOf` or a `oneOf`.
    pub union: bool,
}

/// The `type` of a property schema.
#[derive(Debug, Default)]
pub enum Kind<'a> {
    /// No `type`, or one that is neither a string nor an array.
    #[default]
    Unknown,
    /// `"type": "string"`.
    One(Cow<'a, str>),
    /// `"type": ["string", "null"]`: the names that are strings.
    Several(Vec<Cow<'a, str>>),
}

struct ParametersVisitor;

impl<'de> Visitor<'de> for ParametersVisitor {
    type Value = Parameters<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut parameters = Parameters::default();
        while let Some(key) = map.next_key::<Name<'de>>()? {
            match key.0.as_deref() {
                Some("properties") => parameters.properties = map.next_value::<Properties<'_>>()?.0,
                Some("required") => parameters.required = map.next_value::<Names<'_>>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(parameters)
    }

    read_as_default!(scalars, strings, arrays);
}
deserialize_with!(Parameters, ParametersVisitor);

/// The members of `properties`, in order.
#[derive(Default)]
struct Properties<'a>(Vec<(Cow<'a, str>, PropertyType<'a>)>);

struct PropertiesVisitor;

impl<'de> Visitor<'de> for PropertiesVisitor {
    type Value = Properties<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of property schemas")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut properties: Vec<(Cow<'de, str>, PropertyType<'de>)> = Vec::new();
        let mut places: HashMap<Cow<'de, str>, usize> = HashMap::new();
        while let Some(name) = map.next_key::<Name<'de>>()? {
            let property = map.next_value::<PropertyType<'de>>()?;
            // A key is always a string in JSON; `Name` reads it as one.
            let Some(name) = name.0 else { continue };
            // A repeated property keeps its first place and takes its last
            // schema, as when the object is read into a map.
            match places.get(&name).and_then(|&at| properties.get_mut(at)) {
                Some(earlier) => earlier.1 = property,
                None => {
                    places.insert(name.clone(), properties.len());
                    properties.push((name, property));
                }
            }
        }
        Ok(Properties(properties))
    }

    read_as_default!(scalars, strings, arrays);
}
deserialize_with!(Properties, PropertiesVisitor);

struct PropertyTypeVisitor;

impl<'de> Visitor<'de> for PropertyTypeVisitor {
    type Value = PropertyType<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property schema")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut property = PropertyType::default();
        while let Some(key) = map.next_key::<Name<'de>>()? {
            match key.0.as_deref() {
                Some("enum") => property.options = map.next_value::<Options<'_>>()?.0,
                Some("type") => property.kind = map.next_value()?,
                Some("items") => property.items = Some(Box::new(map.next_value()?)),
                Some(other) => {
                    match other {
                        "$ref" => property.reference = true,
                        "anyOf" | "oneOf" => property.union = true,
                        _ => {}
                    }
                    map.next_value::<IgnoredAny>()?;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(property)
    }

    read_as_default!(scalars, strings, arrays);
}
deserialize_with!(PropertyType, PropertyTypeVisitor);

/// `enum`: its options as written, when it is an array.
#[derive(Default)]
struct Options<'a>(Option<Vec<&'a RawValue>>);

struct OptionsVisitor;

impl<'de> Visitor<'de> for OptionsVisitor {
    type Value = Options<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of options")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut options = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(option) = seq.next_element::<&'de RawValue>()? {
            options.push(option);
        }
        Ok(Options(Some(options)))
    }

    read_as_default!(scalars, strings, objects);
}
deserialize_with!(Options, OptionsVisitor);

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type name or a list of them")
    }

    fn visit_borrowed_str<E: de::Error>(self, kind: &'de str) -> Result<Self::Value, E> {
        Ok(Kind::One(Cow::Borrowed(kind)))
    }

    fn visit_str<E: de::Error>(self, kind: &str) -> Result<Self::Value, E> {
        Ok(Kind::One(Cow::Owned(kind.to_owned())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        NamesVisitor
            .visit_seq(seq)
            .map(|names| Kind::Several(names.0))
    }

    read_as_default!(scalars, objects);
}
deserialize_with!(Kind, KindVisitor);

/// A list of names; elements that are not strings are left out.
#[derive(Default)]
struct Names<'a>(Vec<Cow<'a, str>>);

struct NamesVisitor;

impl<'de> Visitor<'de> for NamesVisitor {
    type Value = Names<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of names")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut names = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(name) = seq.next_element::<Name<'de>>()? {
            names.extend(name.0);
        }
        Ok(Names(names))
    }

    read_as_default!(scalars, strings, objects);
}
deserialize_with!(Names, NamesVisitor);

/// A string, borrowed unless it has escapes; `None` for any other value.
#[derive(Default)]
struct Name<'a>(Option<Cow<'a, str>>);

struct NameVisitor;

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Name<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<Self::Value, E> {
        Ok(Name(Some(Cow::Borrowed(name))))
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(Name(Some(Cow::Owned(name.to_owned()))))
    }

    read_as_default!(scalars, arrays, objects);
}
deserialize_with!(Name, NameVisitor);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_keep_their_order_and_types() {
        let parameters = Parameters::read(
            r##"{"type": "object", "required": ["b", 7, "a\u0041"], "properties": {
                "b": {"type": "string", "description": "skipped", "type": "integer"},
                "aA": {"type": ["string", null, "null"]},
                "list": {"type": "array", "items": {"enum": ["x", 2]}},
                "ref": {"$ref": "#/x", "anyOf": []},
                "free": true,
                "odd": {"type": {"nested": 1}, "enum": "not a list"}
            }}"##,
        )
        .unwrap();
        assert_eq!(parameters.required, ["b", "aA"]);
        let names: Vec<&str> = parameters
            .properties
            .iter()
            .map(|(n, _)| n.as_ref())
            .collect();
        assert_eq!(names, ["b", "aA", "list", "ref", "free", "odd"]);
        let types: Vec<&PropertyType<'_>> = parameters.properties.iter().map(|(_, t)| t).collect();
        assert!(
            matches!(&types[0].kind, Kind::One(kind) if kind == "integer"),
            "the last member counts"
        );
        assert!(matches!(&types[1].kind, Kind::Several(kinds) if kinds == &["string", "null"]));
        let items = types[2].items.as_deref().unwrap();
        let options: Vec<&str> = items
            .options
            .as_ref()
            .unwrap()
            .iter()
            .map(|o| o.get())
            .collect();
        assert_eq!(options, [r#""x""#, "2"]);
        assert!(types[3].reference && types[3].union);
        assert!(matches!(types[4].kind, Kind::Unknown) && types[4].options.is_none());
        assert!(matches!(types[5].kind, Kind::Unknown) && types[5].options.is_none());
    }

    #[test]
    fn schemas_that_are_not_objects_have_no_parameters() {
        for text in [
            "true",
            "[1, 2]",
            r#""object""#,
            "null",
            r#"{"properties": [1]}"#,
        ] {
            let parameters = Parameters::read(text).unwrap();
            assert!(parameters.properties.is_empty(), "{text}");
        }
    }

    #[test]
    fn a_repeated_property_keeps_its_place_and_takes_its_last_schema() {
        let parameters = Parameters::read(
            r#"{"properties": {"a": {"type": "string"}, "b": {}, "a": {"type": "number"}}}"#,
        )
        .unwrap();
        let shown: Vec<(&str, &Kind<'_>)> = parameters
            .properties
            .iter()
            .map(|(name, property)| (name.as_ref(), &property.kind))
            .collect();
        assert!(
            matches!(shown.as_slice(), [("a", Kind::One(kind)), ("b", Kind::Unknown)] if kind == "number"),
            "{shown:?}"
        );
    }

    #[test]
    fn what_serde_json_cannot_read_is_none() {
        // It passes the check a result gets on arrival, which skips values.
        let surrogate = r#"{"properties": {"\ud800": {}}}"#;
        assert!(serde_json::from_str::<&RawValue>(surrogate).is_ok());
        assert!(Parameters::read(surrogate).is_none());
    }
}
