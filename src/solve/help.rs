//! Help play: `h#n`, `h=n` (Black starts) and `h#n.5`, `h=n.5` (White starts). Both sides
//! cooperate; White's last move mates (stalemates) Black. Every line is a solution.
//!
//! Popeye's rules, checked against its corpus:
//! - Like Popeye, all lengths up to the stipulated one are searched (2, 4, …, 2n plies for
//!   `h#n`; 1, 3, …, 2n+1 for `h#n.5`), and shorter solutions are reported too. Popeye lists
//!   them (its intelligent mode prints "potential positions in 1+1, 2+2, …" for each length,
//!   and `h#2` with a mate in one lists the `h#1` lines); sound problems simply have none.
//! - A line in which a side has no legal move before the end is dead; nothing else is cut (mate
//!   and stalemate leave the mated side without moves, so Popeye never tests them earlier).
//! - Set play is the same play from the diagram with the other side starting, one half-move
//!   shorter (`h#2` → `h#1.5` with White starting), again over all lengths.
//!
//! The search enumerates every line depth-first. Before descending into a position with `k`
//! plies to go it asks the transposition table whether "no solution in exactly `k` plies" is
//! known; a fully searched subtree without a solution is stored so. These facts depend only on the
//! position (side to move included) and `k`, so they hold across problems and requests.
//!
//! Two sound cuts keep the search small: when only a mate will do, only the moves that can give
//! check are played (`CheckFilter`); and a position from which the final mate (stalemate) cannot
//! be reached in the moves each side has left is not searched (`reach::goal_reachable`, a
//! relaxation of the final position measured in empty-board distances, in the spirit of
//! Popeye's intelligent mode but without its target positions). It is asked only where it
//! spares more work than it costs, down to two plies before the end (`reach::Bound`): near
//! the end it cuts most positions, but a call may cost more than the listing it spares.
//! Help stalemates and help mates also aim at target final positions listed before the search
//! (`reach::HelpTargets`): a position from which none is in reach is not searched, and a move
//! after which none is is not even played (nor looked up, nor stored in the table).
//!
//! On several threads each length's first moves, and then their replies, are shared out among
//! one search per thread (`parallel::share_out`); the lines are read back in move order, so they
//! are the same on any number of threads.

use std::sync::Arc;
use std::time::Instant;

use crate::chess::steps::{DIAGONAL, KNIGHT, ORTHOGONAL};
use crate::chess::{Color, Move, MoveKey, MoveKind, MoveList, Position, Role, Square};
use crate::problem::{Aim, SolveOptions};

use super::parallel::{
    assemble_lines, share_out, worker_count, Gate, Handed, LineSearch, LineWorker, Passes, Split,
    Tally,
};
use super::reach;
use super::{
    Afters, Apart, NodeRole, Problem, SearchControl, SolutionNode, SolutionTree, TranspositionTable,
};

/// Table key salts: help play facts for one aim never mix with those of another aim or family.
const SALT_HELP_MATE: u64 = 0x6a09_e667_f3bc_c908;
const SALT_HELP_STALEMATE: u64 = 0xbb67_ae85_84ca_a73b;

/// Positions with fewer plies to go than this are recomputed rather than looked up: the last
/// ply is a single pass over the moves, cheaper than a table probe and store.
const TT_MIN_PLIES: u32 = 2;

/// Positions with at least this many plies to go are first tested for whether the aim is still
/// reachable at all (`reach::goal_reachable`).
const REACH_MIN_PLIES: u32 = 2;

/// What listing the moves of a position two plies before a help stalemate costs besides
/// playing them (`any_successor_stalemate_pair_candidate`: every move, and the replies that
/// may stalemate after it), in nodes: about 2 us against 0.1 us a move played (timed over
/// the 13 `h=3` bench problems).
const STALEMATE_IN_TWO_LISTING: u64 = 20;

/// Help stalemates of at least this many plies aim at target final positions
/// (`reach::HelpTargets`); shorter ones are over before listing them would pay.
const HELP_TARGETS_MIN_PLIES: u32 = 8;
/// Help mates of at least this many plies do too.
const HELP_MATE_TARGETS_MIN_PLIES: u32 = 6;
/// Nor longer ones than this: each thread keeps, per ply, the list of targets in reach.
const HELP_TARGETS_MAX_PLIES: u32 = 40;
/// With targets, the mated side's moves before the mate are asked of the mating net
/// (`Position::mating_net`) only when it has this many: with fewer, drawing the net costs more
/// than the targets' own test it spares (intell#48b h#3: 3.9 -> 4.6 ms with the net always
/// asked, 3.9 ms from 12 moves; the bench's h#3s with targets gain as much either way).
const NET_MIN_MOVES: usize = 12;

/// The side making the last of `plies` plies from `pos`: the side to move when they are odd.
fn last_mover(pos: &Position, plies: u32) -> Color {
    if plies % 2 == 1 {
        pos.side_to_move()
    } else {
        !pos.side_to_move()
    }
}

/// The moves of the side that does not move last, and of the side that does, in `plies` plies.
fn moves_left(plies: u32) -> (u32, u32) {
    (plies / 2, plies.div_ceil(2))
}

/// How help play prints move numbers: normally Black starts (`1.Kc3-d2 Qc1-c2 2.…`); when White
/// starts (`h#n.5`, set play of `h#n`) the first move is printed `1...Qc1-c2` and Black's moves
/// then open the numbered pairs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Numbering {
    white_starts: bool,
}

impl Numbering {
    pub(super) fn new(first_mover: Color) -> Numbering {
        Numbering {
            white_starts: first_mover == Color::White,
        }
    }

    /// `(move_number, black_dots)` of the move at `ply` (0-based) of a line.
    pub(super) fn at(self, ply: u32) -> (u32, bool) {
        if self.white_starts {
            if ply == 0 {
                (1, true)
            } else {
                (ply.div_ceil(2) + 1, false)
            }
        } else {
            (ply / 2 + 1, false)
        }
    }
}

