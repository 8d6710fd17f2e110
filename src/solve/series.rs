//! Series play: the side to move makes up to n moves in a row while the other side does not
//! move, then the stipulation ends:
//! - `ser-#n`, `ser-=n`: the series' last move mates (stalemates);
//! - `ser-h#n`, `ser-h=n`: the other side then mates (stalemates) in one;
//! - `ser-s#n`: the other side then must mate: it has moves and every one of them mates;
//! - `ser-r#n`: as ser-s#, with the reflex condition.
//!
//! Popeye's rules, checked against its corpus and its stipulation structure:
//! - Every series length from 1 to n is searched and shorter solutions are reported too
//!   (`ser-r#2` answers `1.h3-h4 b3-b2 #`).
//! - No move of the series but its last may give check (the other side, which "passes", would
//!   be in check); the last may (`3.Rg8-d8 + c7*d8=S =`, `4.Bc2-d1 + Qa4*d1 #`). The other side
//!   having no move during the series does not matter: it does not move.
//! - `ser-s#`: after a series move, a position in which the other side would be forced to mate
//!   ends the series there (Popeye's forced end): longer series through it are not solutions.
//! - `ser-r#`: the reflex condition bites both ways. After every series move, if the other
//!   side can mate in one it must, so the series ends there (a solution if the mate exists, a
//!   shorter series); and before every series move the series side must not be able to mate in
//!   one (it would have to).
//! - Set play: the end of the stipulation from the diagram with the other side to move
//!   (`1...b3*a2 #`); none for ser-# and ser-=.
//!
//! The series positions (series side to move, k moves to go) are keyed in the transposition
//! table with "no solution in exactly k series moves", so transposed move orders are searched
//! once.
//!
//! Series help stalemates aim at target final positions listed before the search
//! (`reach::Targets`, after Popeye's intelligent mode): a position from which none is in reach
//! is not searched, and the picture and the bound are not asked.
//!
//! On several threads the first two series moves are shared out as in help play.

use std::sync::Arc;

use crate::chess::{Move, MoveList, Position};
use crate::problem::{Aim, SeriesEnd, SolveOptions};

use super::help::{aim_reached, all_lengths, finish, known_unsolvable, CheckFilter, Lengths};
use super::parallel::{worker_count, Busy, Gate, Handed, LineSearch, Split, Tally};
use super::reach;
use super::{
    Afters, Apart, NodeRole, Problem, SearchControl, SolutionNode, SolutionTree, TranspositionTable,
};

/// Table key salts, one per (end, aim): series facts never mix with each other or with help play.
const SALT_SERIES: [[u64; 2]; 4] = [
    [0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1],
    [0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f],
    [0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179],
    [0xcbbb_9d5d_c105_9ed8, 0x629a_292a_367c_d507],
];

fn salt(end: SeriesEnd, aim: Aim) -> u64 {
    let e = match end {
        SeriesEnd::Direct => 0,
        SeriesEnd::Help => 1,
        SeriesEnd::SelfPlay => 2,
        SeriesEnd::Reflex => 3,
    };
    let a = match aim {
        Aim::Mate => 0,
        Aim::Stalemate => 1,
    };
    SALT_SERIES[e][a]
}

/// Where a pass is shared out, the positions up to this series move (the units of work start
/// at the second) are put off while another thread searches them (`Busy`). Deeper, the
/// positions are many and small: marking them cost more than it spared. castling#35 ser-s#6 on
/// two threads searched 354k nodes (one thread: 332k), 334k with this; hpint#63 ser-h=12
/// 1.66M (1.57M), 1.59M; up to the seventh move, #63 1.58M but 2% slower than up to the
/// fourth, up to the third as the fourth.
const BUSY_MOVES: u32 = 4;

/// A set of move indices (a position has at most 218 moves).
#[derive(Default, Clone, Copy)]
struct MoveSet([u64; 4]);

impl MoveSet {
    #[inline]
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// How many indices below `i` it holds.
    fn count_below(&self, i: usize) -> usize {
        let (w, b) = (i / 64, i % 64);
        let whole: u32 = self.0[..w].iter().map(|x| x.count_ones()).sum();
        (whole + (self.0[w] & ((1u64 << b) - 1)).count_ones()) as usize
    }

