//! State shared by every request of one server: the running solves (so their nodes can be counted
//! live and they can be cancelled at shutdown) and counters.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::solve::{SearchControl, StopReason};

/// A cheap, cloneable read-only view of a server's counters (for tests, metrics and logs).
#[derive(Clone, Debug, Default)]
pub struct ServerStats {
    pub(crate) shared: Arc<Shared>,
}

#[derive(Debug, Default)]
pub(crate) struct Shared {
    state: Mutex<State>,
    next_solve: AtomicU64,
    shutting_down: AtomicBool,
}

#[derive(Debug, Default)]
struct State {
    /// Nodes searched by solves that have finished.
    finished_nodes: u64,
    /// The solves running now (their worker threads may still be winding down after a cancel).
    active: HashMap<u64, Arc<SearchControl>>,
    started: u64,
    finished: u64,
    rejected: u64,
}

impl ServerStats {
    /// Total search nodes of every solve since the server started, running ones included.
    pub fn nodes(&self) -> u64 {
        let s = self.shared.lock();
        s.finished_nodes + s.active.values().map(|c| c.nodes()).sum::<u64>()
    }

    /// Solves whose search is still running (including ones cancelled but not yet wound down).
    pub fn active_solves(&self) -> usize {
        self.shared.lock().active.len()
    }

    /// Solves started since the server started.
    pub fn solves_started(&self) -> u64 {
        self.shared.lock().started
    }

    /// Solves whose search has ended, however it ended.
    pub fn solves_finished(&self) -> u64 {
        self.shared.lock().finished
    }

    /// Solve requests turned away with RESOURCE_EXHAUSTED.
    pub fn solves_rejected(&self) -> u64 {
        self.shared.lock().rejected
    }

    /// True once the server has begun shutting down.
    pub fn shutting_down(&self) -> bool {
        self.shared.shutting_down.load(Relaxed)
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a starting solve; returns its id for `end`.
    pub(crate) fn begin(&self, control: Arc<SearchControl>) -> u64 {
        let id = self.next_solve.fetch_add(1, Relaxed);
        let mut s = self.lock();
        s.active.insert(id, control);
        s.started += 1;
        id
    }

    /// Records the end of a solve's search (its nodes move to the finished total).
    pub(crate) fn end(&self, id: u64) {
        let mut s = self.lock();
        if let Some(control) = s.active.remove(&id) {
            s.finished_nodes += control.nodes();
            s.finished += 1;
        }
    }

    pub(crate) fn reject(&self) {
        self.lock().rejected += 1;
    }

    pub(crate) fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Relaxed)
    }

    /// Refuses new solves and cancels every running one.
    pub(crate) fn begin_shutdown(&self) {
        self.shutting_down.store(true, Relaxed);
        for control in self.lock().active.values() {
            control.stop_with(StopReason::Cancelled);
        }
    }
}
