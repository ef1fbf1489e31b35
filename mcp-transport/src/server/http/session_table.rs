//! The sessions one server holds a connection for, bounded: a sealed
//! session id opens anywhere, so the table is only a cache of live
//! connections. When it is full, the idle ones (no stream, no request
//! open) are dropped to make room; such a session comes back from its id
//! when next used. Ids ended by `DELETE` are remembered (bounded, oldest
//! forgotten first), so a deleted id is refused here rather than resumed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, RandomState};

/// Connections held at most.
pub(super) const MAX_SESSIONS: usize = 4096;
/// Deleted ids remembered at most.
pub(super) const MAX_DELETED: usize = 16 * 1024;

/// The table is full of sessions in use.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Full;

/// Live connections by session id, and recently deleted ids.
pub(super) struct SessionTable<L> {
    capacity: usize,
    forget_after: usize,
    live: HashMap<String, L>,
    /// Digests of deleted ids, in a set and in the order they came.
    deleted: HashSet<u64>,
    deleted_order: VecDeque<u64>,
    hasher: RandomState,
}

impl<L: Clone> SessionTable<L> {
    /// A table of at most `capacity` connections, remembering
    /// `forget_after` deleted ids.
    pub(super) fn new(capacity: usize, forget_after: usize) -> Self {
        Self {
            capacity,
            forget_after,
            live: HashMap::new(),
            deleted: HashSet::new(),
            deleted_order: VecDeque::new(),
            hasher: RandomState::new(),
        }
    }

    /// The connection of `id`, if held.
    #[cfg(test)]
    pub(super) fn get(&self, id: &str) -> Option<L> {
        self.live.get(id).cloned()
    }

    /// The id of a held connection `matches`, if any (a scan: for rare
    /// events such as a deletion told by another replica).
    pub(super) fn find(&self, matches: impl Fn(&L) -> bool) -> Option<String> {
        self.live
            .iter()
            .find(|(_, link)| matches(link))
            .map(|(id, _)| id.clone())
    }

    /// The connection of `id`, if held, borrowed.
    pub(super) fn get_ref(&self, id: &str) -> Option<&L> {
        self.live.get(id)
    }

    /// The connection of `id`, if held, to change what is held with it.
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut L> {
        self.live.get_mut(id)
    }

    /// How many connections are held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.live.len()
    }

    /// Holds `link` for `id`, unless one is held already (then that one is
    /// returned, and `link` is not held). When full, the idle connections
    /// go first, returned in `evicted` for the caller to end; [`Full`] if
    /// none is idle.
    pub(super) fn insert(
        &mut self,
        id: String,
        link: L,
        is_idle: impl Fn(&L) -> bool,
        evicted: &mut Vec<L>,
    ) -> Result<L, Full> {
        if let Some(held) = self.live.get(&id) {
            return Ok(held.clone());
        }
        if self.live.len() >= self.capacity {
            let idle: Vec<String> = self
                .live
                .iter()
                .filter(|(_, link)| is_idle(link))
                .map(|(id, _)| id.clone())
                .collect();
            evicted.extend(idle.iter().filter_map(|id| self.live.remove(id)));
            if self.live.len() >= self.capacity {
                return Err(Full);
            }
        }
        self.live.insert(id, link.clone());
        Ok(link)
    }

    /// Ends `id`: its connection, if held, is returned; `None` if the id
    /// was already deleted. The id is remembered as deleted either way.
    pub(super) fn delete(&mut self, id: &str) -> Option<Option<L>> {
        if self.is_deleted(id) {
            return None;
        }
        let digest = self.hasher.hash_one(id);
        if self.deleted_order.len() >= self.forget_after
            && let Some(oldest) = self.deleted_order.pop_front()
        {
            self.deleted.remove(&oldest);
        }
        self.deleted.insert(digest);
        self.deleted_order.push_back(digest);
        Some(self.live.remove(id))
    }

    /// Whether `id` was deleted (and not yet forgotten).
    pub(super) fn is_deleted(&self, id: &str) -> bool {
        self.deleted.contains(&self.hasher.hash_one(id))
    }
}

#[cfg(test)]
mod tests;
