//! The transposition table: proofs and disproofs keyed by position and stipulation kind, shared by
//! all worker threads and all requests, and bounded in size.

use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use dashmap::DashMap;

/// Position keys are already Zobrist hashes: hashing them again would only cost time.
#[derive(Default)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// What is known about one position for one kind of stipulation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Battle play: the attacker (to move) reaches the aim within this many moves; 0 = not known.
    pub wins_within: u8,
    /// Battle play: the attacker cannot reach the aim within this many moves; 0 = not known.
    pub fails_within: u8,
    /// Help and series play: bit k set = no solution in exactly k plies from here.
    pub no_solution_in: u64,
}

/// Default number of entries (about 32 bytes each with the map's overhead: ≈ 1 GiB at most).
pub const DEFAULT_ENTRIES: usize = 1 << 25;

pub struct TranspositionTable {
    map: DashMap<u64, Entry, BuildHasherDefault<IdentityHasher>>,
    capacity: usize,
    stores: AtomicU64,
    evictions: AtomicU64,
}

impl TranspositionTable {
    /// A table holding at most `capacity` entries (at least 1024).
    pub fn new(capacity: usize) -> TranspositionTable {
        let capacity = capacity.max(1024);
        TranspositionTable {
            map: DashMap::with_capacity_and_hasher(capacity.min(1 << 20), Default::default()),
            capacity,
            stores: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.map.get(&key).map(|e| *e)
    }

    /// Records that the attacker wins within `n` moves.
    pub fn store_win(&self, key: u64, n: u32) {
        self.update(key, |e| {
            if e.wins_within == 0 || n < e.wins_within as u32 {
                e.wins_within = n as u8;
            }
        });
    }

    /// Records that the attacker cannot win within `n` moves.
    pub fn store_fail(&self, key: u64, n: u32) {
        self.update(key, |e| {
            if n > e.fails_within as u32 {
                e.fails_within = n as u8;
            }
        });
    }

    /// Records that help / series play has no solution in exactly `plies` plies from here.
    pub fn store_no_solution(&self, key: u64, plies: u32) {
        if plies < 64 {
            self.update(key, |e| e.no_solution_in |= 1 << plies);
        }
    }

    fn update(&self, key: u64, f: impl FnOnce(&mut Entry)) {
        f(&mut self.map.entry(key).or_default());
        // Checking the size costs a pass over the shards, so only look every few thousand stores.
        if self.stores.fetch_add(1, Relaxed).is_multiple_of(4096) && self.map.len() > self.capacity {
            self.evict();
        }
    }

    /// Drops about a quarter of the entries, a different quarter each round (chosen by key bits,
    /// which are random), so the table stays under its capacity without an LRU's bookkeeping.
    fn evict(&self) {
        let round = self.evictions.fetch_add(1, Relaxed);
        let target = self.capacity - self.capacity / 4;
        let mut quarter = round % 4;
        while self.map.len() > target {
            self.map.retain(|k, _| (k >> 62) != quarter);
            quarter = (quarter + 1) % 4;
        }
    }

    pub fn clear(&self) {
        self.map.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_grows_beyond_capacity_by_more_than_the_check_interval() {
        let tt = TranspositionTable::new(10_000);
        let mut x: u64 = 0x1234_5678_9abc_def1;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            tt.store_win(x, 3);
        }
        assert!(tt.len() <= 10_000 + 4096, "{} entries", tt.len());
    }

    #[test]
    fn keeps_the_tightest_bounds() {
        let tt = TranspositionTable::new(1024);
        tt.store_win(7, 3);
        tt.store_win(7, 2);
        tt.store_win(7, 4);
        tt.store_fail(7, 1);
        tt.store_no_solution(7, 5);
        let e = tt.probe(7).unwrap();
        assert_eq!(
            (e.wins_within, e.fails_within, e.no_solution_in),
            (2, 1, 1 << 5)
        );
    }
}