/// Whether a table entry's bits say "no solution in exactly `k` plies" (only 64 lengths are
/// recorded: longer ones are never known).
#[inline]
pub(super) fn known_unsolvable(no_solution_in: u64, k: u32) -> bool {
    k < 64 && no_solution_in >> k & 1 == 1
}

/// Whether the side to move in `pos` (just reached) suffers the aim: mated or stalemated.
#[inline]
pub(super) fn aim_reached(aim: Aim, pos: &Position) -> bool {
    match aim {
        Aim::Mate => pos.is_check() && !pos.has_legal_move(),
        Aim::Stalemate => !pos.is_check() && !pos.has_legal_move(),
    }
}

/// Which moves of the side to move may give check: a cheap over-approximation (the piece lands
/// on a square attacking the enemy king, or leaves a line of one of its own line pieces to it,
/// or castles, takes e.p. or promotes), so that only those need to be played when only a mate will do.
pub(super) struct CheckFilter {
    /// Per role: the squares from which such a man would give check.
    by_role: [u64; 6],
    /// Men of the side to move that stand between one of their line pieces and the enemy king.
    discoverers: u64,
}

impl CheckFilter {
    pub(super) fn new(pos: &Position) -> CheckFilter {
        let side = pos.side_to_move();
        let king = pos.king(!side);
        let occupied = pos.occupied();
        let own = pos.pieces(side);
        let bit = |s: Square| 1u64 << s.index();
        let mut by_role = [0u64; 6];
        let mut discoverers = 0u64;
        for (dirs, line_role) in [(DIAGONAL, Role::Bishop), (ORTHOGONAL, Role::Rook)] {
            let mut rays = 0u64;
            for (df, dr) in dirs {
                let mut s = king;
                let mut first: Option<Square> = None;
                while let Some(n) = s.offset(df, dr) {
                    s = n;
                    if first.is_none() {
                        rays |= bit(n);
                    }
                    if !occupied.contains(n) {
                        continue;
                    }
                    match first {
                        None if own.contains(n) => first = Some(n),
                        None => break,
                        Some(f) => {
                            if let Some((c, r)) = pos.piece_at(n) {
                                if c == side && (r == line_role || r == Role::Queen) {
                                    discoverers |= bit(f);
                                }
                            }
                            break;
                        }
                    }
                }
            }
            by_role[line_role as usize] = rays;
            by_role[Role::Queen as usize] |= rays;
        }
        for (df, dr) in KNIGHT {
            if let Some(s) = king.offset(df, dr) {
                by_role[Role::Knight as usize] |= bit(s);
            }
        }
        let behind = if side == Color::White { -1 } else { 1 };
        for df in [-1, 1] {
            if let Some(s) = king.offset(df, behind) {
                by_role[Role::Pawn as usize] |= bit(s);
            }
        }
        CheckFilter {
            by_role,
            discoverers,
        }
    }

    #[inline]
    pub(super) fn may_check(&self, mv: &Move) -> bool {
        // A promoting pawn may check along the line it has just left: always a candidate.
        if mv.is_castle() || mv.kind() == MoveKind::EnPassant || mv.promotion().is_some() {
            return true;
        }
        if self.discoverers >> mv.from().index() & 1 == 1 {
            return true;
        }
        self.by_role[mv.role() as usize] >> mv.to().index() & 1 == 1
    }
}

/// Merges the lines of `from` into `into`, sharing nodes for shared first moves. A line that
/// ends at a move which also continues in another line keeps its own leaf node, so that every
/// root-to-leaf path stays one solution.
pub(super) fn merge_lines(into: &mut Vec<SolutionNode>, from: Vec<SolutionNode>) {
    for node in from {
        let same = into.iter_mut().find(|n| {
            n.mv.uci == node.mv.uci
                && n.move_number == node.move_number
                && n.black_dots == node.black_dots
                && n.replies.is_empty() == node.replies.is_empty()
        });
        match same {
            Some(n) if !node.replies.is_empty() => merge_lines(&mut n.replies, node.replies),
            // The same complete line twice cannot happen (lines of different lengths differ).
            Some(_) => {}
            None => into.push(node),
        }
    }
}

/// Number of solutions (root-to-leaf paths) in a forest of lines.
pub(super) fn count_lines(nodes: &[SolutionNode]) -> u64 {
    nodes
        .iter()
        .map(|n| {
            if n.replies.is_empty() {
                1
            } else {
                count_lines(&n.replies)
            }
        })
        .sum()
}

/// Marks the last move of every line shorter than `full` moves (counting nodes) as short.
pub(super) fn mark_short(nodes: &mut [SolutionNode], depth: u32, full: u32) {
    for n in nodes {
        if n.replies.is_empty() {
            n.flags.short = depth < full;
        } else {
            mark_short(&mut n.replies, depth + 1, full);
        }
    }
}

/// The tree for a finished (or stopped) line search. `intended`: how many solutions the
/// composer intends (`None`: any positive number is sound).
pub(super) fn finish(
    problem: &Problem,
    solutions: Vec<SolutionNode>,
    set_play: Vec<SolutionNode>,
    control: &SearchControl,
    intended: Option<u32>,
) -> SolutionTree {
    let count = count_lines(&solutions);
    super::finish_tree(
        problem,
        (solutions, count),
        Vec::new(),
        set_play,
        control,
        intended,
    )
}

/// The position (table key), plies to go and men a list of targets in reach was narrowed for.
struct KeptFor {
    key: u64,
    k: u32,
    men: (reach::Men, reach::Men),
}

impl KeptFor {
    fn same(&self, other: &KeptFor) -> bool {
        self.key == other.key
            && self.k == other.k
            && self.men.0.same(&other.men.0)
            && self.men.1.same(&other.men.1)
    }
}

