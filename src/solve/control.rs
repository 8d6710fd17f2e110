//! Cancellation, limits and progress, shared between a running search and whoever watches it.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::tree::StopReason;

/// How often (in nodes) a search looks at the clock.
const CLOCK_EVERY: u64 = 4096;

/// Shared by the search threads and the caller: set `cancel` from anywhere to stop the search.
#[derive(Debug)]
pub struct SearchControl {
    cancelled: AtomicBool,
    stop: Mutex<Option<StopReason>>,
    nodes: AtomicU64,
    tt_hits: AtomicU64,
    node_budget: Option<u64>,
    deadline: Option<Instant>,
    started: Instant,
    /// Progress for streaming clients.
    depth: AtomicU32,
    first_moves_done: AtomicU32,
    first_moves_total: AtomicU32,
    solutions_found: AtomicU32,
}

/// A snapshot of a running search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Number of moves currently being proved (iterative deepening).
    pub depth: u32,
    pub nodes: u64,
    pub first_moves_done: u32,
    pub first_moves_total: u32,
    pub solutions_found: u32,
    pub elapsed_ms: u64,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl::new(None, None)
    }
}

impl SearchControl {
    pub fn new(node_budget: Option<u64>, time_limit: Option<Duration>) -> SearchControl {
        let started = Instant::now();
        SearchControl {
            cancelled: AtomicBool::new(false),
            stop: Mutex::new(None),
            nodes: AtomicU64::new(0),
            tt_hits: AtomicU64::new(0),
            node_budget,
            deadline: time_limit.map(|d| started + d),
            started,
            depth: AtomicU32::new(0),
            first_moves_done: AtomicU32::new(0),
            first_moves_total: AtomicU32::new(0),
            solutions_found: AtomicU32::new(0),
        }
    }

    /// Asks the search to stop (client cancel).
    pub fn cancel(&self) {
        self.stop_with(StopReason::Cancelled);
    }

    pub fn stop_with(&self, reason: StopReason) {
        let mut s = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        if s.is_none() {
            *s = Some(reason);
        }
        self.cancelled.store(true, Relaxed);
    }

    pub fn is_stopped(&self) -> bool {
        self.cancelled.load(Relaxed)
    }

    pub fn stop_reason(&self) -> Option<StopReason> {
        *self.stop.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts `n` nodes; returns true when the search must stop. Called on the hot path, so the
    /// clock is read only every few thousand nodes.
    #[inline]
    pub fn count_nodes(&self, n: u64) -> bool {
        let before = self.nodes.fetch_add(n, Relaxed);
        if let Some(b) = self.node_budget {
            if before + n > b {
                self.stop_with(StopReason::NodeBudget);
            }
        }
        if (before / CLOCK_EVERY) != ((before + n) / CLOCK_EVERY) {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stop_with(StopReason::Deadline);
                }
            }
        }
        self.is_stopped()
    }

    pub fn count_tt_hit(&self) {
        self.tt_hits.fetch_add(1, Relaxed);
    }

    /// Adds `n` table hits counted elsewhere.
    pub fn count_tt_hits(&self, n: u64) {
        if n > 0 {
            self.tt_hits.fetch_add(n, Relaxed);
        }
    }

    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    pub fn tt_hits(&self) -> u64 {
        self.tt_hits.load(Relaxed)
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub fn set_depth(&self, d: u32) {
        self.depth.store(d, Relaxed);
    }

    pub fn set_first_moves(&self, done: u32, total: u32) {
        self.first_moves_done.store(done, Relaxed);
        self.first_moves_total.store(total, Relaxed);
    }

    pub fn first_move_done(&self) {
        self.first_moves_done.fetch_add(1, Relaxed);
    }

    pub fn solution_found(&self) {
        self.solutions_found.fetch_add(1, Relaxed);
    }

    pub fn progress(&self) -> Progress {
        Progress {
            depth: self.depth.load(Relaxed),
            nodes: self.nodes(),
            first_moves_done: self.first_moves_done.load(Relaxed),
            first_moves_total: self.first_moves_total.load(Relaxed),
            solutions_found: self.solutions_found.load(Relaxed),
            elapsed_ms: self.elapsed().as_millis() as u64,
        }
    }
}