    /// The indices in increasing order.
    fn iter(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(w, bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + b
                })
            })
        })
    }
}

/// Adds the series move `mv` of `pos` with the lines after it, if there are any.
fn push_line(
    out: &mut Vec<SolutionNode>,
    pos: &Position,
    mv: &Move,
    number: u32,
    replies: Vec<SolutionNode>,
) {
    if !replies.is_empty() {
        let mut node = SolutionNode::new(pos, mv, NodeRole::HelpMove, number, false);
        node.replies = replies;
        out.push(node);
    }
}

/// True when the side to move in `pos` has a move after which the opponent suffers the aim.
fn can_reach_aim_in_one(aim: Aim, pos: &Position) -> bool {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let checks = (aim == Aim::Mate).then(|| CheckFilter::new(pos));
    moves.iter().any(|mv| {
        if checks.as_ref().is_some_and(|c| !c.may_check(mv)) {
            return false;
        }
        let after = pos.play(mv);
        (aim != Aim::Mate || after.is_check()) && aim_reached(aim, &after)
    })
}

/// True when the side to move in `pos` has moves and every one of them makes the opponent
/// suffer the aim (the end of a self stipulation: it is forced to mate).
fn forced_to_reach_aim(aim: Aim, pos: &Position) -> bool {
    // On bitboards, no move list built: for a mate, a move that surely gives no check
    // refutes it without playing anything.
    if aim == Aim::Mate && pos.has_quiet_move() {
        return false;
    }
    pos.has_legal_move() && !pos.any_successor(|_, p| !aim_reached(aim, p))
}

/// One depth-first enumeration of series (one per thread). Aligned as `Apart`: the threads'
/// searches stand side by side.
#[repr(align(128))]
struct SeriesSearch<'a> {
    tt: &'a TranspositionTable,
    control: &'a SearchControl,
    tally: Tally<'a>,
    /// Where the moves are shared out among threads.
    split: Split,
    /// The positions the threads search now, when they share out a pass.
    busy: Option<&'a Busy>,
    end: SeriesEnd,
    aim: Aim,
    salt: u64,
    limit: Option<u64>,
    found: u64,
    halted: bool,
    /// Report progress (first moves) at the root.
    progress: bool,
    /// When the stalemate picture is worth drawing.
    picture: reach::PictureGate,
    /// When the bound is worth asking.
    bound: reach::Bound,
    /// Per series move, the positions after the moves searched there.
    afters: Afters,
    /// Series help stalemates: the final positions aimed at (`reach::Targets`), with the
    /// series side's men in the diagram.
    targets: Option<(&'a reach::Targets, reach::Men)>,
    /// Per series move number: the men by identity, and the targets still in reach.
    men: Vec<Apart<reach::Men>>,
    live: Vec<Apart<Vec<u16>>>,
    /// The move number `lines` was entered at (its targets are narrowed from all of them).
    entry: u32,
    /// The position (key) and series moves to go whose targets, narrowed from all, are
    /// `live` at the entry's number: units shared out enter after the same first move (and
    /// at the diagram) again and again, and are not narrowed anew each time.
    live_for: Option<(u32, u64, u32)>,
}