/// One depth-first enumeration of help play lines (one per thread). Aligned as `Apart`: the
/// threads' searches stand side by side.
#[repr(align(128))]
struct HelpSearch<'a> {
    tt: &'a TranspositionTable,
    control: &'a SearchControl,
    tally: Tally<'a>,
    /// Where the moves are shared out among threads.
    split: Split,
    aim: Aim,
    salt: u64,
    numbering: Numbering,
    /// Stop after this many solutions.
    limit: Option<u64>,
    found: u64,
    /// Set when the control stops the search or the solution limit is reached: from then on
    /// nothing is searched and nothing is stored as disproved.
    halted: bool,
    /// Report progress (first moves) at the root.
    progress: bool,
    /// Per ply, the positions after the moves searched there.
    afters: Afters,
    /// When the bound is worth asking.
    bound: reach::Bound,
    /// The final positions aimed at, if listed (`reach::HelpTargets`), with both sides' men
    /// in the diagram (the stalemated or mated side's first).
    targets: Option<(&'a reach::HelpTargets, reach::Men, reach::Men)>,
    /// Per ply: both sides' men by identity, and the targets still in reach.
    men: Vec<Apart<(reach::Men, reach::Men)>>,
    live: Vec<Apart<Vec<reach::LiveTarget>>>,
    /// What the list one ply after the diagram was narrowed for.
    live_for: Option<KeptFor>,
    /// The targets in reach from the diagram, for lines of the length kept with them: a search
    /// entered at the diagram or a ply after it (a unit of shared-out work) narrows them from
    /// here rather than costing every target anew.
    root_live: Option<(u32, Vec<reach::LiveTarget>)>,
    /// The ply `LineSearch::lines` was entered at (its targets are narrowed from all).
    entry: u32,
}

