//! Final positions to aim at, for series help stalemates (`ser-h=n`), after the intelligent
//! mode of Popeye, the reference solver.
//!
//! In a series help stalemate the other side stands still until its one move at the end, so
//! every man of the series side ends where the stalemate needs it, and that can be listed
//! before the search: a *target* gives each man of the series side (by identity) its final
//! square and form. Then a position is searched on only while some target is still in reach:
//! the men's moves to their target squares, added up on an empty board, fit in the series
//! moves left. Nearly every move that brings no man nearer its square is cut that way, where
//! the general bound (`goal_reachable`) has to be asked position by position.
//!
//! The targets are a relaxation like the bound: every final position of a solution is among
//! them (it may hold more, never less), and the search's own end test decides. Before the
//! other side's stalemating move `w` (one move of one man, which may capture one man of the
//! series side), a solution's final position has:
//! - the series king on a square it can walk to, each flight held by one of its men or
//!   attacked by the other side (from where its men stand, or from where one of them gets in
//!   one move; lines over an empty board);
//! - every other man immobile after `w`: an officer with every square next to it along its
//!   lines (`Tables::freeze`) held by its own men, or pinned (on a line from its king that it
//!   cannot move along, nothing of its side between, a line piece of the other side able to
//!   stand beyond it after one move); a pawn blocked (by a man of its side, or a man of the
//!   other side standing there or getting there in one move) or pinned; at most one man is
//!   captured by `w` instead, on a square the other side can capture on in one move;
//! - the men's moves, added up, at most the series length.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::chess::{Color, Move, MoveKind, Position};

use super::{bits, pawn_attacks, pinnable, ray_beyond, tables, targets, Army, Form, Tables, INF};
use super::{MAX_MEN, OFFICERS};

/// More targets than this, and the search goes on without them (its own bound only). It bounds
/// the memory too: each thread keeps, per series move, the list of targets still in reach.
const MAX_TARGETS: usize = 20_000;
/// Longer series are searched without targets (for the same reason).
const MAX_SERIES: u32 = 40;
// The lists of targets in reach hold their indices as `u16`.
const _: () = assert!(MAX_TARGETS < u16::MAX as usize);
/// Steps of the targets' enumeration before it is given up (of all its threads).
const MAX_STEPS: u64 = 1_500_000;
/// Each thread adds its steps to the count of all every this many.
const STEPS_SHARED: u64 = 4_096;

/// A man of the series side: its form and square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Spot {
    form: Form,
    sq: u8,
}

impl Spot {
    const NONE: Spot = Spot {
        form: Form::Pawn,
        sq: 0,
    };
}

/// The series side's men by identity along a series (its men are never captured there): the
/// king first, then as `Army::of` lists them in the diagram.
#[derive(Clone, Copy)]
pub(in crate::solve) struct Tracked {
    spots: [Spot; MAX_MEN],
    n: usize,
}

impl Tracked {
    fn of(pos: &Position, color: Color) -> Tracked {
        let army = Army::of(pos, color, true);
        let mut spots = [Spot::NONE; MAX_MEN];
        let men = army.men();
        // The king first: `Army::of` lists it last.
        let king = men.iter().position(|m| m.form == Form::King).unwrap_or(0);
        let order = std::iter::once(king).chain((0..men.len()).filter(|&i| i != king));
        for (slot, i) in spots.iter_mut().zip(order) {
            *slot = Spot {
                form: men[i].form,
                sq: men[i].sq as u8,
            };
        }
        Tracked {
            spots,
            n: men.len(),
        }
    }

    /// The men after the series side's move `mv`.
    pub(in crate::solve) fn after(&self, mv: &Move) -> Tracked {
        let mut next = *self;
        let (from, to) = (mv.from().index() as u8, mv.to().index() as u8);
        let rook = match mv.kind() {
            MoveKind::CastleShort => Some((7, 5)),
            MoveKind::CastleLong => Some((0, 3)),
            _ => None,
        };
        for s in &mut next.spots[..next.n] {
            if s.sq == from {
                s.sq = to;
                if let Some(role) = mv.promotion() {
                    s.form = Form::of(role);
                }
            } else if let Some((rf, rt)) = rook {
                let rank = from / 8;
                if s.form == Form::Rook && s.sq == rank * 8 + rf {
                    s.sq = rank * 8 + rt;
                }
            }
        }
        next
    }

