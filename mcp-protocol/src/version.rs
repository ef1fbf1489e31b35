//! The protocol versions, their eras and features, and version negotiation.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which lifecycle a version uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize`, then `notifications/initialized`, then requests (2024-11-05 … 2025-11-25).
    Legacy,
    /// Stateless: `server/discover` and per-request `_meta` (2026-07-28).
    Modern,
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        })
    }
}

/// A known MCP protocol version. Ordered by date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// 2024-11-05: stdio and HTTP+SSE.
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, batches, annotations, audio.
    V2025_03_26,
    /// 2025-06-18: structured content, elicitation, the HTTP version header; batches removed.
    V2025_06_18,
    /// 2025-11-25: icons, tasks, URL elicitation, SSE priming and resumption.
    V2025_11_25,
    /// 2026-07-28: the stateless modern era.
    V2026_07_28,
}

/// A version string this crate does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version {0:?}")]
pub struct UnknownVersion(pub String);

/// Why negotiation found no version both sides speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    /// The server answered a version string nobody knows.
    #[error("the server answered protocol version {answered:?}, which is not a known MCP version")]
    Unknown {
        /// What it answered.
        answered: String,
    },
    /// The server answered a known version we did not offer.
    #[error(
        "the server answered protocol version {answered}, which we do not speak (we speak {offered})"
    )]
    NotOffered {
        /// What it answered.
        answered: ProtocolVersion,
        /// What we speak, comma-separated.
        offered: String,
    },
    /// The server's list and ours have nothing in common.
    #[error("no common protocol version: the server supports [{theirs}], we speak {offered}")]
    NoCommon {
        /// The server's versions, comma-separated.
        theirs: String,
        /// Ours, comma-separated.
        offered: String,
    },
}

