//! Final positions to aim at, for series help stalemates (`ser-h=n`) and help stalemates
//! (`h=n`), after the intelligent mode of Popeye, the reference solver.
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
//!
//! Help stalemates (`HelpTargets`) are listed the same way, but the stalemating side moves as
//! often as the other: each man of the stalemated side ends immobile (among its men, blocked,
//! pinned) or is captured, at most one capture per move of the other side; the men of the
//! other side that guard a flight, block a pawn or pin a man are placed too, and their walks
//! added up must fit in its moves (the rest of its men are free). Both sides' men are tracked
//! by identity, captures included.

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::chess::{Color, Move, MoveKind, Position};
use crate::solve::beside::on_each;

use super::{
    bits, pawn_attacks, pinnable, ray_beyond, tables, targets, within, Army, Form, Tables, INF,
};
use super::{FORMS, MAX_MEN, OFFICERS};

/// The sets of targets being listed: keyed by a few bytes each, hashed a million times a
/// listing, so by a multiply-rotate hash (as rustc's `FxHasher`) rather than SipHash, which took
/// 7% of an h#7's solve. The keys are squares of our own enumeration: no flooding to fear.
type TargetSet<T> = HashSet<T, BuildHasherDefault<SquareHasher>>;

#[derive(Default)]
struct SquareHasher(u64);

impl Hasher for SquareHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    #[inline]
    fn write_u8(&mut self, b: u8) {
        self.write_u64(b as u64);
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// More targets than this, and the search goes on without them (its own bound only). It bounds
/// the memory too: each thread keeps, per move, the list of targets still in reach (at most
/// 120 KiB a move).
const MAX_TARGETS: usize = 60_000;
/// Longer series are searched without targets (for the same reason).
const MAX_SERIES: u32 = 40;
// The lists of targets in reach hold their indices as `u16`.
const _: () = assert!(MAX_TARGETS < u16::MAX as usize);
/// Steps of a series listing before it is given up (of all its threads): hpint#52 ser-h=8
/// needs millions and is solved faster without its targets; over the corpus the listings
/// that end take at most 346,413 (hpint#110 ser-h=13).
const MAX_SERIES_STEPS: u64 = 750_000;
/// Steps of a help listing before it is given up. Over the corpus the listings that end take
/// at most 540,654 (hpint#24 h=8; the listing saves most of its search). A step is some
/// 40-60 ns: this gives up after about 0.1 s.
const MAX_HELP_STEPS: u64 = 2_000_000;
/// Help play of at most this many plies is over soon: its listing is cut short sooner. The
/// targets of an h#3 pay up to about 12,000 of them (with only the targets that need each of
/// their men, `HelpGen::needless`): more, and the mating net (`Position::mating_net`) makes the
/// search without them about as fast, while listings that give up spend less the sooner they
/// do. Over the corpus's h#3s, listed: intell#55a (11,235 targets) 55 ms against 73 without,
/// #31 (9,235) 48 against 68; #53a (14,024) 95 against 93, #81a (16,507) 243 against 233. Cut
/// at 12,000 against 20,000, one thread: the 114 h#3s -0.8%, intell#30 33 -> 28 ms, #95 121
/// -> 113, #81b 176 -> 168 (they give up sooner).
const SHORT_HELP_PLIES: u32 = 6;
const MAX_SHORT_HELP_TARGETS: usize = 12_000;
/// (The short listings that end take at most 104,976 steps: intell#45a h#3.)
const MAX_SHORT_HELP_STEPS: u64 = 500_000;
/// Each thread adds its steps to the count of all every this many.
const STEPS_SHARED: u64 = 4_096;

/// A man of the series side: its form and square. (Laid out as two bytes, the square second:
/// `Men::standing_on` compares the squares of sixteen at once.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
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

/// The men of one side by identity along the play: where each stands, and whether it is still
/// on the board (in series play the series side's men never leave it). The king first, then
/// as `Army::of` lists them in the diagram.
#[derive(Clone, Copy)]
pub(in crate::solve) struct Men {
    spots: [Spot; MAX_MEN],
    alive: u16,
    /// The men (bit `j` for man `j`) that the move leading here (`after`) moved, promoted or
    /// captured: what `changed` finds against the men before it, known without comparing.
    moved: u16,
    n: usize,
    color: Color,
}

impl Men {
    fn of(pos: &Position, color: Color) -> Men {
        let army = Army::of(pos, color, true);
        let men = army.men();
        let mut spots = [Spot::NONE; MAX_MEN];
        // The king first: `Army::of` lists it last.
        let king = men.iter().position(|m| m.form == Form::King).unwrap_or(0);
        let order = std::iter::once(king).chain((0..men.len()).filter(|&i| i != king));
        for (slot, i) in spots.iter_mut().zip(order) {
            *slot = Spot {
                form: men[i].form,
                sq: men[i].sq as u8,
            };
        }
        let n = men.len();
        Men {
            spots,
            alive: ((1u32 << n) - 1) as u16,
            moved: 0,
            n,
            color,
        }
    }

    /// The same men on the same spots.
    pub(in crate::solve) fn same(&self, other: &Men) -> bool {
        self.n == other.n
            && self.alive == other.alive
            && self.spots[..self.n] == other.spots[..other.n]
    }

    fn alive(&self, i: usize) -> bool {
        self.alive >> i & 1 == 1
    }

    /// The men after move `mv` of the side `mover` (theirs or the other side's, which may
    /// capture one of them).
    pub(in crate::solve) fn after(&self, mv: &Move, mover: Color) -> Men {
        let mut next = *self;
        next.moved = 0;
        let (from, to) = (mv.from().index() as u8, mv.to().index() as u8);
        if mover == self.color {
            // The man on `from` (at most one is alive there), found by comparing every spot at
            // once: the search asks this for every move it follows.
            let on_from = self.standing_on(from);
            if on_from != 0 {
                let i = on_from.trailing_zeros() as usize;
                next.spots[i].sq = to;
                next.moved |= 1 << i;
                if let Some(role) = mv.promotion() {
                    next.spots[i].form = Form::of(role);
                }
            }
            let rook = match mv.kind() {
                MoveKind::CastleShort => Some((7, 5)),
                MoveKind::CastleLong => Some((0, 3)),
                _ => None,
            };
            if let Some((rf, rt)) = rook {
                let rank = from / 8;
                let on_corner = self.standing_on(rank * 8 + rf);
                for i in men_in(on_corner as u32) {
                    if self.spots[i].form == Form::Rook {
                        next.spots[i].sq = rank * 8 + rt;
                        next.moved |= 1 << i;
                    }
                }
            }
        } else if mv.is_capture() {
            let taken = if mv.kind() == MoveKind::EnPassant {
                (from / 8) * 8 + to % 8
            } else {
                to
            };
            let on_taken = self.standing_on(taken);
            next.alive &= !on_taken;
            next.moved |= on_taken;
        }
        next
    }

    /// The men alive on square `sq` (bit `i` for man `i`).
    #[inline]
    fn standing_on(&self, sq: u8) -> u16 {
        on_square(&self.spots, sq) & self.alive & ((1u32 << self.n) - 1) as u16
    }

    /// The men in `pos`, one move after `self` (by either side).
    pub(in crate::solve) fn follow(&self, pos: &Position) -> Men {
        let now = Men::of(pos, self.color);
        let now_spots = &now.spots[..now.n];
        let mut next = *self;
        let mut arrived: Vec<Spot> = now_spots
            .iter()
            .copied()
            .filter(|s| !(0..self.n).any(|i| self.alive(i) && self.spots[i] == *s))
            .collect();
        for i in 0..next.n {
            if !self.alive(i) || now_spots.contains(&self.spots[i]) {
                continue;
            }
            let s = self.spots[i];
            let pick = arrived
                .iter()
                .position(|a| a.form == s.form)
                .or_else(|| arrived.iter().position(|_| s.form == Form::Pawn));
            match pick {
                Some(p) => next.spots[i] = arrived.swap_remove(p),
                None => next.alive &= !(1 << i),
            }
        }
        next.moved = changed(self, &next) as u16;
        next
    }
}

/// The spots of `spots` on square `sq` (bit `i` for spot `i`), compared all at once: asked for
/// every move the help search tries against its targets (`Men::after`), where one at a time
/// took some 6% of hpint#73 and #91.
#[cfg(target_arch = "x86_64")]
#[inline]
fn on_square(spots: &[Spot; MAX_MEN], sq: u8) -> u16 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_packs_epi16, _mm_set1_epi16,
    };
    const _: () = assert!(MAX_MEN == 16 && size_of::<Spot>() == 2);
    // SAFETY: SSE2 is part of every x86_64; `Spot` is `repr(C)` of two bytes, so the 16 spots
    // are exactly the 32 bytes read (unaligned loads are allowed). Read as little-endian
    // words, a spot's square is the high byte.
    unsafe {
        let p = spots.as_ptr() as *const __m128i;
        let squares = _mm_set1_epi16(0xff00u16 as i16);
        let wanted = _mm_set1_epi16(((sq as u16) << 8) as i16);
        let lo = _mm_cmpeq_epi16(_mm_and_si128(_mm_loadu_si128(p), squares), wanted);
        let hi = _mm_cmpeq_epi16(_mm_and_si128(_mm_loadu_si128(p.add(1)), squares), wanted);
        _mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u16
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn on_square(spots: &[Spot; MAX_MEN], sq: u8) -> u16 {
    on_square_one_by_one(spots, sq)
}

/// `on_square`, one spot at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn on_square_one_by_one(spots: &[Spot; MAX_MEN], sq: u8) -> u16 {
    let mut on = 0u16;
    for (i, s) in spots.iter().enumerate() {
        on |= ((s.sq == sq) as u16) << i;
    }
    on
}

/// The forms a man of `form` may end in (a pawn promotes).
fn forms(form: Form) -> &'static [Form] {
    const PROMOTED: [Form; 5] = [
        Form::Pawn,
        OFFICERS[0],
        OFFICERS[1],
        OFFICERS[2],
        OFFICERS[3],
    ];
    match form {
        Form::Pawn => &PROMOTED,
        Form::Knight => &PROMOTED[1..2],
        Form::Bishop => &PROMOTED[2..3],
        Form::Rook => &PROMOTED[3..4],
        Form::Queen => &PROMOTED[4..5],
        Form::King => &[Form::King],
    }
}

/// Into `out` (cleared first), the targets of `from` (all `0..all` when `None`) `in_reach`.
fn keep_in_reach(
    from: Option<&[u16]>,
    all: usize,
    in_reach: impl Fn(u16) -> bool,
    out: &mut Vec<u16>,
) {
    out.clear();
    match from {
        Some(list) => out.extend(list.iter().copied().filter(|&i| in_reach(i))),
        None => out.extend((0..all as u16).filter(|&i| in_reach(i))),
    }
}

/// The men `0..n` for which `pick` holds, in order, and how many.
fn men_where(n: usize, pick: impl Fn(usize) -> bool) -> ([usize; MAX_MEN], usize) {
    let mut picked = [0usize; MAX_MEN];
    let mut count = 0;
    for i in (0..n).filter(|&i| pick(i)) {
        picked[count] = i;
        count += 1;
    }
    (picked, count)
}

/// The moves for a man on `now` to stand on `target` (as its form), on an empty board.
#[inline(always)]
fn cost(t: &Tables, color: usize, now: Spot, target: Spot) -> u32 {
    if now.form == Form::Pawn {
        t.pawn[color][now.sq as usize][target.form as usize][target.sq as usize] as u32
    } else if now.form == target.form {
        t.dist[now.form as usize][now.sq as usize][target.sq as usize] as u32
    } else {
        INF as u32
    }
}