    /// The men in `pos`, one series move after `self` (found by what moved: the men still on
    /// their squares keep their identity).
    pub(in crate::solve) fn follow(&self, pos: &Position, color: Color) -> Tracked {
        let now = Tracked::of(pos, color);
        let stays = |s: &Spot| now.spots[..now.n].contains(s);
        let mut next = *self;
        let mut arrived: Vec<Spot> = now.spots[..now.n]
            .iter()
            .copied()
            .filter(|s| !self.spots[..self.n].contains(s))
            .collect();
        for s in &mut next.spots[..next.n] {
            if stays(s) {
                continue;
            }
            // Same form first (a rook castling), else a pawn's promotion.
            let pick = arrived
                .iter()
                .position(|a| a.form == s.form)
                .or_else(|| arrived.iter().position(|_| s.form == Form::Pawn));
            if let Some(p) = pick {
                *s = arrived.swap_remove(p);
            }
        }
        next
    }
}

/// The moves for a man on `now` to stand on `target` (as its form), on an empty board.
#[inline]
fn cost(t: &Tables, color: usize, now: Spot, target: Spot) -> u32 {
    if now.form == Form::Pawn {
        t.pawn[color][now.sq as usize][target.form as usize][target.sq as usize] as u32
    } else if now.form == target.form {
        t.dist[now.form as usize][now.sq as usize][target.sq as usize] as u32
    } else {
        INF as u32
    }
}

/// The final positions a series help stalemate may end in (before the other side's move).
pub(in crate::solve) struct Targets {
    color: usize,
    n: usize,
    finals: Vec<[Spot; MAX_MEN]>,
}

impl Targets {
    /// The targets of a series help stalemate in up to `moves` series moves from `pos` (the
    /// series side to move), and its men; none when there would be too many to list, the
    /// series is longer than `MAX_SERIES`, or the series side may castle (its walks are not
    /// counted for it). The king's squares are shared out among `threads` threads.
    pub(in crate::solve) fn series_stalemate(
        pos: &Position,
        moves: u32,
        threads: usize,
    ) -> Option<(Targets, Tracked)> {
        let color = pos.side_to_move();
        if moves > MAX_SERIES || pos.can_castle(color, false) || pos.can_castle(color, true) {
            return None;
        }
        let men = Tracked::of(pos, color);
        if pos.pieces(color).len() as usize != men.n {
            return None;
        }
        // The king's squares are handed out one by one; the steps are counted in all (near the
        // limit, whether the listing is given up may depend on the threads' timing: the
        // solutions never do).
        let threads = threads.clamp(1, 8);
        let next_square = AtomicUsize::new(0);
        let spent = AtomicU64::new(0);
        let share = || {
            let mut g = Generator::new(tables(), pos, &men, moves);
            g.spent = Some(&spent);
            loop {
                let sq = next_square.fetch_add(1, Ordering::Relaxed);
                if sq >= 64 || g.overflow {
                    break;
                }
                g.king_squares = 1 << sq;
                g.place_next(0);
            }
            g
        };
        let parts: Vec<Generator> = std::thread::scope(|scope| {
            let others: Vec<_> = (1..threads).map(|_| scope.spawn(share)).collect();
            let mut parts = vec![share()];
            parts.extend(others.into_iter().map(|h| h.join().expect("no panic")));
            parts
        });
        let steps: u64 = parts.iter().map(|g| g.steps).sum();
        let mut out = HashSet::new();
        let mut overflow = false;
        for g in parts {
            overflow |= g.overflow;
            out.extend(g.out);
        }
        if overflow || out.len() > MAX_TARGETS {
            tracing::debug!(
                steps,
                targets = out.len(),
                "too many series targets to list"
            );
            return None;
        }
        tracing::debug!(steps, "series targets enumerated");
        let mut finals: Vec<[Spot; MAX_MEN]> = out.into_iter().collect();
        finals.sort_unstable_by_key(|f| f.map(|s| (s.sq, s.form as u8)));
        Some((
            Targets {
                color: color.index(),
                n: men.n,
                finals,
            },
            men,
        ))
    }

    pub(in crate::solve) fn len(&self) -> usize {
        self.finals.len()
    }

