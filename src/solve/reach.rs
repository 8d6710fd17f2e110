//! Whether the aim can still be reached in time: a sound necessary condition, used to cut lines
//! that cannot end in mate (stalemate) with the moves each side has left.
//!
//! It relaxes the final position to what must hold there and measures distances on an empty
//! board (never more than the real number of moves):
//! - the mated side's king stands on some square K it can reach;
//! - for mate, some man of the mating side attacks K;
//! - every square next to K is occupied by a man of the mated side (each by a different man) or
//!   attacked by the mating side (a man attacking several squares stands on one square that
//!   attacks them all; the mating king never next to K);
//! - for stalemate, every other man of the mated side ends unable to move (blocked, pinned or
//!   captured: `men_can_freeze`), with its king on that same square K; a flight is blocked
//!   only by a man that may end there that way (not one captured), and a flight the mating
//!   side cannot attack in time must be.
//!
//! The mated side pays for its king's walk and its blocks, the mating side for its attackers;
//! each side's total must fit in its remaining moves. A pawn may promote on the way.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use crate::chess::steps::{DIAGONAL, KING, KNIGHT, ORTHOGONAL};
use crate::chess::{Color, Position, Role, Square};
use crate::problem::Aim;

use super::Apart;

mod picture;
mod target;

pub(in crate::solve) use picture::PictureGate;
pub(in crate::solve) use target::{HelpTargets, LiveTarget, Men, Movers, Targets};

const INF: u8 = u8::MAX;
/// Enough assignment steps to decide nearly every position; beyond this the search gives up
/// and answers "reachable" (which never loses a solution).
const STEP_CAP: u32 = 4_000;
/// At most this many men per side (more only in illegal positions).
const MAX_MEN: usize = 16;
/// `Man::dist_attacking` widens reach a move at a time up to this cap (beyond, it looks up
/// each candidate square).
const WIDEN_MAX: u32 = 8;
/// Every square.
const ALL: u64 = u64::MAX;

/// What a man is or may become: the index into the distance tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Form {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

const OFFICERS: [Form; 4] = [Form::Knight, Form::Bishop, Form::Rook, Form::Queen];
/// Every form, in index order.
const FORMS: [Form; 6] = [
    Form::Pawn,
    Form::Knight,
    Form::Bishop,
    Form::Rook,
    Form::Queen,
    Form::King,
];
const PIECES: [Form; 5] = [
    Form::Knight,
    Form::Bishop,
    Form::Rook,
    Form::Queen,
    Form::King,
];

impl Form {
    fn of(role: Role) -> Form {
        match role {
            Role::Pawn => Form::Pawn,
            Role::Knight => Form::Knight,
            Role::Bishop => Form::Bishop,
            Role::Rook => Form::Rook,
            Role::Queen => Form::Queen,
            Role::King => Form::King,
        }
    }
}

type Grid = [[u8; 64]; 64];
/// A row of distances as the squares within 0, 1, … `WIDEN_MAX` moves.
type Levels = [u64; WIDEN_MAX as usize + 1];

/// `row`'s squares within each number of moves up to `WIDEN_MAX`.
fn levels(row: &[u8; 64]) -> Levels {
    std::array::from_fn(|d| within(row, d as u32))
}

struct Tables {
    /// `[form][from][to]`: moves of a knight … king on an empty board (pawn slot unused).
    dist: Vec<Grid>,
    /// `[color][from][form]` → `[to]`: moves of a pawn to stand on `to` as `form`
    /// (promoting on the way when `form` is an officer), capturing whenever it likes.
    pawn: Vec<[[[u8; 64]; 5]; 64]>,
    /// `[color][from][form][d]`: the squares of `pawn`'s row within `d` moves (`within`),
    /// for `d` up to `WIDEN_MAX`: `Man::dist_attacking` widens reach by them.
    pawn_levels: Vec<[[Levels; 5]; 64]>,
    /// `[form][from][d]`: the same of `dist`'s rows.
    dist_levels: Vec<[Levels; 64]>,
    /// `[color][from][to]`: moves of a pawn to stand on `to` in any form.
    pawn_any: Vec<Grid>,
    /// `[color][from][to]`: moves of a pawn to capture on `to`: its last move a pawn's
    /// diagonal step, or an officer's move after promoting (a pawn never captures ahead).
    pawn_capture: Vec<Grid>,
    /// `[from][to]`: moves of the nearest-moving officer (a promoted pawn's fewest).
    officer: Box<Grid>,
    /// `[color][from]`: moves of a pawn to promote.
    promote: [[u8; 64]; 2],
    /// `[form * 2 + color][from][target]`: moves of a man to stand (in any form it may
    /// take) on a square attacking `target` on an empty board; kings without castling.
    att1: Vec<Grid>,
    /// `[form][color][target]`: squares from which `form` attacks `target` on an empty board.
    attackers: [[[u64; 64]; 2]; 6],
    /// Squares next to each square.
    ring: [u64; 64],
    /// `[s][d]`: `ray_from(s, d)`.
    rays: [[u64; 9]; 64],
    /// `[k][s]`: the direction (`direction`) from `k` to `s` when they share a line, else the
    /// unused middle one (4), whose rays are empty.
    toward: [[u8; 64]; 64],
    /// `[form][from]`: what a stalemated man of that form needs occupied by its own side to
    /// stand immobile (unpinned) on `from`: the squares next to it along its lines, or its
    /// knight moves (pawn slot unused).
    freeze: [[u64; 64]; 5],
    /// `[form][from][r]`: squares a piece (not a pawn) reaches in at most `r` moves, for `r`
    /// up to `FREEZE_MAX_MOVES`.
    near: Vec<[[u64; FREEZE_MAX_MOVES as usize + 1]; 64]>,
    /// `[list_slot(form, from, m)]`: where an officer may stand frozen within `m` moves (up
    /// to `FREEZE_MAX_MOVES`), square by square.
    frozen: Vec<Box<[Frozen]>>,
    /// `[list_slot(color, from, m)]`: where a pawn may stand frozen as an officer within
    /// `m` moves, officer by officer and square of promotion by square (less the ways
    /// another does no worse).
    promoted: Vec<Box<[Frozen]>>,
}

/// A square a man may stand frozen on (unpinned), as the freeze test lists its ways.
#[derive(Clone, Copy)]
struct Frozen {
    /// The man's moves to stand there.
    walk: u8,
    end: u8,
    /// The squares its side must hold for it to stand immobile there (`Tables::freeze`).
    needs: u64,
}

/// The index in `Tables::frozen` (`row`: the form) or `Tables::promoted` (`row`: the colour)
/// of the list for a man on `from` with `m` moves.
fn list_slot(row: usize, from: usize, m: u32) -> usize {
    (row * 64 + from) * (FREEZE_MAX_MOVES as usize + 1) + m as usize
}

fn sq(f: i32, r: i32) -> Option<usize> {
    ((0..8).contains(&f) && (0..8).contains(&r)).then_some((r * 8 + f) as usize)
}

/// Squares a piece of `form` (not a pawn) on `from` reaches in one move on an empty board.
fn targets(form: Form, from: usize) -> u64 {
    let (f, r) = ((from % 8) as i32, (from / 8) as i32);
    let mut out = 0u64;
    let mut step = |dirs: &[(i8, i8)], slide: bool| {
        for &(df, dr) in dirs {
            let (df, dr) = (df as i32, dr as i32);
            let (mut x, mut y) = (f + df, r + dr);
            while let Some(s) = sq(x, y) {
                out |= 1 << s;
                if !slide {
                    break;
                }
                x += df;
                y += dr;
            }
        }
    };
    match form {
        Form::Knight => step(&KNIGHT, false),
        Form::King => step(&KING, false),
        Form::Bishop => step(&DIAGONAL, true),
        Form::Rook => step(&ORTHOGONAL, true),
        Form::Queen => {
            step(&DIAGONAL, true);
            step(&ORTHOGONAL, true);
        }
        Form::Pawn => unreachable!("pawn moves depend on colour"),
    }
    out
}

/// Squares a pawn of `color` on `from` attacks.
fn pawn_attacks(color: Color, from: usize) -> u64 {
    let (f, r) = ((from % 8) as i32, (from / 8) as i32);
    let dr = if color == Color::White { 1 } else { -1 };
    [sq(f - 1, r + dr), sq(f + 1, r + dr)]
        .into_iter()
        .flatten()
        .fold(0, |b, s| b | 1 << s)
}

fn bits(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let s = b.trailing_zeros() as usize;
            b &= b - 1;
            s
        })
    })
}

/// The squares whose entry in `row` is at most `d`: a whole row at once, sixteen squares a
/// compare (the bound asks this millions of times a second).
#[cfg(target_arch = "x86_64")]
fn within(row: &[u8; 64], d: u32) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let d = d.min(INF as u32) as u8;
    let mut out = 0u64;
    for (c, chunk) in row.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of every x86_64; the load reads exactly the 16 bytes of
        // `chunk` (unaligned loads are allowed).
        let mask = unsafe {
            let x = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
            // x <= d exactly where min(x, d) == x (unsigned bytes).
            let at_most = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(d as i8)), x);
            _mm_movemask_epi8(at_most) as u16
        };
        out |= (mask as u64) << (16 * c);
    }
    out
}

/// The squares whose entry in `row` is at most `d`.
#[cfg(not(target_arch = "x86_64"))]
fn within(row: &[u8; 64], d: u32) -> u64 {
    within_scalar(row, d)
}

/// `within`, one square at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn within_scalar(row: &[u8; 64], d: u32) -> u64 {
    let d = d.min(INF as u32) as u8;
    row.iter()
        .enumerate()
        .fold(0u64, |m, (s, &x)| m | ((x <= d) as u64) << s)
}

fn bfs(next: impl Fn(usize) -> u64, from: usize) -> [u8; 64] {
    let mut d = [INF; 64];
    d[from] = 0;
    let mut frontier = 1u64 << from;
    let mut seen = frontier;
    let mut n = 0u8;
    while frontier != 0 {
        n += 1;
        let reached = bits(frontier).fold(0, |acc, s| acc | next(s));
        frontier = reached & !seen;
        seen |= frontier;
        for s in bits(frontier) {
            d[s] = n;
        }
    }
    d
}

/// Breadth-first over (square, form) states of a pawn of `color` starting on `from`.
fn pawn_bfs(color: Color, from: usize) -> [[u8; 64]; 5] {
    let (dr, start, last) = if color == Color::White {
        (1, 1, 7)
    } else {
        (-1, 6, 0)
    };
    let mut d = [[INF; 64]; 5];
    let r0 = (from / 8) as i32;
    if r0 == 0 || r0 == 7 {
        return d;
    }
    d[0][from] = 0;
    let mut frontier = vec![(from, Form::Pawn)];
    let mut n = 0u8;
    while !frontier.is_empty() {
        n += 1;
        let mut next = Vec::new();
        for &(s, form) in &frontier {
            let mut reach = |to: usize, g: Form, next: &mut Vec<(usize, Form)>| {
                if d[g as usize][to] == INF {
                    d[g as usize][to] = n;
                    next.push((to, g));
                }
            };
            if form == Form::Pawn {
                let (f, r) = ((s % 8) as i32, (s / 8) as i32);
                let mut steps = vec![sq(f, r + dr), sq(f - 1, r + dr), sq(f + 1, r + dr)];
                if r == start {
                    steps.push(sq(f, r + 2 * dr));
                }
                for to in steps.into_iter().flatten() {
                    if (to / 8) as i32 == last {
                        for g in OFFICERS {
                            reach(to, g, &mut next);
                        }
                    } else {
                        reach(to, Form::Pawn, &mut next);
                    }
                }
            } else {
                for to in bits(targets(form, s)) {
                    reach(to, form, &mut next);
                }
            }
        }
        frontier = next;
    }
    d
}

/// Builds the tables now if not yet built.
pub(in crate::solve) fn prepare() {
    tables();
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut dist = vec![[[INF; 64]; 64]; 6];
        for form in PIECES {
            for (from, d) in dist[form as usize].iter_mut().enumerate() {
                *d = bfs(|s| targets(form, s), from);
            }
        }
        let mut pawn = vec![[[[INF; 64]; 5]; 64]; 2];
        let mut pawn_any = vec![[[INF; 64]; 64]; 2];
        let mut promote = [[INF; 64]; 2];
        for color in Color::ALL {
            let c = color.index();
            for from in 0..64 {
                pawn[c][from] = pawn_bfs(color, from);
                let last = if color == Color::White { 7 } else { 0 };
                for to in 0..64 {
                    pawn_any[c][from][to] =
                        (0..5).map(|g| pawn[c][from][g][to]).min().unwrap_or(INF);
                    if to / 8 == last {
                        promote[c][from] = promote[c][from].min(pawn_any[c][from][to]);
                    }
                }
            }
        }
        let mut attackers = [[[0u64; 64]; 2]; 6];
        for color in Color::ALL {
            for from in 0..64 {
                let rank = from / 8;
                if rank != 0 && rank != 7 {
                    for t in bits(pawn_attacks(color, from)) {
                        attackers[Form::Pawn as usize][color.index()][t] |= 1 << from;
                    }
                }
                for form in PIECES {
                    for t in bits(targets(form, from)) {
                        attackers[form as usize][color.index()][t] |= 1 << from;
                    }
                }
            }
        }
        let mut pawn_capture = vec![[[INF; 64]; 64]; 2];
        for color in Color::ALL {
            let c = color.index();
            for (from, row) in pawn_capture[c].iter_mut().enumerate() {
                let cones = &pawn[c][from];
                for (to, cell) in row.iter_mut().enumerate() {
                    let by_pawn = bits(attackers[Form::Pawn as usize][c][to])
                        .map(|p| cones[Form::Pawn as usize][p]);
                    let by_officer = OFFICERS
                        .iter()
                        .flat_map(|&g| bits(targets(g, to)).map(move |q| cones[g as usize][q]));
                    let last = by_pawn.chain(by_officer).min().unwrap_or(INF);
                    *cell = last.saturating_add(1);
                }
            }
        }
        let mut officer = Box::new([[INF; 64]; 64]);
        for (from, row) in officer.iter_mut().enumerate() {
            for (to, cell) in row.iter_mut().enumerate() {
                *cell = OFFICERS
                    .iter()
                    .map(|&f| dist[f as usize][from][to])
                    .min()
                    .unwrap_or(INF);
            }
        }
        let mut att1 = vec![[[INF; 64]; 64]; 12];
        for color in Color::ALL {
            let c = color.index();
            for form in FORMS {
                let grid = &mut att1[form as usize * 2 + c];
                for (from, row) in grid.iter_mut().enumerate() {
                    for (t, cell) in row.iter_mut().enumerate() {
                        *cell = if form == Form::Pawn {
                            [
                                Form::Pawn,
                                Form::Knight,
                                Form::Bishop,
                                Form::Rook,
                                Form::Queen,
                            ]
                            .iter()
                            .flat_map(|&g| bits(attackers[g as usize][c][t]).map(move |a| (g, a)))
                            .map(|(g, a)| pawn[c][from][g as usize][a])
                            .min()
                            .unwrap_or(INF)
                        } else {
                            bits(attackers[form as usize][c][t])
                                .map(|a| dist[form as usize][from][a])
                                .min()
                                .unwrap_or(INF)
                        };
                    }
                }
            }
        }
        let mut ring = [0u64; 64];
        for (s, r) in ring.iter_mut().enumerate() {
            *r = targets(Form::King, s);
        }
        let mut freeze = [[0u64; 64]; 5];
        for form in OFFICERS {
            for (s, f) in freeze[form as usize].iter_mut().enumerate() {
                *f = targets(form, s);
                if form != Form::Knight {
                    *f &= ring[s];
                }
            }
        }
        let mut near = vec![[[0u64; FREEZE_MAX_MOVES as usize + 1]; 64]; 6];
        for form in PIECES {
            for (from, balls) in near[form as usize].iter_mut().enumerate() {
                for (to, &d) in dist[form as usize][from].iter().enumerate() {
                    for ball in balls.iter_mut().skip(d as usize) {
                        *ball |= 1 << to;
                    }
                }
            }
        }
        // An officer of `form` on `from` after `spent` of `m` moves: the squares it reaches
        // in the rest, each with what it needs held to stand frozen there.
        let frozen_from = |form: Form, spent: u32, from: usize, m: u32, list: &mut Vec<Frozen>| {
            for s in bits(near[form as usize][from][(m - spent) as usize]) {
                list.push(Frozen {
                    walk: (spent + dist[form as usize][from][s] as u32) as u8,
                    end: s as u8,
                    needs: freeze[form as usize][s],
                });
            }
        };
        let mut frozen = vec![Box::default(); list_slot(6, 0, 0)];
        for form in OFFICERS {
            for from in 0..64 {
                for m in 0..=FREEZE_MAX_MOVES {
                    let mut list = Vec::new();
                    frozen_from(form, 0, from, m, &mut list);
                    frozen[list_slot(form as usize, from, m)] = list.into_boxed_slice();
                }
            }
        }
        // Every officer, every square of the last rank it promotes on in time, every square
        // it reaches from there in the moves left.
        let mut promoted = vec![Box::default(); list_slot(2, 0, 0)];
        for color in Color::ALL {
            let c = color.index();
            let rank = if color == Color::White { 56 } else { 0 };
            for (from, cones) in pawn[c].iter().enumerate() {
                for m in 0..=FREEZE_MAX_MOVES {
                    let mut list = Vec::new();
                    for form in OFFICERS {
                        let cone = &cones[form as usize];
                        for (q, &p) in cone.iter().enumerate().skip(rank).take(8) {
                            let p = p as u32;
                            if p <= m {
                                frozen_from(form, p, q, m, &mut list);
                            }
                        }
                    }
                    // A way is never needed, only tried, when another ends on the same
                    // square no later and needs no more held: a queen's beside a rook's or
                    // bishop's there, or the same officer's from a farther square of
                    // promotion. Dropped here once; of equal ways the first stays.
                    let dominated = |i: usize, f: &Frozen| {
                        list.iter().enumerate().any(|(j, g)| {
                            j != i
                                && g.end == f.end
                                && g.walk <= f.walk
                                && g.needs & f.needs == g.needs
                                && (j < i || g.walk < f.walk || g.needs != f.needs)
                        })
                    };
                    let kept: Vec<Frozen> = list
                        .iter()
                        .enumerate()
                        .filter(|&(i, f)| !dominated(i, f))
                        .map(|(_, &f)| f)
                        .collect();
                    promoted[list_slot(c, from, m)] = kept.into_boxed_slice();
                }
            }
        }
        let pawn_levels = pawn
            .iter()
            .map(|rows| rows.map(|forms| forms.map(|row| levels(&row))))
            .collect();
        let dist_levels = dist
            .iter()
            .map(|rows| rows.map(|row| levels(&row)))
            .collect();
        Tables {
            frozen,
            promoted,
            near,
            dist,
            dist_levels,
            pawn,
            pawn_levels,
            pawn_any,
            pawn_capture,
            officer,
            promote,
            att1,
            attackers,
            ring,
            rays: std::array::from_fn(|s| std::array::from_fn(|d| ray_from(s, d))),
            toward: std::array::from_fn(|k| {
                std::array::from_fn(|s| {
                    let (df, dr) = (
                        (s % 8) as i32 - (k % 8) as i32,
                        (s / 8) as i32 - (k / 8) as i32,
                    );
                    let aligned = k != s && (df == 0 || dr == 0 || df.abs() == dr.abs());
                    if aligned {
                        direction(df, dr) as u8
                    } else {
                        4
                    }
                })
            }),
            freeze,
        }
    })
}

