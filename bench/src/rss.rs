//! This process's peak resident set size, as the operating system counts it.

use nix::sys::resource::{UsageWho, getrusage};

/// The peak resident set size of this process so far, in KiB (0 if the OS does not say).
pub fn max_rss_kib() -> u64 {
    getrusage(UsageWho::RUSAGE_SELF)
        .ok()
        .and_then(|usage| u64::try_from(usage.max_rss()).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_covers_memory_just_touched() {
        let before = max_rss_kib();
        assert!(before > 0);
        // More than the peak so far, whatever other tests did: the peak must now exceed it.
        let size = usize::try_from(before).unwrap() * 1024 + 32 * 1024 * 1024;
        let mut block = vec![0u8; size];
        for page in block.chunks_mut(4096) {
            page[0] = 1;
        }
        std::hint::black_box(&block);
        assert!(max_rss_kib() >= u64::try_from(size / 1024).unwrap());
    }
}