/// The walks of a man on `now` to each square as `form` (`cost` to each), if it may take it.
#[inline]
fn walks(t: &Tables, color: usize, now: Spot, form: Form) -> Option<&[u8; 64]> {
    if now.form == Form::Pawn {
        Some(&t.pawn[color][now.sq as usize][form as usize])
    } else {
        (now.form == form).then(|| &t.dist[form as usize][now.sq as usize])
    }
}

/// Whether the squares of `open`, each held by a man of its own, may be held in `moves`: the
/// nearest of the men on `free` to each (in any form) walks there within them all told.
fn may_hold(
    t: &Tables,
    color: usize,
    free: impl Iterator<Item = Spot> + Clone,
    open: u64,
    moves: u32,
) -> bool {
    let mut least = 0;
    for q in bits(open) {
        least += free
            .clone()
            .map(|now| walk_to(t, color, now, q))
            .min()
            .unwrap_or(INF) as u32;
        if least > moves {
            return false;
        }
    }
    true
}

/// The moves for a man on `now` to stand on `q` in any form, on an empty board.
#[inline]
fn walk_to(t: &Tables, color: usize, now: Spot, q: usize) -> u8 {
    match now.form {
        Form::Pawn => t.pawn_any[color][now.sq as usize][q],
        form => t.dist[form as usize][now.sq as usize][q],
    }
}

/// Calls `f` with each spot of `open` a man on `now` may stand on (in each form it may take)
/// within `moves`, and the moves to it: one row of walks a form, not a look-up a square. (A
/// loop, not an iterator: the listings ask it at most of their steps, and the nested
/// iterator's bookkeeping took some 8% of hpint#34's instructions.)
#[inline]
fn each_spot_within(
    t: &Tables,
    color: usize,
    now: Spot,
    open: u64,
    moves: u32,
    mut f: impl FnMut(Spot, u32),
) {
    for &form in forms(now.form) {
        if let Some(row) = walks(t, color, now, form) {
            for sq in bits(open & within(row, moves)) {
                f(Spot { form, sq: sq as u8 }, row[sq] as u32);
            }
        }
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
    ) -> Option<(Targets, Men)> {
        let color = pos.side_to_move();
        if moves > MAX_SERIES || pos.can_castle(color, false) || pos.can_castle(color, true) {
            return None;
        }
        let men = Men::of(pos, color);
        if pos.pieces(color).len() as usize != men.n {
            return None;
        }
        // The king's squares are handed out one by one; the steps are counted in all (near the
        // limit, whether the listing is given up may depend on the threads' timing: the
        // solutions never do).
        let threads = threads.clamp(1, 8);
        let spent = AtomicU64::new(0);
        let make = || {
            let mut g = Generator::new(tables(), pos, &men, moves);
            g.spent = Some(&spent);
            g
        };
        let parts = by_king_square(
            threads,
            men.spots[0].sq,
            make,
            |g: &mut Generator, squares| {
                g.king_squares = squares;
                g.place_next(0);
                !g.overflow
            },
        );
        let steps: u64 = parts.iter().map(|g| g.steps).sum();
        let mut out = TargetSet::default();
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
        now: &Men,
        k: u32,
        out: &mut Vec<u16>,
    ) {
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
        keep_in_reach(from, self.finals.len(), in_reach, out);
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
    men: &'a Men,
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
    /// The squares between the men immobile by a pin and their king: no man of theirs may end
    /// there (a placement there is given up at once, not at the end).
    pin_lines: u64,
    captured: bool,
    king: usize,
    /// The squares the king may be given (the one handed to this thread).
    king_squares: u64,
    steps: u64,
    /// The steps of all threads, added to every `STEPS_SHARED` steps.
    spent: Option<&'a AtomicU64>,
    overflow: bool,
    out: TargetSet<[Spot; MAX_MEN]>,
}

impl<'a> Generator<'a> {
    fn new(t: &'a Tables, pos: &Position, men: &'a Men, moves: u32) -> Generator<'a> {
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
            pin_lines: 0,
            captured: false,
            king: 0,
            king_squares: !0,
            steps: 0,
            spent: None,
            overflow: false,
            out: TargetSet::default(),
        }
    }

    fn forms(&self, i: usize) -> &'static [Form] {
        forms(self.men.spots[i].form)
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
            if all > MAX_SERIES_STEPS {
                self.overflow = true;
            }
        }
        if self.out.len() > MAX_TARGETS {
            self.overflow = true;
        }
        if self.overflow {
            return;
        }
        let (free, n_free) = men_where(self.men.n, |i| self.placed[i].is_none());
        let free = &free[..n_free];
        let open = self.need & !self.held;
        if open.count_ones() as usize > free.len() {
            return;
        }
        let free_spots = free.iter().map(|&i| self.men.spots[i]);
        if !may_hold(self.t, self.color, free_spots, open, self.moves - used) {
            return;
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
        let now = self.men.spots[i];
        let open = allowed & !(self.held | self.pin_lines);
        each_spot_within(
            self.t,
            self.color,
            now,
            open,
            self.moves - used,
            |spot, c| self.place(i, spot, used + c),
        );
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
        if self.pin_lines & bit != 0 {
            return;
        }
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
        // Held by its own men: only if enough are left to place (as `place_next` asks first;
        // most spots of an officer fail it).
        let unplaced = self.men.n as u32 - self.held.count_ones();
        if ((saved_need | needs) & !self.held).count_ones() <= unplaced {
            self.need |= needs;
            self.place_next(used);
            self.need = saved_need;
        }
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
            let line_open = between(k, sq);
            if pinnable(spot.form, line) && line_open & self.held == 0 {
                let saved = self.pin_lines;
                self.pin_lines |= line_open;
                let now = self
                    .their
                    .iter()
                    .any(|m| m.line[line] && beyond >> m.sq & 1 == 1);
                if now {
                    self.place_next(used);
                } else {
                    self.with_last(|m| m.line_after[line] & beyond, used);
                }
                self.pin_lines = saved;
            }
        }
        // Captured by the last move.
        if !self.captured {
            self.captured = true;
            self.with_last(|m| m.capture & bit, used);
            self.captured = false;
        }
    }

    /// Every man is placed (none in the way of a pin, `pin_lines`): a target.
    fn finish(&mut self) {
        let mut f = [Spot::NONE; MAX_MEN];
        for (slot, p) in f.iter_mut().zip(&self.placed[..self.men.n]) {
            *slot = p.expect("every man is placed");
        }
        self.out.insert(f);
    }
}

/// A man of the other side a help target leaves free (it may end anywhere).
const FREE: Spot = Spot {
    form: Form::Pawn,
    sq: u8::MAX,
};

/// A man a help target has captured.
const CAPTURED: Spot = Spot {
    form: Form::King,
    sq: u8::MAX,
};

/// One final position of help play: each man of the stalemated side on its square (or
/// captured), the men of the other side its stalemate uses on theirs (the rest free). In a
/// help mate only the mated king and the men that block its flights are placed, the rest of
/// its side free too.
#[derive(Clone, Copy, PartialEq, Eq)]
struct HelpTarget {
    ours: [Spot; MAX_MEN],
    theirs: [Spot; MAX_MEN],
}

impl HelpTarget {
    /// The order of a listing's targets, whatever the threads' timing: by the men's squares,
    /// ours then theirs, then by their forms (16 bytes each, read as numbers).
    fn order(&self) -> (u128, u128, u128, u128) {
        let bytes = |spots: [Spot; MAX_MEN], f: fn(Spot) -> u8| u128::from_be_bytes(spots.map(f));
        (
            bytes(self.ours, |s| s.sq),
            bytes(self.theirs, |s| s.sq),
            bytes(self.ours, |s| s.form as u8),
            bytes(self.theirs, |s| s.form as u8),
        )
    }
}

/// A sample of the help targets the threads of one listing have found, as marks in a bitmap
/// (by hash), so that the listing gives up at about the same number of distinct targets on any
/// number of threads: counted per thread, the targets two threads both find were counted twice,
/// and a listing that was to give up walked on until the threads' counts reached a quarter more
/// (intell#53a h#3, 23,379 targets against a cap of 20,000: on two threads it was walked to the
/// end, sorted and merged before it gave up, 9 ms against 7 on one thread). One target in
/// `1 << SEEN_SAMPLE` is marked: marking every one, the threads took the bitmap's cache lines
/// from each other at every target.
struct SeenTargets {
    marks: Vec<AtomicU64>,
}

/// log2 of `SeenTargets`' marks (8 KiB).
const SEEN_BITS: u32 = 16;
/// log2 of the targets per target marked.
const SEEN_SAMPLE: u32 = 3;

impl SeenTargets {
    fn new() -> SeenTargets {
        SeenTargets {
            marks: (0..1 << (SEEN_BITS - 6))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// Marks `target` if it is in the sample; true when its mark was not yet set.
    fn mark(&self, target: &HelpTarget) -> bool {
        let h = BuildHasherDefault::<SquareHasher>::default().hash_one(target);
        if h >> (64 - SEEN_SAMPLE) != 0 {
            return false;
        }
        let h = h >> (64 - SEEN_SAMPLE - SEEN_BITS) & ((1 << SEEN_BITS) - 1);
        let bit = 1u64 << (h & 63);
        self.marks[(h >> 6) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// The marks that `n` distinct targets set, on average: `n` in `1 << SEEN_SAMPLE` are
    /// marked, and two may share a mark (the expected count of set bits, `m (1 - e^(-k/m))`
    /// for `k` marked).
    fn marks_for(&self, n: usize) -> u64 {
        let m = (1u64 << SEEN_BITS) as f64;
        let k = (n >> SEEN_SAMPLE) as f64;
        (m * (1.0 - (-k / m).exp())) as u64
    }
}

/// Two lists sorted by `key` (each without repeats) merged into one, sorted, each element once.
fn merge_sorted<T, K: Ord>(a: Vec<T>, b: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match key(x).cmp(&key(y)) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    b.next();
                    a.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        };
        match next {
            Some(t) => out.push(t),
            None => return out,
        }
    }
}

// Hashed four spots to a word: a listing hashes every target it finds (the derived hash takes
// each of its 64 bytes one by one).
impl std::hash::Hash for HelpTarget {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for spots in [&self.ours, &self.theirs] {
            for four in spots.chunks_exact(4) {
                let word = four
                    .iter()
                    .fold(0u64, |w, s| w << 16 | (s.form as u64) << 8 | s.sq as u64);
                h.write_u64(word);
            }
        }
    }
}

/// The final positions a help stalemate may end in (see the module's doc for series play):
/// every man of the stalemated side ends immobile or is captured; the other side's men that
/// guard a flight, pin a man or block a pawn are placed, their walks charged to its moves.
/// Or those of a help mate: the king in check from a man placed for it, each flight blocked
/// by a man of its side or guarded.
pub(in crate::solve) struct HelpTargets {
    targets: Vec<HelpTarget>,
    /// The same spots man by man: man `j`'s spot in target `i` at `j * len + i`, of the
    /// stalemated side and of the other. A move moves one man: narrowing after it reads two
    /// bytes a target, not the target's whole line (hpint#60 h=7: 108M targets narrowed).
    ours_by_man: Vec<Spot>,
    theirs_by_man: Vec<Spot>,
    /// The castling slack of the mated side and of the other (`castling_slack`).
    slack: (u32, u32),
    /// The targets in reach from the diagram with any moves (up to `DIAGRAM_MOVES`), with what
    /// they take from there: each length of the search keeps those it has the moves for
    /// (`in_reach_from_diagram`), instead of costing every target anew.
    diagram: Vec<LiveTarget>,
}

/// The moves of each side up to which `HelpTargets::diagram` keeps targets (more than any
/// length searched with targets, and the sums still fit a byte).
const DIAGRAM_MOVES: u32 = 200;

impl HelpTargets {
    /// The targets of a help stalemate of `mated` from `pos`, with `m` moves of its side and
    /// `a` of the other (the last); none when there are too many. With
    /// both sides' men in the diagram.
    pub(in crate::solve) fn stalemate(
        pos: &Position,
        mated: Color,
        moves: (u32, u32),
        threads: usize,
    ) -> Option<(HelpTargets, Men, Men)> {
        Self::list(pos, mated, moves, threads, false)
    }