impl SeriesSearch<'_> {
    /// The moves of the other side (to move in `after`, the series over) that end the
    /// stipulation, as nodes numbered `number`. Empty when the series' last move fails.
    fn end_moves(&mut self, after: &Position, number: u32) -> Vec<SolutionNode> {
        // Most series end in nothing: first ask on bitboards whether any move reaches the aim
        // (only checking moves are played for a mate, only moves not proved to leave the series
        // side a reply for a stalemate), before building the move list.
        if matches!(self.end, SeriesEnd::Help | SeriesEnd::Reflex) {
            let any = match self.aim {
                Aim::Mate => after.has_mate_in_one(),
                Aim::Stalemate => after.any_successor_stalemate_candidate(|_, p| p.is_stalemate()),
            };
            if !any {
                return Vec::new();
            }
        }
        // Self-play: the list is built only once every move of the other side reaches it.
        if self.end == SeriesEnd::SelfPlay && !forced_to_reach_aim(self.aim, after) {
            return Vec::new();
        }
        let mut moves = MoveList::new();
        after.legal_moves(&mut moves);
        let mut out = Vec::new();
        let checks = (self.aim == Aim::Mate).then(|| CheckFilter::new(after));
        let reaching: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|mv| {
                if checks.as_ref().is_some_and(|c| !c.may_check(mv)) {
                    return false;
                }
                let p = after.play(mv);
                (self.aim != Aim::Mate || p.is_check()) && aim_reached(self.aim, &p)
            })
            .collect();
        let ok = match self.end {
            SeriesEnd::Direct => unreachable!("ser-# ends with the series move itself"),
            SeriesEnd::Help | SeriesEnd::Reflex => !reaching.is_empty(),
            SeriesEnd::SelfPlay => !moves.is_empty() && reaching.len() == moves.len(),
        };
        if ok {
            for mv in &reaching {
                out.push(SolutionNode::new(
                    after,
                    mv,
                    NodeRole::HelpMove,
                    number,
                    false,
                ));
            }
        }
        out
    }

    /// Whether the position after an intermediate series move ends the series by force
    /// (ser-s#: the other side is forced to mate; ser-r#: it can mate, so it must).
    fn forced_end(&self, after: &Position) -> bool {
        match self.end {
            SeriesEnd::Direct | SeriesEnd::Help => false,
            SeriesEnd::SelfPlay => forced_to_reach_aim(self.aim, after),
            SeriesEnd::Reflex => can_reach_aim_in_one(self.aim, after),
        }
    }

    /// Every series of exactly `k` more moves from `pos` (series side to move) that fulfils the
    /// stipulation, as nodes of the moves numbered `number`.
    fn lines(&mut self, pos: &Position, k: u32, number: u32) -> Vec<SolutionNode> {
        let key = pos.key() ^ self.salt;
        if self.known(key, k) {
            return Vec::new();
        }
        if let Some((_, root)) = self.targets {
            // Entered at the diagram, or one series move after it (a move handed over).
            self.entry = number;
            *self.men[number as usize] = if number == 1 { root } else { root.follow(pos) };
        }
        self.search(pos, key, k, number)
    }

    /// Narrows the targets to those in reach from `pos` (move number `number`, `k` series
    /// moves to go); false when none is.
    fn targets_in_reach(&mut self, number: u32, key: u64, k: u32) -> bool {
        let Some((targets, _)) = self.targets else {
            return true;
        };
        let at = number as usize;
        let entered = self.entry == number;
        if entered && self.live_for == Some((number, key, k)) {
            return !self.live[at].is_empty();
        }
        // Kept only for the list narrowed from all targets at the entry (written now).
        if self.live_for.is_some_and(|(n, _, _)| n == number) || entered {
            self.live_for = entered.then_some((number, key, k));
        }
        let (before, rest) = self.live.split_at_mut(at);
        let from = (!entered).then(|| before[at - 1].as_slice());
        targets.narrow(from, &self.men[at], k, &mut rest[0]);
        !rest[0].is_empty()
    }

    /// The men after series move `mv` of `pos` (move number `number`), for the next one.
    fn follow_men(&mut self, number: u32, pos: &Position, mv: &Move) {
        if self.targets.is_some() {
            let at = number as usize;
            *self.men[at + 1] = self.men[at].after(mv, pos.side_to_move());
        }
    }

    /// The first look at the position of `key` with `k` moves to go: it counts as a node, and
    /// it is true when the search is over (halted) or the table knows the position fails. Most
    /// positions of a series are met again and again by moves in other orders, so this is
    /// asked before the position is even made (`Position::passed_key`, `passed_key_after`).
    #[inline]
    fn known(&mut self, key: u64, k: u32) -> bool {
        if self.halted {
            return true;
        }
        if self.tally.count(1) {
            self.halted = true;
            return true;
        }
        self.bound.node();
        if let Some(e) = self.tt.probe(key) {
            if known_unsolvable(e.no_solution_in, k) {
                self.tally.hit();
                return true;
            }
        }
        false
    }

    /// Whether the final position may still be reached with the `k` series moves left (the
    /// bound, or for series ending in the other side's move the picture first; with targets,
    /// the targets in reach stand for both).
    fn reachable(&mut self, pos: &Position, k: u32) -> bool {
        let series_side = pos.side_to_move();
        match self.end {
            SeriesEnd::Direct => {
                self.bound
                    .goal_reachable(pos, (!series_side, self.aim), (0, k), k)
            }
            // The targets in reach stand for the picture and the bound: they cut more, sooner.
            _ if self.targets.is_some() => true,
            _ => {
                // The picture's steps count as work done (a node budget bounds time).
                let picture = self.aim != Aim::Stalemate
                    || self.picture.stalemate_possible(pos, series_side, k, 1);
                if self.tally.count(self.picture.take_work()) {
                    self.halted = true;
                }
                picture
                    && self
                        .bound
                        .goal_reachable(pos, (series_side, self.aim), (k, 1), k)
            }
        }
    }

    /// `lines` for a position not known to fail, with its table key.
    fn search(&mut self, pos: &Position, key: u64, k: u32, number: u32) -> Vec<SolutionNode> {
        let mut out = Vec::new();
        // Reflex: a series side that can reach the aim itself must do so, which ends the play
        // the wrong way.
        if self.end == SeriesEnd::Reflex && can_reach_aim_in_one(self.aim, pos) {
            self.tt.store_no_solution(key, k);
            return out;
        }
        // Can the final position still be reached? The series side moves k more times; the
        // other side once at the end (or never, in ser-# and ser-=).
        if !self.targets_in_reach(number, key, k) {
            self.tt.store_no_solution(key, k);
            return out;
        }
        // Where the search is partial (a unit of shared-out work), the position was asked
        // before its moves were handed over: not again for every unit.
        let reachable = self.split.partial(number) || self.reachable(pos, k);
        if !reachable {
            self.tt.store_no_solution(key, k);
            return out;
        }
        let mark = self.bound.mark();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let checks = (k == 1 && self.end == SeriesEnd::Direct && self.aim == Aim::Mate)
            .then(|| CheckFilter::new(pos));
        // Before the other side's mate, the last series moves that surely leave none are not
        // played.
        let mut net = (k == 1 && self.end == SeriesEnd::Help && self.aim == Aim::Mate)
            .then(|| pos.mating_net());
        if number == 1 && self.progress {
            self.control.set_first_moves(0, moves.len() as u32);
        }
        if self.split.hands_over(number, pos, key, &moves) {
            return out;
        }
        // The series goes on from each move's position with the other side passing, which
        // probes the table first: fetch all their buckets at once (memory waits overlap), and
        // make each move at most once. A move that surely gives no check, where no forced end
        // can stop the series, is not made for the probe: its key is told without it
        // (`passed_key_after`), and it is made only if the table does not know it.
        let quiet = (k > 1 && matches!(self.end, SeriesEnd::Direct | SeriesEnd::Help))
            .then(|| CheckFilter::new(pos));
        let quiet_key = |mv: &Move| {
            quiet
                .as_ref()
                .filter(|c| !c.may_check(mv))
                .and_then(|_| pos.passed_key_after(mv))
        };
        let mut children = self.afters.take(number);
        if k > 1 {
            for (index, mv) in moves.iter().enumerate() {
                if !self.split.skips(number, index) {
                    if let Some(next) = quiet_key(mv) {
                        self.tt.prefetch(next ^ self.salt);
                        continue;
                    }
                    children.push(pos.clone());
                    let after = children.last_mut().expect("just pushed");
                    after.make(mv);
                    if let Some(next) = after.passed_key() {
                        self.tt.prefetch(next ^ self.salt);
                    }
                }
            }
        }
        // Sharing a pass, the positions another thread is searching are put off (`Busy`);
        // not under a solution limit, which keeps the lines first in move order.
        let busy = self.busy.filter(|_| {
            self.split.shared()
                && self.limit.is_none()
                && number <= BUSY_MOVES
                && k >= 2
                && !self.split.partial(number)
        });
        if let Some(busy) = busy {
            busy.enter(key, k);
        }
        let put_off_children = busy.filter(|_| number < BUSY_MOVES && k > 2);
        let mut put_off = MoveSet::default();
        // The moves with lines in `out` (where the lines of moves put off go among them).
        let mut lined = MoveSet::default();
        // One kept position per move searched and made when k > 1, in the same order; none
        // when k = 1.
        let mut kept_positions = children.iter();
        for (index, mv) in moves.iter().enumerate() {
            if self.split.skips(number, index) {
                continue;
            }
            let quiet = quiet_key(mv);
            let kept = if quiet.is_some() {
                None
            } else {
                kept_positions.next()
            };
            if checks.as_ref().is_some_and(|c| !c.may_check(mv))
                || net.as_mut().is_some_and(|n| !n.may_allow_mate(mv))
            {
                continue;
            }
            if let Some(next) = quiet {
                let key = next ^ self.salt;
                if put_off_children.is_some_and(|b| b.searched(key, k - 1)) {
                    put_off.insert(index);
                } else if !self.known(key, k - 1) {
                    let next = pos.play(mv).pass().expect("a move giving no check passes");
                    self.follow_men(number, pos, mv);
                    let replies = self.search(&next, key, k - 1, number + 1);
                    if !replies.is_empty() {
                        lined.insert(index);
                    }
                    push_line(&mut out, pos, mv, number, replies);
                }
            } else {
                let played;
                let after = match kept {
                    Some(after) => after,
                    None => {
                        played = pos.play(mv);
                        &played
                    }
                };
                if k == 1 {
                    if self.tally.count(1) {
                        self.halted = true;
                        break;
                    }
                    let node = if self.end == SeriesEnd::Direct {
                        if (self.aim != Aim::Mate || after.is_check())
                            && aim_reached(self.aim, after)
                        {
                            let node =
                                SolutionNode::new(pos, mv, NodeRole::HelpMove, number, false);
                            self.solutions_found(1);
                            Some(node)
                        } else {
                            None
                        }
                    } else {
                        let replies = self.end_moves(after, number);
                        if replies.is_empty() {
                            None
                        } else {
                            self.solutions_found(replies.len() as u64);
                            let mut node =
                                SolutionNode::new(pos, mv, NodeRole::HelpMove, number, false);
                            node.replies = replies;
                            Some(node)
                        }
                    };
                    out.extend(node);
                } else {
                    // The other side passes: it may not be in check, and a forced end stops here.
                    if after.is_check() || self.forced_end(after) {
                        continue;
                    }
                    let Some(next) = after.passed_key() else {
                        continue;
                    };
                    let key = next ^ self.salt;
                    if put_off_children.is_some_and(|b| b.searched(key, k - 1)) {
                        put_off.insert(index);
                        continue;
                    }
                    let replies = if self.known(key, k - 1) {
                        Vec::new()
                    } else {
                        let next = after.pass().expect("a position not in check passes");
                        self.follow_men(number, pos, mv);
                        self.search(&next, key, k - 1, number + 1)
                    };
                    if !replies.is_empty() {
                        lined.insert(index);
                    }
                    push_line(&mut out, pos, mv, number, replies);
                }
            }
            if number == 1 && self.progress {
                self.control.first_move_done();
            }
            if self.halted {
                break;
            }
        }
        if !put_off.is_empty() {
            self.search_put_off(pos, &moves, (put_off, lined), (k, number), &mut out);
        }
        if let Some(busy) = busy {
            busy.leave(key, k);
        }
        self.afters.put(number, children);
        self.bound.searched(k, mark);
        if out.is_empty() && !self.halted && !self.split.partial(number) {
            self.tt.store_no_solution(key, k);
        }
        out
    }

    /// The moves of `pos` (move number `number`, `k` > 1 to go) in `put_off`, searched after
    /// the others: their lines go into `out` (the lines of the moves in `lined`) in move
    /// order. The steps are
    /// those of `search`'s loop for a move made; they are written out there again, as the
    /// loop with its moves' steps drawn into one function for both took 4% more time on one
    /// thread (hpint#63 ser-h=12), where nothing is put off.
    #[inline(never)]
    fn search_put_off(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        (put_off, mut lined): (MoveSet, MoveSet),
        (k, number): (u32, u32),
        out: &mut Vec<SolutionNode>,
    ) {
        for index in put_off.iter() {
            if self.halted {
                return;
            }
            let mv = &moves[index];
            // Made again: put off, it was not checked for check or a forced end yet.
            let after = pos.play(mv);
            if after.is_check() || self.forced_end(&after) {
                continue;
            }
            let Some(next) = after.passed_key() else {
                continue;
            };
            let key = next ^ self.salt;
            if self.known(key, k - 1) {
                continue;
            }
            let next = after.pass().expect("a position not in check passes");
            self.follow_men(number, pos, mv);
            let replies = self.search(&next, key, k - 1, number + 1);
            if !replies.is_empty() {
                let at = lined.count_below(index);
                lined.insert(index);
                let mut line = Vec::new();
                push_line(&mut line, pos, mv, number, replies);
                out.splice(at..at, line);
            }
        }
    }

    fn solutions_found(&mut self, n: u64) {
        self.found += n;
        for _ in 0..n {
            self.control.solution_found();
        }
        if self.limit.is_some_and(|l| self.found >= l) {
            self.halted = true;
        }
    }
}