impl ProtocolVersion {
    /// Every known version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The newest version.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// The newest version of the legacy era.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The version string, such as `2025-11-25`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Reads a version string; `None` for an unknown one.
    pub fn parse(version: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == version)
    }

    /// The version's era.
    pub fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether JSON-RPC batches (arrays) are allowed (2025-03-26 only).
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }

    /// Whether the transport is Streamable HTTP rather than HTTP+SSE.
    pub fn has_streamable_http(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// Whether every HTTP request after the handshake carries `MCP-Protocol-Version`.
    pub fn requires_version_header(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Whether the lifecycle starts with `initialize`.
    pub fn has_initialize(self) -> bool {
        self.era() == Era::Legacy
    }

    /// Whether HTTP sessions (`Mcp-Session-Id`) exist.
    pub fn has_sessions(self) -> bool {
        self.era() == Era::Legacy
    }

    /// Whether `ping` exists.
    pub fn has_ping(self) -> bool {
        self.era() == Era::Legacy
    }

    /// Whether `logging/setLevel` exists (the modern era sets the level per request).
    pub fn has_set_log_level(self) -> bool {
        self.era() == Era::Legacy
    }

    /// Whether the client may open the HTTP GET stream and resume broken SSE streams.
    pub fn has_get_stream(self) -> bool {
        self.era() == Era::Legacy
    }

    /// Whether servers may send `elicitation/create`.
    pub fn has_elicitation(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Whether tool results may carry `structuredContent` and tools an `outputSchema`.
    pub fn has_structured_content(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Whether tools carry `icons`, `execution` and tasks exist.
    pub fn has_tasks(self) -> bool {
        self == ProtocolVersion::V2025_11_25
    }

    /// Whether every result must carry `resultType`.
    pub fn requires_result_type(self) -> bool {
        self.era() == Era::Modern
    }

    /// Whether requests carry the `_meta` envelope (protocol version, client capabilities and info).
    pub fn has_request_meta(self) -> bool {
        self.era() == Era::Modern
    }

    /// Whether the HTTP transport sends `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers.
    pub fn has_method_headers(self) -> bool {
        self.era() == Era::Modern
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

fn join(versions: &[ProtocolVersion]) -> String {
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks the version a server answered to `initialize` against the versions we offer.
pub fn negotiate_legacy(
    offered: &[ProtocolVersion],
    answered: &str,
) -> Result<ProtocolVersion, VersionError> {
    let version = ProtocolVersion::parse(answered).ok_or_else(|| VersionError::Unknown {
        answered: answered.to_owned(),
    })?;
    if offered.contains(&version) {
        Ok(version)
    } else {
        Err(VersionError::NotOffered {
            answered: version,
            offered: join(offered),
        })
    }
}

/// Picks the newest version in both lists: ours, and the server's (`supportedVersions`, or
/// the `supported` list of an UnsupportedProtocolVersion error). Unknown strings are skipped.
pub fn choose_version(
    ours: &[ProtocolVersion],
    theirs: &[String],
) -> Result<ProtocolVersion, VersionError> {
    theirs
        .iter()
        .filter_map(|v| ProtocolVersion::parse(v))
        .filter(|v| ours.contains(v))
        .max()
        .ok_or_else(|| VersionError::NoCommon {
            theirs: theirs.join(", "),
            offered: join(ours),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_ordered_and_round_trip() {
        assert!(ProtocolVersion::ALL.windows(2).all(|w| w[0] < w[1]));
        for v in ProtocolVersion::ALL {
            assert_eq!(v.as_str().parse::<ProtocolVersion>(), Ok(v));
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        assert_eq!(ProtocolVersion::LATEST.era(), Era::Modern);
        assert_eq!(ProtocolVersion::LATEST_LEGACY.era(), Era::Legacy);
        assert!(serde_json::from_str::<ProtocolVersion>("\"2099-01-01\"").is_err());
        assert_eq!(serde_json::to_value(Era::Modern).unwrap(), "modern");
    }

    #[test]
    fn feature_predicates_follow_the_changelog() {
        use ProtocolVersion::*;
        assert!(
            V2025_03_26.allows_batches()
                && !V2025_06_18.allows_batches()
                && !V2024_11_05.allows_batches()
        );
        assert!(!V2025_03_26.requires_version_header() && V2025_06_18.requires_version_header());
        assert!(V2025_11_25.has_initialize() && !V2026_07_28.has_initialize());
        assert!(V2025_11_25.has_sessions() && !V2026_07_28.has_sessions());
        assert!(!V2024_11_05.has_streamable_http() && V2025_03_26.has_streamable_http());
        assert!(V2026_07_28.requires_result_type() && !V2026_07_28.has_ping());
    }

    #[test]
    fn negotiation_accepts_or_says_precisely_why_not() {
        let legacy = &ProtocolVersion::ALL[..4];
        assert_eq!(
            negotiate_legacy(legacy, "2025-03-26"),
            Ok(ProtocolVersion::V2025_03_26)
        );
        assert_eq!(
            negotiate_legacy(legacy, "1999-01-01")
                .unwrap_err()
                .to_string(),
            "the server answered protocol version \"1999-01-01\", which is not a known MCP version"
        );
        assert_eq!(
            negotiate_legacy(&[ProtocolVersion::V2025_11_25], "2024-11-05")
                .unwrap_err()
                .to_string(),
            "the server answered protocol version 2024-11-05, which we do not speak (we speak 2025-11-25)"
        );
    }

    #[test]
    fn choose_picks_the_newest_common_version() {
        let theirs = vec![
            "2025-06-18".to_owned(),
            "2026-07-28".to_owned(),
            "2030-01-01".to_owned(),
        ];
        assert_eq!(
            choose_version(&ProtocolVersion::ALL, &theirs),
            Ok(ProtocolVersion::V2026_07_28)
        );
        assert_eq!(
            choose_version(&[ProtocolVersion::V2026_07_28], &["2025-06-18".to_owned()]),
            Err(VersionError::NoCommon {
                theirs: "2025-06-18".into(),
                offered: "2026-07-28".into()
            })
        );
    }
}
