//! B5's hop without its pipes (criterion, `bench/benches/serve_hop.rs`):
//! the gateway's own work per stdio `tools/call`, `serve` in process on a
//! current-thread runtime, its client and its backend in-memory NDJSON
//! pipes. The process rows add wake-ups and pipes on top of this; this row
//! shows what the gateway's code costs, which no VM's scheduling moves.

use std::path::Path;

use serde_json::Value;

use super::criterion::MicroResult;
use super::report::{Row, Unit};

/// Reads the allocations per call (count, bytes) that the bench wrote
/// under `criterion_dir` (`serve_hop/allocations.json`), if it did.
pub(super) fn allocations(criterion_dir: &Path) -> Option<(f64, f64)> {
    let path = criterion_dir.join("serve_hop").join("allocations.json");
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    Some((
        value.get("allocations_per_call")?.as_f64()?,
        value.get("bytes_per_call")?.as_f64()?,
    ))
}

/// The row of the hop bench: `measured` (its criterion results) and the
/// `allocations` per call it counted.
pub(super) fn row(measured: &[MicroResult], allocations: Option<(f64, f64)>) -> Row {
    let median_us = measured
        .iter()
        .find(|result| result.function == "tools_call")
        .map(|result| result.median_ns / 1e3);
    let counted = allocations.map_or_else(
        || "allocations not counted".to_owned(),
        |(count, bytes)| {
            format!(
                "{count:.1} allocations ({:.1} KiB) per call",
                bytes / 1024.0
            )
        },
    );
    Row::new(
        "B5 the gateway's own work per stdio tools/call (in process, in-memory pipes, one thread): median time",
        Unit::Microseconds,
        [median_us, None, None],
    )
    .with_notes(format!(
        "criterion, `bench/benches/serve_hop.rs`: the request line decoded, routed, sent to the backend through the session's layers, the answer passed on as the bytes it came in; {counted}, the harness's request and its backend's answer included; no rmcp or limit counterpart"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_reads_the_median_and_the_allocations() {
        let measured = [MicroResult {
            group: "serve_hop".into(),
            function: "tools_call".into(),
            median_ns: 14_200.0,
            bytes: None,
        }];
        let counted = row(&measured, Some((87.2, 18_459.0)));
        assert_eq!(counted.values[0], Some(14.2));
        assert!(
            counted
                .notes
                .contains("87.2 allocations (18.0 KiB) per call"),
            "{}",
            counted.notes
        );
        assert!(
            row(&measured, None)
                .notes
                .contains("allocations not counted")
        );
    }

    #[test]
    fn allocations_are_read_from_the_benchs_file() {
        let dir = std::env::temp_dir().join(format!("b5-hop-{}", std::process::id()));
        let hop = dir.join("serve_hop");
        std::fs::create_dir_all(&hop).unwrap();
        std::fs::write(
            hop.join("allocations.json"),
            r#"{"allocations_per_call":87.5,"bytes_per_call":1024}"#,
        )
        .unwrap();
        assert_eq!(allocations(&dir), Some((87.5, 1024.0)));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(allocations(&dir), None);
    }
}