impl HelpSearch<'_> {
    /// Every line of exactly `k` plies from `pos` whose last move reaches the aim, as the nodes
    /// of the moves at `ply` (0-based index in the whole line).
    fn lines(&mut self, pos: &Position, k: u32, ply: u32) -> Vec<SolutionNode> {
        match self.enter(pos, k) {
            Some(key) => self.lines_entered(pos, key, k, ply),
            None => Vec::new(),
        }
    }

    /// Counts `pos` as a node and looks it up: its table key (0 below `TT_MIN_PLIES`), or
    /// `None` when it has no line (known from the table) or the search is halted.
    fn enter(&mut self, pos: &Position, k: u32) -> Option<u64> {
        if self.halted {
            return None;
        }
        if self.tally.count(1) {
            self.halted = true;
            return None;
        }
        self.bound.node();
        if k < TT_MIN_PLIES {
            return Some(0);
        }
        let key = pos.key() ^ self.salt;
        if let Some(e) = self.tt.probe(key) {
            if known_unsolvable(e.no_solution_in, k) {
                self.tally.hit();
                return None;
            }
        }
        Some(key)
    }

    /// `lines` of a position `enter`ed, with its key.
    fn lines_entered(&mut self, pos: &Position, key: u64, k: u32, ply: u32) -> Vec<SolutionNode> {
        // Where the search is partial (a unit of shared-out work), the position was asked
        // before its moves were handed over: the bound is not asked again for every unit.
        if !self.targets_in_reach(k, ply, key)
            || !(self.split.partial(ply) || self.reachable(pos, k))
        {
            // Below `TT_MIN_PLIES` the key is 0: nothing to store (every such cut would
            // write the same bucket, one cache line the threads would take from each other).
            if k >= TT_MIN_PLIES {
                self.tt.store_no_solution(key, k);
            }
            return Vec::new();
        }
        let mark = self.bound.mark();
        let (number, dots) = self.numbering.at(ply);
        let mut out = Vec::new();
        let mut moves = MoveList::new();
        if k == 1 && self.aim == Aim::Mate {
            self.mates_in_one(pos, number, dots, &mut out);
            return out;
        }
        if k == 1 && self.aim == Aim::Stalemate {
            return self.stalemates(pos, number, dots);
        }
        if k == 2 && ply > 0 && (self.aim == Aim::Mate || self.targets.is_none()) {
            self.lines_in_two(pos, key, ply, &mut out);
            self.bound.searched(k, mark);
            return out;
        }
        self.list_moves(pos, k, ply, &mut moves);
        if ply == 0 && self.progress {
            self.control.set_first_moves(0, moves.len() as u32);
        }
        if self.split.hands_over(ply, pos, key, &moves) {
            return out;
        }
        // The positions after the moves, each played once. The replies will each probe the
        // table first: fetch all their buckets at once, so the memory waits overlap instead of
        // coming one by one.
        let mut children = self.afters.take(ply);
        // The moves searched: those not handed to other threads, after which some target
        // stays in reach (the others are not even played, nor looked up).
        let mut searched = [0u64; 4];
        let mut quiet = [None; 64];
        for (index, mv) in moves.iter().enumerate() {
            if !self.split.skips(ply, index) && self.keeps_targets(pos, mv, (k, ply), &mut quiet) {
                searched[index / 64] |= 1 << (index % 64);
                children.push(pos.clone());
                let after = children.last_mut().expect("just pushed");
                after.make(mv);
                if k > TT_MIN_PLIES {
                    self.tt.prefetch(after.key() ^ self.salt);
                }
            }
        }
        // k == 1 was answered above (mates_in_one, stalemates).
        // One kept position per move searched, in the same order.
        let mut kept = children.iter();
        for (index, mv) in moves.iter().enumerate() {
            if searched[index / 64] >> (index % 64) & 1 == 0 {
                continue;
            }
            let Some(after) = kept.next() else {
                break;
            };
            // Looked up before the men are followed: most replies are known from the table.
            let replies = match self.enter(after, k - 1) {
                Some(after_key) => {
                    if self.targets.is_some() {
                        let at = ply as usize;
                        let (ours, theirs) = *self.men[at];
                        let mover = pos.side_to_move();
                        *self.men[at + 1] = (ours.after(mv, mover), theirs.after(mv, mover));
                    }
                    self.lines_entered(after, after_key, k - 1, ply + 1)
                }
                None => Vec::new(),
            };
            if !replies.is_empty() {
                let mut node = SolutionNode::new(pos, mv, NodeRole::HelpMove, number, dots);
                node.replies = replies;
                out.push(node);
            }
            if ply == 0 && self.progress {
                self.control.first_move_done();
            }
            if self.halted {
                break;
            }
        }
        self.afters.put(ply, children);
        self.bound.searched(k, mark);
        if out.is_empty() && !self.halted && k >= TT_MIN_PLIES && !self.split.partial(ply) {
            self.tt.store_no_solution(key, k);
        }
        out
    }

    /// Narrows the targets to those in reach from the position at `ply` (`k` plies to go);
    /// false when none is.
    fn targets_in_reach(&mut self, k: u32, ply: u32, key: u64) -> bool {
        let Some((targets, _, _)) = self.targets else {
            return true;
        };
        // Before the last move the list is not asked for: the move here was played only if
        // a target stays in reach after it (`keeps_targets`), which is all this would tell.
        if k == 1 && ply > self.entry {
            return true;
        }
        let at = ply as usize;
        if ply == 1 {
            // Shared-out units enter one ply after the diagram again and again after the same
            // first move: its list is narrowed once.
            let kept_for = (key != 0).then(|| KeptFor {
                key,
                k,
                men: *self.men[at],
            });
            let again = self.live_for.as_ref().zip(kept_for.as_ref());
            if self.entry == ply && again.is_some_and(|(was, now)| was.same(now)) {
                return !self.live[at].is_empty();
            }
            self.live_for = kept_for;
        }
        if self.entry == ply {
            // Entered here (the diagram, or a ply after it): from the diagram's targets, kept
            // per length, as a target out of reach there stays so.
            let root_k = k + ply;
            if self.root_live.as_ref().is_none_or(|(rk, _)| *rk != root_k) {
                let mut all = Vec::new();
                targets.in_reach_from_diagram(moves_left(root_k), &mut all);
                self.root_live = Some((root_k, all));
            }
        }
        let (before, rest) = self.live.split_at_mut(at);
        // From the list one ply before (the men after one move), or from the diagram's.
        let (from, one_move) = match &self.root_live {
            Some((_, root)) if self.entry == ply => ((root.as_slice(), &*self.men[0]), ply == 1),
            _ => ((before[at - 1].as_slice(), &*self.men[at - 1]), true),
        };
        targets.narrow(
            Some(from),
            &self.men[at],
            one_move,
            moves_left(k),
            &mut rest[0],
        );
        !rest[0].is_empty()
    }

    /// Whether some target kept at `ply` (`k` plies to go) stays in reach after `mv` (true
    /// without targets). A move after which none does is not played: its position would only
    /// be cut, and the table would fill with such positions. `quiet` keeps per square the
    /// destinations of its man's quiet moves that do (`HelpTargets::quiet_destinations`).
    fn keeps_targets(
        &self,
        pos: &Position,
        mv: &Move,
        (k, ply): (u32, u32),
        quiet: &mut [Option<Option<u64>>; 64],
    ) -> bool {
        let Some((targets, _, _)) = self.targets else {
            return true;
        };
        let at = ply as usize;
        let before = (self.live[at].as_slice(), &*self.men[at]);
        let mover = pos.side_to_move();
        let left = moves_left(k - 1);
        if mv.kind() == MoveKind::Normal && !mv.is_capture() && mv.promotion().is_none() {
            let from = mv.from().index();
            let dests = *quiet[from]
                .get_or_insert_with(|| targets.quiet_destinations(before, mover, from as u8, left));
            if let Some(dests) = dests {
                return dests >> mv.to().index() & 1 == 1;
            }
        }
        let men = before.1;
        let after = (men.0.after(mv, mover), men.1.after(mv, mover));
        targets.any_in_reach(before, &after, left)
    }

    /// The moves of `pos` at `ply` (`k` plies to go) that may keep a target in reach
    /// (`HelpTargets::movers`), into `moves`; all of them without targets, and at the first
    /// two plies, where the moves may be shared out among the threads by their index.
    fn list_moves(&self, pos: &Position, k: u32, ply: u32, moves: &mut MoveList) {
        let mover = pos.side_to_move();
        let movers = self
            .targets
            .filter(|_| ply >= 2)
            .and_then(|(targets, _, _)| self.live_movers(targets, ply, mover, moves_left(k - 1)));
        match movers {
            Some(m) => pos.legal_moves_of(m.men, m.captures, moves),
            None => pos.legal_moves(moves),
        }
    }

    /// `HelpTargets::movers` of `mover` over the targets kept at `ply`, with `left` the moves
    /// of each side after its move.
    fn live_movers(
        &self,
        targets: &reach::HelpTargets,
        ply: u32,
        mover: Color,
        left: (u32, u32),
    ) -> Option<reach::Movers> {
        let at = ply as usize;
        targets.movers((self.live[at].as_slice(), &*self.men[at]), mover, left)
    }

    /// Whether the aim may still be reached in the `k` plies left (see `reach`).
    fn reachable(&mut self, pos: &Position, k: u32) -> bool {
        if k < REACH_MIN_PLIES {
            return true;
        }
        self.bound
            .goal_reachable(pos, (!last_mover(pos, k), self.aim), moves_left(k), k)
    }

    /// The lines of `h#1` or `h=1` from `pos` (two plies), with the moves before the last
    /// played on bitboards and only those after which the aim is reached built as moves: most
    /// positions at this depth have none. Help stalemates come here without targets only: the
    /// targets narrow before each last move.
    fn lines_in_two(&mut self, pos: &Position, key: u64, ply: u32, out: &mut Vec<SolutionNode>) {
        let Some((enabling, played)) = self.enabling_moves(pos, ply) else {
            self.halted = true;
            return;
        };
        // The moves played and their listing are this position's work, against which the
        // bound's cost is weighed.
        let listing = match self.aim {
            Aim::Stalemate => STALEMATE_IN_TWO_LISTING,
            Aim::Mate => 0,
        };
        self.bound.worked(played + listing);
        if !enabling.is_empty() {
            let (number, dots) = self.numbering.at(ply);
            let (last_number, last_dots) = self.numbering.at(ply + 1);
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            for mv in moves.iter().filter(|mv| enabling.contains(&mv.key())) {
                let after = pos.play(mv);
                let replies = match self.aim {
                    Aim::Mate => {
                        let mut replies = Vec::new();
                        self.mates_in_one(&after, last_number, last_dots, &mut replies);
                        replies
                    }
                    Aim::Stalemate => self.stalemates(&after, last_number, last_dots),
                };
                if !replies.is_empty() {
                    let mut node = SolutionNode::new(pos, mv, NodeRole::HelpMove, number, dots);
                    node.replies = replies;
                    out.push(node);
                }
                if self.halted {
                    return;
                }
            }
        }
        if out.is_empty() {
            self.tt.store_no_solution(key, 2);
        }
    }

    /// The moves of `pos` after which the aim can be reached in one; `None` when the node
    /// budget ran out meanwhile. Mates: only the moves that may mate are tried
    /// (`has_mate_in_one`); stalemates: the moves proved hopeless are not even played
    /// (`any_successor_stalemate_pair_candidate`); with targets, only the moves that keep
    /// one in reach (`keeps_targets`). With them, how many moves were played.
    fn enabling_moves(&self, pos: &Position, ply: u32) -> Option<(Vec<MoveKey>, u64)> {
        let tally = &self.tally;
        let mut enabling = Vec::new();
        let mut played = 0u64;
        let stopped = match self.aim {
            Aim::Mate if let Some((targets, _, _)) = self.targets => {
                let mut moves = MoveList::new();
                self.list_moves(pos, 2, ply, &mut moves);
                let mut quiet = [None; 64];
                // The net proves most moves hopeless before the targets are asked, but it is
                // drawn once per position: worth it only over enough moves.
                let mut net = (moves.len() >= NET_MIN_MOVES).then(|| pos.mating_net());
                let kept = moves.iter().filter(|mv| {
                    net.as_mut().is_none_or(|n| n.may_allow_mate(mv))
                        && self.keeps_targets(pos, mv, (2, ply), &mut quiet)
                });
                // The mating moves that may end in a target after any of these: those the
                // targets kept now allow the other side with the moves it has before its last.
                let mates = self.live_movers(targets, ply, !pos.side_to_move(), (1, 0));
                let mut stopped = false;
                for mv in kept {
                    played += 1;
                    if tally.count(1) {
                        stopped = true;
                        break;
                    }
                    let after = pos.play(mv);
                    let mates = match mates {
                        Some(m) => after.has_mate_in_one_of(m.men, m.captures),
                        None => after.has_mate_in_one(),
                    };
                    if mates {
                        enabling.push(mv.key());
                    }
                }
                stopped
            }
            Aim::Mate => pos.any_successor_allowing_mate(|mv, after| {
                played += 1;
                if tally.count(1) {
                    return true;
                }
                if after.has_mate_in_one() {
                    enabling.push(mv);
                }
                false
            }),
            Aim::Stalemate => pos.any_successor_stalemate_pair_candidate(|mv, after, replies| {
                let mut pair = 1;
                let stalemate =
                    after.any_successor_stalemate_candidate_after(replies, |_, last| {
                        pair += 1;
                        last.is_stalemate()
                    });
                played += pair;
                if tally.count(pair) {
                    return true;
                }
                if stalemate {
                    enabling.push(mv);
                }
                false
            }),
        };
        (!stopped).then_some((enabling, played))
    }

    /// The side to move's mates in one from `pos`, as nodes. The mates are found on bitboards
    /// (only the moves that may mate are played); the move list is built only when there is one, for
    /// the notation.
    fn mates_in_one(
        &mut self,
        pos: &Position,
        number: u32,
        dots: bool,
        out: &mut Vec<SolutionNode>,
    ) {
        let mut mates = [MoveKey::NONE; 8];
        let mut n_mates = 0usize;
        let mut more = false;
        pos.any_mating_candidate(|key, after| {
            if !after.has_legal_move() {
                if n_mates < mates.len() {
                    mates[n_mates] = key;
                    n_mates += 1;
                } else {
                    more = true;
                }
            }
            false
        });
        if n_mates == 0 {
            return;
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for mv in moves.iter() {
            let key = mv.key();
            if more {
                let after = pos.play(mv);
                if !after.is_check() || after.has_legal_move() {
                    continue;
                }
            } else if !mates[..n_mates].contains(&key) {
                continue;
            }
            out.push(SolutionNode::new(pos, mv, NodeRole::HelpMove, number, dots));
            if self.solution_found() {
                break;
            }
        }
    }

    /// The stalemating moves of `pos`. Only the moves not proved to leave the opponent a legal
    /// reply are played (`any_successor_stalemate_candidate`); each played move is a node.
    fn stalemates(&mut self, pos: &Position, number: u32, dots: bool) -> Vec<SolutionNode> {
        let mut keys = Vec::new();
        let mut played = 0u64;
        pos.any_successor_stalemate_candidate(|key, after| {
            played += 1;
            if after.is_stalemate() {
                keys.push(key);
            }
            false
        });
        if self.tally.count(played) {
            self.halted = true;
            return Vec::new();
        }
        let mut out = Vec::new();
        if keys.is_empty() {
            return out;
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for mv in moves.iter().filter(|m| keys.contains(&m.key())) {
            out.push(SolutionNode::new(pos, mv, NodeRole::HelpMove, number, dots));
            if self.solution_found() {
                break;
            }
        }
        out
    }

    /// Counts a solution; true when the limit is reached.
    fn solution_found(&mut self) -> bool {
        self.found += 1;
        self.control.solution_found();
        if self.limit.is_some_and(|l| self.found >= l) {
            self.halted = true;
        }
        self.halted
    }
}

impl LineSearch for HelpSearch<'_> {
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
        if let Some((_, ours, theirs)) = self.targets {
            // Entered at the diagram, or one ply after it (a move handed over).
            self.entry = depth;
            *self.men[depth as usize] = if depth == 0 {
                (ours, theirs)
            } else {
                (ours.follow(pos), theirs.follow(pos))
            };
        }
        HelpSearch::lines(self, pos, k, depth)
    }

    fn prepare(&mut self, limit: Option<u64>, progress: bool) {
        self.limit = limit;
        self.progress = progress;
    }

    fn root_numbering(&self) -> (u32, bool) {
        self.numbering.at(0)
    }

    fn grouped(&self) -> bool {
        false
    }

    fn learn_from(&mut self, other: &Self) {
        self.bound.learn_from(&other.bound);
    }
}