    /// Into `out`, the targets of `from` (all when `None`) the men `now` can reach in `k`
    /// series moves. A target out of reach stays so: a move brings one man one move nearer
    /// at most, so the narrowed list serves every position after this one.
    pub(in crate::solve) fn narrow(
        &self,
        from: Option<&[u16]>,
        now: &Tracked,
        k: u32,
        out: &mut Vec<u16>,
    ) {
        out.clear();
        let t = tables();
        let in_reach = |i: u16| {
            let target = &self.finals[i as usize];
            let mut sum = 0;
            for (m, s) in now.spots[..self.n].iter().zip(target) {
                sum += cost(t, self.color, *m, *s);
                if sum > k {
                    return false;
                }
            }
            true
        };
        match from {
            Some(list) => out.extend(list.iter().copied().filter(|&i| in_reach(i))),
            None => out.extend((0..self.finals.len() as u16).filter(|&i| in_reach(i))),
        }
    }
}

/// A man of the other side, as its one move at the end may use it.
struct TheirMan {
    sq: usize,
    /// The squares it reaches in one move, and those it may capture on.
    reach: u64,
    capture: u64,
    /// Whether it is a diagonal (0) or orthogonal (1) line piece now.
    line: [bool; 2],
    /// Where it stands as a diagonal (0) or orthogonal (1) line piece after its move.
    line_after: [u64; 2],
    /// Per square: where its move may take it to attack that square from.
    attack_after: [u64; 64],
}

/// The enumeration of targets: men are given final squares one by one, those that squares
/// must be held on first. The other side's one move (`w`) is kept as the squares each of its
/// men may move to, narrowed by every use the target makes of it.
struct Generator<'a> {
    t: &'a Tables,
    color: usize,
    men: &'a Tracked,
    moves: u32,
    their: Vec<TheirMan>,
    /// The squares the other side's men stand on, and attack from there (empty board).
    theirs: u64,
    their_attack: u64,
    /// The state: the men placed, the squares they hold, the squares their side must hold.
    placed: [Option<Spot>; MAX_MEN],
    held: u64,
    need: u64,
    /// Per man of the other side: the squares its move may go to (`w` is one of them).
    last: [u64; MAX_MEN],
    /// The squares of men immobile by a pin: nothing of theirs may stand between them and
    /// their king.
    pinned: Vec<u8>,
    captured: bool,
    king: usize,
    /// The squares the king may be given (the one handed to this thread).
    king_squares: u64,
    steps: u64,
    /// The steps of all threads, added to every `STEPS_SHARED` steps.
    spent: Option<&'a AtomicU64>,
    overflow: bool,
    out: HashSet<[Spot; MAX_MEN]>,
}