/// A man of either side as the bound sees it.
#[derive(Clone, Copy, Debug)]
struct Man {
    form: Form,
    sq: usize,
    color: usize,
    /// Castling: for a king, the squares it reaches in one move by castling; for a rook that
    /// may castle, the square castling puts it on without a move of its own.
    castle: u64,
    /// A pawn that has just made its double step and may be captured e.p. at once: by a
    /// pawn landing behind it, not on its square.
    passant: bool,
}

impl Man {
    const NONE: Man = Man {
        form: Form::Pawn,
        sq: 0,
        color: 0,
        castle: 0,
        passant: false,
    };

    /// The king of `color`, castling included.
    fn king_of(pos: &Position, color: Color) -> Man {
        Man {
            form: Form::King,
            sq: pos.king(color).index(),
            color: color.index(),
            castle: castle_targets(pos, color),
            passant: false,
        }
    }

    fn king_dist(&self, t: &Tables, to: usize) -> u8 {
        let k = &t.dist[Form::King as usize];
        bits(self.castle).fold(k[self.sq][to], |d, s| d.min(1 + k[s][to]))
    }

    /// Whether this man may pin along diagonals, along ranks and files, within `a_left`
    /// moves (a pawn by promoting).
    fn pin_lines(&self, t: &Tables, a_left: u32) -> (bool, bool) {
        match self.form {
            Form::Bishop => (true, false),
            Form::Rook => (false, true),
            Form::Queen => (true, true),
            Form::Pawn => {
                let promotes = t.promote[self.color][self.sq] as u32 <= a_left;
                (promotes, promotes)
            }
            _ => (false, false),
        }
    }

    /// Moves to stand on `to` as `form`.
    fn dist_as(&self, t: &Tables, form: Form, to: usize) -> u8 {
        match self.form {
            Form::Pawn => t.pawn[self.color][self.sq][form as usize][to],
            Form::King if form == Form::King => self.king_dist(t, to),
            f if f == form => self.rook_castled(t.dist[f as usize][self.sq][to], |s| {
                t.dist[f as usize][s][to]
            }),
            _ => INF,
        }
    }

    /// `d`, or for a rook that may castle the better of `d` and `via(castling square)`.
    fn rook_castled(&self, d: u8, via: impl Fn(usize) -> u8) -> u8 {
        if self.form == Form::Rook && self.castle != 0 {
            bits(self.castle).fold(d, |d, s| d.min(via(s)))
        } else {
            d
        }
    }

    /// `f` of `dist_all`, read in the tables where it stands there (not copied out).
    #[inline]
    fn with_dist<R>(&self, t: &Tables, f: impl FnOnce(&[u8; 64]) -> R) -> R {
        match self.form {
            Form::Pawn => f(&t.pawn_any[self.color][self.sq]),
            form if self.castle == 0 => f(&t.dist[form as usize][self.sq]),
            _ => f(&self.dist_all(t)),
        }
    }

    /// Moves to stand on each square in any form: `dist_to` for all squares at once.
    fn dist_all(&self, t: &Tables) -> [u8; 64] {
        match self.form {
            Form::Pawn => t.pawn_any[self.color][self.sq],
            f if self.castle == 0 => t.dist[f as usize][self.sq],
            _ => std::array::from_fn(|to| self.dist_to(t, to)),
        }
    }

    /// Moves to stand on `to` in any form.
    fn dist_to(&self, t: &Tables, to: usize) -> u8 {
        match self.form {
            Form::Pawn => t.pawn_any[self.color][self.sq][to],
            Form::King => self.king_dist(t, to),
            f => self.rook_castled(t.dist[f as usize][self.sq][to], |s| {
                t.dist[f as usize][s][to]
            }),
        }
    }

    /// The squares this man (not a king) can attack within `d` moves, on an empty board.
    fn attacks_within(&self, t: &Tables, d: u32) -> u64 {
        let att = &t.att1[self.form as usize * 2 + self.color];
        // A rook that may castle attacks from its castling square too, at no move of its own
        // (`rook_castled`): the squares within reach of either, without a row per square.
        let castled = if self.form == Form::Rook {
            self.castle
        } else {
            0
        };
        bits(castled).fold(within(&att[self.sq], d), |b, s| b | within(&att[s], d))
    }

    /// Moves to stand on a square of `allowed` that attacks `target`.
    fn dist_attacking_one(&self, t: &Tables, target: usize, allowed: u64) -> u8 {
        if self.form == Form::King {
            return bits(t.ring[target] & allowed)
                .map(|a| self.king_dist(t, a))
                .min()
                .unwrap_or(INF);
        }
        if allowed != ALL {
            return self.dist_attacking(t, 1 << target, allowed, INF as u32);
        }
        let att = &t.att1[self.form as usize * 2 + self.color];
        self.rook_castled(att[self.sq][target], |s| att[s][target])
    }

    /// Moves to stand (in some form) on a square of `allowed` that attacks every square of
    /// `targets` (any square of `allowed` when there are no targets); `INF` when more than
    /// `cap`.
    fn dist_attacking(&self, t: &Tables, targets: u64, allowed: u64, cap: u32) -> u8 {
        let d = self.dist_attacking_uncapped(t, targets, allowed, cap);
        if d as u32 > cap {
            INF
        } else {
            d
        }
    }

    /// `dist_attacking`, possibly more than `cap` when that is found sooner.
    fn dist_attacking_uncapped(&self, t: &Tables, targets: u64, allowed: u64, cap: u32) -> u8 {
        if targets == 0 {
            if allowed == ALL {
                return 0;
            }
            return bits(allowed)
                .map(|a| self.dist_to(t, a))
                .min()
                .unwrap_or(INF);
        }
        if targets.count_ones() == 1 && (allowed == ALL || self.form == Form::King) {
            return self.dist_attacking_one(t, targets.trailing_zeros() as usize, allowed);
        }
        let forms: &[Form] = match self.form {
            // A promoted queen attacks from wherever a rook or bishop would, and gets anywhere
            // as soon (`promotion_to_queen_dominates`): those two never do better.
            Form::Pawn => &[Form::Pawn, Form::Knight, Form::Queen],
            Form::Knight => &[Form::Knight],
            Form::Bishop => &[Form::Bishop],
            Form::Rook => &[Form::Rook],
            Form::Queen => &[Form::Queen],
            Form::King => &[Form::King],
        };
        let mut best = INF;
        for &form in forms {
            let cand = bits(targets).fold(allowed, |c, s| {
                c & t.attackers[form as usize][self.color][s]
            });
            if cand == 0 {
                continue;
            }
            let levels = match self.form {
                Form::Pawn => Some(&t.pawn_levels[self.color][self.sq][form as usize]),
                Form::King => None,
                f if self.castle == 0 => Some(&t.dist_levels[f as usize][self.sq]),
                _ => None,
            };
            if let Some(levels) = levels.filter(|_| cap <= WIDEN_MAX) {
                // Few moves are left where this is asked: widen the squares within reach a
                // move at a time (a row at once) rather than look up every candidate.
                let top = cap.min(best as u32) as usize;
                if levels[top] & cand != 0 {
                    if let Some(d) = (0..=top).find(|&d| levels[d] & cand != 0) {
                        best = d as u8;
                    }
                }
            } else {
                for a in bits(cand) {
                    best = best.min(self.dist_as(t, form, a));
                }
            }
            if best == 0 {
                return 0;
            }
        }
        best
    }
}

/// The men of one side.
struct Army {
    men: [Man; MAX_MEN],
    len: usize,
}

impl Army {
    fn of(pos: &Position, color: Color, with_king: bool) -> Army {
        // The pawn of `color` the side to move may capture e.p.: the one past the square
        // the capture lands on.
        let passant = pos
            .ep_target()
            .filter(|_| pos.side_to_move() != color)
            .map(|target| {
                let rank = if color == Color::White {
                    target.rank() + 1
                } else {
                    target.rank() - 1
                };
                Square::new(target.file(), rank)
            });
        let mut army = Army {
            men: [Man::NONE; MAX_MEN],
            len: 0,
        };
        for role in Role::ALL {
            if role == Role::King && !with_king {
                continue;
            }
            for s in pos.pieces_of(color, role) {
                if army.len == MAX_MEN {
                    break;
                }
                army.men[army.len] = Man {
                    form: Form::of(role),
                    sq: s.index(),
                    color: color.index(),
                    castle: match role {
                        Role::King => castle_targets(pos, color),
                        Role::Rook => rook_castle_square(pos, color, s),
                        _ => 0,
                    },
                    passant: role == Role::Pawn && Some(s) == passant,
                };
                army.len += 1;
            }
        }
        army
    }

    fn men(&self) -> &[Man] {
        &self.men[..self.len]
    }
}

/// Where castling would put a rook standing on `sq`, if it may castle.
fn rook_castle_square(pos: &Position, color: Color, sq: Square) -> u64 {
    let rank = if color == Color::White { 0 } else { 7 };
    if sq == Square::new(7, rank) && pos.can_castle(color, false) {
        1 << Square::new(5, rank).index()
    } else if sq == Square::new(0, rank) && pos.can_castle(color, true) {
        1 << Square::new(3, rank).index()
    } else {
        0
    }
}

fn castle_targets(pos: &Position, color: Color) -> u64 {
    let rank = if color == Color::White { 0 } else { 7 };
    let mut c = 0u64;
    if pos.can_castle(color, false) {
        c |= 1 << Square::new(6, rank).index();
    }
    if pos.can_castle(color, true) {
        c |= 1 << Square::new(2, rank).index();
    }
    c
}

/// The squares beyond `s` on the line from `k` through `s` (empty unless they are aligned).
/// Asked for every man and king square the freeze test tries: a look-up, not a walk.
#[inline]
fn ray_beyond(k: usize, s: usize) -> u64 {
    let t = tables();
    t.rays[s][t.toward[k][s] as usize]
}

/// The index (of nine, the middle one unused) of the direction with these file and rank steps.
fn direction(df: i32, dr: i32) -> usize {
    ((df.signum() + 1) * 3 + dr.signum() + 1) as usize
}

/// The squares from `s` (not included) to the board's edge in direction `d` (`direction`).
fn ray_from(s: usize, d: usize) -> u64 {
    let (df, dr) = (d as i32 / 3 - 1, d as i32 % 3 - 1);
    if (df, dr) == (0, 0) {
        return 0;
    }
    let mut out = 0u64;
    let (mut f, mut r) = ((s % 8) as i32 + df, (s / 8) as i32 + dr);
    while let Some(x) = sq(f, r) {
        out |= 1 << x;
        f += df;
        r += dr;
    }
    out
}

