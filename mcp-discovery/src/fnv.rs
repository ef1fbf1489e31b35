//! FNV-1a (32 bits): the short, stable hash that makes the names we store
//! unique when they had to be cut or changed (served tool names, manifest
//! file names). Stable across runs, versions and platforms: both are
//! persisted, and their tests hold known answers.

/// The FNV-1a 32-bit hash of `bytes`.
pub(crate) fn fnv1a_32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in bytes {
        hash ^= u32::from(*byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::fnv1a_32;

    #[test]
    fn the_published_test_vectors() {
        // From the FNV reference (draft-eastlake-fnv): "", "a", "foobar".
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }
}