    /// The targets of a help mate of `mated` from `pos`, as `stalemate`'s.
    pub(in crate::solve) fn mate(
        pos: &Position,
        mated: Color,
        moves: (u32, u32),
        threads: usize,
    ) -> Option<(HelpTargets, Men, Men)> {
        Self::list(pos, mated, moves, threads, true)
    }

    fn list(
        pos: &Position,
        mated: Color,
        (m, a): (u32, u32),
        threads: usize,
        mate: bool,
    ) -> Option<(HelpTargets, Men, Men)> {
        let max = if m + a <= SHORT_HELP_PLIES {
            (MAX_SHORT_HELP_TARGETS, MAX_SHORT_HELP_STEPS)
        } else {
            (MAX_TARGETS, MAX_HELP_STEPS)
        };
        Self::list_within(pos, mated, (m, a), threads, mate, max)
    }

    /// `list`, given up after `max`: this many targets, or this many steps of all threads.
    fn list_within(
        pos: &Position,
        mated: Color,
        (m, a): (u32, u32),
        threads: usize,
        mate: bool,
        max: (usize, u64),
    ) -> Option<(HelpTargets, Men, Men)> {
        let ours = Men::of(pos, mated);
        let theirs = Men::of(pos, !mated);
        let slack = (castling_slack(pos, mated), castling_slack(pos, !mated));
        if pos.pieces(!mated).len() as usize != theirs.n
            || pos.pieces(mated).len() as usize != ours.n
        {
            return None;
        }
        let (spent, found) = (AtomicU64::new(0), AtomicU64::new(0));
        let seen = (threads > 1).then(SeenTargets::new);
        let their_rows = their_rows(&theirs, a + slack.1);
        let make = || HelpGen {
            t: tables(),
            ours: &ours,
            theirs: &theirs,
            m: m + slack.0,
            a: a + slack.1,
            captures: a,
            mate,
            placed: [None; MAX_MEN],
            placed_men: 0,
            captured: 0,
            used: 0,
            held: 0,
            need: 0,
            flight_walks: 0,
            their_placed: [None; MAX_MEN],
            their_squares: 0,
            their_used: 0,
            pin_lines: 0,
            king: 0,
            their_rows: &their_rows,
            units: None,
            steps: 0,
            spent: (&spent, &found),
            reported: 0,
            seen: None,
            first_seen: 0,
            max,
            overflow: false,
            out: TargetSet::default(),
        };
        // Every thread walks the whole enumeration and lists the units it claims (`Units`).
        let next_unit = AtomicUsize::new(0);
        // Each thread sorts what it found, then the threads' lists are merged.
        let parts = on_threads(threads, || {
            let mut g = make();
            g.seen = seen.as_ref();
            if threads > 1 {
                g.units = Some(Units {
                    next: &next_unit,
                    claimed: next_unit.fetch_add(UNIT_CHUNK, Ordering::Relaxed),
                    met: 0,
                    inside: false,
                    dealt: 0,
                });
            }
            g.next();
            let mut found = Vec::new();
            if !g.overflow {
                found.extend(g.out.drain());
                found.sort_by_cached_key(HelpTarget::order);
            }
            (g.steps, g.overflow, found)
        });
        let steps: u64 = parts.iter().map(|p| p.0).sum();
        let overflow = parts.iter().any(|p| p.1);
        tracing::debug!(steps, overflow, "help targets enumerated");
        if overflow {
            return None;
        }
        // Two threads' units may end in the same target: it is kept once.
        let targets = parts
            .into_iter()
            .map(|p| p.2)
            .reduce(|a, b| merge_sorted(a, b, HelpTarget::order))
            .unwrap_or_default();
        if targets.len() > max.0 {
            tracing::debug!(targets = targets.len(), "help targets too many");
            return None;
        }
        // In one pass over the targets, writing a column per man (of the side's men only).
        let by_man = |side: fn(&HelpTarget) -> &[Spot; MAX_MEN], men: usize| {
            let n = targets.len();
            let mut out = vec![Spot::NONE; men * n];
            for (i, t) in targets.iter().enumerate() {
                for (j, &s) in side(t)[..men].iter().enumerate() {
                    out[j * n + i] = s;
                }
            }
            out
        };
        let ours_by_man = by_man(|t| &t.ours, ours.n);
        let theirs_by_man = by_man(|t| &t.theirs, theirs.n);
        let mut help = HelpTargets {
            targets,
            ours_by_man,
            theirs_by_man,
            slack,
            diagram: Vec::new(),
        };
        let mut diagram = Vec::new();
        let men = (ours, theirs);
        help.narrow(
            None,
            &men,
            false,
            (DIAGRAM_MOVES, DIAGRAM_MOVES),
            &mut diagram,
        );
        help.diagram = diagram;
        Some((help, ours, theirs))
    }

    /// Into `out`, the targets in reach from the diagram with `m_left` moves of the stalemated
    /// (mated) side and `a_left` of the other (as `narrow` from all, with the diagram's men).
    pub(in crate::solve) fn in_reach_from_diagram(
        &self,
        left: (u32, u32),
        out: &mut Vec<LiveTarget>,
    ) {
        let most = self.most(left);
        out.clear();
        out.extend(self.diagram.iter().copied().filter(|live| {
            fits(
                (live.walks as u32, live.owed as u32, live.theirs as u32),
                most,
            )
        }));
    }

    pub(in crate::solve) fn len(&self) -> usize {
        self.targets.len()
    }

    /// Into `out`, the targets still in reach with `ours` and `theirs` the two sides' men,
    /// `m_left` moves of the stalemated side and `a_left` of the other: of all, or of `from`,
    /// the targets kept at the position before with its men. A target out of reach stays so (a
    /// move shortens one walk, or one list of captures owed, by one at most). From `from` only
    /// the men the move changed are costed anew: a move changes one or two of thirty.
    /// `one_move`: `now` is `from`'s men after one move (`Men::after`), which know the men it
    /// changed; otherwise they are found by comparing.
    pub(in crate::solve) fn narrow(
        &self,
        from: Option<(&[LiveTarget], &(Men, Men))>,
        now: &(Men, Men),
        one_move: bool,
        left: (u32, u32),
        out: &mut Vec<LiveTarget>,
    ) {
        out.clear();
        self.each_in_reach(from, now, one_move, left, |live| {
            out.push(live);
            false
        });
    }

    /// Whether any target of `from` is still in reach with the men `now` (as `narrow`, but
    /// stopping at the first): a move after which none is need not even be played. `now`: the
    /// men of `from` after that move (`Men::after`).
    pub(in crate::solve) fn any_in_reach(
        &self,
        from: (&[LiveTarget], &(Men, Men)),
        now: &(Men, Men),
        left: (u32, u32),
    ) -> bool {
        self.each_in_reach(Some(from), now, true, left, |_| true)
    }

    /// The squares to which the man on `from` (of the side to move, `mover`) may move quietly
    /// and keep some target of `list` in reach (as `any_in_reach` after each such move), found
    /// in one pass over the targets for all its moves; `None` for a pawn, whose walks are not
    /// the same both ways. `left`: the moves of each side after the move.
    pub(in crate::solve) fn quiet_destinations(
        &self,
        (list, (ours, theirs)): (&[LiveTarget], &(Men, Men)),
        mover: Color,
        from: u8,
        (m_left, a_left): (u32, u32),
    ) -> Option<u64> {
        let t = tables();
        let (walks_max, owed_max, theirs_max) = self.most((m_left, a_left));
        let ours_moves = mover == ours.color;
        let men = if ours_moves { ours } else { theirs };
        let j = (0..men.n).find(|&j| men.alive(j) && men.spots[j].sq == from)?;
        let spots = self.spots_of(ours_moves, j);
        let form = men.spots[j].form;
        if form == Form::Pawn {
            return None;
        }
        // Its walks from where it stands, to each square (in its form).
        let walks_now = &t.dist[form as usize][from as usize];
        // Per number of moves to spare: the target squares already taken in.
        let mut seen = [0u64; BUDGETS];
        let mut dest = 0u64;
        for live in list {
            let (walks, owed, their_walks) =
                (live.walks as u32, live.owed as u32, live.theirs as u32);
            // A quiet move changes neither side's captures, nor the other side's walks.
            if owed > owed_max || (ours_moves && their_walks > theirs_max) {
                continue;
            }
            if !ours_moves && walks > walks_max {
                continue;
            }
            let (spot, sum, max) = if ours_moves {
                (spots[live.i as usize], walks, walks_max)
            } else {
                (spots[live.i as usize], their_walks, theirs_max)
            };
            if spot == FREE || (ours_moves && spot == CAPTURED) {
                // Its part costs the same wherever it goes.
                if sum <= max {
                    return Some(u64::MAX);
                }
                continue;
            }
            // Only a spot of its own form is in reach for it.
            if spot.form != form || spot.sq == u8::MAX {
                continue;
            }
            // Its walk from its new square may take what the others leave of `max`.
            let walk = walks_now[spot.sq as usize] as u32;
            let Some(budget) = (max + walk).checked_sub(sum) else {
                continue;
            };
            let budget = budget.min(BUDGETS as u32 - 1) as usize;
            let bit = 1u64 << spot.sq;
            if seen[budget] & bit == 0 {
                seen[budget] |= bit;
                // Empty-board walks of officers and kings are the same both ways.
                dest |= within(&t.dist[form as usize][spot.sq as usize], budget as u32);
            }
        }
        Some(dest)
    }