impl<'a> Generator<'a> {
    fn new(t: &'a Tables, pos: &Position, men: &'a Tracked, moves: u32) -> Generator<'a> {
        let us = pos.side_to_move();
        let them = !us;
        let last_rank: u64 = if them == Color::White {
            0xff << 56
        } else {
            0xff
        };
        let attacks = |form: Form, d: usize| match form {
            Form::Pawn if last_rank >> d & 1 == 1 => {
                targets(Form::Queen, d) | targets(Form::Knight, d)
            }
            Form::Pawn => pawn_attacks(them, d),
            Form::King => t.ring[d],
            f => targets(f, d),
        };
        let mut their = Vec::new();
        let (mut theirs, mut their_attack) = (0u64, 0u64);
        for man in Army::of(pos, them, true).men() {
            let sq = man.sq;
            let (reach, capture) = match man.form {
                Form::Pawn => {
                    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
                    let dr = if them == Color::White { 1 } else { -1 };
                    let start = if them == Color::White { 1 } else { 6 };
                    let mut push = super::sq(f, r + dr).map_or(0, |s| 1u64 << s);
                    if r == start {
                        push |= super::sq(f, r + 2 * dr).map_or(0, |s| 1u64 << s);
                    }
                    let caps = pawn_attacks(them, sq);
                    (push | caps, caps)
                }
                Form::King => (t.ring[sq], t.ring[sq]),
                f => (targets(f, sq), targets(f, sq)),
            };
            theirs |= 1 << sq;
            their_attack |= attacks(man.form, sq);
            let line = [0, 1].map(|l| match man.form {
                Form::Queen => true,
                Form::Bishop => l == 0,
                Form::Rook => l == 1,
                _ => false,
            });
            let line_after = line.map(|on| {
                if on {
                    reach
                } else if man.form == Form::Pawn {
                    reach & last_rank
                } else {
                    0
                }
            });
            let mut attack_after = [0u64; 64];
            for d in bits(reach) {
                for f in bits(attacks(man.form, d)) {
                    attack_after[f] |= 1 << d;
                }
            }
            their.push(TheirMan {
                sq,
                reach,
                capture,
                line,
                line_after,
                attack_after,
            });
        }
        let mut last = [0u64; MAX_MEN];
        for (l, m) in last.iter_mut().zip(&their) {
            *l = m.reach;
        }
        Generator {
            t,
            color: us.index(),
            men,
            moves,
            their,
            theirs,
            their_attack,
            placed: [None; MAX_MEN],
            held: 0,
            need: 0,
            last,
            pinned: Vec::new(),
            captured: false,
            king: 0,
            king_squares: !0,
            steps: 0,
            spent: None,
            overflow: false,
            out: HashSet::new(),
        }
    }

    fn forms(&self, i: usize) -> &'static [Form] {
        const PROMOTED: [Form; 5] = [
            Form::Pawn,
            OFFICERS[0],
            OFFICERS[1],
            OFFICERS[2],
            OFFICERS[3],
        ];
        match self.men.spots[i].form {
            Form::Pawn => &PROMOTED,
            Form::Knight => &PROMOTED[1..2],
            Form::Bishop => &PROMOTED[2..3],
            Form::Rook => &PROMOTED[3..4],
            Form::Queen => &PROMOTED[4..5],
            Form::King => &[Form::King],
        }
    }

    fn cost(&self, i: usize, form: Form, sq: usize) -> u32 {
        cost(
            self.t,
            self.color,
            self.men.spots[i],
            Spot { form, sq: sq as u8 },
        )
    }

    /// Narrows the other side's last move to the squares `allowed` gives each of its men,
    /// then goes on; nothing when no move is left.
    fn with_last(&mut self, allowed: impl Fn(&TheirMan) -> u64, used: u32) {
        let saved = self.last;
        let mut any = false;
        for (l, m) in self.last.iter_mut().zip(&self.their) {
            *l &= allowed(m);
            any |= *l != 0;
        }
        if any {
            self.place_next(used);
        }
        self.last = saved;
    }

    /// Places the men not placed yet, `used` moves spent so far.
    fn place_next(&mut self, used: u32) {
        self.steps += 1;
        if self.steps.is_multiple_of(STEPS_SHARED) {
            let all = self.spent.map_or(self.steps, |spent| {
                spent.fetch_add(STEPS_SHARED, Ordering::Relaxed) + STEPS_SHARED
            });
            if all > MAX_STEPS {
                self.overflow = true;
            }
        }
        if self.out.len() > MAX_TARGETS {
            self.overflow = true;
        }
        if self.overflow {
            return;
        }
        let n = self.men.n;
        let mut free = [0usize; MAX_MEN];
        let mut n_free = 0;
        for i in (0..n).filter(|&i| self.placed[i].is_none()) {
            free[n_free] = i;
            n_free += 1;
        }
        let free = &free[..n_free];
        let open = self.need & !self.held;
        if open.count_ones() as usize > free.len() {
            return;
        }
        // Each square still to hold needs a man of its own: the nearest's moves at least.
        let mut least = 0;
        for q in bits(open) {
            let nearest = self
                .ways(free)
                .map(|(i, f)| self.cost(i, f, q))
                .min()
                .unwrap_or(INF as u32);
            least += nearest;
            if used + least > self.moves {
                return;
            }
        }
        // The square fewest men can get to in time first.
        let candidates = |q: usize| {
            self.ways(free)
                .filter(|&(i, f)| used + self.cost(i, f, q) <= self.moves)
                .count()
        };
        if let Some(q) = bits(open).min_by_key(|&q| candidates(q)) {
            for &i in free {
                for &f in self.forms(i) {
                    self.place_in_time(i, f, q, used);
                }
            }
            return;
        }
        let Some(&i) = free.first() else {
            self.finish();
            return;
        };
        let allowed = if i == 0 { self.king_squares } else { !0 };
        for sq in bits(allowed & !self.held) {
            for &f in self.forms(i) {
                self.place_in_time(i, f, sq, used);
            }
        }
    }

    /// Each free man with each form it may take.
    fn ways<'b>(&'b self, free: &'b [usize]) -> impl Iterator<Item = (usize, Form)> + 'b {
        free.iter()
            .flat_map(move |&i| self.forms(i).iter().map(move |&f| (i, f)))
    }

    /// Man `i` ends on `sq` as `form`, if it gets there in the moves left.
    fn place_in_time(&mut self, i: usize, form: Form, sq: usize, used: u32) {
        let c = self.cost(i, form, sq);
        if used + c <= self.moves {
            self.place(i, Spot { form, sq: sq as u8 }, used + c);
        }
    }

    /// Man `i` ends on `spot`: each way it may end immobile there is followed.
    fn place(&mut self, i: usize, spot: Spot, used: u32) {
        let sq = spot.sq as usize;
        let bit = 1u64 << sq;
        let saved_need = self.need;
        self.placed[i] = Some(spot);
        self.held |= bit;
        if spot.form == Form::King {
            self.place_king(sq, used);
        } else {
            self.place_man(spot, used);
        }
        self.need = saved_need;
        self.held &= !bit;
        self.placed[i] = None;
    }

    /// The king ends on `k`: each flight the other side does not attack already is held by a
    /// man of its side, or attacked by the other side's last move.
    fn place_king(&mut self, k: usize, used: u32) {
        self.king = k;
        let base = self.need;
        let open = self.t.ring[k] & !self.their_attack;
        self.need = base | open;
        self.place_next(used);
        // The last move attacks some of them (the rest held): each set it may attack.
        let mut tried: Vec<u64> = Vec::new();
        for g in 0..self.their.len() {
            for d in bits(self.last[g]) {
                let m = &self.their[g];
                let covers = bits(open).fold(0u64, |c, f| c | (m.attack_after[f] >> d & 1) << f);
                if covers == 0 || tried.contains(&covers) {
                    continue;
                }
                tried.push(covers);
                self.need = base | (open & !covers);
                self.with_last(
                    |m| bits(covers).fold(m.reach, |a, f| a & m.attack_after[f]),
                    used,
                );
            }
        }
    }

    /// A man other than the king ends on `spot`: immobile among its own men, blocked by the
    /// other side, pinned, or captured by the last move.
    fn place_man(&mut self, spot: Spot, used: u32) {
        let sq = spot.sq as usize;
        let bit = 1u64 << sq;
        let saved_need = self.need;
        let needs = match spot.form {
            Form::Pawn => {
                let ahead = if self.color == Color::White.index() {
                    sq.checked_add(8).filter(|&a| a < 64)
                } else {
                    sq.checked_sub(8)
                };
                ahead.map_or(0, |a| 1u64 << a & !self.theirs)
            }
            f => self.t.freeze[f as usize][sq],
        };
        let free_anyway = needs & !self.held == 0;
        self.need |= needs;
        self.place_next(used);
        self.need = saved_need;
        if free_anyway {
            return;
        }
        // A pawn blocked by the last move.
        if spot.form == Form::Pawn {
            self.with_last(|m| m.reach & needs, used);
        }
        // Pinned: by a line piece beyond it now, or after the last move.
        let k = self.king;
        let beyond = ray_beyond(k, sq);
        if beyond != 0 {
            let (kf, kr, f, r) = (k % 8, k / 8, sq % 8, sq / 8);
            let line = usize::from(kf == f || kr == r);
            if pinnable(spot.form, line) {
                self.pinned.push(spot.sq);
                let now = self
                    .their
                    .iter()
                    .any(|m| m.line[line] && beyond >> m.sq & 1 == 1);
                if now {
                    self.place_next(used);
                } else {
                    self.with_last(|m| m.line_after[line] & beyond, used);
                }
                self.pinned.pop();
            }
        }
        // Captured by the last move.
        if !self.captured {
            self.captured = true;
            self.with_last(|m| m.capture & bit, used);
            self.captured = false;
        }
    }

    /// Every man is placed: a target, unless a pin has a man of its side in its way.
    fn finish(&mut self) {
        let k = self.king;
        for &p in &self.pinned {
            if between(k, p as usize) & self.held != 0 {
                return;
            }
        }
        let mut f = [Spot::NONE; MAX_MEN];
        for (slot, p) in f.iter_mut().zip(&self.placed[..self.men.n]) {
            *slot = p.expect("every man is placed");
        }
        self.out.insert(f);
    }
}

