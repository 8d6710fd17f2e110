//! Search on several threads.
//!
//! Battle play: the first moves are shared out among workers, each with its own prover (killers,
//! history, node counts) over the one transposition table; a worker that finds no first move left
//! helps with the defences of a first move still being proved, and with none left, with the
//! attacker's moves another thread offers wherever they must all be searched (`Board`).
//!
//! Help and series play (`share_out`): the first moves are shared out the same way; each first
//! move's own moves (the second ply) are then shared by whoever is free, so that one first move
//! holding most of the work is still searched by every thread.
//!
//! The answers do not depend on the timing: whether a first move wins within a length, or which
//! lines follow a move, is a fact, found whatever the table holds and in whatever order the
//! moves are tried; each result is kept in its own slot and read in move order.

use std::cell::Cell;
use std::sync::atomic::{
    AtomicBool, AtomicU64, AtomicU8, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::chess::{Move, MoveKey, MoveList, Position};

use super::battle::{Battle, Prover};
use super::beside::on_each;
use super::help::count_lines;
use super::{NodeRole, SearchControl, SolutionNode, TranspositionTable};

/// A length whose shorter one took less than this is searched on one thread: starting threads
/// would cost more than they bring (battle play on the bench's millisecond problems: 2 threads
/// went from 0.7x to 1.25x, with threads spawned for each share). With the crew's helpers
/// waiting (`crew`), a share starts in some 15 us: from 200 us instead of 500, two threads
/// took 1.0% less time over `../shared/bench/random.jsonl` (eight alternating rounds, min per
/// problem; #4-77-3 and #4-77-13, 1-3 ms, 11% and 4%) and 1.0% less over the bench's 49
/// (four rounds). Tests share out every length, to test the sharing on small problems.
pub(crate) const SHARE_AFTER: Duration = if cfg!(test) {
    Duration::ZERO
} else {
    Duration::from_micros(200)
};

/// The times of an iterative deepening's passes so far, to judge whether the next pass is worth
/// sharing out. It is when the last pass took `SHARE_AFTER` or more, or when the passes grow so
/// fast that the next will: the last pass times its growth over the one before. Without the
/// second rule an `h=3` whose 4-ply pass took 0.4 ms searched its 6-ply pass, 100 times longer,
/// on one thread. (The growth was once asked to reach four times `SHARE_AFTER`: then hpint#114
/// h=6 searched a 3 ms pass on one thread, its passes growing 2.1 then 6 times, and ep#11 s#6
/// a 2.2 ms one; asking it to reach `SHARE_AFTER`, two threads took 0.6% less time over the
/// bench's 49; half or a quarter of it, within 0.3% of that.)
#[derive(Default)]
pub(crate) struct Passes {
    before: Duration,
    last: Duration,
}

impl Passes {
    pub(crate) fn record(&mut self, pass: Duration) {
        self.before = self.last;
        self.last = pass;
    }

    pub(crate) fn next_worth_sharing(&self) -> bool {
        if self.last >= SHARE_AFTER {
            return true;
        }
        // Passes of a few microseconds time too coarsely to extrapolate from. (From 62 us, as
        // it was before helpers were kept: bench-s#3-77-42 searched its 1.3 ms last pass on one
        // thread after a 35 us one; from 16 us, the 16 of `../shared/bench/random.jsonl` took
        // 3% less time on two threads, the 49 the same. It is 6 us since `SHARE_AFTER` is
        // 200 us, as measured there.)
        if self.before.is_zero() || self.last < SHARE_AFTER / 32 {
            return false;
        }
        let next = self.last.as_secs_f64() * (self.last.as_secs_f64() / self.before.as_secs_f64());
        next >= SHARE_AFTER.as_secs_f64()
    }
}

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
            let refutes = prover.refutes(&self.after, d, n);
            if refutes {
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

/// The attacker's moves at interior nodes that the threads of a battle search have offered to
/// each other (`share_attacks`), and how many threads are waiting for work. A first move can
/// hold most of a length's work in one line (bench-#5-77-5 #5: 3.7 of its 5.5 ms on two threads
/// went to one first move, refuted by one defence), so idle threads are given work deep in
/// the line another is proving, wherever its attacker's moves must all be searched.
#[derive(Default)]
pub(crate) struct Board {
    open: Mutex<Vec<Arc<Attacks>>>,
    /// Threads looking for work: a thread offers its moves only while one is.
    idle: AtomicUsize,
    /// Moves searched by a thread for another.
    helped: AtomicU64,
}

impl Board {
    /// Does a thread wait for work?
    #[inline]
    pub(crate) fn wanted(&self) -> bool {
        self.idle.load(Relaxed) > 0
    }

    /// How many offered moves threads have searched for another.
    pub(crate) fn helped(&self) -> u64 {
        self.helped.load(Relaxed)
    }

    /// Takes moves from the offer with most moves left, if any is open: whether there was one.
    /// By a waiting thread (`wait`).
    fn help(&self, prover: &Prover) -> bool {
        let Some(attacks) = self.offered() else {
            return false;
        };
        let taken = self.busy(|| attacks.take(prover));
        self.helped.fetch_add(taken, Relaxed);
        true
    }

    /// `work` done by a waiting thread: meanwhile it is not waiting.
    fn busy<T>(&self, work: impl FnOnce() -> T) -> T {
        self.idle.fetch_sub(1, Relaxed);
        let done = work();
        self.idle.fetch_add(1, Relaxed);
        done
    }

    /// The offered moves with the most moves left after them (the biggest searches), if any
    /// is still to be taken.
    fn offered(&self) -> Option<Arc<Attacks>> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.iter()
            .filter(|a| a.open())
            .max_by_key(|a| a.n)
            .cloned()
    }

    fn withdraw(&self, attacks: &Arc<Attacks>) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|a| !Arc::ptr_eq(a, attacks));
    }

    /// Waits until `done` (or the search stops), meanwhile doing the work `find` gives (it
    /// returns false when it has none; its work is `busy`), else taking what is offered.
    fn wait(&self, prover: &Prover, done: impl Fn() -> bool, mut find: impl FnMut() -> bool) {
        self.idle.fetch_add(1, Relaxed);
        let mut spins = 0u32;
        while !done() && !prover.control.is_stopped() {
            if find() || self.help(prover) {
                spins = 0;
                continue;
            }
            spins += 1;
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        self.idle.fetch_sub(1, Relaxed);
    }
}