    /// The men of `mover` whose moves may keep some target of `list` in reach (as
    /// `any_in_reach`); `None` when any move may. `left`: the moves of each side after the
    /// move. A move shortens one man's walk by one at most: when no target has a move of
    /// `mover` to spare, only a man it places off its square can keep it; a target owing the
    /// other side a capture now, only a capture. Most positions at the last plies are so: the
    /// other men's moves need not even be listed.
    pub(in crate::solve) fn movers(
        &self,
        (list, (ours, theirs)): (&[LiveTarget], &(Men, Men)),
        mover: Color,
        (m_left, a_left): (u32, u32),
    ) -> Option<Movers> {
        let ours_moves = mover == ours.color;
        // Castling moves two men at once: not narrowed.
        let slack = if ours_moves {
            self.slack.0
        } else {
            self.slack.1
        };
        if slack > 0 {
            return None;
        }
        let t = tables();
        let (walks_max, owed_max, theirs_max) = self.most((m_left, a_left));
        let men = if ours_moves { ours } else { theirs };
        let mut movers = Movers {
            men: 0,
            captures: false,
        };
        // Once every man may be the one to move (one bit each, on its square), any move may
        // keep a target.
        let everyone = (men.alive as u32 & ((1 << men.n) - 1)).count_ones();
        for live in list {
            let (walks, owed, their_walks) =
                (live.walks as u32, live.owed as u32, live.theirs as u32);
            // The mover's walks and their most; whether a capture must pay one owed now (only
            // the other side captures the stalemated side's men); whether the rest fits.
            let (sum, max, must_capture, rest_fits) = if ours_moves {
                let rest = owed <= owed_max && their_walks <= theirs_max;
                (walks, walks_max, false, rest)
            } else {
                let rest = owed <= owed_max + 1 && walks <= walks_max;
                (their_walks, theirs_max, owed > owed_max, rest)
            };
            if !rest_fits || sum > max + 1 {
                continue;
            }
            // Only a capture keeps a target owing one now (by one of the men below if it has
            // no move to spare: all captures are listed then, as they are few).
            if must_capture {
                movers.captures = true;
                continue;
            }
            if sum <= max {
                return None;
            }
            let target = &self.targets[live.i as usize];
            let spots = if ours_moves {
                &target.ours
            } else {
                &target.theirs
            };
            for (j, (&now, &s)) in men.spots[..men.n].iter().zip(spots).enumerate() {
                // Not known to move yet, placed (neither free nor captured), and not there yet.
                if movers.men >> now.sq & 1 == 0
                    && s.sq != u8::MAX
                    && men.alive(j)
                    && cost(t, men.color.index(), now, s) > 0
                {
                    movers.men |= 1 << now.sq;
                }
            }
            if movers.men.count_ones() == everyone {
                return None;
            }
        }
        Some(movers)
    }

    /// The most a target kept in reach may take with `m_left` moves of the stalemated (mated)
    /// side and `a_left` of the other: that side's walks, the captures it is owed, the other
    /// side's walks (castling lets a side's walks take up to its slack more).
    #[inline]
    fn most(&self, (m_left, a_left): (u32, u32)) -> (u32, u32, u32) {
        (m_left + self.slack.0, a_left, a_left + self.slack.1)
    }

    /// Man `j`'s spots in the targets (by index), of the stalemated side (`ours`) or of the
    /// other.
    #[inline]
    fn spots_of(&self, ours: bool, j: usize) -> &[Spot] {
        let by_man = if ours {
            &self.ours_by_man
        } else {
            &self.theirs_by_man
        };
        let n = self.targets.len();
        &by_man[j * n..(j + 1) * n]
    }

    /// Calls `f` with each target in reach (see `narrow`) until it returns true; whether it did.
    #[inline]
    fn each_in_reach(
        &self,
        from: Option<(&[LiveTarget], &(Men, Men))>,
        (ours, theirs): &(Men, Men),
        one_move: bool,
        (m_left, a_left): (u32, u32),
        mut f: impl FnMut(LiveTarget) -> bool,
    ) -> bool {
        let t = tables();
        let (walks_max, owed_max, theirs_max) = self.most((m_left, a_left));
        let kept = |i: u16, (walks, owed, theirs_walk): (u32, u32, u32)| {
            fits(
                (walks, owed, theirs_walk),
                (walks_max, owed_max, theirs_max),
            )
            .then_some(LiveTarget {
                i,
                walks: walks as u8,
                owed: owed as u8,
                theirs: theirs_walk as u8,
            })
        };
        let Some((list, (ours_before, theirs_before))) = from else {
            for (i, target) in self.targets.iter().enumerate() {
                let mut sums = (0, 0, 0);
                let all = (0..ours.n).try_for_each(|j| {
                    let (w, o) = our_part(t, ours, j, target.ours[j])?;
                    sums.0 += w;
                    sums.1 += o;
                    Some(())
                });
                let all = all.and_then(|()| {
                    (0..theirs.n).try_for_each(|j| {
                        sums.2 += their_part(t, theirs, j, target.theirs[j])?;
                        Some(())
                    })
                });
                if let Some(live) = all.and_then(|()| kept(i as u16, sums)) {
                    if f(live) {
                        return true;
                    }
                }
            }
            return false;
        };
        let (ours_moved, theirs_moved) = if one_move {
            (ours.moved as u32, theirs.moved as u32)
        } else {
            (changed(ours_before, ours), changed(theirs_before, theirs))
        };
        // (Man j of one side and man j of the other are two men.)
        if ours_moved.count_ones() + theirs_moved.count_ones() == 1 {
            let mine = ours_moved != 0;
            let (j, before, now) = if mine {
                (ours_moved.trailing_zeros() as usize, ours_before, ours)
            } else {
                (
                    theirs_moved.trailing_zeros() as usize,
                    theirs_before,
                    theirs,
                )
            };
            let unchanged = |_: u16| Some(0);
            if let Some(found) =
                self.one_moved(list, (mine, j), (before, now), unchanged, &kept, &mut f)
            {
                return found;
            }
        }
        // A capture: a man of one side moved and took one of the other (as above, the taken
        // man's spot in each target read in its column, not the target's whole line).
        if ours_moved.count_ones() == 1 && theirs_moved.count_ones() == 1 {
            let (o, h) = (
                ours_moved.trailing_zeros() as usize,
                theirs_moved.trailing_zeros() as usize,
            );
            // The taker, man `j` (of the stalemated side if `mine`), and the man `v` it took.
            let mine = ours.alive(o);
            let (j, v) = if mine { (o, h) } else { (h, o) };
            let (taker_before, taker, taken_before, taken) = if mine {
                (ours_before, ours, theirs_before, theirs)
            } else {
                (theirs_before, theirs, ours_before, ours)
            };
            if taker.alive(j) && !taken.alive(v) && taken_before.alive(v) {
                let spots = self.spots_of(!mine, v);
                // A target leaving the taken man free costs the same; one owing its capture
                // (of the stalemated side's) owes one fewer; any other is out of reach.
                let taken_part = |i: u16| {
                    let s = spots[i as usize];
                    if s == FREE {
                        Some(0)
                    } else {
                        (!mine && s == CAPTURED).then_some(1)
                    }
                };
                if let Some(found) = self.one_moved(
                    list,
                    (mine, j),
                    (taker_before, taker),
                    taken_part,
                    &kept,
                    &mut f,
                ) {
                    return found;
                }
            }
        }
        for live in list {
            let target = &self.targets[live.i as usize];
            let mut sums = (live.walks as u32, live.owed as u32, live.theirs as u32);
            let all = men_in(ours_moved).try_for_each(|j| {
                let s = target.ours[j];
                let (w, o) = our_part(t, ours, j, s)?;
                // In reach before, so finite then.
                let (w0, o0) = our_part(t, ours_before, j, s)?;
                sums.0 = sums.0 + w - w0;
                sums.1 = sums.1 + o - o0;
                Some(())
            });
            let all = all.and_then(|()| {
                men_in(theirs_moved).try_for_each(|j| {
                    let s = target.theirs[j];
                    sums.2 =
                        sums.2 + their_part(t, theirs, j, s)? - their_part(t, theirs_before, j, s)?;
                    Some(())
                })
            });
            if let Some(live) = all.and_then(|()| kept(live.i, sums)) {
                if f(live) {
                    return true;
                }
            }
        }
        false
    }

    /// `each_in_reach` when one man has moved, man `j` of the stalemated side (`mine`) or
    /// of the other, and still stands: most moves, which capture nothing (a capture too,
    /// with `taken`; a promotion too). Only its walks are costed again, without
    /// `each_in_reach`'s general case per target. `taken`: for a capture, the captures target
    /// `i` owed that it took (`None`: the target is now out of reach).
    #[inline(always)]
    fn one_moved(
        &self,
        list: &[LiveTarget],
        (mine, j): (bool, usize),
        (before, now): (&Men, &Men),
        taken: impl Fn(u16) -> Option<u32>,
        kept: &impl Fn(u16, (u32, u32, u32)) -> Option<LiveTarget>,
        f: &mut impl FnMut(LiveTarget) -> bool,
    ) -> Option<bool> {
        let t = tables();
        let (was, is) = (before.spots[j], now.spots[j]);
        if !before.alive(j) || !now.alive(j) {
            return None;
        }
        let color = now.color.index();
        let spots = self.spots_of(mine, j);
        if is.form != Form::Pawn && is.form == was.form {
            // An officer or king: every spot in reach before is of its own form, and its walks
            // to them are two rows of the table, looked up once.
            let (row_is, row_was) = (
                &t.dist[is.form as usize][is.sq as usize],
                &t.dist[is.form as usize][was.sq as usize],
            );
            let costs = |s: Spot| -> Option<(u32, u32)> {
                let a = row_is[s.sq as usize] as u32;
                (a < INF as u32).then(|| (a, row_was[s.sq as usize] as u32))
            };
            return Some(each_shifted(list, spots, mine, costs, taken, kept, f));
        }
        // A pawn, or one that has just promoted: the walk now and before to the man's spot in
        // a target, `None` when now out of reach. In reach before, so its form is one the man
        // may take (and the promoted man's now, if it is the form it took).
        let costs = |s: Spot| -> Option<(u32, u32)> {
            let a = cost(t, color, is, s);
            (a < INF as u32).then(|| (a, cost(t, color, was, s)))
        };
        Some(each_shifted(list, spots, mine, costs, taken, kept, f))
    }
}

/// `HelpTargets::one_moved`'s pass over `list`, with `spots` the moved man's spots in the
/// targets (of the stalemated side: `mine`), `costs` its walks now and before to one
/// (`None` when now out of reach) and `taken` the captures paid (`one_moved`): calls `f` with
/// each target kept until it returns true; whether it did.
#[inline(always)]
fn each_shifted(
    list: &[LiveTarget],
    spots: &[Spot],
    mine: bool,
    costs: impl Fn(Spot) -> Option<(u32, u32)>,
    taken: impl Fn(u16) -> Option<u32>,
    kept: &impl Fn(u16, (u32, u32, u32)) -> Option<LiveTarget>,
    f: &mut impl FnMut(LiveTarget) -> bool,
) -> bool {
    for live in list {
        let Some(paid) = taken(live.i) else {
            continue;
        };
        let s = spots[live.i as usize];
        let mut sums = (
            live.walks as u32,
            live.owed as u32 - paid,
            live.theirs as u32,
        );
        // Free or captured (the man stands, so it owes the same capture): unchanged.
        if s.sq != u8::MAX {
            let Some((a, b)) = costs(s) else {
                continue;
            };
            if mine {
                sums.0 = sums.0 + a - b;
            } else {
                sums.2 = sums.2 + a - b;
            }
        }
        if let Some(live) = kept(live.i, sums) {
            if f(live) {
                return true;
            }
        }
    }
    false
}

/// One thread's share of a help listing shared out below the king's squares: the units are
/// the ways the king's first `UNIT_FLIGHTS` flights (all, if fewer) are dealt with, numbered
/// in the order every thread meets them. A thread claims `UNIT_CHUNK` units at a time from
/// `next`, lists them, and walks past the others (units a thread meets before its claim are
/// another's).
/// A king's square can hold most of a listing (hpint#31 h=5: 22 of 37 ms); its units spread
/// it over the threads, and the walk past them repeats only the first flights.
struct Units<'a> {
    next: &'a AtomicUsize,
    /// The first of the units claimed.
    claimed: usize,
    met: usize,
    /// Listing a unit (its flights and men below are not shared out further).
    inside: bool,
    /// Flights dealt with so far.
    dealt: u32,
}