/// Keeps the first lines of a forest until `keep` are kept. `grouped`: the last moves of lines
/// are counted together with the move before them (series play counts a series' final move and
/// every end move after it at once).
pub(super) fn keep_first_lines(nodes: &mut Vec<SolutionNode>, keep: u64, grouped: bool) {
    fn go(nodes: &mut Vec<SolutionNode>, room: &mut u64, grouped: bool) {
        let mut kept = 0;
        for n in nodes.iter_mut() {
            if *room == 0 {
                break;
            }
            kept += 1;
            if n.replies.is_empty() {
                *room -= 1;
            } else if grouped && n.replies.iter().all(|r| r.replies.is_empty()) {
                *room = room.saturating_sub(n.replies.len() as u64);
            } else {
                go(&mut n.replies, room, grouped);
            }
        }
        nodes.truncate(kept);
    }
    let mut room = keep;
    go(nodes, &mut room, grouped);
}

/// The lines of exactly `length` from `pos` (the first `limit` of them), searched by every
/// search in `searches` on a thread of its own.
fn lines_shared<S: LineSearch>(
    searches: &mut [S],
    (tt, control, gate): (&TranspositionTable, &SearchControl, &Gate),
    pos: &Position,
    (length, lengths): (u32, &Lengths),
    limit: Option<u64>,
    progress: bool,
) -> Vec<SolutionNode> {
    let first = &mut searches[0];
    first.prepare(limit, progress);
    first.restart(Split {
        hand_over_at: Some(lengths.first),
        ..Split::default()
    });
    let whole = first.lines(pos, length, lengths.first);
    first.prepare(limit, false);
    let Some(root) = first.take_handed() else {
        // Cut or stopped before the first moves.
        return whole;
    };
    let (numbering, grouped) = (first.root_numbering(), first.grouped());
    // The first search has searched alone so far, and the others' share begins now.
    if let Some((first, others)) = searches.split_first_mut() {
        for other in others {
            other.learn_from(first);
        }
    }
    let results = {
        let mut workers: Vec<LineWorker<S>> = searches
            .iter_mut()
            .map(|search| LineWorker {
                search,
                root: pos,
                length,
                first: lengths.first,
            })
            .collect();
        share_out(
            &mut workers,
            control,
            gate,
            root.moves.len(),
            limit,
            progress,
        )
    };
    let mut out = assemble_lines(
        tt,
        pos,
        &root,
        results,
        numbering,
        length,
        lengths.store_from,
    );
    if let Some(limit) = limit {
        keep_first_lines(&mut out, limit, grouped);
    }
    out
}

