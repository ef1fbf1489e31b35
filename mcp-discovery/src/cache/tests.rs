use std::thread;

use serde_json::json;

use super::*;
use crate::report::ServerReport;

fn key(n: u8) -> Fingerprint {
    Fingerprint::parse(&format!("{n:02x}").repeat(32)).unwrap()
}

fn entry(key: &Fingerprint, fetched_at_ms: u64, tools: usize) -> CacheEntry {
    let mut report = ServerReport::empty("alpha", ServerStatus::Ready);
    report.tools = (0..tools)
        .map(|i| json!({"name": format!("t{i}")}).into())
        .collect();
    CacheEntry {
        fingerprint: key.to_string(),
        fetched_at_ms,
        ttl_ms: 1_000,
        report,
    }
}

#[test]
fn an_entry_survives_to_a_new_cache_on_the_same_dir() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(1);
    Cache::at(dir.path()).put(&k, entry(&k, 10, 3)).unwrap();
    let again = Cache::at(dir.path());
    let got = again.get(&k).unwrap();
    assert_eq!(got.report.tools.len(), 3);
    assert_eq!(got.fetched_at_ms, 10);
    assert!(again.get(&key(2)).is_none());
}

#[test]
fn freshness_follows_the_ttl_and_only_ready_reports_are_fresh() {
    let k = key(1);
    let e = entry(&k, 10_000, 1);
    assert!(e.is_fresh(10_000));
    assert!(e.is_fresh(10_999));
    assert!(!e.is_fresh(11_000));
    assert!(
        !e.is_fresh(9_000),
        "an entry from the future is not trusted"
    );
    let mut failed = e.clone();
    failed.report.status = ServerStatus::Failed;
    assert!(!failed.is_fresh(10_500));
    let cache = Cache::in_memory();
    cache.put(&k, e).unwrap();
    assert!(cache.get_fresh(&k, 10_500).is_some());
    assert!(cache.get_fresh(&k, 20_000).is_none());
    assert!(
        cache.get(&k).is_some(),
        "a stale entry is still the last known status"
    );
}

#[test]
fn a_corrupt_entry_is_a_miss_and_is_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(7);
    let path = dir.path().join("entries").join(format!("{k}.json"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"{\"format\":2,\"entry\":{\"fingerprint\":\"trunc").unwrap();
    let cache = Cache::at(dir.path());
    assert!(cache.get(&k).is_none());
    cache.put(&k, entry(&k, 5, 2)).unwrap();
    assert_eq!(Cache::at(dir.path()).get(&k).unwrap().report.tools.len(), 2);
}

#[test]
fn an_entry_filed_under_another_key_is_a_miss() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (key(1), key(2));
    Cache::at(dir.path()).put(&a, entry(&a, 5, 1)).unwrap();
    let entries = dir.path().join("entries");
    std::fs::copy(
        entries.join(format!("{a}.json")),
        entries.join(format!("{b}.json")),
    )
    .unwrap();
    assert!(Cache::at(dir.path()).get(&b).is_none());
}

#[test]
fn invalidate_forgets_memory_and_disk() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(3);
    let cache = Cache::at(dir.path());
    cache.put(&k, entry(&k, 5, 1)).unwrap();
    cache.invalidate(&k);
    assert!(cache.get(&k).is_none());
    assert!(Cache::at(dir.path()).get(&k).is_none());
}

#[cfg(unix)]
#[test]
fn entries_are_private_to_their_owner() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let k = key(4);
    Cache::at(dir.path()).put(&k, entry(&k, 5, 1)).unwrap();
    let file = dir.path().join("entries").join(format!("{k}.json"));
    let mode = std::fs::metadata(file).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "mode {mode:o}");
}

#[test]
fn concurrent_writers_and_readers_never_see_a_torn_entry() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(9);
    Cache::at(dir.path()).put(&k, entry(&k, 5, 100)).unwrap();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let path = dir.path().to_owned();
            let k = k.clone();
            thread::spawn(move || {
                for round in 0..50 {
                    // Each writer uses its own cache object, as separate processes would.
                    let tools = 100 + w * 50 + round % 7;
                    Cache::at(&path).put(&k, entry(&k, 5, tools)).unwrap();
                }
            })
        })
        .collect();
    let reader = {
        let path = dir.path().to_owned();
        let k = k.clone();
        thread::spawn(move || {
            let mut seen = 0;
            for _ in 0..400 {
                let file = path.join("entries").join(format!("{k}.json"));
                if let Ok(bytes) = std::fs::read(&file) {
                    let parsed: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                    assert!(parsed["entry"]["report"]["tools"].as_array().unwrap().len() >= 100);
                    seen += 1;
                }
            }
            seen
        })
    };
    for writer in writers {
        writer.join().unwrap();
    }
    assert!(reader.join().unwrap() > 0);
    assert!(Cache::at(dir.path()).get(&k).is_some());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("entries"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn ttl_honours_a_positive_server_hint_and_ignores_zero() {
    let mut report = ServerReport::empty("m", ServerStatus::Ready);
    assert_eq!(ttl_for(&report), DEFAULT_TTL);
    report.ttl_ms = Some(0);
    assert_eq!(ttl_for(&report), DEFAULT_TTL);
    report.ttl_ms = Some(60_000);
    assert_eq!(ttl_for(&report), Duration::from_secs(60));
}

#[test]
fn a_write_overtaken_by_an_invalidation_does_not_land() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(9);
    let cache = Cache::at(dir.path());
    let stale = cache.inner.next_generation(&k, Record::Good);
    cache.invalidate(&k);
    cache
        .inner
        .write_if_current(dir.path(), &k, &entry(&k, 5, 2), stale)
        .unwrap();
    assert!(
        Cache::at(dir.path()).get(&k).is_none(),
        "an invalidated entry came back"
    );
    let leftovers = std::fs::read_dir(dir.path().join("entries"))
        .unwrap()
        .filter_map(Result::ok)
        .count();
    assert_eq!(leftovers, 0, "the superseded temporary file was removed");
    let current = cache.inner.next_generation(&k, Record::Good);
    cache
        .inner
        .write_if_current(dir.path(), &k, &entry(&k, 6, 3), current)
        .unwrap();
    assert_eq!(Cache::at(dir.path()).get(&k).unwrap().report.tools.len(), 3);
}