/// See `Units`.
const UNIT_FLIGHTS: u32 = 2;

/// Units a thread claims at a time. A unit is some 20 to 50 steps (4,000 to 13,000 of them
/// in a listing of the bench): claimed one at a time, the threads took the claims' counter
/// from each other thousands of times a listing (over the bench's 29 help listings on two
/// threads, claiming 32 at a time took 7% less time; 128 and more left one thread with the
/// last large units).
const UNIT_CHUNK: usize = 32;

/// Budgets of moves `quiet_destinations` tells apart (more is as good as any).
const BUDGETS: usize = 16;

/// A help target still in reach: its index, and the moves its walks and the captures it owes
/// take from the position it was kept at (`HelpTargets::narrow`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::solve) struct LiveTarget {
    i: u16,
    walks: u8,
    owed: u8,
    theirs: u8,
}

/// The moves that may keep a target in reach (`HelpTargets::movers`): those of the men on the
/// squares `men`, and the captures of any man when `captures`.
#[derive(Clone, Copy, Debug)]
pub(in crate::solve) struct Movers {
    pub men: u64,
    pub captures: bool,
}

#[cfg(test)]
impl Movers {
    /// Whether `mv` is one of them.
    fn allow(&self, mv: &Move) -> bool {
        self.men >> mv.from().index() & 1 == 1 || (self.captures && mv.is_capture())
    }
}

/// The squares each of `men` may reach in each form within each number of moves up to `a`: at
/// `(g * FORMS.len() + form) * (a + 1) + moves` (`HelpGen::their_reach`, asked for every flight of
/// every king square listed).
fn their_rows(men: &Men, a: u32) -> Vec<u64> {
    let t = tables();
    let mut rows = Vec::with_capacity(men.n * FORMS.len() * (a as usize + 1));
    for &now in &men.spots[..men.n] {
        for form in FORMS {
            // A pawn never becomes a king (nor has walks as one).
            let walks = (form != Form::King || now.form == Form::King)
                .then(|| walks(t, men.color.index(), now, form))
                .flatten();
            rows.extend((0..=a).map(|moves| walks.map_or(0, |row| within(row, moves))));
        }
    }
    rows
}

/// Whether a target taking `(walks, owed, theirs)` is in reach with at most `most` of each
/// (`HelpTargets::most`).
#[inline]
fn fits((walks, owed, theirs): (u32, u32, u32), most: (u32, u32, u32)) -> bool {
    walks <= most.0 && owed <= most.1 && theirs <= most.2
}

/// What man `j` of the stalemated (mated) side costs a target placing it on `s`: moves of its
/// walk and captures owed; `None` when the target is out of reach for it (captured, or placed
/// out of reach).
#[inline]
fn our_part(t: &Tables, men: &Men, j: usize, s: Spot) -> Option<(u32, u32)> {
    if s == FREE {
        Some((0, 0))
    } else if s == CAPTURED {
        Some((0, men.alive(j) as u32))
    } else if !men.alive(j) {
        None
    } else {
        let c = cost(t, men.color.index(), men.spots[j], s);
        (c < INF as u32).then_some((c, 0))
    }
}

/// The same for a man of the other side: moves of its walk.
#[inline]
fn their_part(t: &Tables, men: &Men, j: usize, s: Spot) -> Option<u32> {
    if s == FREE {
        Some(0)
    } else if !men.alive(j) {
        None
    } else {
        let c = cost(t, men.color.index(), men.spots[j], s);
        (c < INF as u32).then_some(c)
    }
}

/// The men that stand elsewhere, or were captured, in `now` against `before` (bit `j` for
/// man `j`). Asked for every move tried against the targets: the spots are compared all at
/// once, not man by man with a branch each.
#[inline]
fn changed(before: &Men, now: &Men) -> u32 {
    let word = |s: &Spot| (s.form as u16) << 8 | s.sq as u16;
    let (a, b) = (before.spots.map(|s| word(&s)), now.spots.map(|s| word(&s)));
    let mut moved = (before.alive ^ now.alive) as u32;
    for j in 0..MAX_MEN {
        moved |= ((a[j] != b[j]) as u32) << j;
    }
    moved & ((1u32 << now.n) - 1)
}

/// The men of the bits of `men`, lowest first.
#[inline]
fn men_in(mut men: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let j = men.trailing_zeros() as usize;
        men &= men.wrapping_sub(1);
        (j < 32).then_some(j)
    })
}

/// The enumeration of help-play targets.
struct HelpGen<'a> {
    t: &'a Tables,
    ours: &'a Men,
    theirs: &'a Men,
    /// The moves of each side its men's walks may take (with the castling slack), and the
    /// captures the other side may make.
    m: u32,
    a: u32,
    captures: u32,
    /// A help mate's targets (else a stalemate's).
    mate: bool,
    /// The stalemated side: men placed, captured (bits), moves spent, squares held and to hold.
    placed: [Option<Spot>; MAX_MEN],
    /// The men placed (bits), and captured.
    placed_men: u16,
    captured: u16,
    used: u32,
    held: u64,
    need: u64,
    /// While the king's flights are dealt: the least moves its men take to hold those they
    /// hold (`may_hold` of them, kept as they are added).
    flight_walks: u32,
    /// The other side's men placed, their squares, their moves spent.
    their_placed: [Option<Spot>; MAX_MEN],
    their_squares: u64,
    their_used: u32,
    /// The squares between the men immobile by a pin and their king: no man of either side
    /// may end there (a placement there is given up at once, not at the end).
    pin_lines: u64,
    king: usize,
    /// `their_reach` for every man, form and budget up to `a` (see `their_rows`).
    their_rows: &'a [u64],
    /// With more than one thread: this thread's share of the listing.
    units: Option<Units<'a>>,
    steps: u64,
    /// The steps and targets of all threads, added to every `STEPS_SHARED` steps, and the
    /// targets of this thread added so far (with more than one thread, those it was the first
    /// to mark in `seen`).
    spent: (&'a AtomicU64, &'a AtomicU64),
    reported: usize,
    /// With more than one thread: the targets any thread has found, to count them once.
    seen: Option<&'a SeenTargets>,
    first_seen: usize,
    /// At most this many targets, and this many steps of all threads.
    max: (usize, u64),
    overflow: bool,
    out: TargetSet<HelpTarget>,
}