/// Which lengths of lines a help or series solver searches, and how.
pub(super) struct Lengths {
    /// What is searched, for the log: "help play", "series play".
    pub play: &'static str,
    /// The lengths (plies or series moves), shortest first.
    pub from: u32,
    pub to: u32,
    pub step: u32,
    /// The depth of the root's moves (help play counts plies from 0, series moves from 1).
    pub first: u32,
    /// The shortest length whose first moves are shared out among threads.
    pub share_from: u32,
    /// The length of a full solution, in nodes per line (shorter ones are marked short).
    pub full: u32,
    /// "No solution in exactly k" facts are stored for k of at least this.
    pub store_from: u32,
    /// The solving depth reported as progress for a length.
    pub depth: fn(u32) -> u32,
}

/// All lines of every length of `lengths` from `pos`, merged into one forest (the first `limit`
/// of them), searched by the searches in `searches`, one thread each.
pub(super) fn all_lengths<S: LineSearch>(
    searches: &mut [S],
    (tt, control, gate): (&TranspositionTable, &SearchControl, &Gate),
    pos: &Position,
    lengths: &Lengths,
    limit: Option<u64>,
    progress: bool,
) -> Vec<SolutionNode> {
    let mut forest = Vec::new();
    let mut found = 0;
    let mut passes = Passes::default();
    let mut length = lengths.from;
    while length <= lengths.to && !control.is_stopped() && limit.is_none_or(|l| found < l) {
        if progress {
            control.set_depth((lengths.depth)(length));
        }
        gate.reopen();
        let left = limit.map(|l| l - found);
        for search in searches.iter_mut() {
            search.prepare(left, false);
        }
        let started = Instant::now();
        let shared =
            searches.len() > 1 && length >= lengths.share_from && passes.next_worth_sharing();
        let mut lines = if shared {
            lines_shared(
                searches,
                (tt, control, gate),
                pos,
                (length, lengths),
                left,
                progress,
            )
        } else {
            let search = &mut searches[0];
            search.prepare(left, progress);
            search.restart(Split::default());
            search.lines(pos, length, lengths.first)
        };
        let pass = started.elapsed();
        passes.record(pass);
        tracing::debug!(
            play = lengths.play,
            length,
            shared,
            seconds = pass.as_secs_f64(),
            nodes_so_far = control.nodes(),
            "length searched"
        );
        found += count_lines(&lines);
        mark_short(&mut lines, 1, lengths.full);
        merge_lines(&mut forest, lines);
        length += lengths.step;
    }
    forest
}