/// The squares strictly between `a` and `b` on a line (none if not on one).
fn between(a: usize, b: usize) -> u64 {
    let beyond_b = ray_beyond(a, b);
    if beyond_b == 0 {
        return 0;
    }
    let (af, ar, bf, br) = (a % 8, a / 8, b % 8, b / 8);
    let (df, dr) = (
        (bf as i32 - af as i32).signum(),
        (br as i32 - ar as i32).signum(),
    );
    let mut out = 0u64;
    let (mut f, mut r) = (af as i32 + df, ar as i32 + dr);
    while let Some(s) = super::sq(f, r) {
        if s == b {
            break;
        }
        out |= 1 << s;
        f += df;
        r += dr;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{random_position, walk_near_stalemates, NEAR_STALEMATES};
    use super::*;
    use crate::chess::MoveList;

    /// By brute force: the final positions (men by identity) of every series help stalemate
    /// of exactly `k` moves from `pos`; checks on the way that `follow` agrees with `after`.
    fn finals(pos: &Position, men: &Tracked, k: u32, out: &mut Vec<[Spot; MAX_MEN]>) {
        let side = pos.side_to_move();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for mv in moves.iter() {
            let after = pos.play(mv);
            let next = men.after(mv);
            let followed = men.follow(&after, side);
            assert_eq!(
                followed.spots[..followed.n],
                next.spots[..next.n],
                "{} {}",
                pos.to_fen(),
                mv.uci()
            );
            if k > 1 {
                if let Some(passed) = after.pass().filter(|_| !after.is_check()) {
                    finals(&passed, &next, k - 1, out);
                }
            } else if after.any_successor(|_, end| end.is_stalemate()) {
                out.push(next.spots);
            }
        }
    }

    /// Asserts that every final position of a series help stalemate of 1 to `k` moves from
    /// `pos` is a target, and in reach; returns how many there were.
    fn assert_targets_complete(pos: &Position, k: u32) -> usize {
        let men = Tracked::of(pos, pos.side_to_move());
        let Some((targets, root)) = Targets::series_stalemate(pos, k, 1) else {
            return 0;
        };
        let mut found = 0;
        for length in 1..=k {
            let mut ends = Vec::new();
            finals(pos, &men, length, &mut ends);
            for end in &ends {
                assert!(
                    targets.finals.contains(end),
                    "{} ser-h={length}: {:?} is no target",
                    pos.to_fen(),
                    &end[..men.n]
                );
            }
            let mut live = Vec::new();
            targets.narrow(None, &root, length, &mut live);
            assert!(ends.is_empty() || !live.is_empty());
            found += ends.len();
        }
        found
    }

    /// Every series help stalemate's final position is among the targets, in random
    /// positions and near stalemates (brute force is the oracle).
    #[test]
    fn targets_hold_every_final_position() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let (mut found, mut tested) = (0, 0);
        while tested < 1500 {
            let Some(pos) = random_position(&mut seed) else {
                continue;
            };
            tested += 1;
            found += assert_targets_complete(&pos, 2);
        }
        walk_near_stalemates(&NEAR_STALEMATES, 0x2545_f491_4f6c_dd1d, 6, 8, |pos| {
            found += assert_targets_complete(pos, 3);
        });
        assert!(found > 300, "only {found} final positions found");
    }

    /// hpint#110 (ser-h=13): the final position of its solution is one of few targets.
    #[test]
    fn a_long_series_final_position_is_a_target() {
        let mut pos = Position::from_fen("2k5/3p4/3p4/3p4/3p3B/3p4/3p1K2/R7 b - - 0 1").unwrap();
        let (targets, mut men) = Targets::series_stalemate(&pos, 13, 2).expect("few targets");
        assert!(targets.len() < 10_000, "{} targets", targets.len());
        let solution = "d2d1b d3d2 d4d3 d5d4 d6d5 d7d6 c8d7 d7e6 e6f5 f5g4 g4h3 h3h2 h2h1";
        for (played, uci) in solution.split(' ').enumerate() {
            let mut live = Vec::new();
            targets.narrow(None, &men, 13 - played as u32, &mut live);
            assert!(!live.is_empty(), "no target in reach before {uci}");
            let mv = pos.find_uci(uci).unwrap();
            men = men.after(&mv);
            pos = pos.play(&mv).pass().unwrap_or_else(|| pos.play(&mv));
        }
        assert!(targets.finals.contains(&men.spots));
    }
}