impl HelpGen<'_> {
    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps.is_multiple_of(STEPS_SHARED) {
            let (steps, found) = self.spent;
            if steps.fetch_add(STEPS_SHARED, Ordering::Relaxed) + STEPS_SHARED > self.max.1 {
                self.overflow = true;
            }
            // Two threads may list the same target (8 to 17% of them over hpint#31, #34 and
            // intell#81b): with `seen` each is counted by the first thread to find it.
            let (mine, cap) = match self.seen {
                Some(seen) => (self.first_seen, seen.marks_for(self.max.0)),
                None => (self.out.len(), self.max.0 as u64),
            };
            let new = (mine - self.reported) as u64;
            self.reported = mine;
            if found.fetch_add(new, Ordering::Relaxed) + new > cap {
                self.overflow = true;
            }
        }
        if self.out.len() > self.max.0 {
            self.overflow = true;
        }
        !self.overflow
    }

    /// The squares no man may end on now: those men stand on, and those in the way of a pin.
    #[inline]
    fn taken(&self) -> u64 {
        self.held | self.their_squares | self.pin_lines
    }

    /// The squares the other side's man `g` may reach as `form` in the moves it has left
    /// (where `place_theirs` may put it).
    fn their_reach(&self, g: usize, form: Form) -> u64 {
        let budget = (self.a - self.their_used) as usize;
        self.their_rows[(g * FORMS.len() + form as usize) * (self.a as usize + 1) + budget]
    }

    /// Places the other side's man `g` on `spot` (charged), then goes on with `then`.
    fn place_theirs(&mut self, g: usize, spot: Spot, then: &mut dyn FnMut(&mut Self)) {
        let c = cost(
            self.t,
            self.theirs.color.index(),
            self.theirs.spots[g],
            spot,
        );
        let bit = 1u64 << spot.sq;
        if self.their_used + c > self.a || self.taken() & bit != 0 {
            return;
        }
        self.their_placed[g] = Some(spot);
        self.their_squares |= bit;
        self.their_used += c;
        // A man needless now stays so whatever is placed after it.
        if !(self.mate && self.needless()) {
            then(self);
        }
        self.their_used -= c;
        self.their_squares &= !bit;
        self.their_placed[g] = None;
    }

    /// Some man of the other side ends on a square of `squares` as a form `fits` allows (one
    /// placed already, or one placed now), then `then`.
    fn use_theirs(
        &mut self,
        squares: u64,
        fits: &dyn Fn(Form) -> bool,
        then: &mut dyn FnMut(&mut Self),
    ) {
        let already = (0..self.theirs.n).any(|g| {
            self.their_placed[g].is_some_and(|s| squares >> s.sq & 1 == 1 && fits(s.form))
        });
        if already {
            then(self);
            return;
        }
        for g in 0..self.theirs.n {
            if self.their_placed[g].is_some() {
                continue;
            }
            for &form in forms(self.theirs.spots[g].form) {
                if !fits(form) {
                    continue;
                }
                let open = squares & !self.taken() & self.their_reach(g, form);
                for d in bits(open) {
                    self.place_theirs(g, Spot { form, sq: d as u8 }, then);
                    if self.overflow {
                        return;
                    }
                }
            }
        }
    }

    /// Goes on: the squares to hold first, then the men not placed (the king first).
    fn next(&mut self) {
        if !self.tick() {
            return;
        }
        let n = self.ours.n;
        let open = self.need & !self.held;
        let (free, n_free) = men_where(n, |i| {
            self.placed[i].is_none() && self.captured >> i & 1 == 0
        });
        let free = &free[..n_free];
        if open.count_ones() as usize > free.len() {
            return;
        }
        let color = self.ours.color.index();
        let free_spots = free
            .iter()
            .map(|&i| self.ours.spots[i])
            .filter(|now| now.form != Form::King);
        // (One square: the placements below ask it exactly.)
        if open.count_ones() > 1 && !may_hold(self.t, color, free_spots, open, self.m - self.used) {
            return;
        }
        if let Some(q) = bits(open).next() {
            for &i in free {
                if self.ours.spots[i].form == Form::King {
                    continue;
                }
                for &f in forms(self.ours.spots[i].form) {
                    let c = cost(
                        self.t,
                        color,
                        self.ours.spots[i],
                        Spot {
                            form: f,
                            sq: q as u8,
                        },
                    );
                    if self.used + c <= self.m {
                        self.place(
                            i,
                            Spot {
                                form: f,
                                sq: q as u8,
                            },
                            c,
                        );
                    }
                }
            }
            return;
        }
        // The king first (man 0), then the others in order (in a mate, they are free).
        let Some(&i) = free.first() else {
            self.finish();
            return;
        };
        let king = self.ours.spots[i].form == Form::King;
        if self.mate && !king {
            self.finish();
            return;
        }
        if !king && self.captured.count_ones() < self.captures {
            self.captured |= 1 << i;
            self.next();
            self.captured &= !(1 << i);
        }
        let open = !self.taken();
        let now = self.ours.spots[i];
        // The men left to place after this one, and where they stand now.
        let left = free.len() as u32 - 1;
        let standing = free[1..]
            .iter()
            .fold(0u64, |b, &j| b | 1 << self.ours.spots[j].sq);
        let moves = self.m - self.used;
        each_spot_within(self.t, color, now, open, moves, |spot, c| {
            let room = moves - c;
            if king
                || spot.form == Form::Pawn
                || self.officer_may_freeze(spot, (left, standing, room))
            {
                self.place(i, spot, c);
            }
        });
    }

    /// Whether an officer placed on `spot` may end frozen (`place_man`), with `left` men of
    /// its side to place after it, standing on `standing`, and `room` moves for them: its
    /// squares held by them (each one they do not stand on takes a move), or pinned. Most
    /// spots fail: they are not worth placing.
    #[inline]
    fn officer_may_freeze(&self, spot: Spot, (left, standing, room): (u32, u64, u32)) -> bool {
        let sq = spot.sq as usize;
        let open = (self.need | self.t.freeze[spot.form as usize][sq]) & !(self.held | 1 << sq);
        let held = open.count_ones() <= left && (open & !standing).count_ones() <= room;
        if held || spot.form == Form::Queen {
            return held;
        }
        let k = self.king;
        let line = usize::from(k % 8 == sq % 8 || k / 8 == sq / 8);
        pinnable(spot.form, line) && ray_beyond(k, sq) != 0
    }

    fn place(&mut self, i: usize, spot: Spot, c: u32) {
        let sq = spot.sq as usize;
        if self.pin_lines >> sq & 1 == 1 {
            return;
        }
        let saved_need = self.need;
        self.placed[i] = Some(spot);
        self.placed_men |= 1 << i;
        self.held |= 1 << sq;
        self.used += c;
        if spot.form == Form::King {
            self.king = sq;
            self.flight_walks = 0;
            if self.mate {
                self.check(sq);
            } else {
                self.flights(self.t.ring[sq]);
            }
        } else if self.mate {
            // A block of a flight: it may move no more than it needs to stay there.
            self.next();
        } else {
            self.place_man(spot);
        }
        self.used -= c;
        self.held &= !(1 << sq);
        self.need = saved_need;
        self.placed[i] = None;
        self.placed_men &= !(1 << i);
    }

    /// A man of the other side (not its king) placed to check the king on `k`, then the
    /// king's flights.
    fn check(&mut self, k: usize) {
        let color = self.theirs.color.index();
        for g in 0..self.theirs.n {
            for &form in forms(self.theirs.spots[g].form) {
                if form == Form::King {
                    continue;
                }
                let from = self.t.attackers[form as usize][color][k] & self.their_reach(g, form);
                for d in bits(from & !self.taken()) {
                    let ring = self.t.ring[k];
                    self.place_theirs(g, Spot { form, sq: d as u8 }, &mut |s| s.flights(ring));
                    if self.overflow {
                        return;
                    }
                }
            }
        }
    }

    /// The king's flights in `left`: each held by its side, or attacked by the other's. Shared
    /// out (`Units`): once the first `UNIT_FLIGHTS` flights are dealt with, only in the units
    /// this thread claims.
    fn flights(&mut self, left: u64) {
        if !self.tick() {
            return;
        }
        if let Some(u) = self.units.as_mut() {
            if !u.inside && (u.dealt == UNIT_FLIGHTS || left == 0) {
                let mine = u.met >= u.claimed;
                u.met += 1;
                if u.met == u.claimed + UNIT_CHUNK {
                    u.claimed = u.next.fetch_add(UNIT_CHUNK, Ordering::Relaxed);
                }
                if mine {
                    u.inside = true;
                    self.deal_flights(left);
                    if let Some(u) = self.units.as_mut() {
                        u.inside = false;
                    }
                }
                return;
            }
        }
        self.deal_flights(left);
    }

    /// `flights(rest)` one flight further on.
    fn further(&mut self, rest: u64) {
        if let Some(u) = self.units.as_mut() {
            u.dealt += 1;
        }
        self.flights(rest);
        if let Some(u) = self.units.as_mut() {
            u.dealt -= 1;
        }
    }

    /// Whether the king's men may hold the flight `f` besides those they hold already (each
    /// by a man of its own, the nearest walking there: `next`'s test): the least moves they
    /// then take, if within those left.
    fn may_hold_flight(&self, f: usize) -> Option<u32> {
        let color = self.ours.color.index();
        let (mut men, mut nearest) = (0u32, INF as u32);
        for i in 0..self.ours.n {
            let now = self.ours.spots[i];
            if (self.placed_men | self.captured) >> i & 1 == 1 || now.form == Form::King {
                continue;
            }
            men += 1;
            nearest = nearest.min(walk_to(self.t, color, now, f) as u32);
        }
        let open = ((self.need | 1 << f) & !self.held).count_ones();
        let walks = self.flight_walks + nearest;
        (open <= men && walks <= self.m - self.used).then_some(walks)
    }

    /// `flights(left)` itself: the first flight of `left`, then the rest.
    fn deal_flights(&mut self, left: u64) {
        let Some(f) = bits(left).next() else {
            self.next();
            return;
        };
        let rest = left & !(1 << f);
        let color = self.theirs.color;
        let attacked = (0..self.theirs.n)
            .any(|g| self.their_placed[g].is_some_and(|s| attacks_empty(self.t, s, color, f)));
        if attacked {
            self.further(rest);
            return;
        }
        // Held by a man of its side, unless one of the other side stands there, or its men
        // cannot hold this one too (as `next` would find once all are dealt).
        if self.their_squares >> f & 1 == 0 {
            if let Some(walks) = self.may_hold_flight(f) {
                let saved = (self.need, self.flight_walks);
                self.need |= 1 << f;
                self.flight_walks = walks;
                self.further(rest);
                (self.need, self.flight_walks) = saved;
            }
        }
        // A man of the other side placed to attack it (the king not next to ours).
        let k = self.king;
        let t = self.t;
        for g in 0..self.theirs.n {
            if self.their_placed[g].is_some() {
                continue;
            }
            for &form in forms(self.theirs.spots[g].form) {
                let mut from = t.attackers[form as usize][color.index()][f]
                    & !(1 << k)
                    & self.their_reach(g, form);
                if form == Form::King {
                    from &= !t.ring[k];
                }
                for d in bits(from & !self.taken()) {
                    self.place_theirs(g, Spot { form, sq: d as u8 }, &mut |s| s.further(rest));
                    if self.overflow {
                        return;
                    }
                }
            }
        }
    }

    /// A man other than the king ends on `spot`: immobile among its men, blocked, or pinned.
    fn place_man(&mut self, spot: Spot) {
        let sq = spot.sq as usize;
        let white = self.ours.color == Color::White;
        let ahead = if white {
            sq.checked_add(8).filter(|&a| a < 64)
        } else {
            sq.checked_sub(8)
        };
        let needs = match spot.form {
            Form::Pawn => ahead.map_or(0, |a| 1u64 << a),
            f => self.t.freeze[f as usize][sq],
        };
        // Held by men of its side: only if enough are left to place (`next` asks the same at
        // once; most spots of an officer fail it, and are not worth a step).
        let open = (self.need | needs) & !self.held;
        let left = self.ours.n as u32 - (self.placed_men | self.captured).count_ones();
        if open.count_ones() <= left {
            let saved = self.need;
            self.need |= needs;
            self.next();
            self.need = saved;
        }
        if needs & !self.held == 0 {
            return;
        }
        if spot.form == Form::Pawn {
            // Blocked by a man of the other side.
            self.use_theirs(needs, &|_| true, &mut |s| s.next());
        }
        let k = self.king;
        let beyond = ray_beyond(k, sq);
        if beyond != 0 {
            let (kf, kr, f, r) = (k % 8, k / 8, sq % 8, sq / 8);
            let line = usize::from(kf == f || kr == r);
            let line_open = between(k, sq);
            if pinnable(spot.form, line) && line_open & (self.held | self.their_squares) == 0 {
                let saved = self.pin_lines;
                self.pin_lines |= line_open;
                let fits = move |form: Form| match form {
                    Form::Queen => true,
                    Form::Bishop => line == 0,
                    Form::Rook => line == 1,
                    _ => false,
                };
                self.use_theirs(beyond, &fits, &mut |s| s.next());
                self.pin_lines = saved;
            }
        }
    }

    /// Whether the help mate's target being built places a man it could do without: a man of
    /// the other side each of whose squares among the king's and its flights is attacked by
    /// another too (or, a flight, blocked), or a man of the king's side blocking a flight the
    /// other side attacks. The target without that man is listed as well (the enumeration
    /// covers each flight in turn, by any man of the target that covers it), and every position
    /// in this target is in that one: this one would never keep in reach what that one does
    /// not, only cost the search its narrowing (intell#53a h#3: 23,379 targets, 14,024 of
    /// them needed). A man needless now stays so whatever is placed after it.
    fn needless(&self) -> bool {
        let k = self.king;
        let squares = self.t.ring[k] | 1 << k;
        let color = self.theirs.color;
        // The squares attacked by one placed man at least, and by two.
        let (mut once, mut twice) = (0u64, 0u64);
        let mut attacks = [0u64; MAX_MEN];
        for (g, placed) in self.their_placed[..self.theirs.n].iter().enumerate() {
            if let Some(s) = placed {
                attacks[g] = attacked_empty(self.t, *s, color) & squares;
                twice |= once & attacks[g];
                once |= attacks[g];
            }
        }
        let alone = once & !twice & !self.need;
        self.need & once != 0
            || (0..self.theirs.n).any(|g| self.their_placed[g].is_some() && attacks[g] & alone == 0)
    }

    /// Every man is placed (none in the way of a pin, `pin_lines`): a target.
    fn finish(&mut self) {
        // (Asked at each placement of the other side's; a flight is blocked only if none
        // attacks it.)
        debug_assert!(!(self.mate && self.needless()));
        let mut target = HelpTarget {
            ours: [Spot::NONE; MAX_MEN],
            theirs: [FREE; MAX_MEN],
        };
        let unplaced = if self.mate { FREE } else { CAPTURED };
        for i in 0..self.ours.n {
            target.ours[i] = self.placed[i].unwrap_or(unplaced);
        }
        for g in 0..self.theirs.n {
            target.theirs[g] = self.their_placed[g].unwrap_or(FREE);
        }
        if self.out.insert(target) && self.seen.is_some_and(|seen| seen.mark(&target)) {
            self.first_seen += 1;
        }
    }
}

/// The moves a side's walks may gain by castling: its one castling brings the king up to two
/// squares nearer and the rook one, where any other move brings one man one nearer. None once
/// it may not castle; the slack is kept on after it has castled (a looser bound, still sound).
fn castling_slack(pos: &Position, color: Color) -> u32 {
    if pos.can_castle(color, false) || pos.can_castle(color, true) {
        2
    } else {
        0
    }
}

/// The squares a man of `color` on `spot` attacks on an empty board (no moves generated).
fn attacked_empty(t: &Tables, spot: Spot, color: Color) -> u64 {
    let sq = spot.sq as usize;
    match spot.form {
        Form::Pawn => pawn_attacks(color, sq),
        Form::King => t.ring[sq],
        // A piece attacks from a square the squares it may be attacked from there.
        form => t.attackers[form as usize][color.index()][sq],
    }
}

/// Whether a man of `color` on `spot` attacks `f` on an empty board.
fn attacks_empty(t: &Tables, spot: Spot, color: Color, f: usize) -> bool {
    attacked_empty(t, spot, color) >> f & 1 == 1
}