/// Least-cost assignment of `rows` rows to distinct columns (`rows <= cols`); costs of 1000
/// or more mean impossible (the result is then at least 1000).
fn hungarian(rows: usize, cols: usize, cost: impl Fn(usize, usize) -> i32) -> i32 {
    if rows == 0 {
        return 0;
    }
    if rows > cols {
        return 1000;
    }
    // Shortest augmenting paths with potentials (rows and columns 1-based, 0 = virtual).
    const N: usize = MAX_MEN + 1;
    debug_assert!(cols < N && rows < N);
    let mut u = [0i32; N];
    let mut v = [0i32; N];
    let mut owner = [0usize; N];
    let mut way = [0usize; N];
    for r in 1..=rows {
        owner[0] = r;
        let mut j0 = 0usize;
        let mut minv = [i32::MAX; N];
        let mut used = [false; N];
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let mut delta = i32::MAX;
            let mut j1 = 0;
            for j in 1..=cols {
                if used[j] {
                    continue;
                }
                let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                if cur < minv[j] {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if minv[j] < delta {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for j in 0..=cols {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    (1..=cols)
        .filter(|&j| owner[j] != 0)
        .map(|j| cost(owner[j] - 1, j - 1))
        .sum()
}

/// `Man::dist_attacking` answers of the assignment's attackers (`Assign::cost_with`), kept
/// from one call of the bound to the next. The positions asked one after another mostly
/// differ by a man or two, so the same men are asked the same questions again: 89% of
/// intell#102's (`h#7`), where the bound had spent 45% of its time on them. Direct-mapped,
/// each slot holding its whole question, so an answer is only ever taken for its own.
pub(in crate::solve) struct AttackCosts {
    slots: Box<[AttackCost]>,
}

#[derive(Clone, Copy)]
struct AttackCost {
    targets: u64,
    allowed: u64,
    /// The man (square, form, colour) and the cap; `u32::MAX` for an empty slot.
    man: u32,
    d: u8,
}

/// Slots of `AttackCosts` (a power of two): 96 KiB, within a core's second-level cache.
const ATTACK_COSTS: usize = 4096;

impl AttackCosts {
    /// No slots yet: they are made at the first call that asks (`ready`). Each thread's search
    /// has a bound, and most problems' helper threads never ask theirs. Made with the bound,
    /// two threads' 192 KiB were handed back to the system at the end of each solve and
    /// faulted in again at the next: ser-h#5-77-7 (`../shared/bench/random.jsonl`, 5 nodes)
    /// took 0.1 ms on two threads, under 0.05 ms on one.
    pub(in crate::solve) fn new() -> AttackCosts {
        AttackCosts {
            slots: Box::default(),
        }
    }

    /// Makes the slots, empty, if not made yet.
    fn ready(&mut self) {
        if self.slots.is_empty() {
            let empty = AttackCost {
                targets: 0,
                allowed: 0,
                man: u32::MAX,
                d: 0,
            };
            self.slots = vec![empty; ATTACK_COSTS].into_boxed_slice();
        }
    }

    /// `man.dist_attacking(t, targets, allowed, cap)`, remembered.
    #[cfg(test)]
    fn dist_attacking(
        &mut self,
        t: &Tables,
        man: &Man,
        targets: u64,
        allowed: u64,
        cap: u32,
    ) -> u8 {
        self.ready();
        self.dist_attacking_as(t, (man, Self::id(man, cap)), targets, allowed, cap)
    }

    /// The key of `man` with `cap` in the memo; `None` for a rook or king that may castle:
    /// it has its castling squares besides, not remembered (they would need their own key,
    /// and are rare).
    fn id(man: &Man, cap: u32) -> Option<u32> {
        // A cap beyond `INF` caps nothing more than `INF` does.
        (man.castle == 0).then(|| {
            man.sq as u32
                | (man.form as u32) << 6
                | (man.color as u32) << 9
                | cap.min(INF as u32) << 10
        })
    }

    /// `dist_attacking` of `man` with its key `id` (`AttackCosts::id`) worked out already.
    #[inline]
    fn dist_attacking_as(
        &mut self,
        t: &Tables,
        (man, id): (&Man, Option<u32>),
        targets: u64,
        allowed: u64,
        cap: u32,
    ) -> u8 {
        let Some(id) = id else {
            return man.dist_attacking(t, targets, allowed, cap);
        };
        let h =
            (targets ^ allowed.rotate_left(17) ^ (id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .wrapping_mul(0x517c_c1b7_2722_0a95);
        let slot = &mut self.slots[(h >> (64 - ATTACK_COSTS.trailing_zeros())) as usize];
        if slot.man == id && slot.targets == targets && slot.allowed == allowed {
            return slot.d;
        }
        let d = man.dist_attacking(t, targets, allowed, cap);
        *slot = AttackCost {
            targets,
            allowed,
            man: id,
            d,
        };
        d
    }
}

/// Slots of `Assign::others_within`'s answers.
const OTHERS_KNOWN: usize = 8;

struct Assign<'a> {
    t: &'a Tables,
    /// Remembered answers of `cost_with`.
    costs: &'a mut AttackCosts,
    /// The mated side's men other than its king.
    blockers: &'a [Man],
    attackers: &'a [Man],
    /// The attacking pawns that may promote in time (bit per man).
    promoting: u32,
    /// Each attacking man's key in `costs` (`AttackCosts::id`).
    ids: [Option<u32>; MAX_MEN],
    /// Squares each attacking man must attack (from one square attacking all of them).
    roles: [u64; MAX_MEN],
    /// Squares each attacking man may end on.
    stand: [u64; MAX_MEN],
    cost: [u8; MAX_MEN],
    /// The least number of moves of each attacking man (the checking knight or pawn moves).
    min_cost: [u8; MAX_MEN],
    /// Where each attacking man may not stand (the mating king: next to K).
    forbid: [u64; MAX_MEN],
    /// The mating king's walks (`INF` everywhere without one), and which man he is.
    a_king_dist: [u8; 64],
    a_king: Option<usize>,
    /// `others_within`'s answers for this call, per checker and moves to spare (the key
    /// plus one; 0: none).
    others_known: [(u32, u64, u64); OTHERS_KNOWN],
    /// Blocking men already placed.
    used: u32,
    flights: [usize; 8],
    n_flights: usize,
    /// For each flight, the walk of the nearest blocker.
    min_block: [u8; 8],
    /// The mated king's square.
    king: usize,
    /// The mated side's budget for blocks with the king on `king`.
    m_k: u32,
    /// Matching costs per set of blocked flights (mate), for the current king square.
    memo: [u16; 256],
    /// Whether `memo` holds anything for the current king square (it is wiped lazily: most
    /// king squares are given up before any matching).
    memo_used: bool,
    /// The mated side's budget before its king walks (a pawn's blocker must reach in it).
    m_total: u32,
    a_left: u32,
    /// Stalemate: the mated side's pawns must be unable to move too.
    pawns: bool,
    /// The flights men of the mated side may end on (the others cannot be blocked).
    holdable: u64,
    steps: u32,
    /// Stalemate: per man of the mated side (not its king), the squares it can get to within
    /// `m_total` (`own_reach`), once `reach_known`.
    reach: [u64; MAX_MEN],
    reach_known: bool,
}

impl Assign<'_> {
    fn cost_with(&mut self, g: usize, roles: u64, stand: u64) -> u8 {
        let allowed = stand & !self.forbid[g];
        self.costs
            .dist_attacking_as(
                self.t,
                (&self.attackers[g], self.ids[g]),
                roles,
                allowed,
                self.a_left,
            )
            .max(self.min_cost[g])
    }

    /// Tries `g` with extra `roles` and `stand` restrictions, then continues with `next`.
    fn try_attacker(
        &mut self,
        g: usize,
        roles: u64,
        stand: u64,
        a_spent: u32,
        next: impl FnOnce(&mut Self, u32) -> bool,
    ) -> bool {
        let (old_roles, old_stand, old_cost) = (self.roles[g], self.stand[g], self.cost[g]);
        let c = self.cost_with(g, old_roles | roles, old_stand & stand);
        if c == INF {
            return false;
        }
        let spent = a_spent - old_cost as u32 + c as u32;
        if spent > self.a_left {
            return false;
        }
        self.roles[g] |= roles;
        self.stand[g] &= stand;
        self.cost[g] = c;
        let ok = next(self, spent);
        self.roles[g] = old_roles;
        self.stand[g] = old_stand;
        self.cost[g] = old_cost;
        ok
    }

    /// Can flights `i..` (then the pawns) be covered with `m_left` moves of the mated side
    /// and what is left of the mating side's budget?
    fn go(&mut self, i: usize, m_left: u32, a_spent: u32) -> bool {
        self.steps += 1;
        if self.steps > STEP_CAP {
            return true;
        }
        if i == self.n_flights {
            if self.pawns {
                return self.go_pawns(0, m_left, a_spent, 0);
            }
            // Mate: now the blocked flights get distinct blockers.
            return self.matching(self.used as usize) <= self.m_k;
        }
        let f = self.flights[i];
        let bit = 1u64 << f;
        let n = self.attackers.len();
        let mut costs = [INF; MAX_MEN];
        for (g, c) in costs.iter_mut().enumerate().take(n) {
            *c = self.cost_with(g, self.roles[g] | bit, self.stand[g]);
            // Guarded at no extra cost: take it without branching (the man is not tied to
            // that square, which only makes the bound weaker, never wrong).
            if *c <= self.cost[g] {
                return self.go(i + 1, m_left, a_spent);
            }
        }
        // Cheapest extra cost first.
        let mut order = [0usize; MAX_MEN];
        for (g, o) in order.iter_mut().enumerate().take(n) {
            *o = g;
        }
        // A few men at most: sorted in place, without the library sort's call (it showed as
        // 3% of intell#39 and #102).
        let extra = |g: usize| costs[g] as u32 - self.cost[g] as u32;
        for x in 1..n {
            let mut y = x;
            while y > 0 && extra(order[y - 1]) > extra(order[y]) {
                order.swap(y - 1, y);
                y -= 1;
            }
        }
        for &g in &order[..n] {
            let c = costs[g];
            if c == INF {
                break;
            }
            let old = self.cost[g];
            let spent = a_spent - old as u32 + c as u32;
            if spent > self.a_left {
                continue;
            }
            let saved = self.roles[g];
            self.roles[g] |= bit;
            self.cost[g] = c;
            let ok = self.go(i + 1, m_left, spent);
            self.roles[g] = saved;
            self.cost[g] = old;
            if ok {
                return true;
            }
        }
        if !self.pawns {
            // Mate: blocks are charged the nearest blocker's walk for now (a lower bound);
            // the blockers are matched to the blocked flights at the end.
            let d = self.min_block[i] as u32;
            if d > m_left || self.used.count_ones() as usize >= self.blockers.len() {
                return false;
            }
            self.used |= 1 << i;
            let ok = self.go(i + 1, m_left - d, a_spent);
            self.used &= !(1 << i);
            return ok;
        }
        if self.holdable & bit == 0 {
            return false;
        }
        for b in 0..self.blockers.len() {
            if self.used >> b & 1 == 1 {
                continue;
            }
            let d = self.blockers[b].dist_to(self.t, f) as u32;
            if d > m_left {
                continue;
            }
            self.used |= 1 << b;
            let ok = self.go(i + 1, m_left - d, a_spent);
            self.used &= !(1 << b);
            if ok {
                return true;
            }
        }
        false
    }

    /// The flights of the king's square (`ring`) in the order the search takes them: those
    /// `held` (no attacking man can attack them in time) first, then the others, highest
    /// square first (as they always went); with the walk of the nearest blocker to each.
    fn list_flights(&mut self, (ring, held): (u64, u64), block_cost: &[u8; 64]) {
        self.n_flights = 0;
        let mut add = |f: usize| {
            self.flights[self.n_flights] = f;
            self.min_block[self.n_flights] = block_cost[f];
            self.n_flights += 1;
        };
        bits(held).for_each(&mut add);
        let mut guarded = ring & !held;
        while guarded != 0 {
            let f = 63 - guarded.leading_zeros() as usize;
            guarded ^= 1 << f;
            add(f);
        }
    }

    /// Mate, the check given for `a_spent`: whether the flights (`ring`) no attacking man
    /// can take on as well within the budget can all be blocked, each by a different man, in
    /// time (`block_cost`: the nearest blocker's walk; `held`: the flights no man can attack
    /// in time at all). The search finds that too, but only after trying every way for the
    /// flights before such a one; a man's cost only grows with its roles, so none of those
    /// ways helps it. Asked before the flights are even listed for the search. The mating
    /// king takes on the flights next to one square he may end on, not those next to all of
    /// them. That is stronger than the search, which lets a man take on a flight it attacks
    /// at no extra cost without tying it to that square: intell#102 (h#7, White a king and a
    /// pawn) 322 -> 216 ms, with 28% fewer positions searched (the search would have let
    /// 2,815 of the checks this refuses through).
    fn blocks_fit(
        &mut self,
        (ring, held): (u64, u64),
        block_cost: &[u8; 64],
        checker: usize,
        a_spent: u32,
    ) -> bool {
        self.steps += 1;
        let spare = self.a_left - a_spent;
        // The other men have no role yet: what each attacks with the moves to spare, on
        // whole bitboards (as `cost_with` would find square by square). The mating king
        // apart: where he may stand.
        let t = self.t;
        let (others, king_reach) = self.others_within(checker, spare);
        let king_stands = self.a_king.map_or(0, |g| king_reach & !self.forbid[g]);
        let by_king = next_to(king_stands);
        // The squares from which the checker attacks both the king's square and a flight,
        // on an empty board: none for most flights of a pawn (that may not promote in time),
        // a knight or a bishop, which `cost_with` need not be asked.
        let man = &self.attackers[checker];
        let promotes = self.promoting >> checker & 1 == 1;
        let rows = &t.attackers[man.form as usize][man.color];
        let checks_from = rows[self.king];
        let both = |f: usize| promotes || checks_from & rows[f] != 0;
        let (mut walks, mut blocks) = (0u32, 0usize);
        // The flights only the king may take on.
        let mut kings = 0u64;
        for f in bits(ring) {
            let bit = 1u64 << f;
            let guarded = held & bit == 0
                && (others & bit != 0
                    || both(f) && {
                        let g = checker;
                        let c = self.cost_with(g, self.roles[g] | bit, self.stand[g]);
                        c != INF && a_spent - self.cost[g] as u32 + c as u32 <= self.a_left
                    });
            if guarded {
                continue;
            }
            if held & bit == 0 && by_king & bit != 0 {
                kings |= bit;
                continue;
            }
            walks += block_cost[f] as u32;
            blocks += 1;
            if walks > self.m_k || blocks > self.blockers.len() {
                return false;
            }
        }
        // He takes on those next to the one square he ends on (three at most); the others
        // are blocked too.
        let walk = |flights: u64| bits(flights).map(|f| block_cost[f] as u32).sum::<u32>();
        let (walks, blocks) = (walks + walk(kings), blocks + kings.count_ones() as usize);
        let fits = |spared: u64| {
            walks - walk(spared) <= self.m_k
                && blocks - spared.count_ones() as usize <= self.blockers.len()
        };
        fits(0)
            || blocks <= self.blockers.len() + 3
                && bits(king_stands & next_to(kings)).any(|s| fits(t.ring[s] & kings))
    }

    /// What the attacking men other than `checker` and the king attack with `spare` moves,
    /// and where the king may stand then (no king square is left out yet): the same for
    /// every square the mated king is asked on, so worked out once per bound's call.
    fn others_within(&mut self, checker: usize, spare: u32) -> (u64, u64) {
        let id = (checker as u32) << 8 | spare.min(255);
        let slot = &mut self.others_known[(checker + 3 * spare as usize) % OTHERS_KNOWN];
        if slot.0 == id + 1 {
            return (slot.1, slot.2);
        }
        let t = self.t;
        let (mut others, mut king) = (0u64, 0u64);
        for (g, man) in self.attackers.iter().enumerate() {
            if g == checker {
                continue;
            }
            if man.form == Form::King {
                king = within(&self.a_king_dist, spare);
            } else {
                others |= man.attacks_within(t, spare);
            }
        }
        *slot = (id + 1, others, king);
        (others, king)
    }

    /// The least total walk of distinct blockers onto the flights in `mask` (flight
    /// indices), remembered per king square.
    fn matching(&mut self, mask: usize) -> u32 {
        if !self.memo_used {
            self.memo = [u16::MAX; 256];
            self.memo_used = true;
        }
        if self.memo[mask] != u16::MAX {
            return self.memo[mask] as u32;
        }
        let mut rows = [0usize; 8];
        let mut n = 0;
        for i in (0..self.n_flights).filter(|i| mask >> i & 1 == 1) {
            rows[n] = self.flights[i];
            n += 1;
        }
        let cols = self.blockers.len();
        // With a single move left the mating side cannot clear a square by capturing: a man
        // standing on the king's square or on a blocked flight that is not its own moves
        // away, once at least. (Charged as a penalty that its own assignment cancels.)
        let mut penalty = [0i32; MAX_MEN];
        if self.a_left == 1 {
            for (c, p) in penalty.iter_mut().enumerate().take(cols) {
                let sq = self.blockers[c].sq;
                *p = (sq == self.king || rows[..n].contains(&sq)) as i32;
            }
        }
        let cost = |r: usize, c: usize| -> i32 {
            let d = self.blockers[c].dist_to(self.t, rows[r]);
            if d == INF {
                1000
            } else {
                d as i32 - penalty[c]
            }
        };
        let total = hungarian(n, cols, cost) + penalty.iter().sum::<i32>();
        let best = (total.max(0) as u32).min(u16::MAX as u32 - 1);
        self.memo[mask] = best as u16;
        best
    }

    /// The squares the mated side's men other than `x` can get to within its budget (before
    /// its king walks), worked out once per call of the bound.
    fn own_reach(&mut self, x: usize) -> u64 {
        if !self.reach_known {
            self.reach_known = true;
            for (r, man) in self.reach.iter_mut().zip(self.blockers) {
                *r = man.with_dist(self.t, |d| within(d, self.m_total));
            }
        }
        let others = self.blockers.len();
        (0..others)
            .filter(|&b| b != x)
            .fold(0, |m, b| m | self.reach[b])
    }

    /// Stalemate: can the mated side's pawns from index `j` on (those not blocking flights)
    /// end unable to move? Each is captured (a move of the mating side), promotes (and is
    /// then assumed immobile), or ends on a square whose square ahead is occupied (by the
    /// mated king, by a man of its own side that can get there, or by an attacking man), or
    /// pinned against the king.
    fn go_pawns(&mut self, j: usize, m_left: u32, a_spent: u32, captures: u32) -> bool {
        self.steps += 1;
        if self.steps > STEP_CAP {
            return true;
        }
        let Some(x) = (j..self.blockers.len())
            .find(|&b| self.blockers[b].form == Form::Pawn && self.used >> b & 1 == 0)
        else {
            return true;
        };
        let pawn = self.blockers[x];
        let t = self.t;
        // Captured: one move of the mating side for each.
        if captures < self.a_left && self.go_pawns(x + 1, m_left, a_spent, captures + 1) {
            return true;
        }
        let promote = t.promote[pawn.color][pawn.sq] as u32;
        if promote <= m_left && self.go_pawns(x + 1, m_left - promote, a_spent, captures) {
            return true;
        }
        let forward: i32 = if pawn.color == Color::White.index() {
            8
        } else {
            -8
        };
        let cone = &t.pawn[pawn.color][pawn.sq][Form::Pawn as usize];
        // The squares the pawn's own men (itself apart) can get to in time.
        let own_reach = self.own_reach(x);
        let mut nearer = 0u64;
        for d in 0..=m_left.min(6) {
            let level = within(cone, d) & !nearer;
            nearer |= level;
            for s in bits(level) {
                let ahead = (s as i32 + forward) as usize;
                let rest = m_left - d;
                // Blocked by the king or by one of its own men (not charged: that man's
                // moves may be counted elsewhere).
                let own = ahead == self.king || own_reach >> ahead & 1 == 1;
                if own && self.go_pawns(x + 1, rest, a_spent, captures) {
                    return true;
                }
                // Blocked by an attacking man, or pinned by one.
                let pin = ray_beyond(self.king, s);
                for g in 0..self.attackers.len() {
                    if self.try_attacker(g, 0, 1 << ahead, a_spent, |st, spent| {
                        st.go_pawns(x + 1, rest, spent, captures)
                    }) {
                        return true;
                    }
                    if pin != 0
                        && self.attackers[g].form != Form::King
                        && self.try_attacker(g, 1 << s, pin, a_spent, |st, spent| {
                            st.go_pawns(x + 1, rest, spent, captures)
                        })
                    {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Stalemate with few moves of the stalemated side left (at most `FREEZE_MAX_MOVES`): can
/// every man of that side other than its king end immobile? Each ends
/// - captured: a move of the stalemating side each, by a man that can reach it (in place, or
///   after a move of its own);
/// - pinned (not a queen, which can always move along its pin; a bishop only along a rank or
///   file, a rook only along a diagonal): a line piece of the stalemating side moving along
///   that kind of line each (one pinner pins one man);
/// - or on a square where it cannot move unpinned: an officer with every square next to it
///   along its lines (a knight: every knight move) held by its own side, a pawn with the
///   square ahead occupied.
///
/// Counted in moves of the stalemated side: the men's own walks add up (each move moves one
/// man); and every square that must be held by its side but is not held now needs a man of
/// its own to arrive, a distinct man for each square. The square ahead of a pawn may also be
/// filled by a man of the other side that can get there: a distinct man for each such
/// square, and one move of that side for each such square and each capture.
///
/// First for any square the king can reach; then, if that fits, square by square: the
/// king's walk counts too, each man pinned where it stands takes its line from the king's
/// square (one man a line), and a pinner not yet on that line takes a move to get there;
/// and the king's flights from that square must be `covered` too (the other test of
/// `goal_reachable`). Its quick part comes before the pins are set up and names the flights
/// the other side cannot attack in time: a man must end on each. The rest is asked of each
/// way found for the men, with blocks only on the squares those men may end on (a man
/// captured blocks nothing); once it has refused one, also of the men decided so far, to cut
/// the search short.
/// Mistaking a square for held, or a way for cheaper than it is, only lets more through, so
/// the men's ways are listed once, with the king on its square.
/// The steps of its search are added to `effort` (`Bound`'s measure of its work).
fn men_can_freeze(
    king: (&Man, &[u8; 64]),
    sides: (&[Man], &[Man]),
    left: (u32, u32),
    first: &mut CutRate,
    covered: &mut dyn FnMut(usize, u32, Depth) -> Option<u64>,
    effort: &mut u64,
) -> bool {
    // The ways' lists are large (kilobytes) and asked for millions of times: one per thread,
    // overwritten, instead of a fresh zeroed one per call.
    thread_local! {
        static WAYS: RefCell<Ways> = const { RefCell::new([[Way::NONE; MAX_OPTIONS]; MAX_MEN]) };
    }
    WAYS.with_borrow_mut(|ways| men_can_freeze_in(ways, king, sides, left, first, covered, effort))
}

/// See `men_can_freeze_in`: the freeze test with the king on any square is asked first while
/// it fails at least one call in this many.
const ANY_SQUARE_MIN_FAILS: u64 = 4;

/// Whether the freeze test is asked: the stalemated side has men besides its king, and few
/// enough moves left for the test to be cheap.
fn freeze_asked(men: &[Man], m_left: u32) -> bool {
    !men.is_empty() && m_left <= FREEZE_MAX_MOVES
}

/// `men_can_freeze` with `ways` to list the men's ways in; `(m_left, a_left)`: the moves left.
fn men_can_freeze_in(
    ways: &mut Ways,
    (king, king_dist): (&Man, &[u8; 64]),
    (men, attackers): (&[Man], &[Man]),
    (m_left, a_left): (u32, u32),
    first: &mut CutRate,
    covered: &mut dyn FnMut(usize, u32, Depth) -> Option<u64>,
    effort: &mut u64,
) -> bool {
    let t = tables();
    let own = men.iter().fold(0u64, |b, m| b | 1 << m.sq);
    let theirs = attackers.iter().fold(0u64, |b, m| b | 1 << m.sq);
    // The men that may pin: along diagonals, along ranks and files, in all.
    let pinners = Pinners::of(t, attackers, a_left);
    let (mut diagonal_pinners, mut orthogonal_pinners) = (0u64, 0u64);
    for man in attackers {
        let (diagonal, orthogonal) = man.pin_lines(t, a_left);
        // Those standing on a line already (a pawn must promote first).
        if man.form != Form::Pawn {
            diagonal_pinners |= (diagonal as u64) << man.sq;
            orthogonal_pinners |= (orthogonal as u64) << man.sq;
        }
    }
    // The squares the king can reach, nearest first, and the lines through them.
    let (king_squares, n_king_squares) = nearest_first(king_dist, within(king_dist, m_left));
    let (mut orthogonal, mut diagonal) = (0u64, 0u64);
    for &(_, k) in &king_squares[..n_king_squares] {
        orthogonal |= t.near[Form::Rook as usize][k as usize][1];
        diagonal |= t.near[Form::Bishop as usize][k as usize][1];
    }
    // Where the other side's men can stand in time (its nearest man's distances).
    let errands = Errands::new(t, attackers);
    let theirs_within = within(&errands.nearest, a_left);
    let theirs_reach = |sq: usize| theirs_within >> sq & 1 == 1;
    let capturable = within(&errands.nearest_capture, a_left);
    let mut freeze = Freeze {
        options: ways,
        covered,
        errands,
        n_options: [0; MAX_MEN],
        capture_walk: [0; MAX_MEN],
        men,
        pin_walk: [[INF as u32; 2]; MAX_MEN],
        pin_ray: [0; MAX_MEN],
        pin_move: [[0; 2]; MAX_MEN],
        order: std::array::from_fn(|i| i as u8),
        reach: [0; MAX_MEN],
        reach_after: [0; MAX_MEN + 1],
        n: men.len(),
        m_left,
        a_left,
        pinners,
        their_men: attackers.len() as u32,
        theirs_within,
        king: (0, 0),
        flights_memo: [0; 256],
        flights_refused: false,
        must_hold: 0,
        steps: 0,
    };
    // Which lines a man may be pinned along and stay immobile: a bishop only along a rank or
    // file, a rook only along a diagonal, a queen never, a knight or pawn along any.
    let pinnable = |man: &Man| [0, 1].map(|line| pinnable(man.form, line));
    // Where each man can stand in time: a square none of the others (the king included) can
    // reach is held only if it is held now.
    let mut reach = [0u64; MAX_MEN];
    for (r, man) in reach.iter_mut().zip(men) {
        *r = man.with_dist(t, |d| within(d, m_left));
    }
    let king_reach = within(king_dist, m_left);
    for (i, man) in men.iter().enumerate() {
        freeze.capture_walk[i] = if man.passant || capturable >> man.sq & 1 == 1 {
            0
        } else if m_left > 0 {
            1
        } else {
            INF as u32
        };
        // Pinned on a line through some square its king can reach; elsewhere after a move
        // of its own.
        for (line, lines) in [diagonal, orthogonal].into_iter().enumerate() {
            freeze.pin_walk[i][line] = if !pinnable(man)[line] || lines == 0 {
                INF as u32
            } else if lines >> man.sq & 1 == 1 {
                0
            } else {
                1
            };
        }
        // The king's square counts as held even if it leaves: that only makes ways cheaper.
        let held = own | 1 << king.sq;
        let others_reach = reach[..men.len()]
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .fold(king_reach, |b, (_, r)| b | r);
        freeze.set_ways(
            t,
            i,
            man,
            (held, held | theirs),
            others_reach,
            &theirs_reach,
        );
    }
    // Fewest ways first: a man that cannot end frozen is found soonest.
    let ways: [u32; MAX_MEN] = std::array::from_fn(|i| {
        freeze.n_options[i] as u32
            + (freeze.capture_walk[i] <= m_left) as u32
            + freeze.pin_walk[i].iter().filter(|&&w| w <= m_left).count() as u32
    });
    let order = &mut freeze.order[..men.len()];
    if !order.is_sorted_by_key(|&i| ways[i as usize]) {
        order.sort_by_key(|&i| ways[i as usize]);
    }
    freeze.reach = reach;
    for at in (0..men.len()).rev() {
        freeze.reach_after[at] = freeze.reach_after[at + 1] | reach[freeze.order[at] as usize];
    }
    // Any king square first (the king's walk is not counted, nor does it make arrivals): a
    // looser test, so it never changes the answer; it only spares the squares one by one
    // when it fails. Where it rarely fails (hpint#28 h=3: one call in seven) that is mostly
    // work thrown away; elsewhere it spares much (hpint#52 ser-h=8: two calls in three). So
    // it is asked while it fails at least one call in `ANY_SQUARE_MIN_FAILS`.
    if first.worth_asking(m_left, ANY_SQUARE_MIN_FAILS) {
        freeze.steps = 0;
        let frozen = freeze.go(0, Fate::default());
        *effort += freeze.steps as u64;
        first.answered(m_left, !frozen);
        if !frozen {
            return false;
        }
    }

    // Now king square by king square: the king's walk counts, each pin is along a line
    // through that square (one man per line), and a pinner not on its line yet moves there.
    for &(dk, k) in &king_squares[..n_king_squares] {
        let (dk, k) = (dk as u32, k as usize);
        // The flights' quick test first: it is cheaper than setting up the pins.
        let Some(must_hold) = (freeze.covered)(k, dk, Depth::Quick) else {
            continue;
        };
        for (i, man) in men.iter().enumerate() {
            // A pin needs a square beyond the man for the pinner (none at the board's edge).
            let beyond = ray_beyond(k, man.sq);
            let on_line = [Form::Bishop, Form::Rook]
                .map(|f| man.sq != k && beyond != 0 && t.near[f as usize][k][1] >> man.sq & 1 == 1);
            let pinner_there = [diagonal_pinners, orthogonal_pinners].map(|p| p & beyond != 0);
            freeze.pin_ray[i] = if on_line[0] || on_line[1] {
                ray_of(k, man.sq)
            } else {
                0
            };
            for line in 0..2 {
                let (walk, moves) = if !pinnable(man)[line] {
                    (INF as u32, 0)
                } else if on_line[line] {
                    (0, !pinner_there[line] as u32)
                } else {
                    (1, 0)
                };
                freeze.pin_walk[i][line] = walk;
                freeze.pin_move[i][line] = moves;
            }
        }
        freeze.steps = 0;
        freeze.king = (dk, 1 << k);
        freeze.must_hold = must_hold;
        freeze.flights_memo = [0; 256];
        freeze.flights_refused = false;
        let frozen = freeze.go(0, Fate::default());
        *effort += freeze.steps as u64;
        if frozen {
            return true;
        }
    }
    false
}

impl Freeze<'_> {
    /// Lists the ways for man `i` to end frozen, with `held` (its side's men, the man
    /// itself left out) and `occupied` standing where they stand now; `others_reach`: the
    /// squares the other men of its side can arrive on in time.
    fn set_ways(
        &mut self,
        t: &Tables,
        i: usize,
        man: &Man,
        (held, occupied): (u64, u64),
        others_reach: u64,
        theirs_reach: &impl Fn(usize) -> bool,
    ) {
        let m_left = self.m_left;
        let others = held & !(1 << man.sq);
        let mut opts = Options {
            list: &mut self.options[i],
            len: 0,
            overflow: false,
            least_walk: INF as u32,
            ends: 0,
        };
        // An officer standing frozen on a square whose neighbours along its lines are held,
        // or will be by arrivals.
        let holdable = others | others_reach;
        let officer = |squares: &[Frozen], opts: &mut Options| {
            for c in squares {
                // Most ways need a square no man of its side can hold: one test rules them out.
                if c.needs & !holdable != 0 {
                    continue;
                }
                let arrive = c.needs & !others;
                let walk = c.walk as u32;
                if walk + arrive.count_ones() <= m_left {
                    opts.add(Way {
                        walk,
                        own: arrive,
                        theirs: 0,
                        end: 1 << c.end,
                        own_stay: true,
                    });
                }
            }
        };
        if man.form == Form::Pawn {
            let cone = &t.pawn[man.color][man.sq];
            let ahead: i32 = if man.color == Color::White.index() {
                8
            } else {
                -8
            };
            for s in bits(within(&cone[Form::Pawn as usize], m_left)) {
                let d = cone[Form::Pawn as usize][s] as u32;
                let a = (s as i32 + ahead) as usize;
                let held = (occupied & !(1 << man.sq)) >> a & 1 == 1;
                // A pawn is stopped by any man ahead: its own side's may be captured there.
                let way = |own, theirs| Way {
                    walk: d,
                    own,
                    theirs,
                    end: 1 << s,
                    own_stay: false,
                };
                if held {
                    opts.add(way(0, 0));
                    continue;
                }
                if theirs_reach(a) {
                    opts.add(way(0, 1 << a));
                }
                if d < m_left && others_reach >> a & 1 == 1 {
                    opts.add(way(1 << a, 0));
                }
            }
            // Promoted (only a pawn that can promote in time is asked about its officers).
            if t.promote[man.color][man.sq] as u32 <= m_left {
                officer(&t.promoted[list_slot(man.color, man.sq, m_left)], &mut opts);
            }
        } else {
            officer(
                &t.frozen[list_slot(man.form as usize, man.sq, m_left)],
                &mut opts,
            );
            // A rook that may castle gets there without a move of its own.
            if man.form == Form::Rook && man.castle != 0 {
                let home = man.castle.trailing_zeros() as usize;
                officer(
                    &t.frozen[list_slot(man.form as usize, home, m_left)],
                    &mut opts,
                );
            }
        }
        if opts.overflow {
            // Too many ways to tell apart: keep only what all of them need at least.
            opts.list[0] = Way {
                walk: opts.least_walk,
                end: opts.ends,
                ..Way::NONE
            };
            opts.len = 1;
        }
        // Shortest walks first: `go` stops at the first way its side has no moves for. (The
        // tables list them so already, mostly: a sort is rarely needed.)
        let list = &mut opts.list[..opts.len];
        if !list.is_sorted_by_key(|way| way.walk) {
            list.sort_by_key(|way| way.walk);
        }
        self.n_options[i] = opts.len;
    }
}

/// The squares next to those of `b` (and those of `b`).
fn next_to(b: u64) -> u64 {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    let row = b | (b << 1 & NOT_A) | (b >> 1 & NOT_H);
    row | row << 8 | row >> 8
}

/// The direction from `k` to `s` as a bit (of nine, the middle one unused), for lines only.
fn ray_of(k: usize, s: usize) -> u16 {
    let df = (s % 8) as i32 - (k % 8) as i32;
    let dr = (s / 8) as i32 - (k / 8) as i32;
    1 << direction(df, dr)
}

/// Whether a man of `form` pinned along a diagonal (`line` 0) or a rank or file (1) cannot
/// move: a bishop only across its lines, a rook likewise, a queen never, others always.
fn pinnable(form: Form, line: usize) -> bool {
    match form {
        Form::Bishop => line == 1,
        Form::Rook => line == 0,
        Form::Queen => false,
        _ => true,
    }
}

/// How many men of the stalemating side may pin: along diagonals, along ranks and files, and
/// in all (a queen or a pawn that may promote counts in both lines but pins one man).
#[derive(Default)]
struct Pinners {
    diagonal: u32,
    orthogonal: u32,
    all: u32,
}

impl Pinners {
    fn of(t: &Tables, attackers: &[Man], a_left: u32) -> Pinners {
        let mut pinners = Pinners::default();
        for man in attackers {
            let (diagonal, orthogonal) = man.pin_lines(t, a_left);
            pinners.diagonal += diagonal as u32;
            pinners.orthogonal += orthogonal as u32;
            pinners.all += (diagonal || orthogonal) as u32;
        }
        pinners
    }

    /// Whether `pinned` (along diagonals, along ranks and files) can each have a pinner of
    /// their own (Hall's condition for these three kinds of pinner).
    fn suffice(&self, pinned: [u32; 2]) -> bool {
        pinned[0] <= self.diagonal
            && pinned[1] <= self.orthogonal
            && pinned[0] + pinned[1] <= self.all
    }
}

/// The stalemated side's moves left up to which `men_can_freeze` is tried (beyond, the men
/// have too many ways to end and the test would cost more than it cuts).
const FREEZE_MAX_MOVES: u32 = 2;
/// Ways for one man to end frozen, at most.
const MAX_OPTIONS: usize = 24;

/// One way for a man to end frozen.
#[derive(Clone, Copy)]
struct Way {
    /// Its own moves.
    walk: u32,
    /// The squares men of its side must arrive on.
    own: u64,
    /// The squares men of the other side must arrive on.
    theirs: u64,
    /// The squares it may end on: one, or several when ways were merged into one.
    end: u64,
    /// Whether the men arriving on `own` must stay there (an officer is stopped only by its
    /// own side's men; a pawn also by the other side's, capturing one there).
    own_stay: bool,
}

impl Way {
    const NONE: Way = Way {
        walk: 0,
        own: 0,
        theirs: 0,
        end: ALL,
        own_stay: false,
    };
}

/// The distinct cheapest ways of one man.
struct Options<'a> {
    list: &'a mut [Way; MAX_OPTIONS],
    len: usize,
    overflow: bool,
    /// The shortest walk of every way added (kept or not).
    least_walk: u32,
    /// The squares every way added (kept or not) ends on.
    ends: u64,
}

impl Options<'_> {
    fn add(&mut self, way: Way) {
        self.least_walk = self.least_walk.min(way.walk);
        self.ends |= way.end;
        // A way that needs the same arrivals and walks no less is no new way; the one kept
        // then stands for both, so it asks only what both ask.
        for o in &mut self.list[..self.len] {
            let same = o.own == way.own && o.theirs == way.theirs;
            if same
                || (o.own & way.own == o.own
                    && o.theirs & way.theirs == o.theirs
                    && o.walk <= way.walk)
            {
                o.walk = o.walk.min(way.walk);
                o.end |= way.end;
                o.own_stay &= way.own_stay;
                return;
            }
        }
        if self.len == MAX_OPTIONS {
            self.overflow = true;
            return;
        }
        self.list[self.len] = way;
        self.len += 1;
    }
}

/// Every man's ways to end frozen.
type Ways = [[Way; MAX_OPTIONS]; MAX_MEN];

struct Freeze<'w> {
    options: &'w mut Ways,
    /// The flights' test of `goal_reachable` for a king square.
    covered: &'w mut dyn FnMut(usize, u32, Depth) -> Option<u64>,
    /// The other side's men, for what their captures and arrivals cost.
    errands: Errands<'w>,
    n_options: [usize; MAX_MEN],
    /// The man's own moves before it can be captured (`INF`: it cannot).
    capture_walk: [u32; MAX_MEN],
    /// The men to freeze (the king apart).
    men: &'w [Man],
    /// The man's own moves before it can stand pinned along a diagonal, along a rank or
    /// file (`INF`: it cannot).
    pin_walk: [[u32; 2]; MAX_MEN],
    /// The line from the king's square the man stands on (`ray_of`), 0 if none or unknown.
    pin_ray: [u16; MAX_MEN],
    /// Moves of the other side to bring a pinner onto that line (0 or 1).
    pin_move: [[u32; 2]; MAX_MEN],
    /// The men in the order they are decided: fewest ways first.
    order: [u8; MAX_MEN],
    /// Per man, the squares it can stand on in time; per place in `order`, the squares the
    /// men from there on can.
    reach: [u64; MAX_MEN],
    reach_after: [u64; MAX_MEN + 1],
    n: usize,
    m_left: u32,
    a_left: u32,
    pinners: Pinners,
    their_men: u32,
    /// The squares some man of the other side can reach in time.
    theirs_within: u64,
    /// The king's walk and final square (as a bit), once chosen; (0, 0) before.
    king: (u32, u64),
    /// `flights_covered`'s answers for that square: 0 not asked, 1 no, 2 yes.
    flights_memo: [u8; 256],
    /// Whether it has answered no for that square.
    flights_refused: bool,
    /// The flights of that square the other side cannot attack in time: each must end
    /// occupied by a man of the stalemated side (0 before the square is chosen).
    must_hold: u64,
    steps: u32,
}

/// Captures and arrivals of the other side, at most this many, are costed by its men's walks
/// (beyond, one move each).
const MAX_ERRANDS: usize = 3;
/// An errand's square when the man to be captured moves first (to a square unknown).
const ANYWHERE: u8 = 64;

/// Slots of the errands' costs kept (`ERRAND_COSTS`), as a power of two.
const ERRAND_COST_BITS: u32 = 14;

/// The least moves of an errand list asked before: the errands (`Freeze::their_moves`' key)
/// and their cost (never 0: 0 marks an empty slot) in `data`, and the men's key
/// (`Errands::men_key`) xor `data` in `check`. Read and written without locks, as the
/// table's slots: a slot torn by two writers does not verify and reads as empty.
struct ErrandCost {
    check: AtomicU64,
    data: AtomicU64,
}

/// Errand costs, kept across calls and shared by all threads: the other side's men stand
/// alike in many positions of a search, and a cost holds on an empty board whatever the
/// search. (Kept per thread, each helper thread started without them.)
static ERRAND_COSTS: [ErrandCost; 1 << ERRAND_COST_BITS] = [const {
    ErrandCost {
        check: AtomicU64::new(0),
        data: AtomicU64::new(0),
    }
}; 1 << ERRAND_COST_BITS];

/// What the other side's captures and arrivals cost it: each is a square one of its men must
/// move to (capturing there, or arriving); a man making several visits them one after
/// another, on an empty board.
struct Errands<'a> {
    t: &'a Tables,
    men: &'a [Man],
    /// Per man: the moves to stand on each square (`Man::dist_all`), worked out once.
    rows: [[u8; 64]; MAX_MEN],
    /// Per man that is a pawn: the moves to capture on each square (`Tables::pawn_capture`).
    pawn_capture: [Option<&'a [u8; 64]>; MAX_MEN],
    /// Per square: the moves of the nearest man to stand there, to capture there.
    nearest: [u8; 64],
    nearest_capture: [u8; 64],
    /// The men as a key: what the errands' costs depend on.
    men_key: u64,
}

impl<'a> Errands<'a> {
    fn new(t: &'a Tables, men: &'a [Man]) -> Errands<'a> {
        let mut nearest = [INF; 64];
        let mut nearest_capture = [INF; 64];
        let mut rows = [[INF; 64]; MAX_MEN];
        let mut pawn_capture = [None; MAX_MEN];
        for ((row, capture), man) in rows.iter_mut().zip(&mut pawn_capture).zip(men) {
            *row = man.dist_all(t);
            if man.form == Form::Pawn {
                *capture = Some(&t.pawn_capture[man.color][man.sq]);
            }
            let capture_row = capture.unwrap_or(row);
            for (s, &d) in row.iter().enumerate() {
                nearest[s] = nearest[s].min(d);
                nearest_capture[s] = nearest_capture[s].min(capture_row[s]);
            }
        }
        // Form, square, colour and castling of each man, mixed in turn.
        let men_key = men.iter().fold(0x243f_6a88_85a3_08d3u64, |k, m| {
            let part = (m.form as u64) | (m.sq as u64) << 3 | (m.color as u64) << 9;
            (k ^ part ^ m.castle.rotate_left(17)).wrapping_mul(0xff51_afd7_ed55_8ccd) ^ k >> 29
        });
        Errands {
            t,
            men,
            rows,
            pawn_capture,
            nearest,
            nearest_capture,
            men_key,
        }
    }

    /// The moves of the nearest man to run one errand: to capture on `square`, or to arrive.
    fn nearest(&self, square: u8, capture: bool) -> u32 {
        let nearest = if capture {
            &self.nearest_capture
        } else {
            &self.nearest
        };
        match nearest.get(square as usize) {
            Some(&d) => d.max(1) as u32,
            None => 1, // anywhere
        }
    }

    /// The least moves, over the ways to share `squares` out among the men, each man
    /// visiting its share in its best order; `captures`: those (bits) to capture on.
    fn least_moves(&self, squares: &[u8], captures: u8) -> u32 {
        let n = squares.len();
        let men = 0..self.men.len();
        let capture = |j: usize| captures >> j & 1 == 1;
        match *squares {
            [s] => return self.nearest(s, capture(0)),
            // Apart, or both by one man.
            [a, b] => {
                let apart = self.nearest(a, capture(0)) + self.nearest(b, capture(1));
                return men.fold(apart, |least, m| least.min(self.walk(m, &[a, b], captures)));
            }
            _ => {}
        }
        // Per subset of the errands: the cheapest single man to run them all.
        let mut best = [u32::MAX; 1 << MAX_ERRANDS];
        for (mask, b) in best.iter_mut().enumerate().take(1 << n).skip(1) {
            let mut order = [0u8; MAX_ERRANDS];
            let (mut len, mut order_captures) = (0, 0u8);
            for (j, &s) in squares.iter().enumerate() {
                if mask >> j & 1 == 1 {
                    order[len] = s;
                    order_captures |= (capture(j) as u8) << len;
                    len += 1;
                }
            }
            for m in men.clone() {
                *b = (*b).min(self.walk(m, &order[..len], order_captures));
            }
        }
        // Share the errands out: the subset holding the first errand left, then the rest.
        let mut least = [u32::MAX; 1 << MAX_ERRANDS];
        least[0] = 0;
        for mask in 1usize..1 << n {
            let low = mask & mask.wrapping_neg();
            let mut sub = mask;
            while sub != 0 {
                if sub & low != 0 {
                    least[mask] = least[mask].min(best[sub].saturating_add(least[mask ^ sub]));
                }
                sub = (sub - 1) & mask;
            }
        }
        least[(1 << n) - 1]
    }

    /// The shortest walk of man `m` visiting `squares` in some order (`captures`: those,
    /// as bits, it captures on): a move for each, and the walk between the squares known (a
    /// detour by a square not known is no shorter).
    fn walk(&self, m: usize, squares: &[u8], captures: u8) -> u32 {
        // The known squares, each with whether it is a capture.
        let mut known = [(0usize, false); MAX_ERRANDS];
        let mut k = 0;
        for (j, &s) in squares.iter().enumerate() {
            if s != ANYWHERE {
                known[k] = (s as usize, captures >> j & 1 == 1);
                k += 1;
            }
        }
        let t = self.t;
        let man = &self.men[m];
        let row = &self.rows[m];
        let first = |(s, capture): (usize, bool)| match self.pawn_capture[m] {
            Some(captures) if capture => captures[s] as u32,
            _ => row[s] as u32,
        };
        // A pawn goes on as a pawn, or as the officer it may have promoted to on the way.
        let dist = &t.dist[man.form as usize];
        let between = |(a, _): (usize, bool), (b, capture): (usize, bool)| {
            if man.form != Form::Pawn {
                return dist[a][b] as u32;
            }
            let as_pawn = if capture {
                t.pawn_capture[man.color][a][b]
            } else {
                t.pawn_any[man.color][a][b]
            };
            as_pawn.min(t.officer[a][b]) as u32
        };
        let least = match known[..k] {
            [] => 0,
            [a] => first(a),
            [a, b] => (first(a) + between(a, b)).min(first(b) + between(b, a)),
            _ => ORDERS
                .iter()
                .map(|o| {
                    let [a, b, c] = o.map(|j| known[j]);
                    first(a) + between(a, b) + between(b, c)
                })
                .min()
                .unwrap_or(u32::MAX),
        };
        least.max(squares.len() as u32)
    }
}

/// Every order of `MAX_ERRANDS` items, as indices.
const ORDERS: [[usize; MAX_ERRANDS]; 6] = [
    [0, 1, 2],
    [1, 0, 2],
    [0, 2, 1],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// How the men decided so far end: what it costs, and what it uses up.
#[derive(Clone, Copy, Default)]
struct Fate {
    /// Moves of the stalemated side's men other than the king (each move moves one man).
    walked: u32,
    /// The squares its men, and the other side's men, must arrive on.
    arrive: (u64, u64),
    captured: u32,
    /// Where the first captures happen (`ANYWHERE` after the man moved).
    capture_squares: [u8; MAX_ERRANDS],
    /// Those of them (bits) that may instead happen anywhere after one more move of the
    /// captured man: chosen at the end, when all walks are known.
    either: u8,
    /// Men pinned along diagonals, along ranks and files.
    pinned: [u32; 2],
    /// The lines from the king taken by a pinned man.
    rays: u16,
    /// Moves of the other side bringing pinners onto their lines.
    pin_moves: u32,
    /// The squares its men must arrive on and stay (not be captured there).
    occupy: u64,
    /// The squares the men not captured end on, where known (`ends`), and how many of them
    /// may end anywhere else (`roaming`): each square to occupy, or stopping a pawn, takes
    /// one of them or (a pawn's) a man captured there (`arrivals_filled`).
    ends: u64,
    roaming: u32,
    /// The squares those roaming men may end on.
    roam: u64,
}

impl Freeze<'_> {
    /// Whether the stalemated side has the moves for `fate`: its men's walks add up, and
    /// each square its men must arrive on takes a man's move (maybe one of those walks);
    /// the king's walk comes on top, and it arrives on its own square only.
    fn fits(&self, fate: &Fate) -> bool {
        self.fits_parts(fate.walked, fate.arrive.0)
    }

    /// `fits` for a fate with these walks and arrivals of the stalemated side (asked
    /// before the fate is built: most ways tried do not fit).
    fn fits_parts(&self, walked: u32, arrive: u64) -> bool {
        let (king_walk, king_square) = self.king;
        let arrivals = (arrive & !king_square).count_ones();
        king_walk + walked.max(arrivals) <= self.m_left
    }

    /// Whether each square its men must occupy can take a different man of its side: one
    /// not captured that ends there or may end anywhere, or the king while its square is
    /// open (a chosen king square is no arrival), or one of the `undecided` men; each square
    /// stopping a pawn also a man captured there, if the other side can get there in time.
    /// The king's flights the other side cannot attack (`must_hold`) are squares to occupy
    /// too, each by a man that may end there: a roaming man, or one not decided yet (those
    /// from `order[at]` on).
    fn arrivals_filled(&self, fate: &Fate, at: usize) -> bool {
        // The flights (never the king's square) no man ends on for sure.
        let open = self.must_hold & !fate.ends;
        if fate.arrive.0 | open == 0 {
            return true; // the usual case
        }
        if open & !(fate.roam | self.reach_after[at]) != 0 {
            return false;
        }
        let undecided = (self.n - at) as u32;
        let (_, king_square) = self.king;
        let fillers = fate.roaming + (king_square == 0) as u32 + undecided;
        let unfilled = |squares: u64| (squares & !king_square & !fate.ends).count_ones();
        let standing = fate.occupy | (fate.arrive.0 & !self.theirs_within) | self.must_hold;
        unfilled(standing) <= fillers && unfilled(fate.arrive.0) <= fillers + fate.captured
    }

    /// Whether the flights can still be covered with the men before `order[at]` decided as
    /// in `fate`, blocking only where men may end: those decided where their fates put them,
    /// the others where they can reach (fewer squares as men are decided: the test only gets
    /// harder). Asked only once the test has refused a way for this king square: before,
    /// it mostly passes and is not worth its cost.
    fn flights_hold(&mut self, fate: &Fate, at: usize) -> bool {
        !self.flights_refused || self.flights_covered(fate.ends | fate.roam | self.reach_after[at])
    }

    /// The flights' test for the chosen king square, blocking only on `holdable`: its
    /// answers per set of holdable flights are kept for that square (many fates share one).
    fn flights_covered(&mut self, holdable: u64) -> bool {
        let (dk, king_square) = self.king;
        let k = king_square.trailing_zeros() as usize;
        let ring = tables().ring[k];
        let slot = bits(ring)
            .enumerate()
            .fold(0, |i, (n, f)| i | ((holdable >> f & 1) as usize) << n);
        if self.flights_memo[slot] == 0 {
            let holdable = holdable & ring;
            let covered = (self.covered)(k, dk, Depth::Full { holdable }).is_some();
            self.flights_refused |= !covered;
            // More squares to block on never hurt: a yes holds for every superset, a no for
            // every subset.
            let memo = &mut self.flights_memo;
            let mut s = slot;
            if covered {
                let all = (1usize << ring.count_ones()) - 1;
                loop {
                    memo[s] = 2;
                    if s == all {
                        break;
                    }
                    s = (s + 1) | slot;
                }
            } else {
                loop {
                    memo[s] = 1;
                    if s == 0 {
                        break;
                    }
                    s = (s - 1) & slot;
                }
            }
        }
        self.flights_memo[slot] == 2
    }

    /// Whether the captures that may happen either way can be shared out so that both sides
    /// have the moves: each moved first costs its side a move (`fits`) and may spare the
    /// other side's walk to it (`their_moves`). Only the most moved first that fit are tried:
    /// more never cost the other side more.
    fn either_way_fits(&mut self, fate: &Fate) -> bool {
        let either = fate.either;
        let n = either.count_ones();
        let room = |moved: u32| self.fits_parts(fate.walked + moved, fate.arrive.0);
        if room(n) {
            return true; // checked on the way: all moved first
        }
        // The most that fit: as many as `room` grants (fewer only cost the other side more).
        let most = (0..n).rev().find(|&m| room(m)).unwrap_or(0);
        let mut subset = either;
        loop {
            if subset.count_ones() == most && self.their_moves(fate, subset) <= self.a_left {
                return true;
            }
            if subset == 0 {
                return false;
            }
            subset = (subset - 1) & either;
        }
    }

    /// The other side's moves for `fate`'s captures and arrivals, at least: one per
    /// capture and arrival (a move bringing a pinner may also capture or arrive: pins are
    /// counted apart), and the walks of the men making them.
    /// `anywhere`: the captures (bits) that happen after the man moved.
    fn their_moves(&mut self, fate: &Fate, anywhere: u8) -> u32 {
        let count = fate.captured + fate.arrive.1.count_ones();
        if count > self.a_left || count as usize > MAX_ERRANDS {
            return count;
        }
        let mut squares = [0u8; MAX_ERRANDS];
        let n = fate.captured as usize;
        for (j, (slot, &s)) in squares
            .iter_mut()
            .zip(&fate.capture_squares[..n])
            .enumerate()
        {
            *slot = if anywhere >> j & 1 == 1 { ANYWHERE } else { s };
        }
        for (slot, s) in squares[n..].iter_mut().zip(bits(fate.arrive.1)) {
            *slot = s as u8;
        }
        let squares = &mut squares[..count as usize];
        // Each errand run by its nearest man (an upper bound), and the farthest of them (a
        // lower one): when they agree on the answer, the sharing out need not be searched.
        let (mut apart, mut farthest) = (0u32, 0u32);
        for (j, &s) in squares.iter().enumerate() {
            let d = self.errands.nearest(s, j < n);
            apart += d;
            farthest = farthest.max(d);
        }
        if apart <= self.a_left {
            return count;
        }
        if farthest > self.a_left {
            return farthest;
        }
        // The same errands of the same men come up in many branches and many positions:
        // remember the answers (the captures first, then the arrivals, each part in order).
        let (captures, arrivals) = squares.split_at_mut(n);
        captures.sort_unstable();
        arrivals.sort_unstable();
        let errands = squares
            .iter()
            .fold(count << 2 | n as u32, |k, &s| k << 8 | s as u32);
        let men = self.errands.men_key;
        let mixed = (men ^ errands as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = (mixed >> (64 - ERRAND_COST_BITS)) as usize;
        let cost = &ERRAND_COSTS[slot];
        let data = cost.data.load(Relaxed);
        let (known_errands, known_moves) = ((data >> 32) as u32, data as u32);
        if cost.check.load(Relaxed) ^ data == men && known_errands == errands && known_moves != 0 {
            return known_moves;
        }
        let moves = self.errands.least_moves(squares, (1 << n) - 1);
        let data = (errands as u64) << 32 | moves as u64;
        cost.data.store(data, Relaxed);
        cost.check.store(men ^ data, Relaxed);
        moves
    }

    /// Whether the men from `order[at]` on can end frozen too, given how the men before
    /// them end.
    fn go(&mut self, at: usize, fate: Fate) -> bool {
        self.steps += 1;
        if self.steps > STEP_CAP {
            return true;
        }
        // Men decided later may fill squares, never empty them: stop as soon as too few are left.
        if !self.arrivals_filled(&fate, at) {
            return false;
        }
        // With the king's square chosen, its flights must be covered too (`flights_hold`).
        if at == self.n {
            return self.either_way_fits(&fate)
                && (self.king.1 == 0 || self.flights_covered(fate.ends | fate.roam));
        }
        let i = self.order[at] as usize;
        // Each capture and each arrival of the other side is a move of its own (a capture
        // on a square some pawn needs held is an arrival of the captured man's side there).
        // A move bringing a pinner may also capture or arrive: pins are counted apart.
        let walk = self.capture_walk[i];
        let mut next = Fate {
            walked: fate.walked + walk,
            captured: fate.captured + 1,
            ..fate
        };
        let slot = fate.captured as usize;
        if slot < MAX_ERRANDS {
            let man = &self.men[i];
            next.capture_squares[slot] = if walk == 0 && !man.passant {
                // Captured where it stands, or after a move of its own anywhere: the second
                // costs its side a move but may cost the other side less (no walk to the
                // man). Which is chosen at the end; till then each side is granted its best.
                next.either |= 1 << slot;
                man.sq as u8
            } else {
                // After its move, or e.p. at once (the capturing pawn lands off its square).
                ANYWHERE
            };
        }
        if self.fits(&next)
            && self.flights_hold(&next, at + 1)
            && self.their_moves(&next, next.either) <= self.a_left
            && self.go(at + 1, next)
        {
            return true;
        }
        for line in 0..2 {
            let walk = self.pin_walk[i][line];
            let mut pinned = fate.pinned;
            pinned[line] += 1;
            // A man pinned where it stands takes its line from the king (one man a line).
            let ray = if walk == 0 { self.pin_ray[i] } else { 0 };
            let pin_moves = fate.pin_moves + self.pin_move[i][line];
            if !self.fits_parts(fate.walked + walk, fate.arrive.0)
                || !self.pinners.suffice(pinned)
                || fate.rays & ray != 0
                || pin_moves > self.a_left
            {
                continue;
            }
            let next = Fate {
                walked: fate.walked + walk,
                pinned,
                rays: fate.rays | ray,
                pin_moves,
                // Pinned where it stands, it holds no square that was empty, and ends there.
                roaming: fate.roaming + (walk > 0) as u32,
                ends: fate.ends | if walk == 0 { 1 << self.men[i].sq } else { 0 },
                roam: fate.roam | if walk > 0 { self.reach[i] } else { 0 },
                ..fate
            };
            if self.flights_hold(&next, at + 1) && self.go(at + 1, next) {
                return true;
            }
        }
        let walk_room = self.m_left.saturating_sub(self.king.0 + fate.walked);
        for o in 0..self.n_options[i] {
            let Way {
                walk,
                own,
                theirs,
                end,
                own_stay,
            } = self.options[i][o];
            if walk > walk_room {
                break; // nor the rest (`fits` refuses them)
            }
            let arrive = (fate.arrive.0 | own, fate.arrive.1 | theirs);
            if !self.fits_parts(fate.walked + walk, arrive.0)
                || arrive.1.count_ones() > self.their_men
            {
                continue;
            }
            let (ends, roaming, roam) = if end.count_ones() == 1 {
                (fate.ends | end, fate.roaming, fate.roam)
            } else {
                (fate.ends, fate.roaming + 1, fate.roam | end)
            };
            let next = Fate {
                walked: fate.walked + walk,
                arrive,
                occupy: fate.occupy | if own_stay { own } else { 0 },
                ends,
                roaming,
                roam,
                ..fate
            };
            if self.flights_hold(&next, at + 1)
                && (theirs & !fate.arrive.1 == 0
                    || self.their_moves(&next, next.either) <= self.a_left)
                && self.go(at + 1, next)
            {
                return true;
            }
        }
        false
    }
}

/// How often a test cut the positions it was asked about, per number of moves left: where
/// it rarely cuts it is not worth its cost, and is asked only now and then (in case the play
/// has moved on). One per search (and thread).
#[derive(Default)]
pub(in crate::solve) struct CutRate {
    // Wide enough for any search: an hour of calls at one number of moves left overflows u32.
    asked: [u64; RATE_SLOTS],
    cut: [u64; RATE_SLOTS],
    skipped: [u64; RATE_SLOTS],
}

const RATE_SLOTS: usize = 32;

/// The counters' slot for `left` moves left (the last slot takes all beyond).
fn rate_slot(left: u32) -> usize {
    (left as usize).min(RATE_SLOTS - 1)
}
/// Answers per number of moves left before the rate is judged.
const RATE_TRIAL: u64 = 128;
/// Asked while not worth it once in this many.
const RATE_PROBE: u64 = 256;

impl CutRate {
    /// Whether to ask the test with `left` moves left: it has cut at least one position in
    /// `min_cuts` there, or has not been judged yet, or it is time to look again.
    fn worth_asking(&mut self, left: u32, min_cuts: u64) -> bool {
        let slot = rate_slot(left);
        if self.asked[slot] >= RATE_TRIAL && self.cut[slot] * min_cuts < self.asked[slot] {
            return self.probe_now(left);
        }
        true
    }

    /// When a test is not worth asking: whether to ask it this time anyway (once in
    /// `RATE_PROBE` times, in case the play has moved on).
    fn probe_now(&mut self, left: u32) -> bool {
        let slot = rate_slot(left);
        self.skipped[slot] += 1;
        self.skipped[slot].is_multiple_of(RATE_PROBE)
    }

    fn answered(&mut self, left: u32, cut: bool) {
        let slot = rate_slot(left);
        self.asked[slot] += 1;
        self.cut[slot] += cut as u64;
    }

    /// Whether `other` has been asked more often than this with `slot`'s moves left.
    fn knows_more(&self, other: &CutRate, slot: usize) -> bool {
        other.asked[slot] > self.asked[slot]
    }

    /// `slot`'s counts taken over from `other`.
    fn take_slot(&mut self, other: &CutRate, slot: usize) {
        self.asked[slot] = other.asked[slot];
        self.cut[slot] = other.cut[slot];
        self.skipped[slot] = other.skipped[slot];
    }

    /// Takes over, per number of moves left, the counts of `other` where it has been asked
    /// more (see `Bound::learn_from`).
    pub(in crate::solve) fn learn_from(&mut self, other: &CutRate) {
        for slot in 0..RATE_SLOTS {
            if self.knows_more(other, slot) {
                self.take_slot(other, slot);
            }
        }
    }

    /// Logs (at debug level) per number left (plies in help play, the series side's moves
    /// in series play) how often the test was asked, how often it cut and how often it was
    /// skipped: what tuning the bound starts from. The last slot counts all beyond it.
    /// (Once per search and thread: `debug!` itself skips it when the level is off.)
    fn log(&self, test: &'static str) {
        for slot in 0..RATE_SLOTS {
            let (asked, skipped) = (self.asked[slot], self.skipped[slot]);
            if asked + skipped > 0 {
                tracing::debug!(
                    test,
                    left = slot,
                    asked,
                    cut = self.cut[slot],
                    skipped,
                    "bound cut rate"
                );
            }
        }
    }
}

/// `goal_reachable` asked only where it pays. Near the end it cuts most positions; before a
/// series' last move it is always asked (`Bound::series`). Higher up a side has moves to spare and
/// it rarely cuts; there, and in help play everywhere (`Bound::help`), it is asked only
/// where the work it spares (the share of positions it cuts, times the work below a
/// position it cuts) outweighs its own cost. The work below a cut position is measured by
/// searching a few of them anyway. Work is counted in the steps of the bound's own searches,
/// a node as `NODE_STEPS` of them, so that each call costs what it did. Each search (and
/// thread) has its own `Bound`; the threads of one search share its trials (`Trials`).
pub(in crate::solve) struct Bound {
    rate: CutRate,
    /// Always asked with this many moves (series moves, plies) left or fewer.
    always: u32,
    /// Work done by this search so far.
    work: u64,
    /// Whether the last position asked about is a cut one searched to measure the work.
    sampling: bool,
    /// Per number of moves left: the work below the cut positions searched, and how many;
    /// the work of the bound's calls.
    below: [u64; RATE_SLOTS],
    sampled: [u64; RATE_SLOTS],
    spent: [u64; RATE_SLOTS],
    /// How often the freeze test's first pass, with the king on any square, fails.
    any_square_first: CutRate,
    /// The trials shared with the search's other threads, and the slots (bits) whose shared
    /// trial this bound has taken over and goes on from alone.
    trials: Option<Arc<Trials>>,
    graduated: u32,
    /// The attackers' costs remembered from call to call.
    costs: AttackCosts,
}

/// The bound's trials, per number of moves left, shared by the threads of one search: its
/// first `RATE_TRIAL` answers there, wherever asked, judge whether it pays for every thread.
/// Each thread tried it out on its own before: where a pass is shared out the threads start
/// asking with more moves left at once, and each paid for a whole trial (hpint#114, `h=6`:
/// 650 more calls on two threads than on one, most with six to eight plies left). Only the
/// trials are shared: after them each thread counts alone, as the threads would otherwise
/// contend for these lines at every node that asks or skips the bound.
#[derive(Default)]
pub(in crate::solve) struct Trials {
    slots: [Apart<TrialCounts>; RATE_SLOTS],
}

#[derive(Default)]
struct TrialCounts {
    asked: AtomicU64,
    cut: AtomicU64,
    spent: AtomicU64,
    below: AtomicU64,
    sampled: AtomicU64,
}

// Each search (and thread) has its own bound: its cut rates are logged when it is done.
impl Drop for Bound {
    fn drop(&mut self) {
        self.rate.log("reach");
        self.any_square_first.log("freeze, king on any square");
    }
}

/// The work of a search is counted in steps of the bound's own searches (`Freeze::go`; one of
/// `Assign`'s counts two), so that a call is weighed by what it did: from under 1 µs to over
/// 4 µs a call, by position (hpint#15 and #28 `h=3`). A node (or a move played to test it)
/// is worth about four of them, the set-up of a call 36 (timed over the 13 `h=3` problems of
/// the bench: about 100 ns a node, 930 ns a set-up, 26 ns a step).
const NODE_STEPS: u64 = 4;
const CALL_STEPS: u64 = 36;
/// The set-up of a call that asks only the flights' test (mates, and stalemates with more
/// than `FREEZE_MAX_MOVES` left): about 200 ns (intell#39 and #102, `h#`).
const FLIGHTS_CALL_STEPS: u64 = 8;
/// Cut positions searched anyway per number of moves left, to measure the work below them.
const SAMPLES: u64 = 4;
/// Until then, the bound is taken to pay where it cuts at least one position in this many.
const FEW_SAMPLES_MIN_CUTS: u64 = 8;
/// Of the cut positions, every this many is searched until there are `SAMPLES`.
const SAMPLE_EVERY: u64 = 2;

/// Where a position's search began (`Bound::mark`).
pub(in crate::solve) struct Mark {
    work: u64,
    sample: bool,
}

impl Bound {
    fn new(always: u32) -> Bound {
        Bound {
            rate: CutRate::default(),
            always,
            work: 0,
            sampling: false,
            below: [0; RATE_SLOTS],
            sampled: [0; RATE_SLOTS],
            spent: [0; RATE_SLOTS],
            any_square_first: CutRate::default(),
            trials: None,
            graduated: 0,
            costs: AttackCosts::new(),
        }
    }

    /// The bound trying itself out together with the other threads' bounds on `trials`.
    pub(in crate::solve) fn sharing(mut self, trials: &Arc<Trials>) -> Bound {
        self.trials = Some(Arc::clone(trials));
        self
    }

    /// The shared trial that answers with `left` moves left are still counted in, if any
    /// (none where the bound is always asked).
    #[inline]
    fn trial(&self, left: u32) -> Option<&TrialCounts> {
        let slot = rate_slot(left);
        match &self.trials {
            Some(t) if left > self.always && self.graduated & (1 << slot) == 0 => {
                Some(&t.slots[slot])
            }
            _ => None,
        }
    }

    /// Once the shared trial with `left` moves left is over, takes over its counts (which
    /// include this thread's) and goes on alone.
    fn graduate(&mut self, left: u32) {
        let slot = rate_slot(left);
        let Some(t) = self.trial(left) else {
            return;
        };
        let asked = t.asked.load(Relaxed);
        if asked < RATE_TRIAL {
            return;
        }
        let (cut, spent) = (t.cut.load(Relaxed), t.spent.load(Relaxed));
        let (below, sampled) = (t.below.load(Relaxed), t.sampled.load(Relaxed));
        self.rate.asked[slot] = asked;
        self.rate.cut[slot] = cut;
        self.spent[slot] = spent;
        self.below[slot] = below;
        self.sampled[slot] = sampled;
        self.graduated |= 1 << slot;
    }

    /// Series play: always asked with one series move left; with two, as higher up, where it
    /// pays. Always asked with two as well, it cut 20% to 80% of the positions there and cost
    /// more than it spared in the bench's five series (castling#35 ser-s#6 37 -> 34 ms, hpint#52
    /// ser-h=8 365 -> 326 ms, the other three 1.5-4%; the 58 series of the corpus 2.5%), but
    /// two of the corpus's lose (hpint#16a ser-h#9 and #17a ser-h#14: 6% and 9%; in #17a it cuts
    /// 62% of the positions with two moves left and is judged not to pay). Judged with one
    /// left as well, it made hpint#52 three times slower.
    pub(in crate::solve) fn series() -> Bound {
        Bound::new(1)
    }

    /// Help play: asked only where it pays, down to two plies before the end (with one
    /// left it is not asked). What it cuts there, and what a call costs, range widely by
    /// problem: at two plies it halves hpint#15's time (`h=3`; 1 us a call, cuts 85%) and
    /// doubles #28's (4 us a call); it cuts 89% of intell#102's positions (`h#7`) for
    /// 0.2 us a call, 40% of #39's (`h#3`) for 2 us, where the listing it spares is 3 us.
    pub(in crate::solve) fn help() -> Bound {
        Bound::new(1)
    }

    /// Takes over, per number of moves left, what `other` has learnt where it was asked
    /// more: a thread joining a search shared out does not try the bound out anew where
    /// another has (on eight small help problems, two threads took 1.5% less processor time).
    /// Only the cost of the search changes: the bound cuts only hopeless positions.
    pub(in crate::solve) fn learn_from(&mut self, other: &Bound) {
        for slot in 0..RATE_SLOTS {
            if self.rate.knows_more(&other.rate, slot) {
                self.rate.take_slot(&other.rate, slot);
                self.below[slot] = other.below[slot];
                self.sampled[slot] = other.sampled[slot];
                self.spent[slot] = other.spent[slot];
                self.graduated |= other.graduated & (1 << slot);
            }
        }
        self.any_square_first.learn_from(&other.any_square_first);
    }

    /// Counts a node searched.
    #[inline]
    pub(in crate::solve) fn node(&mut self) {
        self.work += NODE_STEPS;
    }

    /// Counts `n` nodes of work done without searching them as positions (moves played to
    /// test them at the end).
    #[inline]
    pub(in crate::solve) fn worked(&mut self, n: u64) {
        self.work += n * NODE_STEPS;
    }

    /// Where the search of the position last let through begins.
    #[inline]
    pub(in crate::solve) fn mark(&mut self) -> Mark {
        let sample = std::mem::take(&mut self.sampling);
        Mark {
            work: self.work,
            sample,
        }
    }

    /// The position marked at `mark`, with `left` moves left, has been searched.
    #[inline]
    pub(in crate::solve) fn searched(&mut self, left: u32, mark: Mark) {
        if mark.sample {
            let slot = rate_slot(left);
            let below = self.work - mark.work;
            self.below[slot] += below;
            self.sampled[slot] += 1;
            if let Some(t) = self.trial(left) {
                t.below.fetch_add(below, Relaxed);
                t.sampled.fetch_add(1, Relaxed);
            }
        }
    }

    /// Whether the bound spares more work than it costs with `left` moves left (taken to,
    /// until that is known).
    fn pays(&self, slot: usize) -> bool {
        let (asked, cut) = (self.rate.asked[slot], self.rate.cut[slot]);
        let (below, sampled) = (self.below[slot], self.sampled[slot]);
        if asked < RATE_TRIAL {
            return true;
        }
        if sampled < SAMPLES {
            // Too few cuts yet to tell the work below them: it pays if it cuts often.
            return cut * FEW_SAMPLES_MIN_CUTS >= asked;
        }
        // cut / asked * below / sampled >= spent / asked, without dividing.
        cut as u128 * below as u128 >= self.spent[slot] as u128 * sampled as u128
    }

    /// `goal_reachable(pos, mated, aim, m_left, a_left)` with `left` moves (series moves or
    /// plies) to go; true (unknown) when not worth asking, and for the cut positions
    /// searched to measure the work below them.
    pub(in crate::solve) fn goal_reachable(
        &mut self,
        pos: &Position,
        (mated, aim): (Color, Aim),
        (m_left, a_left): (u32, u32),
        left: u32,
    ) -> bool {
        if !self.ask(left) {
            return true;
        }
        let first = &mut self.any_square_first;
        let costs = &mut self.costs;
        let (reachable, effort) =
            goal_reachable_with(pos, (mated, aim), (m_left, a_left), first, costs);
        self.charge(left, effort);
        self.answered(left, reachable)
    }

    /// Counts the work of a call with `left` moves left.
    fn charge(&mut self, left: u32, effort: u64) {
        self.work += effort;
        self.spent[rate_slot(left)] += effort;
        if let Some(t) = self.trial(left) {
            t.spent.fetch_add(effort, Relaxed);
        }
    }

    /// Whether to ask the bound with `left` moves left.
    fn ask(&mut self, left: u32) -> bool {
        self.sampling = false;
        if left > self.always {
            let slot = rate_slot(left);
            self.graduate(left);
            if !self.pays(slot) && !self.rate.probe_now(left) {
                return false;
            }
        }
        true
    }

    /// Records the bound's answer with `left` moves left; whether to search the position.
    fn answered(&mut self, left: u32, reachable: bool) -> bool {
        // Counted where it is always asked too, for the log (`CutRate::log`).
        self.rate.answered(left, !reachable);
        if left <= self.always {
            return reachable;
        }
        let slot = rate_slot(left);
        if let Some(t) = self.trial(left) {
            t.asked.fetch_add(1, Relaxed);
            t.cut.fetch_add(!reachable as u64, Relaxed);
        }
        if !reachable
            && self.sampled[slot] < SAMPLES
            && self.rate.cut[slot].is_multiple_of(SAMPLE_EVERY)
        {
            self.sampling = true;
            return true;
        }
        reachable
    }
}

/// Whether `mated` (its king) can still be mated (stalemated) with `m_left` moves of its own
/// and `a_left` moves of the other side, the last of which reaches the aim.
#[cfg(test)]
pub(in crate::solve) fn goal_reachable(
    pos: &Position,
    mated: Color,
    aim: Aim,
    m_left: u32,
    a_left: u32,
) -> bool {
    let (first, costs) = (&mut CutRate::default(), &mut AttackCosts::new());
    goal_reachable_with(pos, (mated, aim), (m_left, a_left), first, costs).0
}

/// `goal_reachable`, the freeze test with the king on any square asked first as `first` finds
/// it pays; with what it cost, in steps (`Bound`'s measure).
fn goal_reachable_with(
    pos: &Position,
    (mated, aim): (Color, Aim),
    (m_left, a_left): (u32, u32),
    first: &mut CutRate,
    costs: &mut AttackCosts,
) -> (bool, u64) {
    let t = tables();
    let king = Man::king_of(pos, mated);
    let king_dist = king.dist_all(t);
    let blockers = Army::of(pos, mated, false);
    let attackers = Army::of(pos, !mated, true);
    let (blockers, attackers) = (blockers.men(), attackers.men());
    if aim == Aim::Stalemate && freeze_asked(blockers, m_left) {
        // Both tests must pass with the king on the same square: it ends on one. The
        // flights' test is set up only once the freeze test has passed with the king on any
        // square (mostly it does not).
        let mut flights: Option<Flights> = None;
        // Lent to the flights' test when it is set up (once).
        let mut costs = Some(costs);
        let mut effort = CALL_STEPS;
        let frozen = men_can_freeze(
            (&king, &king_dist),
            (blockers, attackers),
            (m_left, a_left),
            first,
            &mut |k, dk, depth| {
                flights
                    .get_or_insert_with(|| {
                        Flights::new(
                            t,
                            costs.take().expect("the flights' test is set up once"),
                            &king_dist,
                            blockers,
                            attackers,
                            aim,
                            (m_left, a_left),
                        )
                    })
                    .covered(k, dk, depth)
            },
            &mut effort,
        );
        effort += flights.map_or(0, |f| f.steps());
        return (frozen, effort);
    }
    let mut flights = Flights::new(
        t,
        costs,
        &king_dist,
        blockers,
        attackers,
        aim,
        (m_left, a_left),
    );
    let covered = flights.any_covered(&king_dist);
    (covered, FLIGHTS_CALL_STEPS + flights.steps())
}

/// `squares` with their entries in `dist`, nearest first (and by square at the same
/// distance), in a list and its length.
fn nearest_first(dist: &[u8; 64], squares: u64) -> ([(u8, u8); 64], usize) {
    let mut list = [(0u8, 0u8); 64];
    let mut n = 0;
    // Distance by distance (few are ever asked: the squares are those within the moves
    // left), each in square order: no sort needed.
    let mut rest = squares;
    let mut d = 0u32;
    while rest != 0 && d < INF as u32 {
        let at = rest & within(dist, d);
        for k in bits(at) {
            list[n] = (d as u8, k as u8);
            n += 1;
        }
        rest &= !at;
        d += 1;
    }
    for k in bits(rest) {
        list[n] = (INF, k as u8);
        n += 1;
    }
    (list, n)
}

/// How far `Flights::covered` tests: the quick test is cheap and asked first.
#[derive(Clone, Copy)]
enum Depth {
    Quick,
    /// All of it, with the flights men of the mated side may end on (may block).
    Full {
        holdable: u64,
    },
}

/// The flights' test of `goal_reachable`, per square of the mated king: each flight is
/// guarded by a man of the other side or blocked by one of its own, in time.
struct Flights<'a> {
    a: Assign<'a>,
    aim: Aim,
    /// The squares the king may end on (for a mate: those some man can check in time).
    candidates: u64,
    /// The squares some attacking man other than the king can attack in time (near the
    /// squares the king may end on).
    checkable: u64,
    /// Per square: the walk of the nearest blocker.
    block_cost: [u8; 64],
    /// Where the mating king may stand in time (asked only next to the region's flights).
    a_king_reach: u64,
    a_king: Option<usize>,
}

impl<'a> Flights<'a> {
    fn new(
        t: &'a Tables,
        costs: &'a mut AttackCosts,
        king_dist: &[u8; 64],
        blockers: &'a [Man],
        attackers: &'a [Man],
        aim: Aim,
        (m_left, a_left): (u32, u32),
    ) -> Flights<'a> {
        costs.ready();
        let a_king = attackers.iter().position(|m| m.form == Form::King);
        let a_king_dist = a_king.map_or([INF; 64], |g| attackers[g].dist_all(t));
        let a = Assign {
            t,
            costs,
            a_king_dist,
            a_king,
            others_known: [(0, 0, 0); OTHERS_KNOWN],
            blockers,
            attackers,
            promoting: (attackers.iter().enumerate())
                .filter(|(_, m)| m.form == Form::Pawn && t.promote[m.color][m.sq] as u32 <= a_left)
                .fold(0, |b, (g, _)| b | 1 << g),
            ids: std::array::from_fn(|g| {
                attackers
                    .get(g)
                    .and_then(|man| AttackCosts::id(man, a_left))
            }),
            roles: [0; MAX_MEN],
            stand: [ALL; MAX_MEN],
            cost: [0; MAX_MEN],
            min_cost: [0; MAX_MEN],
            forbid: [0; MAX_MEN],
            used: 0,
            flights: [0; 8],
            n_flights: 0,
            min_block: [INF; 8],
            king: 0,
            m_k: 0,
            memo: [u16::MAX; 256],
            memo_used: false,
            m_total: m_left,
            a_left,
            pawns: aim == Aim::Stalemate,
            holdable: ALL,
            steps: 0,
            reach: [0; MAX_MEN],
            reach_known: false,
        };
        // The squares the mated king may end on and their flights: only those are ever asked
        // about below (few when few moves are left, which is where most calls are).
        let king_squares = within(king_dist, m_left);
        let region = next_to(king_squares);
        // Per call: squares of the region some attacking man other than the king can attack
        // in time; the cheapest block of each.
        let checkable = attackers
            .iter()
            .filter(|m| m.form != Form::King)
            .fold(0u64, |m, man| m | man.attacks_within(t, a_left))
            & region;
        // Whole rows at once (the compiler vectorises the minimum): cheaper than walking the
        // region's squares one by one.
        let mut block_cost = [INF; 64];
        for b in blockers {
            b.with_dist(t, |dist| {
                for (c, d) in block_cost.iter_mut().zip(dist) {
                    *c = (*c).min(*d);
                }
            });
        }
        let near_region = next_to(region);
        let a_king_reach = a_king.map_or(0, |_| within(&a.a_king_dist, a_left) & near_region);
        let candidates = match aim {
            Aim::Stalemate => king_squares,
            Aim::Mate => king_squares & checkable,
        };
        Flights {
            a,
            aim,
            candidates,
            checkable,
            block_cost,
            a_king_reach,
            a_king,
        }
    }

    /// The steps of its searches so far, in `Bound`'s measure (one of the assignment's is
    /// worth about two of the freeze test's).
    fn steps(&self) -> u64 {
        2 * self.a.steps as u64
    }

    /// Whether the flights of some square the king may end on can be covered (`king_dist`:
    /// the king's distances). Nearest squares first: a feasible square, when there is one,
    /// is usually close.
    fn any_covered(&mut self, king_dist: &[u8; 64]) -> bool {
        let (squares, n) = nearest_first(king_dist, self.candidates);
        squares[..n].iter().any(|&(dk, k)| {
            self.covered(k as usize, dk as u32, Depth::Full { holdable: ALL })
                .is_some()
        })
    }

    /// Whether the flights of king square `k`, `dk` moves away, can be covered (also when
    /// the search grew too long to finish); `Depth::Quick`: only by the quick test. If so,
    /// the flights no man of the other side can attack in time: the mated side must hold
    /// them.
    fn covered(&mut self, k: usize, dk: u32, depth: Depth) -> Option<u64> {
        let (aim, checkable, a_king_reach, m_left) =
            (self.aim, self.checkable, self.a_king_reach, self.a.m_total);
        let block_cost = &self.block_cost;
        let a = &mut self.a;
        let (t, attackers, a_left) = (a.t, a.attackers, a.a_left);
        let ring = t.ring[k];
        if let Some(g) = self.a_king {
            a.forbid[g] = ring | 1 << k;
        }
        a.king = k;
        // Quick test: the flights no attacker can reach in time must be blocked within the
        // budget. They go first in the search (no choice to make there).
        let m = m_left - dk;
        let king_stands = a_king_reach & !(ring | 1 << k);
        // On whole bitboards: most king squares are only asked the quick test.
        let must_hold = ring & !(checkable | next_to(king_stands));
        let must_block: u32 = bits(must_hold).map(|f| block_cost[f] as u32).sum();
        if must_block > m {
            return None;
        }
        let holdable = match depth {
            Depth::Quick => return Some(must_hold),
            Depth::Full { holdable } => holdable,
        };
        a.holdable = holdable;
        // No flights listed yet: a mate lists them only once a check passes `blocks_fit`.
        a.n_flights = 0;
        a.m_k = m;
        a.memo_used = false;
        a.roles = [0; MAX_MEN];
        a.stand = [ALL; MAX_MEN];
        a.cost = [0; MAX_MEN];
        a.used = 0;
        match aim {
            Aim::Stalemate => {
                a.list_flights((ring, must_hold), block_cost);
                if a.go(0, m, 0) {
                    return Some(must_hold);
                }
            }
            Aim::Mate => {
                for (g, man) in attackers.iter().enumerate() {
                    if man.form == Form::King {
                        continue;
                    }
                    // The mating move gives the check (the mated side has just moved): a
                    // checking knight or pawn makes it; a line piece may be unmasked.
                    let must_move = matches!(man.form, Form::Knight | Form::Pawn) as u8;
                    let c = man.dist_attacking_one(t, k, ALL).max(must_move);
                    if c as u32 > a_left {
                        continue;
                    }
                    a.roles[g] = 1 << k;
                    a.cost[g] = c;
                    a.min_cost[g] = must_move;
                    let found = a.blocks_fit((ring, must_hold), block_cost, g, c as u32) && {
                        if a.n_flights == 0 {
                            a.list_flights((ring, must_hold), block_cost);
                        }
                        a.go(0, m, c as u32)
                    };
                    a.roles[g] = 0;
                    a.cost[g] = 0;
                    a.min_cost[g] = 0;
                    if found {
                        return Some(must_hold);
                    }
                }
            }
        }
        (a.steps > STEP_CAP).then_some(must_hold)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::chess::Setup;

    fn n(s: &str) -> usize {
        Square::parse(s).unwrap().index()
    }

    /// The squares beyond a man on a line from the king, looked up, are those a walk from
    /// the king through the man finds after it.
    #[test]
    fn rays_beyond_agree_with_walks() {
        for k in 0..64 {
            for d in (0..9).filter(|&d| d != 4) {
                let (df, dr) = (d / 3 - 1, d % 3 - 1);
                let mut line = Vec::new();
                let (mut f, mut r) = ((k % 8) as i32 + df, (k / 8) as i32 + dr);
                while let Some(x) = sq(f, r) {
                    line.push(x);
                    (f, r) = (f + df, r + dr);
                }
                for (i, &s) in line.iter().enumerate() {
                    let walked = line[i + 1..].iter().fold(0u64, |b, &x| b | 1 << x);
                    assert_eq!(ray_beyond(k, s), walked, "{k} {s}");
                }
            }
            let aligned = (0..64).filter(|&s| {
                let (df, dr) = (
                    (s % 8) as i32 - (k % 8) as i32,
                    (s / 8) as i32 - (k / 8) as i32,
                );
                s != k && (df == 0 || dr == 0 || df.abs() == dr.abs())
            });
            for s in (0..64).filter(|s| !aligned.clone().any(|a| a == *s)) {
                assert_eq!(ray_beyond(k, s), 0, "{k} {s}");
            }
        }
    }

    #[test]
    fn next_to_stays_on_the_board() {
        let b = |list: &[&str]| list.iter().fold(0u64, |b, s| b | 1 << n(s));
        assert_eq!(next_to(b(&["a1"])), b(&["a1", "b1", "a2", "b2"]));
        assert_eq!(
            next_to(b(&["h4"])),
            b(&["g3", "h3", "g4", "h4", "g5", "h5"])
        );
        assert_eq!(next_to(0), 0);
    }

    /// `Man::dist_attacking` leaves a pawn's promotion to rook or bishop out: a queen attacks
    /// every square either attacks (from the same squares), and a pawn stands anywhere as a
    /// queen in no more moves than as either.
    #[test]
    fn promotion_to_queen_dominates() {
        let t = tables();
        for c in 0..2 {
            for s in 0..64 {
                let (q, r, b) = (
                    Form::Queen as usize,
                    Form::Rook as usize,
                    Form::Bishop as usize,
                );
                let attackers = &t.attackers;
                assert_eq!(attackers[q][c][s], attackers[r][c][s] | attackers[b][c][s]);
                for from in 0..64 {
                    let walks = &t.pawn[c][from];
                    assert!(
                        walks[q][s] <= walks[r][s].min(walks[b][s]),
                        "{c} {from} {s}"
                    );
                }
            }
        }
    }

    #[test]
    fn distances() {
        let t = tables();
        assert_eq!(t.dist[Form::Knight as usize][n("a1")][n("b3")], 1);
        assert_eq!(t.dist[Form::Knight as usize][n("a1")][n("h8")], 6);
        assert_eq!(t.dist[Form::Bishop as usize][n("a1")][n("a2")], INF);
        assert_eq!(t.dist[Form::Bishop as usize][n("a1")][n("c1")], 2);
        assert_eq!(t.pawn[0][n("e2")][Form::Pawn as usize][n("e4")], 1);
        assert_eq!(t.pawn[0][n("e2")][Form::Pawn as usize][n("f4")], 2);
        assert_eq!(t.pawn[0][n("e7")][Form::Queen as usize][n("a4")], 2);
        assert_eq!(t.pawn[1][n("b2")][Form::Knight as usize][n("a1")], 1);
        assert_eq!(t.pawn[1][n("b2")][Form::Pawn as usize][n("b1")], INF);
        // A white knight on a1 attacks b3 already, b4 after a1-c2.
        assert_eq!(t.att1[Form::Knight as usize * 2][n("a1")][n("b3")], 0);
        assert_eq!(t.att1[Form::Knight as usize * 2][n("a1")][n("b4")], 1);
        assert_eq!(t.att1[Form::Rook as usize * 2][n("a1")][n("a8")], 0);
        // A white pawn on e7 attacks d8 already; h8 after promoting (e8=Q attacks h8).
        assert_eq!(t.att1[0][n("e7")][n("d8")], 0);
        assert_eq!(t.att1[0][n("e7")][n("h8")], 1);
    }

    /// The squares a pawn may stand frozen on as an officer: a black pawn on b2 promotes on
    /// a1, b1 or c1 in one move (captures assumed possible) and stands there; with a second
    /// move it may go on (a knight from b1 to d2); a pawn farther back cannot promote in time.
    #[test]
    fn promoted_ways_of_a_pawn() {
        let t = tables();
        let black = Color::Black.index();
        let list = |sq: &str, m: u32| -> Vec<(u8, usize, u64)> {
            t.promoted[list_slot(black, n(sq), m)]
                .iter()
                .map(|p| (p.walk, p.end as usize, p.needs))
                .collect()
        };
        let one = list("b2", 1);
        // Three officers on three squares each, all after one move: a queen needs more
        // held than a rook or bishop on the same square, which it adds nothing to.
        assert_eq!(one.len(), 9);
        let queen_a1 = t.freeze[Form::Queen as usize][n("a1")];
        assert!(!one.contains(&(1, n("a1"), queen_a1)));
        assert!(one
            .iter()
            .all(|&(w, e, _)| w == 1 && [n("a1"), n("b1"), n("c1")].contains(&e)));
        // A bishop on a1 stands frozen with b2 held.
        let bishop_a1 = t.freeze[Form::Bishop as usize][n("a1")];
        assert_eq!(bishop_a1, 1 << n("b2"));
        assert!(one.contains(&(1, n("a1"), bishop_a1)));
        let two = list("b2", 2);
        assert!(two.contains(&(2, n("d2"), t.freeze[Form::Knight as usize][n("d2")])));
        assert!(two.iter().all(|&(w, _, _)| w == 1 || w == 2));
        assert!(list("b2", 0).is_empty());
        assert!(list("b4", 2).is_empty());
    }

    /// `within`'s vector compares agree with the one-square-at-a-time version.
    #[test]
    fn within_agrees_with_one_square_at_a_time() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            let row: [u8; 64] = std::array::from_fn(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Mostly small distances, some unreachable.
                match seed % 9 {
                    0 => INF,
                    r => (r as u8 - 1) * (seed >> 60) as u8 % 8,
                }
            });
            for d in [0, 1, 2, 3, 7, 200, 254, 255, 1000] {
                assert_eq!(within(&row, d), within_scalar(&row, d), "{row:?} {d}");
            }
        }
    }

    /// The whole-row shortcuts (`dist_all`, `attacks_within`) agree with the per-square
    /// distances, castling men included.
    #[test]
    fn row_shortcuts_agree_with_per_square_distances() {
        let t = tables();
        let pos = Position::from_fen("r3k2r/1p4p1/8/8/8/8/P5P1/R3K2R w KQkq - 0 1").unwrap();
        for color in [Color::White, Color::Black] {
            for man in Army::of(&pos, color, true).men() {
                let all = man.dist_all(t);
                for (to, &d) in all.iter().enumerate() {
                    assert_eq!(d, man.dist_to(t, to), "{man:?} to {to}");
                }
                if man.form == Form::King {
                    continue;
                }
                for d in 0..4 {
                    let slow = (0..64)
                        .filter(|&to| man.dist_attacking_one(t, to, ALL) as u32 <= d)
                        .fold(0u64, |m, to| m | 1 << to);
                    assert_eq!(man.attacks_within(t, d), slow, "{man:?} within {d}");
                }
            }
        }
    }

    #[test]
    fn remembered_attack_costs_are_the_men_s_own() {
        let t = tables();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| random_below(&mut seed, n);
        let forms = [
            Form::Pawn,
            Form::Knight,
            Form::Bishop,
            Form::Rook,
            Form::Queen,
        ];
        // A few men asked many questions: most are asked again, some slots are shared.
        let men: Vec<Man> = (0..24)
            .map(|_| Man {
                form: forms[next(5) as usize],
                sq: 8 + next(48) as usize,
                color: next(2) as usize,
                ..Man::NONE
            })
            .collect();
        let mut costs = AttackCosts::new();
        for _ in 0..200_000 {
            let man = &men[next(24) as usize];
            let targets = (0..next(3)).fold(0u64, |b, _| b | 1 << next(64));
            let allowed = [ALL, !t.ring[next(64) as usize]][next(2) as usize];
            let cap = next(10) as u32;
            assert_eq!(
                costs.dist_attacking(t, man, targets, allowed, cap),
                man.dist_attacking(t, targets, allowed, cap)
            );
        }
    }

    #[test]
    fn assignment_is_optimal() {
        let c = [[4, 1, 3], [2, 0, 5], [3, 2, 2]];
        assert_eq!(hungarian(3, 3, |r, k| c[r][k]), 5);
        assert_eq!(hungarian(2, 3, |r, k| c[r][k]), 3);
        assert_eq!(hungarian(0, 3, |r, k| c[r][k]), 0);
        assert!(hungarian(2, 2, |r, k| [[1000, 1], [1000, 1]][r][k]) >= 1000);
    }

    /// Whether the side to move (`k` even: the side not making the last move) can be
    /// stalemated in exactly `k` plies, by brute force.
    fn stalemate_in(pos: &Position, k: u32) -> bool {
        if k == 0 {
            return pos.is_stalemate();
        }
        pos.any_successor(|_, after| stalemate_in(after, k - 1))
    }

    /// Sparse positions, Black to move, where stalemates of Black are near: random walks
    /// from them test the stalemate bounds against brute force.
    pub(in crate::solve) const NEAR_STALEMATES: [&str; 8] = [
        "8/8/6KP/8/8/8/1pp1Rppp/k7 b - - 0 1",
        "5Kb1/p6k/5p2/8/8/1p6/1Pp1P3/2B5 b - - 0 1",
        "k7/p1p5/P1P5/1K6/8/8/8/7Q b - - 0 1",
        "7k/5p2/5P2/4K3/8/1p6/1P6/2Q5 b - - 0 1",
        "k7/2p5/8/1K6/8/8/3R4/6b1 b - - 0 1",
        "kn6/p7/3K4/8/8/8/8/6BR b - - 0 1",
        "k1b5/pr6/8/2K5/8/8/8/3Q4 b - - 0 1",
        "7k/6pp/8/8/8/5K2/5p2/6RQ b - - 0 1",
    ];

    /// Black to move, with a pawn that may step two squares beside a white pawn: stalemates
    /// made by the e.p. capture are near.
    const NEAR_EN_PASSANT_STALEMATES: [&str; 4] = [
        "k7/2K3p1/1B6/5P2/8/8/8/8 b - - 0 1",
        "7k/3p1K2/8/4P3/8/3B4/8/8 b - - 0 1",
        "k7/p1K1p3/P7/3P4/8/8/8/8 b - - 0 1",
        "7k/5K1p/6pP/2p3P1/1P6/8/8/8 b - - 0 1",
    ];

    /// Calls `f` on each position of `walks` random walks of up to `plies` plies from each of
    /// `fens` (the walks are the same for the same `seed`).
    pub(super) fn walk_near_stalemates(
        fens: &[&str],
        mut seed: u64,
        walks: usize,
        plies: usize,
        mut f: impl FnMut(&Position),
    ) {
        for &fen in fens {
            for _walk in 0..walks {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ply in 0..plies {
                    f(&pos);
                    match pos.random_successor(&mut seed) {
                        Some(next) => pos = next,
                        None => break,
                    }
                }
            }
        }
    }

    /// The bound never denies a stalemate that exists (random walks from sparse positions
    /// where stalemates are near; the brute-force search is the oracle).
    #[test]
    fn stalemate_bound_never_cuts_a_solution() {
        let (mut solvable, mut tested) = (0, 0);
        walk_near_stalemates(&NEAR_STALEMATES, 0x9e37_79b9_7f4a_7c15, 12, 10, |pos| {
            let k = if pos.side_to_move() == Color::Black {
                2
            } else {
                3
            };
            // Two moves each left (the bound's largest case) now and then.
            let longer = (tested % 9 == 0).then_some(k + 2);
            for k in std::iter::once(k).chain(longer) {
                if stalemate_in(pos, k) {
                    solvable += 1;
                    assert!(
                        goal_reachable(pos, Color::Black, Aim::Stalemate, k / 2, k.div_ceil(2)),
                        "{} k={k}",
                        pos.to_fen()
                    );
                }
                tested += 1;
            }
        });
        assert!(
            solvable > 40,
            "only {solvable} of {tested} positions solvable"
        );
    }

    /// Whether the side to move (the series side) can play `k` moves in a row, the other side
    /// passing and never in check before the last, after which that other side is stalemated
    /// (`help_end` false, `ser-=`) or makes one move stalemating the series side (`ser-h=`), by
    /// brute force.
    fn series_stalemate_in(pos: &Position, k: u32, help_end: bool) -> bool {
        pos.any_successor(|_, after| {
            if k > 1 {
                !after.is_check()
                    && after
                        .pass()
                        .is_some_and(|next| series_stalemate_in(&next, k - 1, help_end))
            } else if help_end {
                after.any_successor(|_, end| end.is_stalemate())
            } else {
                after.is_stalemate()
            }
        })
    }

    /// The bound never denies a stalemate a series reaches (its calls from series play: the
    /// other side stalemated with no moves of its own, or the series side stalemated after
    /// one reply). The help-play oracle above let two wrong cuts of series problems through.
    #[test]
    fn stalemate_bound_never_cuts_a_series() {
        let (mut solvable, mut tested) = (0, 0);
        walk_near_stalemates(&NEAR_STALEMATES, 0x2545_f491_4f6c_dd1d, 8, 8, |pos| {
            solvable += assert_series_not_cut(pos, tested % 4 == 0);
            tested += 1;
        });
        assert!(
            solvable > 40,
            "only {solvable} series solvable in {tested} positions"
        );
    }

    /// Asserts that the bound lets through every series of 1 to 3 moves from `pos` that
    /// brute force solves (3 moves then a reply only if `long_help`: they are dear); returns
    /// how many it solved.
    fn assert_series_not_cut(pos: &Position, long_help: bool) -> u32 {
        let side = pos.side_to_move();
        let mut solvable = 0;
        for k in 1..=3 {
            for help_end in [false, true] {
                if (help_end && k == 3 && !long_help) || !series_stalemate_in(pos, k, help_end) {
                    continue;
                }
                solvable += 1;
                let reachable = if help_end {
                    goal_reachable(pos, side, Aim::Stalemate, k, 1)
                } else {
                    goal_reachable(pos, !side, Aim::Stalemate, 0, k)
                };
                assert!(reachable, "{} k={k} help_end={help_end}", pos.to_fen());
            }
        }
        solvable
    }

    /// Random positions with a stalemate of Black in 3 or 4 plies that a bound taking Black's
    /// men only where they stand cut: White captures them cheaper after they come to it.
    #[test]
    fn stalemate_bound_lets_men_move_before_their_capture() {
        for (fen, k) in [
            ("7k/1r6/4K3/7r/8/R6N/8/8 b - - 0 1", 4),
            ("k4q2/8/8/8/8/2B5/1R4K1/4q3 w - - 0 1", 3),
            ("2q5/8/8/1r6/8/1R6/k2K4/4N3 b - - 0 1", 4),
            ("kB5q/1R6/8/8/8/8/2q5/2K5 w - - 0 1", 3),
            ("8/8/5P2/8/4K3/Q5q1/7k/5q2 b - - 0 1", 4),
        ] {
            let p = Position::from_fen(fen).unwrap();
            assert!(stalemate_in(&p, k), "{fen} has no stalemate");
            assert!(
                goal_reachable(&p, Color::Black, Aim::Stalemate, k / 2, k.div_ceil(2)),
                "{fen} is cut"
            );
        }
    }

    /// A random position: both kings, one to three black men and one or two white ones (no
    /// pawn on a first or last rank), either side to move; `None` if it is illegal.
    /// A xorshift step of `seed`: a pseudo-random number below `n`.
    fn random_below(seed: &mut u64, n: u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % n
    }

    pub(super) fn random_position(seed: &mut u64) -> Option<Position> {
        let mut next = |n: u64| random_below(seed, n);
        let mut board = [None; 64];
        let mut men = vec![(Color::Black, Role::King), (Color::White, Role::King)];
        let roles = [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Pawn,
            Role::Queen,
        ];
        for _ in 0..1 + next(3) {
            men.push((Color::Black, roles[next(5) as usize]));
        }
        for _ in 0..1 + next(2) {
            men.push((Color::White, roles[next(5) as usize]));
        }
        for (color, role) in men {
            loop {
                let sq = next(64) as usize;
                let edge = sq / 8 == 0 || sq / 8 == 7;
                if board[sq].is_none() && !(role == Role::Pawn && edge) {
                    board[sq] = Some((color, role));
                    break;
                }
            }
        }
        let side = if next(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let setup = Setup {
            board,
            side_to_move: side,
            castling: Default::default(),
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        };
        Position::from_setup(&setup).ok()
    }

    /// The bound never denies a stalemate of Black in 3 or 4 plies of help play, nor at the
    /// end of a series of up to 3 moves, in random positions (brute force is the oracle).
    #[test]
    fn stalemate_bound_never_cuts_in_random_positions() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let (mut solvable, mut tested) = (0, 0);
        while tested < 3000 {
            let Some(pos) = random_position(&mut seed) else {
                continue;
            };
            tested += 1;
            let side = pos.side_to_move();
            let k = if side == Color::Black { 4 } else { 3 };
            if stalemate_in(&pos, k) {
                solvable += 1;
                assert!(
                    goal_reachable(&pos, Color::Black, Aim::Stalemate, k / 2, k.div_ceil(2)),
                    "{} k={k}",
                    pos.to_fen()
                );
            }
            solvable += assert_series_not_cut(&pos, false);
        }
        assert!(
            solvable > 200,
            "only {solvable} solvable in {tested} positions"
        );
    }

    /// A bound takes over another's counts only where the other was asked more, slot by slot,
    /// and its judgement there follows (`pays`).
    fn mate_in(pos: &Position, k: u32) -> bool {
        if k == 0 {
            return pos.is_checkmate();
        }
        pos.any_successor(|_, after| mate_in(after, k - 1))
    }

    /// The bound never cuts a help mate of Black in 3 or 4 plies (White's move last), in
    /// random positions (brute force is the oracle); and it cuts most that have none.
    #[test]
    fn mate_bound_never_cuts_in_random_positions() {
        let mut seed = 0x0ddb_a11c_afe5_eed5u64;
        let (mut solvable, mut cut, mut tested) = (0, 0, 0);
        while tested < 3000 {
            let Some(pos) = random_position(&mut seed) else {
                continue;
            };
            tested += 1;
            let k = if pos.side_to_move() == Color::Black {
                4
            } else {
                3
            };
            let reachable = goal_reachable(&pos, Color::Black, Aim::Mate, k / 2, k.div_ceil(2));
            if mate_in(&pos, k) {
                solvable += 1;
                assert!(reachable, "{} k={k}", pos.to_fen());
            } else {
                cut += !reachable as u32;
            }
        }
        assert!(
            solvable > 300,
            "only {solvable} solvable in {tested} positions"
        );
        assert!(
            cut > (tested - solvable) / 2,
            "only {cut} of the unsolvable cut"
        );
    }

    #[test]
    fn bound_learns_where_another_knows_more() {
        let mut first = Bound::help();
        let mut joining = Bound::help();
        // Two plies left: the first thread saw the bound cut 10 of 200 positions.
        for i in 0..200 {
            first.rate.answered(2, i % 20 == 0);
        }
        // Three plies left: the joining thread knows more (300 asked, every one cut).
        for _ in 0..300 {
            joining.rate.answered(3, true);
        }
        first.rate.answered(3, false);
        assert!(joining.pays(2), "untried: taken to pay");
        joining.learn_from(&first);
        assert_eq!((joining.rate.asked[2], joining.rate.cut[2]), (200, 10));
        assert!(!joining.pays(2), "1 cut in 20, no samples: does not pay");
        assert_eq!((joining.rate.asked[3], joining.rate.cut[3]), (300, 300));
        assert!(joining.pays(3));
    }

    /// The freeze test gives the same answer with and without its first test with the king on
    /// any square (which only spares work), over positions with one or two moves of the
    /// stalemated side left; and that first test does fail in some.
    #[test]
    fn any_square_first_changes_no_answer() {
        let mut seed = 0x0bad_5eed_1234_5678u64;
        let (mut tested, mut cut) = (0, 0);
        while tested < 2000 {
            let Some(pos) = random_position(&mut seed) else {
                continue;
            };
            tested += 1;
            for left in [(1, 1), (1, 2), (2, 2), (2, 3)] {
                // Judged not to pay: it fails in none of its trial.
                let mut never = CutRate::default();
                (0..RATE_TRIAL).for_each(|_| never.answered(left.0, false));
                let asked = (Color::Black, Aim::Stalemate);
                let costs = &mut AttackCosts::new();
                let without = goal_reachable_with(&pos, asked, left, &mut never, costs).0;
                let mut first = CutRate::default();
                let with = goal_reachable_with(&pos, asked, left, &mut first, costs).0;
                assert_eq!(with, without, "{} {left:?}", pos.to_fen());
                assert_eq!(never.asked[rate_slot(left.0)], RATE_TRIAL);
                cut += first.cut[rate_slot(left.0)];
            }
        }
        assert!(cut > 50, "the first test failed only {cut} times");
    }

    /// A test that rarely cuts is asked only once in `RATE_PROBE` times after its trial; one
    /// that cuts often enough goes on being asked.
    #[test]
    fn cut_rate_stops_asking_where_the_test_rarely_cuts() {
        let mut rate = CutRate::default();
        for i in 0..RATE_TRIAL {
            assert!(rate.worth_asking(3, 8) && rate.worth_asking(2, 8));
            rate.answered(3, i % 100 == 0);
            rate.answered(2, i % 4 == 0);
        }
        let asked = (0..2 * RATE_PROBE)
            .filter(|_| rate.worth_asking(3, 8))
            .count();
        assert_eq!(asked, 2);
        assert!((0..RATE_PROBE).all(|_| rate.worth_asking(2, 8)));
        // Judged per number of moves left: a fresh one is asked.
        assert!(rate.worth_asking(4, 8));
    }

    /// Asks the bound with `left` moves left as a search would, the bound answering `cut`
    /// at the cost of 12 nodes; `below`: the nodes searched below the position when it is
    /// searched. Whether asked.
    fn ask_as_search(bound: &mut Bound, left: u32, cut: bool, below: u64) -> bool {
        bound.node();
        let asked = bound.ask(left);
        if asked {
            bound.charge(left, 12 * NODE_STEPS);
        }
        let search = !asked || bound.answered(left, !cut);
        if search {
            let mark = bound.mark();
            (0..below).for_each(|_| bound.node());
            bound.searched(left, mark);
        }
        asked
    }

    /// Threads sharing their trials judge the bound on the answers of all: a trial asked 100
    /// times by one and 28 by the other is over for both, who then ask it no more where it
    /// has cut nothing. Where it is always asked, nothing is shared.
    #[test]
    fn bound_trials_are_shared_by_the_threads() {
        let trials = Arc::new(Trials::default());
        let mut first = Bound::help().sharing(&trials);
        let mut second = Bound::help().sharing(&trials);
        assert!((0..100).all(|_| ask_as_search(&mut first, 4, false, 10)));
        assert!((0..RATE_TRIAL - 100).all(|_| ask_as_search(&mut second, 4, false, 10)));
        for bound in [&mut first, &mut second] {
            let asked = (0..2 * RATE_PROBE)
                .filter(|_| ask_as_search(bound, 4, false, 10))
                .count();
            assert_eq!(asked, 2);
            assert_eq!(bound.rate.asked[4], RATE_TRIAL + 2);
        }
        // Alone, each would still be trying it out.
        let mut alone = Bound::help();
        assert!((0..RATE_TRIAL).all(|_| ask_as_search(&mut alone, 4, false, 10)));
        // Series play asks it always with one move left: counted by each thread alone.
        let trials = Arc::new(Trials::default());
        let mut series = Bound::series().sharing(&trials);
        (0..10).for_each(|_| {
            ask_as_search(&mut series, 1, true, 10);
        });
        assert_eq!(trials.slots[1].asked.load(Relaxed), 0);
        assert_eq!(series.rate.asked[1], 10);
    }

    /// Before a series' last move the bound is always asked. Higher up it is asked where the
    /// work it spares outweighs its cost: cutting one position in ten pays where the cut
    /// positions hold thousands of nodes, not where they hold a hundred, and cutting one in
    /// four does not pay where they hold ten. With too few cuts to measure that, it is asked
    /// where it cuts at least one position in eight.
    #[test]
    fn bound_is_asked_where_it_pays() {
        // (moves left, one cut in how many, nodes below a position, whether asked)
        for (left, every, below, pays) in [
            (1, 1000, 10, true),
            (2, 1000, 10, false),
            (5, 10, 5_000, true),
            (5, 10, 100, false),
            (6, 4, 10, false),
            (6, 50, 100_000, false),
        ] {
            let mut bound = Bound::series();
            for i in 0..RATE_TRIAL * every {
                ask_as_search(&mut bound, left, i % every == 0, below);
            }
            let asked = (0..2 * RATE_PROBE)
                .filter(|&i| ask_as_search(&mut bound, left, i % every == 0, below))
                .count() as u64;
            let expected = if pays { 2 * RATE_PROBE } else { 2 };
            assert_eq!(
                asked, expected,
                "{left} moves left, 1 cut in {every}, {below} below"
            );
        }
        // In help play it is judged two plies before the end too.
        let mut bound = Bound::help();
        for i in 0..RATE_TRIAL * 1000 {
            ask_as_search(&mut bound, 2, i % 1000 == 0, 10);
        }
        let asked = (0..2 * RATE_PROBE)
            .filter(|&i| ask_as_search(&mut bound, 2, i % 1000 == 0, 10))
            .count();
        assert_eq!(asked, 2, "help play, 2 plies left, 1 cut in 1000, 10 below");
    }

    /// Positions met in solving hpint#33 (`h=4`), one move of each side left and no stalemate,
    /// which a looser bound let through: it counted pins without their kind of line, their
    /// line from the king's square or the pinner's move, and the king's walk not at all.
    #[test]
    fn stalemate_bound_counts_pinners_and_moves() {
        for fen in [
            "8/7P/6K1/8/2R5/8/5rpp/kn6 b - - 0 1",
            "8/7K/7P/8/8/2R5/1kp2pp1/1n5b b - - 0 1",
            "8/7P/5RK1/8/8/8/1kp3p1/1b5n b - - 0 1",
            "8/7P/8/7K/8/8/2p3pp/kr1rR3 b - - 0 1",
            "1q6/7P/6K1/8/8/5R2/6pp/k1r5 b - - 0 1",
        ] {
            assert_cut(fen, 1, 1);
        }
    }

    /// A man holds one square: an officer stopped by its own side's men needs one staying on
    /// each empty square along its lines; a pawn is stopped by a man captured ahead of it too.
    #[test]
    fn stalemate_bound_needs_a_man_for_each_square_held() {
        // Bh2 needs g1 and g3 held, and none of Black's men can end there: the queen and the
        // other bishop must be given away (hpint#54's search, two moves each left).
        assert_cut("8/8/2q5/8/8/p3K3/P6b/5b1k b - - 0 1", 2, 2);
        // a3 is stopped only by a man of Black's on a2 (White cannot get there in two moves):
        // the rook, which must then stay there; nor can it be frozen there (hpint#54's search).
        assert_cut("8/8/8/8/8/p5K1/7r/6bk w - - 0 1", 1, 2);
        // hpint#96 (ser-h=3) after 1.c2-c1=Q 2.Qc1-c7: 3.Qc7-g3 Qd3*g3= stops g4 by a capture.
        let p = Position::from_fen("8/2q5/8/8/6p1/3Q4/5K2/7k b - - 0 1").unwrap();
        assert!(series_stalemate_in(&p, 1, true));
        assert!(goal_reachable(&p, Color::Black, Aim::Stalemate, 1, 1));
    }

    /// The bound's answer for Black as the side to be mated or stalemated.
    fn black_reaches(fen: &str, aim: Aim, m_left: u32, a_left: u32) -> bool {
        goal_reachable(
            &Position::from_fen(fen).unwrap(),
            Color::Black,
            aim,
            m_left,
            a_left,
        )
    }

    /// `fen` has no stalemate of Black with `m_left` moves of Black and `a_left` of White
    /// (the last), and the bound says so.
    fn assert_cut(fen: &str, m_left: u32, a_left: u32) {
        let p = Position::from_fen(fen).unwrap();
        assert!(!stalemate_in(&p, m_left + a_left), "{fen} has a stalemate");
        assert!(
            !goal_reachable(&p, Color::Black, Aim::Stalemate, m_left, a_left),
            "{fen} is not cut"
        );
    }

    /// The freeze test and the flights' test each pass on their own, with the king on
    /// different squares; the king ends on one square, so the position is cut. (Black: Ka8,
    /// Pc7, and a bishop; White to let Black move once and stalemate it with one move.)
    #[test]
    fn freeze_and_flights_need_the_same_king_square() {
        for fen in [
            "k7/2pR4/8/1K6/8/8/5b2/8 b - - 0 1",
            "8/k1p5/8/8/1K6/8/3R4/6b1 b - - 0 1",
        ] {
            let p = Position::from_fen(fen).unwrap();
            let t = tables();
            let king = Man::king_of(&p, Color::Black);
            let king_dist = king.dist_all(t);
            let (blockers, attackers) = (
                Army::of(&p, Color::Black, false),
                Army::of(&p, Color::White, true),
            );
            let (blockers, attackers) = (blockers.men(), attackers.men());
            let freezes = men_can_freeze(
                (&king, &king_dist),
                (blockers, attackers),
                (1, 1),
                &mut CutRate::default(),
                &mut |_, _, _| Some(0),
                &mut 0,
            );
            let covered = Flights::new(
                t,
                &mut AttackCosts::new(),
                &king_dist,
                blockers,
                attackers,
                Aim::Stalemate,
                (1, 1),
            )
            .any_covered(&king_dist);
            assert!(freezes && covered, "{fen}: a test alone cuts");
            assert_cut(fen, 1, 1);
        }
    }

    /// A flight the other side cannot attack in time must end held by a man of the king's
    /// side, which then is not captured. Here Black's queen can never stand frozen, so it
    /// must be captured, and then no man holds e7, which White cannot attack in one move.
    /// Before, the flights' test let the queen block e7 while the freeze test had it taken.
    #[test]
    fn unguarded_flights_need_men_not_captured() {
        assert_cut("4k1K1/5N2/8/8/4P3/8/4q3/8 b - - 0 1", 1, 1);
    }

    /// The flights' test blocks a flight only with a man the freeze test lets end there.
    /// Here Black's queen can never stand frozen, so White's one move must capture it; then
    /// it blocks none of Ke1's five flights, and nothing else of White's moves to guard
    /// them. Before, the flights' test had the queen block one while the freeze test had it
    /// captured.
    #[test]
    fn captured_men_block_no_flight() {
        assert_cut("8/8/5R2/8/8/K7/2q5/4k3 b - - 0 1", 1, 1);
    }

    /// A man whose ways were merged may end on any square of theirs, not anywhere. Met in
    /// solving hpint#54: White's king cannot attack h2 in two moves, so a black man must end
    /// there if the king stays on h1, and none of the pawns can (the f-pawn's ways end on
    /// f2 or where it may promote).
    #[test]
    fn merged_ways_end_on_their_squares() {
        assert_cut("8/8/8/8/8/p2K4/P4pp1/7k b - - 0 1", 2, 2);
    }

    /// The other side's captures and arrivals cost the walks of the men making them: one man
    /// visits its errands one after another, two men walk apart.
    #[test]
    fn errands_cost_the_walks_to_them() {
        let t = tables();
        let pos = Position::from_fen("8/8/8/8/8/p7/P7/3K1nnk w - - 0 1").unwrap();
        let white = Army::of(&pos, Color::White, true);
        let errands = Errands::new(t, white.men());
        // The king d1 to f1 (two moves), then g1; the pawn a2 to a3 (one).
        assert_eq!(errands.least_moves(&[n("f1") as u8], 0), 2);
        assert_eq!(errands.least_moves(&[n("f1") as u8, n("g1") as u8], 0), 3);
        assert_eq!(errands.least_moves(&[n("f1") as u8, ANYWHERE], 0), 2);
        assert_eq!(
            errands.least_moves(&[n("f1") as u8, n("a3") as u8, ANYWHERE], 0),
            3
        );
        // A pawn captures only diagonally: on b3 at once, on a3 only the king (three moves).
        assert_eq!(errands.least_moves(&[n("b3") as u8], 1), 1);
        assert_eq!(errands.least_moves(&[n("a3") as u8], 1), 3);
        // Captures on f1 and g1 by the king, the pawn's step to a3 besides.
        assert_eq!(
            errands.least_moves(&[n("f1") as u8, n("g1") as u8, n("a3") as u8], 0b011),
            4
        );
    }

    /// The bound never denies a stalemate that an e.p. capture makes (random walks from
    /// positions where they are near; brute force is the oracle).
    #[test]
    fn stalemate_bound_never_cuts_an_en_passant_stalemate() {
        let (mut solvable, mut after_double_step) = (0, 0);
        walk_near_stalemates(
            &NEAR_EN_PASSANT_STALEMATES,
            0x51_7cc1_b727_220a,
            24,
            6,
            |pos| {
                let white = pos.side_to_move() == Color::White;
                after_double_step += pos.ep_target().is_some() as u32;
                for k in if white { [1, 3] } else { [2, 4] } {
                    if stalemate_in(pos, k) {
                        solvable += 1;
                        assert!(
                            goal_reachable(pos, Color::Black, Aim::Stalemate, k / 2, k.div_ceil(2)),
                            "{} k={k}",
                            pos.to_fen()
                        );
                    }
                }
            },
        );
        assert!(
            after_double_step >= 10 && solvable >= 20,
            "{after_double_step} positions after a double step, {solvable} solvable"
        );
    }

    /// A pawn that has just made its double step is captured e.p. in one move, by a pawn
    /// that lands behind it: 1.f5*g6 e.p. stalemates (Black Ka8, Pg5; White Kc7 Bb6 Pf5).
    #[test]
    fn a_pawn_captured_en_passant_costs_one_move() {
        let after_double_step = "k7/2K5/1B6/5Pp1/8/8/8/8 w - g6 0 1";
        assert!(black_reaches(after_double_step, Aim::Stalemate, 0, 1));
        // Without the double step the pawn can be neither captured nor blocked in time.
        let without = "k7/2K5/1B6/5Pp1/8/8/8/8 w - - 0 1";
        assert!(!black_reaches(without, Aim::Stalemate, 0, 1));
    }

    /// Positions met in solving hpint#31 and #73 (`h=5`), White to move before one
    /// move of Black and White's stalemating move, with no stalemate: each is cut because the
    /// captures and blocks White needs cost more moves than it has, or because a man on the
    /// board's edge cannot be pinned from its king's square.
    #[test]
    fn stalemate_bound_counts_the_walks_of_captures() {
        for fen in [
            "7k/5n2/5N2/1p6/8/1N6/p3P3/Bbr4K w - - 0 1",
            "8/8/8/p6p/P3K1pr/7b/B3p1kp/1r6 w - - 0 1",
            "8/p7/B7/7p/P3K1pr/7b/4p2p/1n4k1 w - - 0 1",
        ] {
            assert_cut(fen, 1, 2);
        }
    }

    #[test]
    fn mate_in_one_is_reachable_and_far_mates_are_not() {
        // h#1: 1.Kb8-a8 Sc4-b6#.
        let knight_mates = "1k6/8/K7/8/2N5/8/7B/8 b - - 0 1";
        assert!(black_reaches(knight_mates, Aim::Mate, 1, 1));
        // A lone king cannot be mated by a lone king.
        let kings_alone = "k7/8/8/8/8/8/8/7K b - - 0 1";
        assert!(!black_reaches(kings_alone, Aim::Mate, 5, 5));
        // Nor a king in the middle by a far knight in one move.
        let far_knight = "8/8/8/3k4/8/8/8/N6K b - - 0 1";
        assert!(!black_reaches(far_knight, Aim::Mate, 0, 1));
    }

    /// The mating king takes on only the flights next to the one square he ends on: where
    /// the other men leave flights on two sides of the mated king, the check is given up
    /// before the assignment's search (`Assign::blocks_fit`). intell#102's diagram (h#7),
    /// four moves a side: the white pawn alone can check; the test took 104 steps when the
    /// king was taken to stand on every square he reaches at once.
    #[test]
    fn mating_king_guards_from_one_square() {
        let pos = Position::from_fen("8/8/8/8/2p1K3/5p2/ppP2k2/8 b - - 0 1").unwrap();
        let (first, costs) = (&mut CutRate::default(), &mut AttackCosts::new());
        let (reachable, steps) =
            goal_reachable_with(&pos, (Color::Black, Aim::Mate), (4, 4), first, costs);
        assert!(!reachable);
        assert!(steps < 60, "{steps} steps");
    }
}
