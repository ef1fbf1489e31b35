//! Readers for optional fields that keep an explicit `null`: serde's default
//! reads `null` as `None`, and a round trip would then drop the member.

/// Reads a field that is present as `Some`, even when it is `null`, so an
/// explicit `null` survives a round trip.
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    <serde_json::Value as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// Like [`present`], keeping the value raw.
pub(crate) fn present_raw<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<crate::raw::RawJson>, D::Error> {
    <crate::raw::RawJson as serde::Deserialize>::deserialize(deserializer).map(Some)
}

/// Reads a field that, when present, must be a `T`: an explicit `null`
/// is refused by every `T` that is not itself nullable (serde's default
/// would read it as `None`, and a round trip would drop the member), so
/// the value holding it is read as unknown and kept as sent.
pub(crate) fn present_typed<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}
