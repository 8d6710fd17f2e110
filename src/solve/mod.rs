//! Solving: exhaustive search per stipulation family over a shared transposition table, producing
//! the solution tree.

mod battle;
mod beside;
mod control;
mod crew;
mod help;
mod parallel;
mod reach;
mod series;
pub mod tree;
pub mod tt;

use std::sync::Arc;

use crate::chess::{Position, PositionError};
use crate::problem::{Family, SolveOptions, Stipulation, StipulationError};

pub use control::{Progress, SearchControl};
pub use tree::{
    MoveText, NodeFlags, NodeRole, SearchStats, SolutionNode, SolutionTree, StopReason, Verdict,
};
pub use tt::TranspositionTable;

/// Per depth of a line search, the positions after the moves searched there: one buffer a
/// depth, reused, so that a search plays each move once and allocates only on first going
/// that deep.
#[derive(Default)]
struct Afters(Vec<Vec<Position>>);

impl Afters {
    /// The empty buffer for `depth`; hand it back with `put`.
    fn take(&mut self, depth: u32) -> Vec<Position> {
        let mut v = self
            .0
            .get_mut(depth as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        v.clear();
        v
    }

    fn put(&mut self, depth: u32, v: Vec<Position>) {
        let depth = depth as usize;
        if self.0.len() <= depth {
            self.0.resize_with(depth + 1, Vec::new);
        }
        self.0[depth] = v;
    }
}

/// A thread's own data, kept off the cache lines of any other thread's: aligned to 128 bytes,
/// the pair of lines the processor fetches together. The searches of the threads and their
/// per-ply buffers are made side by side on the thread that starts them; sharing lines, one
/// thread's writes made the other's reads miss (on eight small help problems, two threads
/// took 2% less processor time with them apart: six alternating runs).
#[derive(Clone, Copy, Default)]
#[repr(align(128))]
struct Apart<T>(T);

impl<T> std::ops::Deref for Apart<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Apart<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// A problem ready to solve: a legal position and a stipulation it can start.
#[derive(Clone, Debug)]
pub struct Problem {
    pub position: Position,
    pub stipulation: Stipulation,
    /// What validation assumed (castling rights granted, e.p. available).
    pub assumptions: Vec<String>,
}

/// Why a problem cannot be solved as asked.
#[derive(Clone, Debug)]
pub enum ProblemError {
    Position(PositionError),
    Stipulation(StipulationError),
    /// A stipulation the solver knows but does not (yet) solve.
    Unsupported(String),
}

impl std::fmt::Display for ProblemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProblemError::Position(e) => e.fmt(f),
            ProblemError::Stipulation(e) => e.fmt(f),
            ProblemError::Unsupported(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for ProblemError {}

impl Problem {
    /// Reads and checks a FEN and a stipulation.
    pub fn parse(fen: &str, stipulation: &str) -> Result<Problem, ProblemError> {
        let stipulation: Stipulation = stipulation.parse().map_err(|e| match e {
            StipulationError::Unsupported(s) => ProblemError::Unsupported(s),
            e => ProblemError::Stipulation(e),
        })?;
        let setup = crate::chess::Setup::from_fen(fen)
            .map_err(|e| ProblemError::Position(PositionError::Fen(e)))?;
        let (position, report) = Position::validated(&setup)
            .map_err(|r| ProblemError::Position(PositionError::Illegal(r)))?;
        stipulation
            .check_side_to_move(position.side_to_move())
            .map_err(ProblemError::Stipulation)?;
        Ok(Problem {
            position,
            stipulation,
            assumptions: report.assumptions,
        })
    }
}

/// The solver: owns the transposition table shared by every solve and every worker thread.
pub struct Solver {
    tt: Arc<TranspositionTable>,
}

impl Solver {
    pub fn new(tt_entries: usize) -> Solver {
        // The distance tables the bounds read take a few milliseconds to build: built with
        // the solver rather than inside its first solve (and on one thread, not raced for by
        // the threads of a shared-out search).
        reach::prepare();
        Solver {
            tt: Arc::new(TranspositionTable::new(tt_entries)),
        }
    }

    /// Starts the helper threads of a search on `threads` threads (0: one per core) now,
    /// rather than at the first search that shares its work out: a service or a bench about
    /// to solve on several threads calls this once, and its first problem does not wait for
    /// them. The helpers are kept between searches; asleep when idle.
    pub fn start_helpers(&self, threads: usize) {
        crew::hire(parallel::worker_count(threads) - 1);
    }

    pub fn table(&self) -> &TranspositionTable {
        &self.tt
    }

    /// Solves a problem exhaustively (or until `control` stops it).
    pub fn solve(
        &self,
        problem: &Problem,
        options: &SolveOptions,
        control: &SearchControl,
    ) -> Result<SolutionTree, ProblemError> {
        let span = tracing::info_span!("solve", stipulation = %problem.stipulation);
        let _guard = span.enter();
        let mut tree = match problem.stipulation.family {
            Family::Direct | Family::SelfPlay | Family::Reflex => {
                battle::solve(&self.tt, problem, options, control)
            }
            Family::Help => help::solve(&self.tt, problem, options, control),
            Family::Series(_) => series::solve(&self.tt, problem, options, control),
        };
        tree.stats.tt_entries = self.tt.len() as u64;
        tracing::info!(
            nodes = tree.stats.nodes,
            elapsed_ms = tree.stats.elapsed_ms,
            verdict = ?tree.verdict,
            "solved"
        );
        Ok(tree)
    }
}

/// Assembles the tree and its verdict. `intended`: how many solutions the composer intends
/// (`None`: any number ≥ 1 is sound, as in help play without a stated count).
/// `count`: how many solutions `solutions` holds (keys in battle play, lines in help and series
/// play).
pub(crate) fn finish_tree(
    problem: &Problem,
    (solutions, count): (Vec<SolutionNode>, u64),
    tries: Vec<SolutionNode>,
    set_play: Vec<SolutionNode>,
    control: &SearchControl,
    intended: Option<u32>,
) -> SolutionTree {
    let stop_reason = control.stop_reason();
    let verdict = if stop_reason.is_some() {
        Verdict::Cancelled
    } else if count == 0 {
        Verdict::NoSolution
    } else if intended.is_some_and(|i| count > u64::from(i)) {
        Verdict::Cooked
    } else {
        Verdict::Solved
    };
    SolutionTree {
        verdict,
        stop_reason,
        stipulation: problem.stipulation.to_string(),
        fen: problem.position.to_fen(),
        solutions,
        tries,
        set_play,
        reflex_forced: Vec::new(),
        stats: SearchStats {
            nodes: control.nodes(),
            tt_hits: control.tt_hits(),
            tt_entries: 0,
            elapsed_ms: control.elapsed().as_millis() as u64,
            threads: 1,
        },
        assumptions: problem.assumptions.clone(),
    }
}