#[cfg(unix)]
#[test]
fn the_directory_is_private_and_a_shared_one_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("cache");
    let k = key(1);
    let cache = Cache::at(&dir);
    assert!(cache.warning().is_none());
    cache.put(&k, entry(&k, 10, 1)).unwrap();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("entries")), 0o700);
    let file = std::fs::read_dir(dir.join("entries"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(mode(&file), 0o600);

    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let shared = Cache::at(&dir);
    let warning = shared.warning().unwrap();
    assert!(warning.contains("writable by group or others"), "{warning}");
    assert!(shared.dir().is_none());
    assert!(
        shared.get(&k).is_none(),
        "an entry was read from a shared directory"
    );
    shared.put(&key(2), entry(&key(2), 10, 1)).unwrap();
    assert!(
        !dir.join("entries")
            .join(format!("{}.json", key(2)))
            .exists()
    );
}

fn failure(key: &Fingerprint, fetched_at_ms: u64) -> CacheEntry {
    let mut report = ServerReport::empty("alpha", ServerStatus::Failed);
    report.error = Some(crate::report::Failure {
        kind: "timeout".into(),
        message: "server 'alpha': no answer".into(),
    });
    CacheEntry {
        fingerprint: key.to_string(),
        fetched_at_ms,
        ttl_ms: 1_000,
        report,
    }
}

#[test]
fn a_failure_never_replaces_a_good_entry_and_marks_it_stale() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(4);
    let cache = Cache::at(dir.path());
    cache.put(&k, entry(&k, 10, 3)).unwrap();
    cache.put(&k, failure(&k, 20)).unwrap();
    for reader in [cache.clone(), Cache::at(dir.path())] {
        let got = reader.get(&k).unwrap();
        assert_eq!(got.report.status, ServerStatus::Ready);
        assert_eq!(got.report.tools.len(), 3);
        assert!(got.report.stale, "a failure came after it");
        assert_eq!(got.report.error.as_ref().unwrap().kind, "timeout");
        assert_eq!(got.fetched_at_ms, 10, "the catalog's own age");
    }
    // A good entry again clears the failure, in memory and on disk.
    cache.put(&k, entry(&k, 30, 2)).unwrap();
    for reader in [cache.clone(), Cache::at(dir.path())] {
        let got = reader.get(&k).unwrap();
        assert!(!got.report.stale);
        assert!(got.report.error.is_none());
        assert_eq!(got.report.tools.len(), 2);
    }
    assert!(
        !dir.path()
            .join("entries")
            .join(format!("{k}.failed.json"))
            .exists()
    );
    // An older failure (written late by a slower process) does not mark it.
    cache.put(&k, failure(&k, 25)).unwrap();
    assert!(!Cache::at(dir.path()).get(&k).unwrap().report.stale);
}

#[test]
fn a_failure_without_a_good_entry_is_the_last_known_status() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(5);
    Cache::at(dir.path()).put(&k, failure(&k, 20)).unwrap();
    let got = Cache::at(dir.path()).get(&k).unwrap();
    assert_eq!(got.report.status, ServerStatus::Failed);
    assert!(!got.is_fresh(20));
    assert!(!got.is_servable_stale(20, DEFAULT_STALE_MAX_AGE));
}

#[test]
fn a_stale_entry_is_servable_until_its_maximum_age() {
    let k = key(6);
    let good = entry(&k, 10_000, 1);
    let week = DEFAULT_STALE_MAX_AGE.as_millis() as u64;
    assert!(good.is_servable_stale(10_000 + week - 1, DEFAULT_STALE_MAX_AGE));
    assert!(!good.is_servable_stale(10_000 + week, DEFAULT_STALE_MAX_AGE));
    assert!(!good.is_servable_stale(10_001, Duration::ZERO));
}

#[test]
fn invalidate_forgets_the_failure_too() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(8);
    let cache = Cache::at(dir.path());
    cache.put(&k, entry(&k, 5, 1)).unwrap();
    cache.put(&k, failure(&k, 6)).unwrap();
    cache.invalidate(&k);
    assert!(Cache::at(dir.path()).get(&k).is_none());
    assert!(
        !dir.path()
            .join("entries")
            .join(format!("{k}.failed.json"))
            .exists()
    );
}