/// Solves help play exhaustively (or until `control` stops it).
pub(crate) fn solve(
    tt: &TranspositionTable,
    problem: &Problem,
    options: &SolveOptions,
    control: &SearchControl,
) -> SolutionTree {
    let stip = problem.stipulation;
    let salt = match stip.aim {
        Aim::Mate => SALT_HELP_MATE,
        Aim::Stalemate => SALT_HELP_STALEMATE,
    };
    let pos = &problem.position;
    let full = stip.plies();
    let workers = worker_count(options.threads);
    let gate = Gate::new();
    // The final positions to aim at, listed once for all threads. The last move is the
    // mating (stalemating) side's.
    let shortest = match stip.aim {
        Aim::Mate => HELP_MATE_TARGETS_MIN_PLIES,
        Aim::Stalemate => HELP_TARGETS_MIN_PLIES,
    };
    let aimed = (shortest..=HELP_TARGETS_MAX_PLIES).contains(&full);
    let targets = aimed
        .then(|| {
            let started = Instant::now();
            let mated = !last_mover(pos, full);
            let list = match stip.aim {
                Aim::Mate => reach::HelpTargets::mate,
                Aim::Stalemate => reach::HelpTargets::stalemate,
            };
            let targets = list(pos, mated, moves_left(full), workers);
            tracing::debug!(
                targets = targets.as_ref().map(|(t, _, _)| t.len()),
                seconds = started.elapsed().as_secs_f64(),
                "help targets listed"
            );
            targets
        })
        .flatten();
    let slots = full as usize + 2;
    let trials = Arc::new(reach::Trials::default());
    // One search per thread; the first also searches alone.
    let mut searches: Vec<HelpSearch> = (0..workers)
        .map(|_| HelpSearch {
            tt,
            control,
            tally: Tally::new(control, Some(&gate)),
            split: Split::default(),
            aim: stip.aim,
            salt,
            numbering: Numbering::new(pos.side_to_move()),
            limit: None,
            found: 0,
            halted: false,
            progress: false,
            afters: Afters::default(),
            bound: reach::Bound::help().sharing(&trials),
            targets: targets
                .as_ref()
                .map(|(t, ours, theirs)| (t, *ours, *theirs)),
            men: targets.as_ref().map_or_else(Vec::new, |(_, ours, theirs)| {
                vec![Apart((*ours, *theirs)); slots]
            }),
            live: targets
                .as_ref()
                .map_or_else(Vec::new, |_| vec![Apart(Vec::new()); slots]),
            live_for: None,
            entry: 0,
            root_live: None,
        })
        .collect();
    let min = if stip.half { 1 } else { 2 };
    let limit = options.max_solutions.map(u64::from);
    let lengths = |from, to| Lengths {
        play: "help play",
        from,
        to,
        step: 2,
        first: 0,
        share_from: 3,
        full: to,
        store_from: TT_MIN_PLIES,
        depth: |plies| plies.div_ceil(2),
    };
    let solutions = all_lengths(
        &mut searches,
        (tt, control, &gate),
        pos,
        &lengths(min, full),
        limit,
        true,
    );

    let mut set_play = Vec::new();
    if options.set_play && !control.is_stopped() && full >= 2 {
        if let Some(set_pos) = pos.pass() {
            let trials = Arc::new(reach::Trials::default());
            for search in &mut searches {
                search.numbering = Numbering::new(set_pos.side_to_move());
                // The targets are those of the play from the diagram.
                search.targets = None;
                search.bound = reach::Bound::help().sharing(&trials);
            }
            let set_min = if stip.half { 2 } else { 1 };
            set_play = all_lengths(
                &mut searches,
                (tt, control, &gate),
                &set_pos,
                &lengths(set_min, full - 1),
                None,
                false,
            );
        }
    }
    // Every count in.
    drop(searches);
    let mut tree = finish(
        problem,
        solutions,
        set_play,
        control,
        options.intended_solutions,
    );
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

    fn solve_text(fen: &str, stip: &str, options: &SolveOptions) -> (SolutionTree, Vec<String>) {
        let problem = Problem::parse(fen, stip).unwrap();
        let tt = TranspositionTable::new(1 << 16);
        let tree = solve(&tt, &problem, options, &SearchControl::default());
        let mut out = Vec::new();
        lines(&tree.solutions, &mut Vec::new(), &mut out);
        out.sort();
        (tree, out)
    }

    /// The check filter never drops a checking move (random walks from varied positions).
    #[test]
    fn check_filter_keeps_every_check() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "2n5/PP1kP1N1/1r6/q7/8/6p1/5pPp/5K2 b - - 0 1",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for fen in fens {
            for _walk in 0..20 {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ply in 0..60 {
                    let mut moves = MoveList::new();
                    pos.legal_moves(&mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let filter = CheckFilter::new(&pos);
                    for mv in moves.iter() {
                        if pos.play(mv).is_check() {
                            assert!(filter.may_check(mv), "{} {}", pos.to_fen(), mv.uci());
                            checked += 1;
                        }
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos = pos.play(&moves[(seed % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }

    /// Brute force: the lines of exactly `k` plies from `pos` ending in mate, by playing every
    /// move of every side.
    fn brute_lines(
        pos: &Position,
        aim: Aim,
        k: u32,
        prefix: &mut Vec<String>,
        out: &mut Vec<String>,
    ) {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for mv in moves.iter() {
            let after = pos.play(mv);
            prefix.push(mv.uci());
            if k == 1 {
                if aim_reached(aim, &after) {
                    out.push(prefix.join(" "));
                }
            } else {
                brute_lines(&after, aim, k - 1, prefix, out);
            }
            prefix.pop();
        }
    }

    fn uci_lines(nodes: &[SolutionNode], prefix: &mut Vec<String>, out: &mut Vec<String>) {
        for n in nodes {
            prefix.push(n.mv.uci.clone());
            if n.replies.is_empty() {
                out.push(prefix.join(" "));
            } else {
                uci_lines(&n.replies, prefix, out);
            }
            prefix.pop();
        }
    }

    /// The bitboard paths of the last two plies (mate or stalemate in one, the move before it)
    /// and the reach cut find exactly the lines of a brute-force enumeration, at one and two
    /// plies and from both a root and an inner ply (random walks from mate- and stalemate-rich
    /// positions).
    #[test]
    fn last_plies_of_help_play_agree_with_brute_force() {
        let fens = [
            "6K1/3p4/2q3p1/3R4/3p1nn1/rB3kp1/b7/1r6 b - - 0 1",
            "1k6/8/K7/8/2N5/8/7B/8 b - - 0 1",
            "n5Q1/8/8/8/6N1/K7/8/k7 b - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "2n5/PP1kP1N1/1r6/q7/8/6p1/5pPp/5K2 b - - 0 1",
            "8/7K/8/2kb2p1/2pq1p2/2prp3/5P2/8 b - - 0 1",
            "8/2P5/8/8/1P2P1K1/P2P2p1/1ppp2pp/bNk1N1R1 b - - 0 1",
            "7k/1p3n2/5N2/8/8/8/p1p1P3/BbN4K b - - 0 1",
            "1b1n4/PPPk1P2/5P2/8/8/p5K1/1p6/1Nr5 b - - 0 1",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut found = [0; 2];
        for (fen, aim) in fens
            .iter()
            .flat_map(|f| [(f, Aim::Mate), (f, Aim::Stalemate)])
        {
            for _walk in 0..6 {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ply in 0..8 {
                    for (k, ply) in [(1, 0), (1, 3), (2, 0), (2, 1)] {
                        let tt = TranspositionTable::new(1 << 12);
                        let control = SearchControl::default();
                        let mut search = HelpSearch {
                            tt: &tt,
                            control: &control,
                            tally: Tally::new(&control, None),
                            split: Split::default(),
                            aim,
                            salt: SALT_HELP_MATE,
                            numbering: Numbering::new(pos.side_to_move()),
                            limit: None,
                            found: 0,
                            halted: false,
                            progress: false,
                            afters: Afters::default(),
                            bound: reach::Bound::help(),
                            targets: None,
                            men: Vec::new(),
                            live: Vec::new(),
                            live_for: None,
                            entry: 0,
                            root_live: None,
                        };
                        let mut got = Vec::new();
                        uci_lines(&search.lines(&pos, k, ply), &mut Vec::new(), &mut got);
                        let mut want = Vec::new();
                        brute_lines(&pos, aim, k, &mut Vec::new(), &mut want);
                        got.sort();
                        want.sort();
                        assert_eq!(got, want, "{} {aim:?} k={k}", pos.to_fen());
                        found[(aim == Aim::Stalemate) as usize] += want.len();
                    }
                    match pos.random_successor(&mut seed) {
                        Some(next) => pos = next,
                        None => break,
                    }
                }
            }
        }
        assert!(found[0] > 20 && found[1] > 20, "{found:?}");
    }

    #[test]
    fn numbering_follows_popeye() {
        let black = Numbering::new(Color::Black);
        assert_eq!(
            (0..4).map(|p| black.at(p)).collect::<Vec<_>>(),
            [(1, false), (1, false), (2, false), (2, false)]
        );
        let white = Numbering::new(Color::White);
        assert_eq!(
            (0..5).map(|p| white.at(p)).collect::<Vec<_>>(),
            [(1, true), (2, false), (2, false), (3, false), (3, false)]
        );
    }

    #[test]
    fn helpmate_in_one() {
        let (tree, lines) = solve_text(
            "1k6/8/K7/8/2N5/8/7B/8 b - - 0 1",
            "h#1",
            &SolveOptions::default(),
        );
        assert_eq!(lines, ["Kb8-a8 Sc4-b6#"]);
        assert_eq!(tree.verdict, Verdict::Solved);
    }

    #[test]
    fn short_solutions_and_set_play_are_found() {
        // h#2 with a mate in one (Popeye lists the h#1 lines too).
        let options = SolveOptions {
            set_play: true,
            ..SolveOptions::default()
        };
        let (tree, lines) = solve_text("n5Q1/8/8/8/6N1/K7/8/k7 b - - 0 1", "h#2", &options);
        assert!(lines.contains(&"Sa8-b6 Qg8-a2#".to_string()), "{lines:?}");
        assert!(
            lines.contains(&"Ka1-b1 Sg4-e3 Kb1-a1 Qg8-a2#".to_string()),
            "{lines:?}"
        );
        let short = &tree
            .solutions
            .iter()
            .find(|n| n.mv.long == "Sa8-b6")
            .unwrap()
            .replies;
        assert!(short.iter().any(|n| n.flags.short));
        let mut set = Vec::new();
        super::tests::lines(&tree.set_play, &mut Vec::new(), &mut set);
        assert!(set.contains(&"Qg8-a2#".to_string()), "{set:?}");
        assert!(
            set.contains(&"Sg4-e3 Ka1-b1 Qg8-g1#".to_string()),
            "{set:?}"
        );
        assert!(tree
            .set_play
            .iter()
            .all(|n| n.black_dots && n.move_number == 1));
    }

    #[test]
    fn node_budget_cancels() {
        let problem = Problem::parse("8/8/2K5/8/k7/6p1/p2pP2p/8 b - - 0 1", "h=7").unwrap();
        let tt = TranspositionTable::new(1 << 16);
        let control = SearchControl::new(Some(10_000), None);
        let tree = solve(&tt, &problem, &SolveOptions::default(), &control);
        assert_eq!(tree.verdict, Verdict::Cancelled);
        assert!(control.nodes() < 20_000, "{}", control.nodes());
    }
}
