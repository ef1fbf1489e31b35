//! The workspace's one lock helper: `std`'s mutex and read-write lock,
//! tolerant of poisoning.
//!
//! A panic elsewhere while a lock was held leaves the data as it was, and
//! every structure guarded here stays usable after one (maps, counters,
//! slots), so a poisoned lock is simply taken. `std`'s futex-based locks
//! are used rather than `parking_lot`'s: under the contention of many
//! requests in flight on two cores they measured about a quarter faster in
//! `cargo xtask bench` (B2 throughput).

/// A mutex whose `lock` never fails.
#[derive(Debug, Default)]
pub struct Mutex<T: ?Sized>(std::sync::Mutex<T>);

/// The guard of a [`Mutex`].
pub type MutexGuard<'a, T> = std::sync::MutexGuard<'a, T>;

impl<T> Mutex<T> {
    /// A mutex holding `value`.
    pub const fn new(value: T) -> Self {
        Self(std::sync::Mutex::new(value))
    }

    /// The value, once no one else can lock it.
    pub fn into_inner(self) -> T {
        self.0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Locks, waiting if need be; a poisoned lock is taken as it is.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The value, through an exclusive borrow (no locking).
    pub fn get_mut(&mut self) -> &mut T {
        self.0
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A read-write lock whose `read` and `write` never fail.
#[derive(Debug, Default)]
pub struct RwLock<T: ?Sized>(std::sync::RwLock<T>);

impl<T> RwLock<T> {
    /// A lock holding `value`.
    pub const fn new(value: T) -> Self {
        Self(std::sync::RwLock::new(value))
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Shared access; a poisoned lock is taken as it is.
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, T> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Exclusive access; a poisoned lock is taken as it is.
    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, T> {
        self.0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_still_usable() {
        let lock = std::sync::Arc::new(Mutex::new(1));
        let poisoner = std::sync::Arc::clone(&lock);
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.lock();
            panic!("poison it");
        })
        .join();
        *lock.lock() += 1;
        assert_eq!(*lock.lock(), 2);
        let rw = RwLock::new(String::from("a"));
        rw.write().push('b');
        assert_eq!(*rw.read(), "ab");
    }
}
