//! The transposition table: proofs and disproofs keyed by position and stipulation kind, shared by
//! all worker threads and all requests, and bounded in size.
//!
//! A fixed array of cache-line buckets of four slots, read and written without locks: each slot
//! holds the packed entry and its key xor the entry, so a slot torn by two writers racing does not
//! verify and reads as empty. Every stored fact is true of its position forever, so losing one
//! (overwritten, torn, or dropped by a full bucket) only costs search, never correctness.
//!
//! Why not a `DashMap` (the first version): profiles of an s#6 showed half of the solve in its
//! shard locks, hashing and rehashing growth; a proof search probes at nearly every node, and
//! an entry that may be lost needs no lock. This table made that s#6 twice as fast on one
//! thread and lets two threads probe without contention.

use std::alloc::{self, Layout};
use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64, AtomicUsize,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

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

/// Default number of entries (16 bytes each: 512 MiB at most, taken from the system only as
/// slots are first written).
pub const DEFAULT_ENTRIES: usize = 1 << 25;

/// Packed entry: bits 0–47 help/series "no solution in k plies" (k < 48), 48–53 wins within,
/// 54–59 fails within, 60–63 the table's generation when written (0: never written).
const PLY_BITS: u32 = 48;
const WINS_SHIFT: u32 = 48;
const FAILS_SHIFT: u32 = 54;
const GEN_SHIFT: u32 = 60;
const FIELD_MAX: u32 = 63;

fn pack(e: Entry, generation: u64) -> u64 {
    (e.no_solution_in & ((1 << PLY_BITS) - 1))
        | (e.wins_within as u64) << WINS_SHIFT
        | (e.fails_within as u64) << FAILS_SHIFT
        | generation << GEN_SHIFT
}

fn unpack(d: u64) -> Entry {
    Entry {
        no_solution_in: d & ((1 << PLY_BITS) - 1),
        wins_within: (d >> WINS_SHIFT & 63) as u8,
        fails_within: (d >> FAILS_SHIFT & 63) as u8,
    }
}

/// How deep a result is: the one to keep when a bucket is full.
fn depth(d: u64) -> u32 {
    let e = unpack(d);
    let plies = 64 - e.no_solution_in.leading_zeros();
    (e.wins_within as u32).max(e.fails_within as u32).max(plies)
}

#[derive(Default)]
struct Slot {
    /// The key xor `data`.
    check: AtomicU64,
    data: AtomicU64,
}

const WAYS: usize = 4;

#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; WAYS]);

/// Counters of filled slots, one cache line each: a thread counts on its own (`stripe`), so
/// the line does not travel between cores on every entry it writes.
#[derive(Default)]
#[repr(align(64))]
struct Stripe(AtomicU64);

const STRIPES: usize = 16;

/// This thread's counter of filled slots (threads take them in turn).
#[inline]
fn stripe() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static STRIPE: usize = NEXT.fetch_add(1, Relaxed) % STRIPES;
    }
    STRIPE.with(|s| *s)
}

pub struct TranspositionTable {
    buckets: Buckets,
    capacity: usize,
    /// Buckets in use: the table starts small and doubles as it fills, so a small search touches
    /// (and makes the system zero) little memory and keeps its entries close together.
    active: AtomicUsize,
    /// Set while the table is being doubled (its entries moved).
    growing: AtomicBool,
    /// The parts of the buckets whose entries are to be moved: log2 of the buckets in use
    /// before doubling (above `PARTS_SHIFT`; 0 before the first doubling) and how many parts
    /// have been taken.
    parts: AtomicU64,
    /// How many parts have been moved.
    moved: AtomicUsize,
    /// Bumped by `clear`: slots written under another generation read as empty.
    generation: AtomicU32,
    filled: [Stripe; STRIPES],
}

