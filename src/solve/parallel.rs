//! Battle play on several threads: the first moves are shared out among workers, each with its own
//! prover (killers, history, node counts) over the one transposition table; a worker that finds
//! no first move left helps with the defences of a first move still being proved.
//!
//! The answers do not depend on the timing: whether a first move wins within a length is a fact,
//! found whatever the table holds and in whatever order the defences are tried; each first move's
//! result is kept in its own slot and read in first-move order.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

use crate::chess::{Move, MoveList, Position};

use super::battle::{Battle, Prover};

/// How many workers `threads` asks for (0: one per core).
pub(crate) fn worker_count(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// One first move being proved at one length.
struct Job {
    after: Position,
    /// Decided whole by one worker: 0 not (yet), 1 wins, 2 fails.
    whole: AtomicU8,
    /// Otherwise its defences, in the order they are tried, shared by whoever works on them.
    defences: OnceLock<Vec<Move>>,
    next: AtomicUsize,
    /// Defences proved not to refute.
    held: AtomicUsize,
    refuted: AtomicBool,
}

impl Job {
    fn new(after: Position) -> Job {
        Job {
            after,
            whole: AtomicU8::new(0),
            defences: OnceLock::new(),
            next: AtomicUsize::new(0),
            held: AtomicUsize::new(0),
            refuted: AtomicBool::new(false),
        }
    }

    /// Takes defences one at a time until none is left or one refutes.
    fn work(&self, prover: &Prover, n: u32) {
        let Some(defences) = self.defences.get() else {
            return;
        };
        while !self.refuted.load(Relaxed) && !prover.control.is_stopped() {
            let k = self.next.fetch_add(1, Relaxed);
            let Some(d) = defences.get(k) else {
                return;
            };
            if prover.refutes(&self.after, d, n) {
                self.refuted.store(true, Relaxed);
            } else {
                self.held.fetch_add(1, Relaxed);
            }
        }
    }

    /// Worth helping with: defences nobody has taken, and one at least proved not to refute (so
    /// the others probably do not either, and must all be proved: no work is wasted on them).
    fn open(&self) -> bool {
        self.held.load(Relaxed) > 0
            && self
                .defences
                .get()
                .is_some_and(|d| self.next.load(Relaxed) < d.len())
            && !self.refuted.load(Relaxed)
    }

    /// After every worker is done: does the first move win?
    fn wins(&self) -> bool {
        match self.whole.load(Relaxed) {
            1 => true,
            2 => false,
            // Every defence taken and none refuting (a search cut short by a stop refutes).
            _ => {
                self.defences
                    .get()
                    .is_some_and(|d| self.next.load(Relaxed) >= d.len())
                    && !self.refuted.load(Relaxed)
            }
        }
    }
}

/// The first move's own work: decided at once when its defences cannot be shared (no defence,
/// last move, a reflex defender who must reach the aim), else its defences are ordered and worked.
fn start(job: &Job, prover: &Prover, n: u32) {
    let after = &job.after;
    let shareable = n >= 2
        && after.has_legal_move()
        && !(prover.battle == Battle::Reflex && prover.reaches_aim_in_one(after));
    if !shareable {
        let wins = prover.defend(after, n);
        job.whole.store(if wins { 1 } else { 2 }, Relaxed);
        return;
    }
    let mut moves = MoveList::new();
    after.legal_moves(&mut moves);
    let _ = job.defences.set(prover.defence_order(after, &moves));
    job.work(prover, n);
}

/// For each first move (those not in `todo` are skipped), whether it wins within `n`, proved by
/// one thread per prover in `provers` (the first one on this thread). The provers keep their
/// killers and history from one call to the next.
pub(crate) fn prove_first_moves(
    pos: &Position,
    moves: &[Move],
    todo: &[bool],
    n: u32,
    provers: &mut [Prover],
) -> Vec<bool> {
    let jobs: Vec<Option<Job>> = moves
        .iter()
        .zip(todo)
        .map(|(m, &t)| t.then(|| Job::new(pos.play(m))))
        .collect();
    let next = AtomicUsize::new(0);
    let worker = |prover: &mut Prover| {
        let control = prover.control;
        // Own first moves while there are any.
        loop {
            let i = next.fetch_add(1, Relaxed);
            let Some(job) = jobs.get(i) else {
                break;
            };
            if let Some(job) = job {
                if !control.is_stopped() {
                    start(job, prover, n);
                }
            }
            control.first_move_done();
        }
        // Then help with the defences of first moves still open, the earliest first.
        while !control.is_stopped() {
            match jobs.iter().flatten().find(|j| j.open()) {
                Some(job) => job.work(prover, n),
                None => break,
            }
        }
        prover.flush();
    };
    let (first, rest) = provers.split_first_mut().expect("a prover");
    std::thread::scope(|s| {
        for p in rest {
            s.spawn(|| worker(p));
        }
        worker(first);
    });
    jobs.iter()
        .map(|j| j.as_ref().is_some_and(|j| j.wins()))
        .collect()
}

/// `f(i, prover)` for each `i` in `0..count`, shared out over the provers' threads (the first on
/// this one); the results in index order (`None` where the search was stopped first).
pub(crate) fn map<T: Send>(
    count: usize,
    provers: &mut [Prover],
    f: impl Fn(usize, &Prover) -> T + Sync,
) -> Vec<Option<T>> {
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let worker = |prover: &mut Prover| {
        while !prover.control.is_stopped() {
            let i = next.fetch_add(1, Relaxed);
            if i >= count {
                break;
            }
            let r = f(i, prover);
            results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
        }
        prover.flush();
    };
    let (first, rest) = provers.split_first_mut().expect("a prover");
    std::thread::scope(|s| {
        for p in rest {
            s.spawn(|| worker(p));
        }
        worker(first);
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::problem::SolveOptions;
    use crate::solve::{Problem, SearchControl, Solver, StopReason, Verdict};

    const PROBLEMS: &[(&str, &str)] = &[
        ("7Q/4P2K/P7/8/5k2/8/R5p1/8 w - - 0 1", "#4"),
        ("2n5/4Qr2/3B4/8/P5p1/1pN2R1p/6PK/2k5 w - - 0 1", "#4"),
        ("8/4B3/3Rp2p/2Nbk1pP/1Qp2pKn/1N3P1P/3R4/8 w - - 0 1", "s#4"),
        (
            "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1",
            "s#6",
        ),
        ("k7/5p2/K1p5/B3PBpP/8/4R3/Qn3N2/6R1 w - - 0 1", "s#3"),
    ];

    #[test]
    fn every_thread_count_gives_the_same_tree() {
        for &(fen, stip) in PROBLEMS {
            let problem = Problem::parse(fen, stip).unwrap();
            let mut trees = Vec::new();
            for threads in [1, 2, 3] {
                // A fresh table each time: nothing is carried over from another run.
                let solver = Solver::new(1 << 18);
                let options = SolveOptions {
                    threads,
                    tries: Some(1),
                    threats: true,
                    variations: true,
                    ..SolveOptions::default()
                };
                let mut tree = solver
                    .solve(&problem, &options, &SearchControl::default())
                    .unwrap();
                assert_eq!(tree.stats.threads, threads as u32);
                tree.stats = Default::default();
                trees.push(tree);
            }
            assert_eq!(trees[0], trees[1], "{fen} {stip}: 1 and 2 threads differ");
            assert_eq!(trees[0], trees[2], "{fen} {stip}: 1 and 3 threads differ");
        }
    }

    #[test]
    fn cancel_stops_every_worker_promptly() {
        // Far too long to finish: only the cancel ends it.
        let problem = Problem::parse(
            "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1",
            "s#12",
        )
        .unwrap();
        let solver = Solver::new(1 << 18);
        let control = SearchControl::default();
        let options = SolveOptions {
            threads: 3,
            ..SolveOptions::default()
        };
        let started = Instant::now();
        let tree = std::thread::scope(|s| {
            let run = s.spawn(|| solver.solve(&problem, &options, &control).unwrap());
            std::thread::sleep(Duration::from_millis(300));
            control.cancel();
            let cancelled = Instant::now();
            let tree = run.join().unwrap();
            assert!(
                cancelled.elapsed() < Duration::from_millis(500),
                "took {:?}",
                cancelled.elapsed()
            );
            tree
        });
        assert_eq!(tree.verdict, Verdict::Cancelled);
        assert_eq!(tree.stop_reason, Some(StopReason::Cancelled));
        // Only keys proved before the cancel (the s#6 key, short) can be shown.
        assert!(
            tree.solutions.iter().all(|k| k.mv.uci == "g5f6"),
            "{:?}",
            tree.solutions
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn node_budget_counts_every_thread() {
        let problem = Problem::parse(
            "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1",
            "s#12",
        )
        .unwrap();
        let solver = Solver::new(1 << 18);
        let control = SearchControl::new(Some(200_000), None);
        let options = SolveOptions {
            threads: 2,
            ..SolveOptions::default()
        };
        let tree = solver.solve(&problem, &options, &control).unwrap();
        assert_eq!(tree.stop_reason, Some(StopReason::NodeBudget));
        // Each thread adds its count in batches: a little over the budget, not much.
        assert!(
            tree.stats.nodes >= 200_000 && tree.stats.nodes < 220_000,
            "{}",
            tree.stats.nodes
        );
    }
}
