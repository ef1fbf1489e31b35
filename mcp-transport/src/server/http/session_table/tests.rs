use super::*;

/// A connection: its name, and whether it is idle.
type Link = (&'static str, bool);

fn idle(link: &Link) -> bool {
    link.1
}

#[test]
fn a_held_id_keeps_its_first_connection() {
    let mut table = SessionTable::new(4, 4);
    let mut evicted = Vec::new();
    assert_eq!(
        table.insert("a".into(), ("first", false), idle, &mut evicted),
        Ok(("first", false))
    );
    assert_eq!(
        table.insert("a".into(), ("second", false), idle, &mut evicted),
        Ok(("first", false))
    );
    assert_eq!(table.get("a"), Some(("first", false)));
    assert!(evicted.is_empty());
}

#[test]
fn a_full_table_drops_its_idle_connections_and_refuses_when_none_is_idle() {
    let mut table = SessionTable::new(3, 4);
    let mut evicted = Vec::new();
    for (id, link) in [("a", ("a", true)), ("b", ("b", false)), ("c", ("c", true))] {
        table.insert(id.into(), link, idle, &mut evicted).unwrap();
    }
    assert_eq!(
        table.insert("d".into(), ("d", false), idle, &mut evicted),
        Ok(("d", false))
    );
    evicted.sort();
    assert_eq!(evicted, vec![("a", true), ("c", true)]);
    assert_eq!(table.len(), 2);
    table
        .insert("e".into(), ("e", false), idle, &mut evicted)
        .unwrap();
    evicted.clear();
    assert_eq!(
        table.insert("f".into(), ("f", true), idle, &mut evicted),
        Err(Full)
    );
    assert!(evicted.is_empty());
    assert_eq!(table.len(), 3);
}

#[test]
fn a_deleted_id_is_remembered_until_forgotten_oldest_first() {
    let mut table = SessionTable::new(4, 2);
    let mut evicted = Vec::new();
    table
        .insert("a".into(), ("a", false), idle, &mut evicted)
        .unwrap();
    assert_eq!(table.delete("a"), Some(Some(("a", false))));
    assert_eq!(table.get("a"), None);
    assert!(table.is_deleted("a"));
    // Deleted twice: the second is refused.
    assert_eq!(table.delete("a"), None);
    // Not held here (opened elsewhere): deleted all the same.
    assert_eq!(table.delete("b"), Some(None));
    assert_eq!(table.delete("c"), Some(None));
    assert!(!table.is_deleted("a"), "the oldest is forgotten");
    assert!(table.is_deleted("b") && table.is_deleted("c"));
}