/// Runs an enumeration of targets on `threads` threads (at most 8), one made by `make` each:
/// each takes the king's squares one at a time and `list`s the targets with the king there,
/// until every square is taken or its enumeration gives up (`list` is false). The threads'
/// enumerations, to merge.
///
/// The squares go nearest the king's square (`king`) first: the fewer moves the king spends,
/// the more the other men have, and the king's own square can hold most of the work
/// (hpint#31 h=5: 22 of 37 ms). Started first, it runs beside the others rather than after
/// them.
fn by_king_square<G: Send>(
    threads: usize,
    king: u8,
    make: impl Fn() -> G + Sync,
    list: impl Fn(&mut G, u64) -> bool + Sync,
) -> Vec<G> {
    let dist = &tables().dist[Form::King as usize][king as usize];
    let mut order: [u8; 64] = std::array::from_fn(|s| s as u8);
    order.sort_by_key(|&s| (dist[s as usize], s));
    let next_square = AtomicUsize::new(0);
    on_threads(threads, || {
        let mut g = make();
        loop {
            let i = next_square.fetch_add(1, Ordering::Relaxed);
            if i >= 64 || !list(&mut g, 1 << order[i]) {
                break;
            }
        }
        g
    })
}

/// `share()` on `threads` threads (at most 8, this one among them): their results.
fn on_threads<G: Send>(threads: usize, share: impl Fn() -> G + Sync) -> Vec<G> {
    let mut parts: Vec<Option<G>> = (0..threads.clamp(1, 8)).map(|_| None).collect();
    on_each(&mut parts, |part| *part = Some(share()));
    parts.into_iter().flatten().collect()
}