/// Buckets in use at first (4 MiB): each doubling moves every entry, and a search of the
/// bench's size doubled a 1 MiB table two or three times (hpint#74 h=5: 1.4 ms of 40 moving
/// entries); starting at 4 MiB was 3% faster over the bench (eight rounds, one and two
/// threads), though the table of a small search no longer fits a core's 2 MiB L2 here.
const FIRST_BUCKETS: usize = 1 << 16;
/// The smallest page the system maps.
const PAGE: usize = 4096;
/// Buckets whose entries a thread moves at a time when the table doubles (64 KiB).
const PART_BUCKETS: usize = 1 << 10;
const PARTS_SHIFT: u32 = 58;

impl TranspositionTable {
    /// A table holding at most `capacity` entries (at least 1024; rounded down to a power of two).
    pub fn new(capacity: usize) -> TranspositionTable {
        TranspositionTable::starting_with(capacity, FIRST_BUCKETS)
    }

    /// `new`, with `first` buckets in use at first.
    fn starting_with(capacity: usize, first: usize) -> TranspositionTable {
        let n = 1 << (capacity.max(1024) / WAYS).ilog2();
        let buckets = Buckets::zeroed(n);
        // The buckets in use at first are taken from the system now, with the table, rather
        // than by the first search's first writes: a fresh page costs the system its zeroing,
        // on this project's virtual machine up to 3 ms a huge page (castling#35 ser-s#6, the
        // bench's first problem: its first run on two threads took 28 ms, the next ones 22).
        for bucket in buckets[..n.min(first)]
            .iter()
            .step_by(PAGE / size_of::<Bucket>())
        {
            bucket.0[0].data.store(0, Relaxed);
        }
        TranspositionTable {
            buckets,
            capacity: n * WAYS,
            active: AtomicUsize::new(n.min(first)),
            growing: AtomicBool::new(false),
            parts: AtomicU64::new(0),
            moved: AtomicUsize::new(0),
            generation: AtomicU32::new(1),
            filled: Default::default(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The most memory the table's slots can take (16 bytes an entry).
    pub fn max_bytes(&self) -> usize {
        self.capacity * std::mem::size_of::<Slot>()
    }

    /// Entries written since the last `clear` (an estimate while other threads write).
    pub fn len(&self) -> usize {
        let n: u64 = self.filled.iter().map(|s| s.0.load(Relaxed)).sum();
        (n as usize).min(self.capacity)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bucket of `key` among the first `active`: the high bits pick it (the low ones are left
    /// to verify the key), so doubling `active` sends bucket i's keys to 2i and 2i + 1.
    #[inline]
    fn index(key: u64, active: usize) -> usize {
        ((key as u128 * active as u128) >> 64) as usize
    }

    #[inline]
    fn bucket(&self, key: u64) -> (usize, &Bucket) {
        let i = Self::index(key, self.active.load(Relaxed));
        (i, &self.buckets[i])
    }

    #[inline]
    fn current(&self) -> u64 {
        self.generation.load(Relaxed) as u64
    }

    /// Asks the processor to fetch `key`'s bucket into cache (no effect on the table): a search
    /// that knows the keys it will probe next overlaps their memory latencies.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let (_, bucket) = self.bucket(key);
            // SAFETY: a prefetch is only a hint; it never faults and reads nothing into Rust.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket as *const Bucket as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let (_, bucket) = self.bucket(key);
        let generation = self.current();
        for slot in &bucket.0 {
            let d = slot.data.load(Relaxed);
            if slot.check.load(Relaxed) ^ d == key && d >> GEN_SHIFT == generation {
                return Some(unpack(d));
            }
        }
        None
    }

    /// Records that the attacker wins within `n` moves.
    pub fn store_win(&self, key: u64, n: u32) {
        if n == 0 || n > FIELD_MAX {
            return;
        }
        self.update(key, |e| {
            if e.wins_within == 0 || n < e.wins_within as u32 {
                e.wins_within = n as u8;
            }
        });
    }

    /// Records that the attacker cannot win within `n` moves.
    pub fn store_fail(&self, key: u64, n: u32) {
        // Failing within more moves than fit implies failing within as many as fit.
        let n = n.min(FIELD_MAX);
        self.update(key, |e| {
            if n > e.fails_within as u32 {
                e.fails_within = n as u8;
            }
        });
    }

    /// Records that help / series play has no solution in exactly `plies` plies from here.
    pub fn store_no_solution(&self, key: u64, plies: u32) {
        if plies < PLY_BITS {
            self.update(key, |e| e.no_solution_in |= 1 << plies);
        }
    }

    /// Merges into the key's slot, or takes an empty slot, or the one with the shallowest result.
    fn update(&self, key: u64, f: impl FnOnce(&mut Entry)) {
        let (_, bucket) = self.bucket(key);
        let generation = self.current();
        let mut e = Entry::default();
        if let Some(slot) = find(bucket, key, generation) {
            e = unpack(slot.data.load(Relaxed));
            f(&mut e);
            write(slot, key, pack(e, generation));
            return;
        }
        f(&mut e);
        if put(bucket, key, pack(e, generation), generation) {
            // A plain add on this thread's stripe, not a locked one: a locked add waits for
            // the slot just written to reach the cache, and with two threads the slot's line
            // must often first be taken from the other core (hpint#74 h=5 on two threads:
            // the store took twice its one-thread time). A count lost to a thread sharing
            // the stripe only delays growing a little.
            let stripe = &self.filled[stripe()].0;
            let filled = stripe.load(Relaxed) + 1;
            stripe.store(filled, Relaxed);
            if filled.is_multiple_of(256) {
                self.maybe_grow();
            }
        }
    }

    /// Doubles the buckets in use when half of the slots are taken, moving every entry
    /// to its new bucket. Other threads go on meanwhile: an entry not yet moved is missed, one
    /// written meanwhile may be lost, which costs search but no truth. A thread that comes
    /// here while the entries are being moved helps move them (`move_entries`).
    fn maybe_grow(&self) {
        if self.growing.load(Relaxed) {
            self.move_entries();
            return;
        }
        let active = self.active.load(Relaxed);
        if active >= self.buckets.len() || self.len() * 2 < active * WAYS {
            return;
        }
        if self.growing.swap(true, Acquire) {
            self.move_entries();
            return;
        }
        if self.active.load(Relaxed) != active {
            self.growing.store(false, Release);
            return;
        }
        self.moved.store(0, Relaxed);
        self.active.store(active * 2, Relaxed);
        // Published last: a thread that takes a part from it sees the counts above reset.
        self.parts
            .store((active.ilog2() as u64) << PARTS_SHIFT, Release);
        self.move_entries();
    }

    /// Takes parts of the buckets being doubled, one at a time, and moves their entries; the
    /// thread that moves the last part ends the growing. Parts go from the top down, each
    /// downwards: bucket i's keys go to 2i and 2i + 1, which are beyond the old table or were
    /// emptied before i is reached (but by a part still being moved on another thread, where
    /// an entry may be lost).
    fn move_entries(&self) {
        loop {
            let taken = self.parts.fetch_add(1, AcqRel);
            let log = (taken >> PARTS_SHIFT) as u32;
            let active = 1usize << log;
            let parts = active.div_ceil(PART_BUCKETS);
            let part = (taken & ((1 << PARTS_SHIFT) - 1)) as usize;
            if log == 0 || part >= parts {
                return;
            }
            let top = active - part * PART_BUCKETS;
            let doubled = active * 2;
            let generation = self.current();
            for i in (top.saturating_sub(PART_BUCKETS)..top).rev() {
                for slot in &self.buckets[i].0 {
                    let d = slot.data.load(Relaxed);
                    if d == 0 {
                        continue;
                    }
                    let key = slot.check.load(Relaxed) ^ d;
                    let j = Self::index(key, doubled);
                    if j != i {
                        slot.data.store(0, Relaxed);
                        slot.check.store(0, Relaxed);
                        if d >> GEN_SHIFT == generation {
                            put(&self.buckets[j], key, d, generation);
                        }
                    }
                }
            }
            if self.moved.fetch_add(1, AcqRel) + 1 == parts {
                self.growing.store(false, Release);
                return;
            }
        }
    }

    /// Forgets every entry (at once: the slots are only marked old) and starts small again.
    pub fn clear(&self) {
        while self.growing.swap(true, Acquire) {
            std::thread::yield_now();
        }
        // Generations 1..=15 in turn; 0 marks a slot never written.
        let _ = self
            .generation
            .fetch_update(Relaxed, Relaxed, |g| Some(if g >= 15 { 1 } else { g + 1 }));
        for s in &self.filled {
            s.0.store(0, Relaxed);
        }
        self.active
            .store(self.buckets.len().min(FIRST_BUCKETS), Relaxed);
        self.growing.store(false, Release);
    }
}

/// The live slot holding `key`, if any.
#[inline]
fn find(bucket: &Bucket, key: u64, generation: u64) -> Option<&Slot> {
    bucket.0.iter().find(|slot| {
        let d = slot.data.load(Relaxed);
        d >> GEN_SHIFT == generation && slot.check.load(Relaxed) ^ d == key
    })
}

/// Writes a new entry into an empty slot, or over the shallowest; true when the slot was empty.
#[inline]
fn put(bucket: &Bucket, key: u64, d: u64, generation: u64) -> bool {
    let mut victim = 0;
    let mut victim_depth = u32::MAX;
    for (i, slot) in bucket.0.iter().enumerate() {
        let old = slot.data.load(Relaxed);
        let depth = if old >> GEN_SHIFT == generation {
            depth(old)
        } else {
            0
        };
        if depth < victim_depth {
            victim = i;
            victim_depth = depth;
        }
    }
    let slot = &bucket.0[victim];
    let empty = slot.data.load(Relaxed) >> GEN_SHIFT != generation;
    write(slot, key, d);
    empty
}

#[inline]
fn write(slot: &Slot, key: u64, d: u64) {
    slot.data.store(d, Relaxed);
    slot.check.store(key ^ d, Relaxed);
}

/// `n` empty buckets. On Linux they are mapped straight from the kernel's zero pages, in huge
/// pages where it grants them: untouched memory costs nothing, and probes into a large table do
/// not miss the TLB at every turn.
struct Buckets {
    ptr: std::ptr::NonNull<Bucket>,
    len: usize,
    /// Bytes mapped (Linux) or 0 (allocated by the global allocator).
    mapped: usize,
}

// SAFETY: the buckets are atomics only; `Buckets` owns its memory like a Box<[Bucket]>.
unsafe impl Send for Buckets {}
unsafe impl Sync for Buckets {}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `ptr` points to `len` zero-initialised (valid) buckets owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(target_os = "linux")]
mod os {
    use std::ffi::c_void;
    extern "C" {
        pub fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            offset: i64,
        ) -> *mut c_void;
        pub fn munmap(addr: *mut c_void, len: usize) -> i32;
        pub fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
    }
    pub const PROT_READ_WRITE: i32 = 0x1 | 0x2;
    /// MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE: memory is committed only as it is touched.
    pub const MAP_PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20 | 0x4000;
    pub const MADV_HUGEPAGE: i32 = 14;
    pub const HUGE_PAGE: usize = 2 << 20;
}

impl Buckets {
    fn zeroed(n: usize) -> Buckets {
        let layout = Layout::array::<Bucket>(n).expect("table size");
        #[cfg(target_os = "linux")]
        if layout.size() >= os::HUGE_PAGE {
            // Map one huge page more, to start the table on a huge-page boundary.
            let mapped = layout.size() + os::HUGE_PAGE;
            // SAFETY: a fresh private anonymous mapping (zero-filled), checked for failure; the
            // table lies inside it, aligned beyond Bucket's alignment, and is unmapped on drop.
            unsafe {
                let p = os::mmap(
                    std::ptr::null_mut(),
                    mapped,
                    os::PROT_READ_WRITE,
                    os::MAP_PRIVATE_ANONYMOUS,
                    -1,
                    0,
                );
                if p as isize != -1 && !p.is_null() {
                    let start = (p as usize).next_multiple_of(os::HUGE_PAGE);
                    let _ = os::madvise(start as *mut _, layout.size(), os::MADV_HUGEPAGE);
                    let table = start as *mut Bucket;
                    // Remember the mapping's start in `mapped`'s partner: the offset is below a huge page.
                    let offset = start - p as usize;
                    return Buckets {
                        ptr: std::ptr::NonNull::new_unchecked(table),
                        len: n,
                        mapped: mapped | offset << 48,
                    };
                }
            }
        }
        // SAFETY: an all-zero Bucket is valid (atomics of 0); freed with the same layout on drop.
        unsafe {
            let p = alloc::alloc_zeroed(layout) as *mut Bucket;
            match std::ptr::NonNull::new(p) {
                Some(ptr) => Buckets {
                    ptr,
                    len: n,
                    mapped: 0,
                },
                None => alloc::handle_alloc_error(layout),
            }
        }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if self.mapped != 0 {
            let offset = self.mapped >> 48;
            let len = self.mapped & ((1 << 48) - 1);
            // SAFETY: exactly the mapping made in `zeroed`.
            unsafe {
                os::munmap((self.ptr.as_ptr() as usize - offset) as *mut _, len);
            }
            return;
        }
        let layout = Layout::array::<Bucket>(self.len).expect("table size");
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn never_grows_beyond_capacity() {
        let tt = TranspositionTable::new(10_000);
        let mut x: u64 = 0x1234_5678_9abc_def1;
        for _ in 0..200_000 {
            tt.store_win(xorshift(&mut x), 3);
        }
        assert_eq!(tt.capacity(), 8192);
        assert!(tt.len() <= 8192, "{} entries", tt.len());
        assert!(tt.len() > 7_000, "{} entries", tt.len());
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

    #[test]
    fn never_answers_for_another_key() {
        let tt = TranspositionTable::new(4096);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let keys: Vec<u64> = (0..50_000).map(|_| xorshift(&mut x)).collect();
        for (i, &k) in keys.iter().enumerate() {
            tt.store_fail(k, (i % 7) as u32 + 1);
        }
        let mut found = 0;
        for (i, &k) in keys.iter().enumerate() {
            if let Some(e) = tt.probe(k) {
                assert_eq!(e.fails_within as usize, i % 7 + 1);
                found += 1;
            }
            assert_eq!(tt.probe(k ^ 1 << 63), None);
        }
        assert!(found >= 3_000, "{found} kept");
    }

    #[test]
    fn clear_forgets_and_deep_results_survive_shallow_ones() {
        let tt = TranspositionTable::new(1024);
        tt.store_fail(42, 9);
        assert!(!tt.is_empty());
        tt.clear();
        assert_eq!(tt.probe(42), None);
        assert!(tt.is_empty());
        for round in 0..20 {
            tt.store_fail(42, 9);
            tt.clear();
            assert_eq!(tt.probe(42), None, "round {round}");
        }
        // A full bucket drops its shallowest entry, not the deep one.
        tt.store_fail(5, 9);
        let (i, _) = tt.bucket(5);
        let mut x: u64 = 77;
        let mut same = 0;
        while same < 20 {
            let k = xorshift(&mut x);
            if tt.bucket(k).0 == i {
                tt.store_fail(k, 1);
                same += 1;
            }
        }
        assert_eq!(tt.probe(5).map(|e| e.fails_within), Some(9));
    }

    #[test]
    fn help_bits_and_oversized_lengths() {
        let tt = TranspositionTable::new(1024);
        tt.store_no_solution(3, 0);
        tt.store_no_solution(3, 47);
        tt.store_no_solution(3, 48); // does not fit: not recorded
        assert_eq!(tt.probe(3).unwrap().no_solution_in, 1 | 1 << 47);
        tt.store_win(4, 64); // does not fit: not recorded
        assert_eq!(tt.probe(4), None);
        tt.store_fail(4, 200);
        assert_eq!(tt.probe(4).unwrap().fails_within, 63);
    }

    #[test]
    fn grows_as_it_fills_and_keeps_entries_when_it_does() {
        let tt = TranspositionTable::new(1 << 20);
        assert_eq!(tt.active.load(Relaxed), FIRST_BUCKETS);
        let mut x: u64 = 0x51_7cc1_b727_220a;
        let keys: Vec<u64> = (0..200_000).map(|_| xorshift(&mut x)).collect();
        for (i, &k) in keys.iter().enumerate() {
            tt.store_fail(k, (i % 5) as u32 + 1);
        }
        assert!(tt.active.load(Relaxed) > FIRST_BUCKETS);
        let kept = keys
            .iter()
            .enumerate()
            .filter(|&(i, &k)| {
                tt.probe(k)
                    .map(|e| {
                        assert_eq!(e.fails_within as usize, i % 5 + 1);
                    })
                    .is_some()
            })
            .count();
        assert!(kept > 180_000, "{kept} kept");
        tt.clear();
        assert_eq!(tt.active.load(Relaxed), FIRST_BUCKETS);
        assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
    }

    /// Threads that fill the table together double it together: each helps move the entries,
    /// and the doubling ends (the table can be cleared) with most entries kept.
    #[test]
    fn threads_filling_the_table_grow_it_together() {
        // Starting at 1 MiB: each doubling moves few entries, so the test stays short.
        let first = 1 << 14;
        let tt = TranspositionTable::starting_with(1 << 20, first);
        let per_thread = 60_000;
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let tt = &tt;
                s.spawn(move || {
                    let mut x = 0x9e37_79b9 + t;
                    for _ in 0..per_thread {
                        let k = xorshift(&mut x);
                        tt.store_fail(k, (k % 11) as u32 + 1);
                    }
                });
            }
        });
        assert!(!tt.growing.load(Relaxed));
        assert!(tt.active.load(Relaxed) >= first * 8);
        let mut kept = 0;
        for t in 0..4u64 {
            let mut x = 0x9e37_79b9 + t;
            for _ in 0..per_thread {
                let k = xorshift(&mut x);
                if let Some(e) = tt.probe(k) {
                    assert_eq!(e.fails_within as u64, k % 11 + 1);
                    kept += 1;
                }
            }
        }
        // Entries are lost while a thread moving a part waits, preempted: with two busy
        // loops beside it, 62% and 68% were kept in 2 runs of 15 (the others kept over 80%).
        // (That moving keeps entries is the one-thread test's, `grows_as_it_fills_...`.)
        assert!(kept > 4 * per_thread / 2, "{kept} kept");
        tt.clear();
        assert_eq!(tt.active.load(Relaxed), FIRST_BUCKETS);
    }

    #[test]
    fn concurrent_writers_never_corrupt() {
        let tt = TranspositionTable::new(2048);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let tt = &tt;
                s.spawn(move || {
                    let mut x = 0x1234 + t;
                    for _ in 0..100_000 {
                        let k = xorshift(&mut x) & 0xfff;
                        // The fact stored for a key depends on the key only.
                        tt.store_fail(k | 1 << 40, (k % 13) as u32 + 1);
                    }
                });
            }
        });
        for k in 0..0x1000u64 {
            if let Some(e) = tt.probe(k | 1 << 40) {
                assert_eq!(e.fails_within as u64, k % 13 + 1);
            }
        }
    }
}
