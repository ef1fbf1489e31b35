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