/// The squares strictly between `a` and `b` on a line (none if not on one): from `a` towards
/// `b`, short of `b` and what lies beyond it.
fn between(a: usize, b: usize) -> u64 {
    let (df, dr) = (
        (b % 8) as i32 - (a % 8) as i32,
        (b / 8) as i32 - (a / 8) as i32,
    );
    if a == b || !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
        return 0;
    }
    let d = super::direction(df, dr);
    let rays = &tables().rays;
    rays[a][d] & !rays[b][d] & !(1 << b)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{random_position, walk_near_stalemates, NEAR_STALEMATES};
    use super::*;
    use crate::chess::MoveList;

    /// The spots on a square, compared all at once, are those compared one by one.
    #[test]
    fn spots_on_a_square_all_at_once_agree_with_one_by_one() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let mut spots = [Spot::NONE; MAX_MEN];
            for s in &mut spots {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Squares from few, to meet often; now and then the free and captured marks.
                let sq = if x.is_multiple_of(9) {
                    u8::MAX
                } else {
                    (x >> 8) as u8 % 8
                };
                *s = Spot {
                    form: FORMS[(x >> 16) as usize % FORMS.len()],
                    sq,
                };
            }
            for sq in (0..8).chain([u8::MAX]) {
                assert_eq!(on_square(&spots, sq), on_square_one_by_one(&spots, sq));
            }
        }
    }

    /// `between` (rays looked up) against a walk from one square towards the other.
    #[test]
    fn squares_between_agree_with_walks() {
        use crate::chess::Square;
        for a in Square::all() {
            for b in Square::all() {
                let (df, dr) = (
                    b.file() as i8 - a.file() as i8,
                    b.rank() as i8 - a.rank() as i8,
                );
                let mut walked = 0u64;
                if a != b && (df == 0 || dr == 0 || df.abs() == dr.abs()) {
                    let mut at = a.offset(df.signum(), dr.signum());
                    while let Some(s) = at.filter(|&s| s != b) {
                        walked |= 1 << s.index();
                        at = s.offset(df.signum(), dr.signum());
                    }
                }
                assert_eq!(between(a.index(), b.index()), walked, "{a:?} {b:?}");
            }
        }
    }

    /// A piece's squares attacked from its square, read in the row of that square of the
    /// attackers' table, are the squares whose rows hold its square (its moves go both ways).
    #[test]
    fn squares_attacked_from_a_square_agree_with_attackers_of_each() {
        let t = tables();
        for color in [Color::White, Color::Black] {
            for form in OFFICERS {
                for sq in 0..64u8 {
                    let from_each = (0..64).fold(0u64, |a, f| {
                        a | (t.attackers[form as usize][color.index()][f] >> sq & 1) << f
                    });
                    let spot = Spot { form, sq };
                    assert_eq!(attacked_empty(t, spot, color), from_each, "{spot:?}");
                }
            }
        }
    }

    /// `check` over 1500 random positions, then over the positions of `walks` random walks
    /// (`walked`) from each near-stalemate position; what it found in all.
    fn over_test_positions(
        mut seed: u64,
        walks: usize,
        mut check: impl FnMut(&Position, bool) -> usize,
    ) -> usize {
        let (mut found, mut tested) = (0, 0);
        while tested < 1500 {
            let Some(pos) = random_position(&mut seed) else {
                continue;
            };
            tested += 1;
            found += check(&pos, false);
        }
        walk_near_stalemates(&NEAR_STALEMATES, 0x2545_f491_4f6c_dd1d, walks, 8, |pos| {
            found += check(pos, true);
        });
        found
    }

    /// By brute force: the final positions (men by identity) of every series help stalemate
    /// of exactly `k` moves from `pos`; checks on the way that `follow` agrees with `after`.
    fn finals(pos: &Position, men: &Men, k: u32, out: &mut Vec<[Spot; MAX_MEN]>) {
        let side = pos.side_to_move();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for mv in moves.iter() {
            let after = pos.play(mv);
            let next = men.after(mv, side);
            let followed = men.follow(&after);
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
        let men = Men::of(pos, pos.side_to_move());
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
        let found = over_test_positions(0x9e37_79b9_7f4a_7c15, 6, |pos, walked| {
            assert_targets_complete(pos, if walked { 3 } else { 2 })
        });
        assert!(found > 300, "only {found} final positions found");
    }

    type HelpEnd = ([Spot; MAX_MEN], u16, [Spot; MAX_MEN], u16);

    /// By brute force: the final positions (both sides' men by identity, and which are on
    /// the board) of every help stalemate (or `mate`) of exactly `k` plies from `pos`; checks
    /// on the way that `follow` agrees with `after`.
    fn help_finals(pos: &Position, men: (Men, Men), k: u32, mate: bool, out: &mut Vec<HelpEnd>) {
        let mover = pos.side_to_move();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        for mv in moves.iter() {
            let after = pos.play(mv);
            let next = (men.0.after(mv, mover), men.1.after(mv, mover));
            for (n, m) in [(next.0, men.0), (next.1, men.1)] {
                let f = m.follow(&after);
                assert!(
                    f.alive == n.alive && (0..n.n).all(|i| !n.alive(i) || f.spots[i] == n.spots[i]),
                    "{} {}",
                    pos.to_fen(),
                    mv.uci()
                );
            }
            if k > 1 {
                help_finals(&after, next, k - 1, mate, out);
            } else if if mate {
                after.is_check() && !after.has_legal_move()
            } else {
                after.is_stalemate()
            } {
                out.push((next.0.spots, next.0.alive, next.1.spots, next.1.alive));
            }
        }
    }

    fn help_matches(t: &HelpTarget, end: &HelpEnd, n: (usize, usize)) -> bool {
        let ours = (0..n.0).all(|i| {
            let alive = end.1 >> i & 1 == 1;
            if t.ours[i] == FREE {
                true
            } else if t.ours[i] == CAPTURED {
                !alive
            } else {
                alive && t.ours[i] == end.0[i]
            }
        });
        let theirs = (0..n.1)
            .all(|g| t.theirs[g] == FREE || (end.3 >> g & 1 == 1 && t.theirs[g] == end.2[g]));
        ours && theirs
    }

    /// Asserts that every final position of a help stalemate (or `mate`) of 2 or 4 plies
    /// from `pos` (the side to move stalemated) matches a target; returns how many there were.
    fn assert_help_targets_complete(pos: &Position, plies: u32, mate: bool) -> usize {
        let mated = pos.side_to_move();
        let mut found = 0;
        for k in (2..=plies).step_by(2) {
            let list = if mate {
                HelpTargets::mate
            } else {
                HelpTargets::stalemate
            };
            let Some((targets, ours, theirs)) = list(pos, mated, (k / 2, k.div_ceil(2)), 1) else {
                continue;
            };
            // Shared out over threads (`Units`), the listing is the same.
            let shared = list(pos, mated, (k / 2, k.div_ceil(2)), 3).map(|(t, _, _)| t.targets);
            assert!(
                shared.as_ref() == Some(&targets.targets),
                "{}: other targets on three threads",
                pos.to_fen()
            );
            let mut ends = Vec::new();
            help_finals(pos, (ours, theirs), k, mate, &mut ends);
            for end in &ends {
                assert!(
                    targets
                        .targets
                        .iter()
                        .any(|t| help_matches(t, end, (ours.n, theirs.n))),
                    "{} h{}{}: a final position is no target",
                    pos.to_fen(),
                    if mate { '#' } else { '=' },
                    k / 2
                );
            }
            found += ends.len();
        }
        found
    }

    /// Every help stalemate's final position is among the help targets, in random positions
    /// and near stalemates (brute force is the oracle).
    #[test]
    fn help_targets_hold_every_final_position() {
        let found = over_test_positions(0x5851_f42d_4c95_7f2d, 4, |pos, walked| {
            if walked && pos.side_to_move() != Color::Black {
                return 0;
            }
            assert_help_targets_complete(pos, if walked { 4 } else { 2 }, false)
        });
        assert!(found > 100, "only {found} final positions found");
    }

    /// Every help mate's final position is among the help mate targets (brute force is the
    /// oracle).
    #[test]
    fn help_mate_targets_hold_every_final_position() {
        let found = over_test_positions(0x2b99_2ddf_a232_49d6, 4, |pos, walked| {
            if walked && pos.side_to_move() != Color::Black {
                return 0;
            }
            assert_help_targets_complete(pos, if walked { 4 } else { 2 }, true)
        });
        assert!(found > 100, "only {found} final positions found");
    }

    /// Checks `quiet_destinations` against `any_in_reach` for every quiet move from `pos`
    /// (`plies` to go, targets `live` kept there with the men `men`), and again one ply on
    /// after each move that keeps a target; how many moves it compared, how many kept one, and
    /// how many `movers` left out (each checked to keep none).
    fn assert_quiet_destinations(
        targets: &HelpTargets,
        pos: &Position,
        (live, men): (&[LiveTarget], &(Men, Men)),
        plies: u32,
        deeper: bool,
    ) -> (usize, usize, usize) {
        let left = |p: u32| (p / 2, p.div_ceil(2));
        let mover = pos.side_to_move();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let movers = targets.movers((live, men), mover, left(plies - 1));
        let (mut compared, mut kept, mut left_out) = (0, 0, 0);
        for mv in moves.iter() {
            let next = (men.0.after(mv, mover), men.1.after(mv, mover));
            // The men a move changed, as `Men::after` records them, are those that differ.
            for (before, now) in [(&men.0, &next.0), (&men.1, &next.1)] {
                assert_eq!(now.moved as u32, changed(before, now), "{}", mv.uci());
            }
            let keeps = targets.any_in_reach((live, men), &next, left(plies - 1));
            if !movers.is_none_or(|m| m.allow(mv)) {
                assert!(!keeps, "{} {} kept but left out", pos.to_fen(), mv.uci());
                left_out += 1;
            }
            let quiet =
                mv.kind() == MoveKind::Normal && !mv.is_capture() && mv.promotion().is_none();
            let from = mv.from().index() as u8;
            if let Some(dests) = quiet
                .then(|| targets.quiet_destinations((live, men), mover, from, left(plies - 1)))
                .flatten()
            {
                assert_eq!(
                    dests >> mv.to().index() & 1 == 1,
                    keeps,
                    "{} {} with {plies} plies to go",
                    pos.to_fen(),
                    mv.uci()
                );
                compared += 1;
                kept += keeps as usize;
            }
            if keeps && deeper {
                let mut next_live = Vec::new();
                targets.narrow(
                    Some((live, men)),
                    &next,
                    true,
                    left(plies - 1),
                    &mut next_live,
                );
                // Narrowed from the list before (one man's walks costed again, or all the
                // changed men's), the list keeps every target costed from scratch keeps, and
                // after a move that captures nothing exactly those. (After a capture it may
                // keep more, e.g. 6q1/K7/8/q2R4/1b6/8/1k6/3R4 w d5a5: looser, never unsound.)
                let mut from_scratch = Vec::new();
                targets.narrow(None, &next, false, left(plies - 1), &mut from_scratch);
                for t in &from_scratch {
                    assert!(
                        next_live.contains(t),
                        "{} {} lost {t:?}",
                        pos.to_fen(),
                        mv.uci()
                    );
                }
                if !mv.is_capture() {
                    assert_eq!(next_live, from_scratch, "{} {}", pos.to_fen(), mv.uci());
                }
                let after = pos.play(mv);
                let (c, k, l) = assert_quiet_destinations(
                    targets,
                    &after,
                    (&next_live, &next),
                    plies - 1,
                    false,
                );
                compared += c;
                kept += k;
                left_out += l;
            }
        }
        (compared, kept, left_out)
    }

    /// `check` with each help stalemate and help mate listing, on one thread, of the test
    /// positions (`over_test_positions`; four plies, six after a walk): the position, whether
    /// a mate's (else a stalemate's), the moves of each side and the listing. How many were
    /// listed.
    fn over_help_listings(
        seed: u64,
        walks: usize,
        mut check: impl FnMut(&Position, bool, (u32, u32), (HelpTargets, Men, Men)),
    ) -> usize {
        let mut lists = 0;
        over_test_positions(seed, walks, |pos, walked| {
            let plies: u32 = if walked { 6 } else { 4 };
            let left = (plies / 2, plies / 2);
            for mate in [false, true] {
                if let Some(listed) = HelpTargets::list(pos, pos.side_to_move(), left, 1, mate) {
                    lists += 1;
                    check(pos, mate, left, listed);
                }
            }
            0
        });
        lists
    }

    /// `over_help_listings`, with the targets in reach in each position (narrowed from all, with
    /// its men) and the plies left: `check(targets, pos, (live, men), plies)`.
    fn over_live_targets(
        seed: u64,
        walks: usize,
        mut check: impl FnMut(&HelpTargets, &Position, (&[LiveTarget], &(Men, Men)), u32),
    ) -> usize {
        over_help_listings(seed, walks, |pos, _, left, (targets, ours, theirs)| {
            let men = (ours, theirs);
            let mut live = Vec::new();
            targets.narrow(None, &men, false, left, &mut live);
            check(&targets, pos, (&live, &men), left.0 + left.1);
        })
    }

    /// The targets kept from the diagram for each number of moves left are those narrowing
    /// all of them with the diagram's men finds, with the same moves taken.
    #[test]
    fn targets_from_the_diagram_are_those_in_reach() {
        let lists = over_help_listings(
            0x2545_f491_4f6c_dd1d,
            3,
            |pos, _, left, (targets, ours, theirs)| {
                for m in 0..=left.0 {
                    for a in 0..=left.1 {
                        let (mut all, mut kept) = (Vec::new(), Vec::new());
                        targets.narrow(None, &(ours, theirs), false, (m, a), &mut all);
                        targets.in_reach_from_diagram((m, a), &mut kept);
                        assert_eq!(all, kept, "{} {m} {a}", pos.to_fen());
                    }
                }
            },
        );
        assert!(lists > 20, "only {lists} lists");
    }

    /// Narrowing after a move from the targets kept before it (costing anew only the men the
    /// move changed: one moved or promoted, one moved and one taken, or any others) keeps what costing
    /// every target anew keeps among them; for every move and every reply to it.
    #[test]
    fn narrowing_after_a_move_keeps_what_costing_anew_keeps() {
        fn compare(
            targets: &HelpTargets,
            pos: &Position,
            (live, men): (&[LiveTarget], &(Men, Men)),
            plies: u32,
            replies: bool,
            captures: &mut (usize, usize),
        ) {
            let left = |p: u32| (p / 2, p.div_ceil(2));
            let mover = pos.side_to_move();
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            for mv in moves.iter() {
                let next = (men.0.after(mv, mover), men.1.after(mv, mover));
                let (mut narrowed, mut anew) = (Vec::new(), Vec::new());
                targets.narrow(
                    Some((live, men)),
                    &next,
                    true,
                    left(plies - 1),
                    &mut narrowed,
                );
                targets.narrow(None, &next, false, left(plies - 1), &mut anew);
                anew.retain(|t| live.iter().any(|l| l.i == t.i));
                assert_eq!(narrowed, anew, "{} {}", pos.to_fen(), mv.uci());
                if mv.is_capture() && !narrowed.is_empty() {
                    captures.0 += 1;
                }
                if mv.promotion().is_some() && !narrowed.is_empty() {
                    captures.1 += 1;
                }
                if replies && !narrowed.is_empty() {
                    let after = pos.play(mv);
                    compare(
                        targets,
                        &after,
                        (&narrowed, &next),
                        plies - 1,
                        false,
                        captures,
                    );
                }
            }
        }
        // Moves that captured, and that promoted, with some target kept.
        let mut captures = (0, 0);
        let lists = over_live_targets(0x3c6e_f372_fe94_f82b, 2, |targets, pos, live, plies| {
            compare(targets, pos, live, plies, true, &mut captures);
        });
        assert!(
            lists > 20 && captures.0 > 100 && captures.1 > 10,
            "{lists} lists, {captures:?} captures and promotions"
        );
    }

    /// A listing shared by threads gives the very targets of one thread's, in the same order
    /// (each thread sorts its own, the lists are merged), whatever the timing. The threads
    /// are given twice the room: each walks the listing's first steps, and two may find the
    /// same target, so near its limits a shared listing may be given up where one thread's
    /// is not (that costs time, not truth).
    #[test]
    fn help_targets_are_the_same_on_any_number_of_threads() {
        let roomy = (2 * MAX_TARGETS, 2 * MAX_HELP_STEPS);
        let lists = over_help_listings(0x1405_7b7e_f767_814f, 1, |pos, mate, left, (one, _, _)| {
            for threads in [2, 3] {
                let (shared, _, _) =
                    HelpTargets::list_within(pos, pos.side_to_move(), left, threads, mate, roomy)
                        .expect("listed on one");
                assert!(
                    one.targets == shared.targets
                        && one.ours_by_man == shared.ours_by_man
                        && one.theirs_by_man == shared.theirs_by_man,
                    "{} on {threads} threads",
                    pos.to_fen()
                );
            }
        });
        assert!(lists > 20, "only {lists} lists");
    }

    #[test]
    fn merged_lists_keep_each_element_once_in_order() {
        let merged = merge_sorted(vec![1, 3, 5, 9], vec![2, 3, 6, 9, 10], |&x| x);
        assert_eq!(merged, [1, 2, 3, 5, 6, 9, 10]);
        assert_eq!(merge_sorted(vec![], vec![4], |&x| x), [4]);
    }

    /// Threads marking overlapping sets of targets in `SeenTargets` count each target once:
    /// the marks they were first to set match `marks_for` the distinct targets (within the
    /// sample's error), not the targets each thread found.
    #[test]
    fn seen_targets_count_each_target_once_over_the_threads() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut random_spot = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            Spot {
                form: FORMS[(seed >> 8) as usize % FORMS.len()],
                sq: (seed >> 20) as u8 % 64,
            }
        };
        for distinct in [5_000, 20_000, 60_000] {
            let targets: Vec<HelpTarget> = (0..distinct)
                .map(|_| HelpTarget {
                    ours: std::array::from_fn(|_| random_spot()),
                    theirs: std::array::from_fn(|_| random_spot()),
                })
                .collect();
            let seen = SeenTargets::new();
            // Two threads, each finding two thirds of the targets: a third found by both.
            let firsts: usize = std::thread::scope(|s| {
                let halves = [&targets[..distinct * 2 / 3], &targets[distinct / 3..]];
                let threads: Vec<_> = halves
                    .map(|part| s.spawn(|| part.iter().filter(|t| seen.mark(t)).count()))
                    .into_iter()
                    .collect();
                threads.into_iter().map(|t| t.join().unwrap()).sum()
            });
            let expected = seen.marks_for(distinct) as f64;
            let error = (firsts as f64 - expected).abs() / expected;
            // (Counted per thread, the targets found twice would count a third more.)
            assert!(
                error < 0.1,
                "{distinct}: {firsts} marks, {expected} expected"
            );
        }
    }

    /// The quiet moves' destinations found for a man at once keep a target in reach exactly
    /// when the move, played, does (`any_in_reach` is the oracle), for both sides' men, in
    /// help stalemates and mates; and no move `movers` leaves out keeps one.
    #[test]
    fn quiet_destinations_are_the_moves_keeping_a_target() {
        let (mut compared, mut kept, mut left_out) = (0, 0, 0);
        over_live_targets(0x6c62_272e_07bb_0142, 3, |targets, pos, live, plies| {
            let (c, k, l) = assert_quiet_destinations(targets, pos, live, plies, true);
            compared += c;
            kept += k;
            left_out += l;
        });
        assert!(
            compared > 1000 && kept > 100 && kept < compared && left_out > 100,
            "{compared} {kept} {left_out}"
        );
    }

    /// Castling moves two men at once; the targets allow for it. Brute force over positions
    /// where either side may castle, in some of which the solutions castle.
    #[test]
    fn help_targets_allow_for_castling() {
        let mut found = 0;
        for fen in [
            "4k3/8/8/8/8/3q4/8/R3K2R b KQ - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K3 b Qkq - 0 1",
            "2k5/8/8/8/8/8/6pp/R3K2R b KQ - 0 1",
            "r3k3/p7/8/8/8/8/1p6/1K6 w q - 0 1",
            "7k/8/8/8/8/8/4PPP1/4K2R b K - 0 1",
            "1k6/8/8/8/8/8/8/R3K3 b Q - 0 1",
            // 1.Kd8-e8 0-0-0 = and 1.Kd7-d8 0-0-0 #: the king ends two squares off
            "3k1b2/4p1p1/4P1P1/8/8/8/8/R3K3 b Q - 0 1",
            "2r1r3/2pkp3/8/8/8/8/8/R3K3 b Q - 0 1",
            // 1.0-0 Qh5*h7 #: the mated king castled two squares in one move
            "4k2r/5ppp/8/7Q/8/3B4/8/K7 b k - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for mate in [false, true] {
                found += assert_help_targets_complete(&pos, 4, mate);
            }
        }
        assert!(found > 50, "only {found} final positions found");
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
            men = men.after(&mv, pos.side_to_move());
            pos = pos.play(&mv).pass().unwrap_or_else(|| pos.play(&mv));
        }
        assert!(targets.finals.contains(&men.spots));
    }
}