/// The attacker's `moves` after which he is to win with `n` moves left (the first already
/// tried have failed), searched by every thread that takes some.
struct Attacks {
    after: Position,
    moves: Vec<Move>,
    n: u32,
    /// The next move to take.
    next: AtomicUsize,
    /// Moves taken and done with (searched, or skipped once one won).
    done: AtomicUsize,
    /// A winning move's index + 1; 0: none yet.
    won: AtomicUsize,
}

impl Attacks {
    /// Takes moves one at a time until none is left: how many it took.
    fn take(&self, prover: &Prover) -> u64 {
        let mut taken = 0;
        loop {
            let i = self.next.fetch_add(1, Relaxed);
            let Some(m) = self.moves.get(i) else {
                return taken;
            };
            taken += 1;
            if self.won.load(Relaxed) == 0
                && !prover.control.is_stopped()
                && prover.defend(&self.after.play(m), self.n)
            {
                self.won.store(i + 1, Relaxed);
            }
            self.done.fetch_add(1, Release);
        }
    }

    /// Moves left to take, and none has won.
    fn open(&self) -> bool {
        self.won.load(Relaxed) == 0 && self.next.load(Relaxed) < self.moves.len()
    }

    fn finished(&self) -> bool {
        self.won.load(Relaxed) != 0 || self.done.load(Acquire) >= self.moves.len()
    }
}

