//! Reading a struct's known fields and keeping every other member in its
//! `extra` map, in one pass.
//!
//! serde's `#[serde(flatten)]` would do this by first buffering the whole
//! object (every member, however large) into serde's private `Content` tree
//! and then reading the struct from it: it doubles the work on a large list,
//! and it cannot carry a [`RawJson`](crate::raw::RawJson) member. Instead,
//! [`struct_with_extra!`] defines the struct with `extra` flattened for
//! writing only, and reads it through a private twin that holds the known
//! fields, driven by [`CollectUnknown`]: a deserializer that hands the twin
//! only the members it knows and moves every other member into `extra`.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::raw::key::Key;

/// Fields a type does not know, kept in order and written back.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// Defines a struct whose unknown members are kept in `pub extra: Extra` and
/// written back after the known ones. Write the struct without `Serialize`,
/// `Deserialize` and the `extra` field; every field must be `pub`.
macro_rules! struct_with_extra {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $( $(#[$field_attr:meta])* pub $field:ident : $field_type:ty ),* $(,)?
        }
    ) => {
        #[derive(serde::Serialize)]
        $(#[$attr])*
        pub struct $name {
            $( $(#[$field_attr])* pub $field: $field_type, )*
            /// Members this crate does not know, in order, as sent.
            #[serde(flatten)]
            pub extra: $crate::types::extra::Extra,
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // The twin has the same name, so errors name the type the user asked for.
                #[derive(serde::Deserialize)]
                $(#[$attr])*
                struct $name {
                    $( $(#[$field_attr])* $field: $field_type, )*
                }
                let mut extra = $crate::types::extra::Extra::new();
                let known = <$name as serde::Deserialize>::deserialize(
                    $crate::types::extra::CollectUnknown::new(deserializer, &mut extra),
                )?;
                Ok(Self { $( $field: known.$field, )* extra })
            }
        }
    };
}
pub(crate) use struct_with_extra;

/// A deserializer that reads a struct through `inner`, giving the struct's
/// own visitor only the members it names and putting the others in `extra`.
pub(crate) struct CollectUnknown<'a, D> {
    inner: D,
    extra: &'a mut Extra,
}

impl<'a, D> CollectUnknown<'a, D> {
    /// Reads through `inner`, collecting unknown members into `extra`.
    pub(crate) fn new(inner: D, extra: &'a mut Extra) -> Self {
        Self { inner, extra }
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for CollectUnknown<'_, D> {
    type Error = D::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_struct(
            name,
            fields,
            KnownMembers {
                visitor,
                fields,
                extra: self.extra,
            },
        )
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// The visitor that puts the filter between the struct's visitor and the map.
struct KnownMembers<'a, V> {
    visitor: V,
    fields: &'static [&'static str],
    extra: &'a mut Extra,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KnownMembers<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(FilteredMap {
            map,
            fields: self.fields,
            extra: self.extra,
        })
    }

    /// An array is not an object: serde's derive would read the fields by
    /// position, but a round trip would then turn the array into an object.
    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<V::Value, A::Error> {
        Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
    }
}

/// A map that yields only the known members; the others go to `extra`.
struct FilteredMap<'a, A> {
    map: A,
    fields: &'static [&'static str],
    extra: &'a mut Extra,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for FilteredMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(Key(key)) = self.map.next_key::<Key<'de>>()? {
            if self.fields.contains(&key.as_ref()) {
                return match key {
                    Cow::Borrowed(key) => seed
                        .deserialize(BorrowedStrDeserializer::<A::Error>::new(key))
                        .map(Some),
                    Cow::Owned(key) => seed
                        .deserialize(StringDeserializer::<A::Error>::new(key))
                        .map(Some),
                };
            }
            let value: Value = self.map.next_value()?;
            self.extra.insert(key.into_owned(), value);
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::raw::RawJson;

    struct_with_extra! {
        /// A test struct.
        #[derive(Debug, Clone, PartialEq)]
        #[serde(rename_all = "camelCase")]
        pub struct Sample {
            /// A renamed field.
            pub long_name: String,
            /// An optional field.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub count: Option<u32>,
            /// A raw field.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub schema: Option<RawJson>,
        }
    }

    #[test]
    fn unknown_members_are_kept_in_order_and_written_back_last() {
        let text = r#"{"zeta":1,"longName":"n","alpha":{"deep":[1]},"count":2}"#;
        let sample: Sample = serde_json::from_str(text).unwrap();
        assert_eq!(sample.long_name, "n");
        assert_eq!(sample.count, Some(2));
        let keys: Vec<&str> = sample.extra.keys().map(String::as_str).collect();
        assert_eq!(keys, ["zeta", "alpha"]);
        assert_eq!(
            serde_json::to_string(&sample).unwrap(),
            r#"{"longName":"n","count":2,"zeta":1,"alpha":{"deep":[1]}}"#
        );
        let from_value: Sample =
            serde_json::from_value(serde_json::from_str(text).unwrap()).unwrap();
        assert_eq!(from_value, sample);
    }

    #[test]
    fn raw_members_survive_inside_and_errors_name_the_field() {
        let sample: Sample =
            serde_json::from_str(r#"{"longName":"n","schema":{"type": "object"},"x":null}"#)
                .unwrap();
        assert_eq!(sample.schema.unwrap().as_str(), r#"{"type": "object"}"#);
        assert_eq!(sample.extra["x"], json!(null));
        let error = serde_json::from_str::<Sample>(r#"{"count":1}"#).unwrap_err();
        assert!(
            error.to_string().contains("missing field `longName`"),
            "{error}"
        );
        let error = serde_json::from_str::<Sample>(r#"{"longName":5}"#).unwrap_err();
        assert!(
            error.to_string().contains("invalid type: integer `5`"),
            "{error}"
        );
        let error = serde_json::from_str::<Sample>("3").unwrap_err();
        assert!(
            error.to_string().contains("expected struct Sample"),
            "{error}"
        );
        let error = serde_json::from_str::<Sample>(r#"["n", 1, null]"#).unwrap_err();
        assert!(
            error.to_string().contains("invalid type: sequence"),
            "{error}"
        );
    }
}
