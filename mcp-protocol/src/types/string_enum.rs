//! [`open_string_enum!`]: an enum over the wire strings this crate knows that
//! keeps any other value as `Other(String)`, so an unknown value is never an
//! error.

/// Defines an enum over known wire strings plus `Other(String)` for unknown
/// values, with `as_str`, `Display` and string serde.
macro_rules! open_string_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A value this crate does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)+
                    $name::Other(other) => other,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::from(text.as_str()))
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                match text {
                    $($wire => $name::$variant,)+
                    _ => $name::Other(text.to_owned()),
                }
            }
        }
    };
}
pub(crate) use open_string_enum;