impl LineSearch for SeriesSearch<'_> {
    fn tally(&self) -> &Tally<'_> {
        &self.tally
    }

    fn restart(&mut self, split: Split) {
        self.found = 0;
        self.halted = false;
        self.split = split;
    }

    fn take_handed(&mut self) -> Option<Handed> {
        self.split.handed.take()
    }

    fn lines(&mut self, pos: &Position, k: u32, depth: u32) -> Vec<SolutionNode> {
        SeriesSearch::lines(self, pos, k, depth)
    }

    fn prepare(&mut self, limit: Option<u64>, progress: bool) {
        self.limit = limit;
        self.progress = progress;
    }

    fn root_numbering(&self) -> (u32, bool) {
        (1, false)
    }

    fn grouped(&self) -> bool {
        self.end != SeriesEnd::Direct
    }

    fn learn_from(&mut self, other: &Self) {
        self.bound.learn_from(&other.bound);
        self.picture.learn_from(&other.picture);
    }
}

/// Solves series play exhaustively (or until `control` stops it).
pub(crate) fn solve(
    tt: &TranspositionTable,
    problem: &Problem,
    options: &SolveOptions,
    control: &SearchControl,
) -> SolutionTree {
    let stip = problem.stipulation;
    let end = match stip.family {
        crate::problem::Family::Series(end) => end,
        other => unreachable!("series::solve called for {other:?}"),
    };
    let pos = &problem.position;
    let workers = worker_count(options.threads);
    let gate = Gate::new();
    // Series help stalemates: the final positions to aim at, listed once for all threads.
    let targets = (end == SeriesEnd::Help && stip.aim == Aim::Stalemate)
        .then(|| {
            let started = std::time::Instant::now();
            let targets = reach::Targets::series_stalemate(pos, stip.moves, workers);
            tracing::debug!(
                targets = targets.as_ref().map(|(t, _)| t.len()),
                seconds = started.elapsed().as_secs_f64(),
                "series targets listed"
            );
            targets
        })
        .flatten();
    let slots = stip.moves as usize + 2;
    let trials = Arc::new(reach::Trials::default());
    let busy = Busy::default();
    // One search per thread; the first also searches alone.
    let mut searches: Vec<SeriesSearch> = (0..workers)
        .map(|_| SeriesSearch {
            tt,
            control,
            tally: Tally::new(control, Some(&gate)),
            split: Split::default(),
            busy: (workers > 1).then_some(&busy),
            end,
            aim: stip.aim,
            salt: salt(end, stip.aim),
            limit: None,
            found: 0,
            halted: false,
            progress: false,
            picture: reach::PictureGate::default(),
            bound: reach::Bound::series().sharing(&trials),
            afters: Afters::default(),
            targets: targets.as_ref().map(|(t, men)| (t, *men)),
            men: targets
                .as_ref()
                .map_or_else(Vec::new, |(_, men)| vec![Apart(*men); slots]),
            live: targets
                .as_ref()
                .map_or_else(Vec::new, |_| vec![Apart(Vec::new()); slots]),
            entry: 1,
            live_for: None,
        })
        .collect();
    let limit = options.max_solutions.map(u64::from);
    let lengths = Lengths {
        play: "series play",
        from: 1,
        to: stip.moves,
        step: 1,
        first: 1,
        share_from: 2,
        // Nodes per line: the series moves, plus the other side's final move.
        full: stip.moves + u32::from(end != SeriesEnd::Direct),
        store_from: 0,
        depth: |moves| moves,
    };
    let solutions = all_lengths(
        &mut searches,
        (tt, control, &gate),
        pos,
        &lengths,
        limit,
        true,
    );

    let mut set_play = Vec::new();
    if options.set_play && end != SeriesEnd::Direct && !control.is_stopped() {
        if let Some(set_pos) = pos.pass() {
            set_play = searches[0].end_moves(&set_pos, 1);
            for n in &mut set_play {
                n.black_dots = true;
            }
        }
    }
    // Every count in.
    drop(searches);
    // A series problem has one intended solution unless the composer says otherwise.
    let intended = Some(options.intended_solutions.unwrap_or(1));
    let mut tree = finish(problem, solutions, set_play, control, intended);
    tree.stats.threads = workers as u32;
    tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Verdict;

    fn lines(nodes: &[SolutionNode], prefix: &mut Vec<String>, out: &mut Vec<String>) {
        for n in nodes {
            prefix.push(n.mv.long.clone());
            if n.replies.is_empty() {
                out.push(prefix.join(" "));
            } else {
                lines(&n.replies, prefix, out);
            }
            prefix.pop();
        }
    }

    fn solve_lines(
        fen: &str,
        stip: &str,
        set_play: bool,
    ) -> (SolutionTree, Vec<String>, Vec<String>) {
        let problem = Problem::parse(fen, stip).unwrap();
        let tt = TranspositionTable::new(1 << 16);
        let options = SolveOptions {
            set_play,
            ..SolveOptions::default()
        };
        let tree = solve(&tt, &problem, &options, &SearchControl::default());
        let (mut sol, mut set) = (Vec::new(), Vec::new());
        lines(&tree.solutions, &mut Vec::new(), &mut sol);
        lines(&tree.set_play, &mut Vec::new(), &mut set);
        (tree, sol, set)
    }

    #[test]
    fn reflex_series_ends_where_the_other_side_can_mate() {
        let (tree, sol, _) = solve_lines("8/8/8/8/pp6/kp5P/p7/K7 w - - 0 1", "ser-r#2", false);
        assert_eq!(sol, ["h3-h4 b3-b2#"]);
        assert_eq!(tree.verdict, Verdict::Solved);
        assert!(tree.solutions[0].replies[0].flags.short);
    }

    #[test]
    fn self_series_with_set_play() {
        let (_, sol, set) = solve_lines("8/8/8/1p6/bPp5/kpP5/Np6/bK6 w - - 0 1", "ser-s#2", true);
        assert_eq!(sol, ["Sa2-c1 Sc1-a2 b3*a2#"]);
        assert_eq!(set, ["b3*a2#"]);
    }

    #[test]
    fn help_series_last_move_may_check() {
        let (_, mut sol, _) = solve_lines("k7/2P5/2N5/3K4/8/8/6p1/8 b - - 0 1", "ser-h=3", false);
        sol.sort();
        assert_eq!(
            sol,
            [
                "g2-g1=B Bg1-a7 Ba7-b8 c7-c8=Q",
                "g2-g1=R Rg1-g8 Rg8-d8+ c7*d8=S"
            ]
        );
    }
}