/// By the prover of a thread that found idle threads (`Board::wanted`) at an interior node:
/// the attacker's `moves` still to try there, after which he is to win with `n` moves left,
/// searched by this thread and whichever join it. The winning move found, if any. While the
/// others finish the moves they took, this thread does what else is offered: in their lines.
pub(crate) fn share_attacks(
    prover: &Prover,
    board: &Board,
    pos: &Position,
    n: u32,
    moves: Vec<Move>,
) -> Option<MoveKey> {
    let attacks = Arc::new(Attacks {
        after: pos.clone(),
        moves,
        n,
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        won: AtomicUsize::new(0),
    });
    board
        .open
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Arc::clone(&attacks));
    let _ = attacks.take(prover);
    board.withdraw(&attacks);
    board.wait(prover, || attacks.finished(), || false);
    let won = attacks.won.load(Relaxed);
    won.checked_sub(1).map(|i| attacks.moves[i].key())
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
    // Threads not yet waiting for work: those that may still open defences or offer moves.
    let working = AtomicUsize::new(provers.len());
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
        // Then help with the defences of first moves still open, the earliest first, and
        // with the attacker's moves other threads offer, until no other thread works.
        working.fetch_sub(1, Relaxed);
        if let Some(board) = prover.board() {
            board.wait(
                prover,
                || working.load(Relaxed) == 0,
                || {
                    working.fetch_add(1, Relaxed);
                    let found = match jobs.iter().flatten().find(|j| j.open()) {
                        Some(job) => {
                            board.busy(|| job.work(prover, n));
                            true
                        }
                        None => board.help(prover),
                    };
                    working.fetch_sub(1, Relaxed);
                    found
                },
            );
        }
        prover.flush();
    };
    on_each(provers, worker);
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
    on_each(provers, worker);
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The positions the threads of a shared pass are searching now (with the moves left, as a
/// key), so that a thread about to search one another thread is in can put it off and do its
/// other moves first: by the time it comes back the other has most often stored the answer.
/// Without it, two threads searching neighbouring units met the same transpositions at the
/// same moment and both searched them (series play, where the series moves commute: castling#35
/// ser-s#6 searched 7% more nodes on two threads than on one, 1% with it). (hpint#52 ser-h=8's
/// 12% more are another matter: its threads judge differently where the bound pays, each on
/// the positions it met, `reach::Bound`.)
/// A slot per hash: two positions may share one, the later then hiding the earlier (it is
/// searched twice, as without this).
pub(crate) struct Busy {
    slots: Vec<AtomicU64>,
}

/// log2 of `Busy`'s slots.
const BUSY_BITS: u32 = 12;

impl Default for Busy {
    fn default() -> Busy {
        Busy {
            slots: (0..1 << BUSY_BITS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl Busy {
    #[inline]
    fn id(key: u64, left: u32) -> u64 {
        // Never 0, the empty slot.
        (key ^ u64::from(left).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1
    }

    #[inline]
    fn slot(&self, id: u64) -> &AtomicU64 {
        &self.slots[(id >> (64 - BUSY_BITS)) as usize]
    }

    /// This thread searches the position of `key` with `left` to go.
    #[inline]
    pub(crate) fn enter(&self, key: u64, left: u32) {
        let id = Self::id(key, left);
        self.slot(id).store(id, Relaxed);
    }

    /// This thread is done with it.
    #[inline]
    pub(crate) fn leave(&self, key: u64, left: u32) {
        let id = Self::id(key, left);
        let slot = self.slot(id);
        if slot.load(Relaxed) == id {
            slot.store(0, Relaxed);
        }
    }

    /// Whether some thread is searching it (this one too, if it entered it).
    #[inline]
    pub(crate) fn searched(&self, key: u64, left: u32) -> bool {
        let id = Self::id(key, left);
        #[cfg(test)]
        if PUT_OFF_HALF.load(Relaxed) {
            return id >> 7 & 1 == 1;
        }
        self.slot(id).load(Relaxed) == id
    }
}

/// Tests: half the positions asked about (by hash) are taken to be searched by another thread,
/// so that moves are put off between others whatever the timing. What the searches find must
/// not change.
#[cfg(test)]
pub(crate) static PUT_OFF_HALF: AtomicBool = AtomicBool::new(false);

/// Nodes counted locally before they are added to the shared count.
const NODE_BATCH: u64 = 512;

/// One thread's node and table-hit counts, added to the shared counters in batches (adding at
/// every node would make the threads fight over one cache line), and its stop test.
pub(crate) struct Tally<'a> {
    pub control: &'a SearchControl,
    nodes: Cell<u64>,
    hits: Cell<u64>,
    /// With `share_out`: the work unit being searched, given up when the gate closes on it.
    gate: Option<&'a Gate>,
    unit: Cell<u64>,
}

impl<'a> Tally<'a> {
    pub(crate) fn new(control: &'a SearchControl, gate: Option<&'a Gate>) -> Tally<'a> {
        Tally {
            control,
            nodes: Cell::new(0),
            hits: Cell::new(0),
            gate,
            unit: Cell::new(0),
        }
    }

    /// Counts `n` nodes; true when the search must stop.
    #[inline]
    pub(crate) fn count(&self, n: u64) -> bool {
        let c = self.nodes.get() + n;
        if c >= NODE_BATCH {
            self.nodes.set(0);
            self.control.count_nodes(c);
        } else {
            self.nodes.set(c);
        }
        self.stopped()
    }

    #[inline]
    pub(crate) fn hit(&self) {
        self.hits.set(self.hits.get() + 1);
    }

    /// Whether the search is stopped, or the unit being searched is no longer needed.
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        self.control.is_stopped() || self.gate.is_some_and(|g| g.closed(self.unit.get()))
    }

    /// Adds the locally counted nodes and hits to the shared counters.
    pub(crate) fn flush(&self) {
        self.control.count_nodes(self.nodes.replace(0));
        self.control.count_tt_hits(self.hits.replace(0));
    }
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Work units in move order: `(first move, 0)` for a first move searched whole, `(first move,
/// j + 1)` for its `j`th own move.
fn unit(job: usize, child: Option<usize>) -> u64 {
    ((job as u64) << 32) | child.map_or(0, |j| j as u64 + 1)
}

/// Closes on the units after the one at which a solution limit is reached: they can add no
/// line to the first ones, so their searches give up.
pub(crate) struct Gate {
    last_needed: AtomicU64,
}

impl Gate {
    pub(crate) fn new() -> Gate {
        Gate {
            last_needed: AtomicU64::new(u64::MAX),
        }
    }

    /// Opens for a new search (every unit needed).
    pub(crate) fn reopen(&self) {
        self.last_needed.store(u64::MAX, Relaxed);
    }

    #[inline]
    fn closed(&self, unit: u64) -> bool {
        unit > self.last_needed.load(Relaxed)
    }
}

/// What a search hands over at the depth where its moves are to be shared out.
pub(crate) struct Handed {
    /// The position and its table key (as the search computes it).
    pub pos: Position,
    pub key: u64,
    pub moves: Vec<Move>,
}

/// How a help or series search takes part in `share_out`. Its depth is its own (ply, series move
/// number): at `hand_over_at` the search stops before playing the moves and hands them over; at
/// `only.0` it plays only the move at index `only.1`. Either way nothing is stored in the table
/// for the position there: its answer is assembled from the shared-out parts.
#[derive(Default)]
pub(crate) struct Split {
    pub hand_over_at: Option<u32>,
    pub only: Option<(u32, usize)>,
    pub handed: Option<Handed>,
}

impl Split {
    /// At the hand-over depth: keeps the moves (true: the search returns at once).
    #[inline]
    pub(crate) fn hands_over(
        &mut self,
        depth: u32,
        pos: &Position,
        key: u64,
        moves: &MoveList,
    ) -> bool {
        if self.hand_over_at != Some(depth) {
            return false;
        }
        self.handed = Some(Handed {
            pos: pos.clone(),
            key,
            moves: moves.to_vec(),
        });
        true
    }

    /// Whether the move at `index` is left out at `depth`.
    #[inline]
    pub(crate) fn skips(&self, depth: u32, index: usize) -> bool {
        self.only.is_some_and(|(d, i)| d == depth && i != index)
    }

    /// Whether this is a unit of a pass shared out (other threads search beside it).
    #[inline]
    pub(crate) fn shared(&self) -> bool {
        self.only.is_some() || self.hand_over_at.is_some()
    }

    /// Whether the search at `depth` sees only part of the moves (so must store no fact).
    #[inline]
    pub(crate) fn partial(&self, depth: u32) -> bool {
        self.only.is_some_and(|(d, _)| d == depth)
    }
}

/// A help or series line search as `share_out` drives it: it can start a new unit of work
/// under a `Split` and enumerate lines.
pub(crate) trait LineSearch: Send {
    fn tally(&self) -> &Tally<'_>;
    /// Ready for a new unit of work (with the same limit).
    fn restart(&mut self, split: Split);
    /// The moves handed over by the last `lines`, if it reached the hand-over depth.
    fn take_handed(&mut self) -> Option<Handed>;
    /// Every solving line of exactly `k` (plies or series moves) from `pos`, at depth `depth`.
    fn lines(&mut self, pos: &Position, k: u32, depth: u32) -> Vec<SolutionNode>;
    /// Stop after `limit` solutions; report progress (first moves) at the root or not.
    fn prepare(&mut self, limit: Option<u64>, progress: bool);
    /// Move number and black dots of the root's moves.
    fn root_numbering(&self) -> (u32, bool);
    /// Whether a line's last moves count as one solution with the move before them (see
    /// `help::keep_first_lines`).
    fn grouped(&self) -> bool;
    /// Takes over what `other` has learnt of where its tests pay (`reach::Bound::learn_from`).
    fn learn_from(&mut self, other: &Self);
}

/// One thread of `share_out` over a line search: the lines of `length` from `root`, whose first
/// moves are at depth `first`; the moves after a first move are shared out when at least one
/// more move follows them.
pub(crate) struct LineWorker<'s, S> {
    pub search: &'s mut S,
    pub root: &'s Position,
    pub length: u32,
    pub first: u32,
}

impl<S: LineSearch> Sharer for LineWorker<'_, S> {
    type Shared = Handed;
    type Out = Vec<SolutionNode>;

    fn tally(&self) -> &Tally<'_> {
        self.search.tally()
    }

    fn open(&mut self, job: usize) -> Opened<Handed, Vec<SolutionNode>> {
        self.search.restart(Split {
            hand_over_at: (self.length >= 3).then_some(self.first + 1),
            only: Some((self.first, job)),
            handed: None,
        });
        let out = self.search.lines(self.root, self.length, self.first);
        match self.search.take_handed() {
            Some(after) => {
                let n = after.moves.len();
                Opened::Split(after, n)
            }
            None => Opened::Whole(out),
        }
    }

    fn child(&mut self, after: &Handed, _job: usize, child: usize) -> Vec<SolutionNode> {
        self.search.restart(Split {
            only: Some((self.first + 1, child)),
            ..Split::default()
        });
        self.search
            .lines(&after.pos, self.length - 1, self.first + 1)
    }

    fn solutions(out: &Vec<SolutionNode>) -> u64 {
        count_lines(out)
    }
}

/// The root's lines as `lines` would have returned them from `share_out`'s `results` for the
/// first moves `root.moves` of `pos`: nodes in move order (numbered `number`, `dots`), and the
/// "no solution in exactly k" facts `lines` would store (for k of at least `store_from`).
pub(crate) fn assemble_lines(
    tt: &TranspositionTable,
    pos: &Position,
    root: &Handed,
    results: Vec<JobResult<Handed, Vec<SolutionNode>>>,
    (number, dots): (u32, bool),
    length: u32,
    store_from: u32,
) -> Vec<SolutionNode> {
    let mut out = Vec::new();
    let mut complete = true;
    for (mv, result) in root.moves.iter().zip(results) {
        match result {
            JobResult::Skipped => complete = false,
            JobResult::Whole(unit) => {
                complete &= unit.complete;
                out.extend(unit.out);
            }
            JobResult::Split(after, units) => {
                let mut replies = Vec::new();
                let mut all = true;
                for unit in units {
                    match unit {
                        Some(unit) => {
                            all &= unit.complete;
                            replies.extend(unit.out);
                        }
                        None => all = false,
                    }
                }
                if !replies.is_empty() {
                    let mut node = SolutionNode::new(pos, mv, NodeRole::HelpMove, number, dots);
                    node.replies = replies;
                    out.push(node);
                } else if all && length > store_from {
                    tt.store_no_solution(after.key, length - 1);
                }
                complete &= all;
            }
        }
    }
    if out.is_empty() && complete && length >= store_from {
        tt.store_no_solution(root.key, length);
    }
    out
}

/// A worker of `share_out`: one search of its own (killers, counters, limit) per thread.
pub(crate) trait Sharer: Send {
    /// What a first move hands to whoever helps with its own moves.
    type Shared: Send + Sync;
    /// The answer of a unit (whole first move, or one of its own moves).
    type Out: Send;
    fn tally(&self) -> &Tally<'_>;
    /// Searches first move `job`: whole, or up to its own moves (`Split`, with their number).
    fn open(&mut self, job: usize) -> Opened<Self::Shared, Self::Out>;
    /// Searches own move `child` of first move `job`.
    fn child(&mut self, shared: &Self::Shared, job: usize, child: usize) -> Self::Out;
    /// Solutions counted towards the limit in an answer.
    fn solutions(out: &Self::Out) -> u64;
}

pub(crate) enum Opened<S, R> {
    Whole(R),
    Split(S, usize),
}

/// A unit's answer; `complete` when the search was not cut short by a stop or the gate.
pub(crate) struct Unit<R> {
    pub out: R,
    pub complete: bool,
}

/// A first move's answers, in move order.
pub(crate) enum JobResult<S, R> {
    /// Not searched (stopped, or after the solution limit).
    Skipped,
    Whole(Unit<R>),
    /// Its own moves' answers (`None`: not searched).
    Split(S, Vec<Option<Unit<R>>>),
}

struct SharedJob<S> {
    split: OnceLock<(S, usize)>,
    next: AtomicUsize,
    done: AtomicUsize,
}

enum Slot<R> {
    Empty,
    Whole(Unit<R>),
    Split(Vec<Option<Unit<R>>>),
}

/// Searches first moves `0..count` on one thread per worker (the first on this one) and returns
/// their answers in move order. With a `limit` on solutions, the units after the first ones that
/// reach it (in move order) are given up. `progress`: first moves done are reported.
pub(crate) fn share_out<W: Sharer>(
    workers: &mut [W],
    control: &SearchControl,
    gate: &Gate,
    count: usize,
    limit: Option<u64>,
    progress: bool,
) -> Vec<JobResult<W::Shared, W::Out>> {
    gate.reopen();
    let jobs: Vec<SharedJob<W::Shared>> = (0..count)
        .map(|_| SharedJob {
            split: OnceLock::new(),
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
        })
        .collect();
    let slots: Mutex<Vec<Slot<W::Out>>> = Mutex::new((0..count).map(|_| Slot::Empty).collect());
    let next = AtomicUsize::new(0);

    // Records an answer, and closes the gate once the answers so far, read in move order
    // without a gap, reach the limit.
    let record = |job: usize, child: Option<usize>, u: Unit<W::Out>| {
        let mut slots = slots.lock().unwrap_or_else(|e| e.into_inner());
        match (&mut slots[job], child) {
            (Slot::Split(c), Some(j)) => c[j] = Some(u),
            (s, None) => *s = Slot::Whole(u),
            _ => unreachable!("a unit of a first move not split"),
        }
        let Some(limit) = limit else { return };
        let mut found = 0;
        for (i, s) in slots.iter().enumerate() {
            let (whole, children) = match s {
                Slot::Empty => return,
                Slot::Whole(u) => (Some(u), &[][..]),
                Slot::Split(c) => (None, &c[..]),
            };
            let units = whole.map(|u| (None, Some(u))).into_iter().chain(
                children
                    .iter()
                    .enumerate()
                    .map(|(j, u)| (Some(j), u.as_ref())),
            );
            for (j, u) in units {
                let Some(u) = u.filter(|u| u.complete) else {
                    return;
                };
                found += W::solutions(&u.out);
                if found >= limit {
                    gate.last_needed.fetch_min(unit(i, j), Relaxed);
                    return;
                }
            }
        }
    };

    // Takes own moves of a split first move until none is left.
    let help = |w: &mut W, i: usize, job: &SharedJob<W::Shared>| {
        let Some((shared, n)) = job.split.get() else {
            return;
        };
        loop {
            let j = job.next.fetch_add(1, Relaxed);
            if j >= *n {
                return;
            }
            if !control.is_stopped() && !gate.closed(unit(i, Some(j))) {
                w.tally().unit.set(unit(i, Some(j)));
                let out = w.child(shared, i, j);
                let complete = !w.tally().stopped();
                record(i, Some(j), Unit { out, complete });
            }
            if job.done.fetch_add(1, Relaxed) + 1 == *n && progress {
                control.first_move_done();
            }
        }
    };

    let worker = |w: &mut W| {
        loop {
            let i = next.fetch_add(1, Relaxed);
            let Some(job) = jobs.get(i) else { break };
            if control.is_stopped() || gate.closed(unit(i, None)) {
                continue;
            }
            w.tally().unit.set(unit(i, None));
            match w.open(i) {
                Opened::Whole(out) => {
                    let complete = !w.tally().stopped();
                    record(i, None, Unit { out, complete });
                    if progress {
                        control.first_move_done();
                    }
                }
                Opened::Split(shared, n) => {
                    if n == 0 && progress {
                        control.first_move_done();
                    }
                    slots.lock().unwrap_or_else(|e| e.into_inner())[i] =
                        Slot::Split((0..n).map(|_| None).collect());
                    let _ = job.split.set((shared, n));
                    help(w, i, job);
                }
            }
        }
        // Then help with the own moves of first moves still open, the earliest first.
        while !control.is_stopped() {
            let open = jobs.iter().enumerate().find(|(_, j)| {
                j.split
                    .get()
                    .is_some_and(|(_, n)| j.next.load(Relaxed) < *n)
            });
            match open {
                Some((i, job)) => help(w, i, job),
                None => break,
            }
        }
        w.tally().flush();
    };
    on_each(workers, worker);
    let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    slots
        .into_iter()
        .zip(jobs)
        .map(|(slot, job)| match slot {
            Slot::Empty => JobResult::Skipped,
            Slot::Whole(u) => JobResult::Whole(u),
            Slot::Split(c) => {
                let (shared, _) = job.split.into_inner().expect("split first move");
                JobResult::Split(shared, c)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::{Duration, Instant};

    use super::{AtomicBool, Battle, Board, MoveList, Prover, TranspositionTable};
    use crate::problem::SolveOptions;
    use crate::solve::{Problem, SearchControl, SolutionTree, Solver, StopReason, Verdict};

    /// Solves on a thread, cancels after 300 ms (the solve must still be running) and asserts
    /// the solve returns within `within_ms` of the cancel.
    fn cancel_after_300_ms(
        solver: &Solver,
        problem: &Problem,
        options: &SolveOptions,
        control: &SearchControl,
        within_ms: u64,
    ) -> SolutionTree {
        std::thread::scope(|s| {
            let run = s.spawn(|| solver.solve(problem, options, control).unwrap());
            std::thread::sleep(Duration::from_millis(300));
            assert!(!run.is_finished(), "{} finished", problem.stipulation);
            control.cancel();
            let cancelled = Instant::now();
            let tree = run.join().unwrap();
            assert!(
                cancelled.elapsed() < Duration::from_millis(within_ms),
                "{} took {:?}",
                problem.stipulation,
                cancelled.elapsed()
            );
            tree
        })
    }

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

    /// With a thread waiting on the board, a prover offers it the attacker's moves wherever
    /// one has failed; every first move's answer is the same as a prover's alone, and the
    /// waiting thread did search some.
    #[test]
    fn offered_attacks_give_the_answers_of_one_thread() {
        use crate::problem::Aim;
        let mut helped = 0;
        for &(fen, stip) in PROBLEMS {
            let problem = Problem::parse(fen, stip).unwrap();
            let (pos, n) = (&problem.position, problem.stipulation.moves);
            let battle = Battle::of(problem.stipulation.family).unwrap();
            let control = SearchControl::default();
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let alone_tt = TranspositionTable::new(1 << 18);
            let alone = Prover::new(&alone_tt, &control, battle, Aim::Mate);
            let expected: Vec<bool> = moves
                .iter()
                .map(|m| alone.defend(&pos.play(m), n))
                .collect();

            let tt = TranspositionTable::new(1 << 18);
            let board = Board::default();
            let over = AtomicBool::new(false);
            let found: Vec<bool> = std::thread::scope(|s| {
                s.spawn(|| {
                    let waiter = Prover::new(&tt, &control, battle, Aim::Mate).on_board(&board);
                    board.wait(&waiter, || over.load(Relaxed), || false);
                });
                while !board.wanted() {
                    std::thread::yield_now();
                }
                let prover = Prover::new(&tt, &control, battle, Aim::Mate).on_board(&board);
                let found = moves
                    .iter()
                    .map(|m| prover.defend(&pos.play(m), n))
                    .collect();
                over.store(true, Relaxed);
                found
            });
            assert_eq!(found, expected, "{fen} {stip}");
            assert!(board.open.lock().unwrap().is_empty(), "{fen} {stip}");
            helped += board.helped();
        }
        // (Not asked of each problem: the tests run side by side, and the waiting thread may
        // not get a core while a small one's offers last.)
        assert!(helped > 0, "nothing offered was taken");
    }

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

    /// Help and series problems: short solutions, set play, several solutions.
    const LINE_PROBLEMS: &[(&str, &str)] = &[
        ("n5Q1/8/8/8/6N1/K7/8/k7 b - - 0 1", "h#2"),
        (
            "r7/r7/R2Pk1PP/3Np1p1/KP1p2P1/1Q6/2b1p3/3q4 b - - 0 1",
            "h#2",
        ),
        ("8/2p1P3/5p1P/3k1n2/P2br3/4p1PK/6r1/3Q1b2 b - - 0 1", "h#2"),
        ("8/4p3/2K2B1P/p1P1P3/pk2PN2/pp6/8/8 b - - 0 1", "h#3"),
        ("r3k3/3np3/8/3K4/6B1/6B1/8/8 b q - 0 1", "h#2"),
        ("8/8/8/K7/1N6/8/8/k7 b - - 0 1", "h=3"),
        ("8/4p3/2K2B1P/p1P1P3/pk2PN2/pp6/8/8 w - - 0 1", "h#2.5"),
        ("n5Q1/8/8/8/6N1/K7/8/k7 w - - 0 1", "h#1.5"),
        ("8/P7/1P2p3/2N5/q7/4Pk2/2B4P/6K1 w - - 0 1", "ser-s#4"),
        ("7K/8/8/8/k7/2r5/2R5/8 w - - 0 1", "ser-#7"),
        ("2R5/kP1p4/p2p4/PPpP4/2P1K3/8/1p6/8 b - - 0 1", "ser-h=5"),
        ("8/8/8/8/6p1/3Q4/2p2K2/7k b - - 0 1", "ser-h=3"),
        ("8/8/8/7b/8/3pk1P1/7n/4K3 w - - 0 1", "ser-r#2"),
        ("8/8/8/1p6/bPp5/kpP5/Np6/bK6 w - - 0 1", "ser-s#2"),
        ("8/8/4K3/8/2kpn3/2rb2B1/8/8 b - - 0 1", "ser-h#6"),
        ("k7/8/1K6/8/8/8/8/2R3Q1 w - - 0 1", "ser-#4"),
        ("7k/8/8/8/8/8/8/K4RR1 w - - 0 1", "ser-#5"),
    ];

    #[test]
    fn help_and_series_give_the_same_lines_on_every_thread_count() {
        let mut limited = 0;
        for &(fen, stip) in LINE_PROBLEMS {
            let problem = Problem::parse(fen, stip).unwrap();
            for max_solutions in [None, Some(1), Some(2), Some(3)] {
                let mut trees = Vec::new();
                for threads in [1, 2, 3] {
                    let solver = Solver::new(1 << 18);
                    let options = SolveOptions {
                        threads,
                        set_play: true,
                        max_solutions,
                        ..SolveOptions::default()
                    };
                    let mut tree = solver
                        .solve(&problem, &options, &SearchControl::default())
                        .unwrap();
                    assert_eq!(tree.stats.threads, threads as u32);
                    tree.stats = Default::default();
                    trees.push(tree);
                }
                assert!(!trees[0].solutions.is_empty(), "{fen} {stip}");
                if max_solutions.is_some_and(|m| count(&trees[0].solutions) == m as u64) {
                    limited += 1;
                }
                let what = format!("{fen} {stip} max {max_solutions:?}");
                assert_eq!(trees[0], trees[1], "{what}: 1 and 2 threads differ");
                assert_eq!(trees[0], trees[2], "{what}: 1 and 3 threads differ");
            }
        }
        // The limits did cut.
        assert!(limited > 10, "{limited}");
    }

    /// Series positions put off while another thread searches them (`Busy`), here half of
    /// those that may be, are searched after their siblings and their lines go back among
    /// theirs in move order.
    #[test]
    fn series_moves_put_off_keep_their_lines_in_order() {
        let series = LINE_PROBLEMS
            .iter()
            .filter(|(_, stip)| stip.starts_with("ser-"));
        let mut lines = 0;
        for &(fen, stip) in series {
            let problem = Problem::parse(fen, stip).unwrap();
            let solve = |threads| {
                let options = SolveOptions {
                    threads,
                    ..SolveOptions::default()
                };
                let mut tree = Solver::new(1 << 18)
                    .solve(&problem, &options, &SearchControl::default())
                    .unwrap();
                tree.stats = Default::default();
                tree
            };
            let one = solve(1);
            super::PUT_OFF_HALF.store(true, Relaxed);
            let two = solve(2);
            super::PUT_OFF_HALF.store(false, Relaxed);
            assert_eq!(one, two, "{fen} {stip}");
            lines += count(&one.solutions);
        }
        assert!(lines > 10, "{lines}");
    }

    fn count(nodes: &[crate::solve::SolutionNode]) -> u64 {
        nodes
            .iter()
            .map(|n| {
                if n.replies.is_empty() {
                    1
                } else {
                    count(&n.replies)
                }
            })
            .sum()
    }

    #[test]
    fn cancel_stops_help_and_series_workers_promptly() {
        // Far too long to finish: only the cancel ends them.
        for (fen, stip) in [
            ("8/8/2K5/8/k7/6p1/p2pP2p/8 b - - 0 1", "h=9"),
            ("8/8/1kqn3K/1npb4/2rr4/8/5N2/8 b - - 0 1", "ser-h#20"),
        ] {
            let problem = Problem::parse(fen, stip).unwrap();
            let solver = Solver::new(1 << 18);
            let control = SearchControl::default();
            let options = SolveOptions {
                threads: 3,
                ..SolveOptions::default()
            };
            let tree = cancel_after_300_ms(&solver, &problem, &options, &control, 200);
            assert_eq!(tree.verdict, Verdict::Cancelled);
            assert_eq!(tree.stats.threads, 3);
        }
    }

    #[test]
    fn node_budget_and_deadline_stop_help_and_series_workers() {
        let help = Problem::parse("8/8/2K5/8/k7/6p1/p2pP2p/8 b - - 0 1", "h=9").unwrap();
        let series = Problem::parse("8/8/1kqn3K/1npb4/2rr4/8/5N2/8 b - - 0 1", "ser-h#20").unwrap();
        let options = SolveOptions {
            threads: 2,
            ..SolveOptions::default()
        };
        for problem in [&help, &series] {
            let solver = Solver::new(1 << 18);
            let control = SearchControl::new(Some(300_000), None);
            let tree = solver.solve(problem, &options, &control).unwrap();
            assert_eq!(tree.stop_reason, Some(StopReason::NodeBudget));
            // Each thread adds its count in batches: a little over the budget, not much.
            assert!(
                tree.stats.nodes >= 300_000 && tree.stats.nodes < 320_000,
                "{}",
                tree.stats.nodes
            );

            let solver = Solver::new(1 << 18);
            let control = SearchControl::new(None, Some(Duration::from_millis(300)));
            let started = Instant::now();
            let tree = solver.solve(problem, &options, &control).unwrap();
            assert_eq!(tree.stop_reason, Some(StopReason::Deadline));
            assert!(
                started.elapsed() < Duration::from_millis(500),
                "{:?}",
                started.elapsed()
            );
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
        let tree = cancel_after_300_ms(&solver, &problem, &options, &control, 500);
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
