//! The stalemate picture, for long plays: can every man of the stalemated side end on a square
//! of its own where it cannot move, with the moves it has left?
//!
//! `men_can_freeze` counts the squares men must arrive on, but takes the squares held now as
//! held at the end; with many moves left nearly every man may walk, and it cannot tell. Here
//! each man is given a final square (the king too), and a man frozen there needs its
//! neighbours along its lines held by the final squares of the others, not by where they stand
//! now. That ties every arrival to the walk of the man who makes it, as in a composer's
//! picture of the final position.
//!
//! It is a relaxation like the rest of the bound (empty-board distances, any capture or pin
//! the other side could make in time): it may let through a position that cannot end in
//! stalemate, never the reverse.

use crate::chess::{Color, Position};

use super::{
    bits, pinnable, tables, within, Army, CutRate, Form, Man, Pinners, FREEZE_MAX_MOVES, INF,
    MAX_MEN, OFFICERS,
};

/// Ways one man may end, at most; of more, the cheapest are kept and the rest become one
/// loose end (`Fate::Anywhere`).
const MAX_ENDS: usize = 96;
/// Search steps before giving up (and answering "possible").
const STEP_CAP: u32 = 2_000;

/// How a man ends.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Fate {
    /// Immobile on its final square: the squares in `need` held by its own side, those in
    /// `theirs` by the other side.
    #[default]
    Frozen,
    /// Captured by the other side. Each capture is a move of the other side, and so is
    /// each arrival of its men next to a pawn; a capture may be one of those arrivals (the
    /// captured man stood there), so the other side needs as many moves as the more of the
    /// two, at least.
    Captured,
    /// Pinned along a diagonal (0) or a rank or file (1), somewhere.
    Pinned(usize),
    /// Somewhere, immobile somehow (too many ways to list).
    Anywhere,
}

#[derive(Clone, Copy, Default)]
struct End {
    walk: u8,
    fate: Fate,
    /// The final square as a bit (0 unless frozen).
    dest: u64,
    need: u64,
    theirs: u64,
}

impl End {
    const NONE: End = End {
        walk: 0,
        fate: Fate::Frozen,
        dest: 0,
        need: 0,
        theirs: 0,
    };
}

type Ends = [[End; MAX_ENDS]; MAX_MEN];

/// What the men decided so far use up.
#[derive(Clone, Copy, Default)]
struct State {
    walked: u32,
    /// The final squares of frozen men.
    dests: u64,
    /// The squares their side must hold, and the other side must arrive on.
    need: u64,
    theirs: u64,
    captured: u32,
    pinned: [u32; 2],
    /// Men standing on squares not decided (pinned, or anywhere) and not yet holding a
    /// square needed: each may hold one.
    loose: u32,
    /// The men decided (bits), and the least walks of the others added up.
    decided: u32,
    rest: u32,
}

struct Picture<'e> {
    ends: &'e mut Ends,

    n_ends: [usize; MAX_MEN],
    order: [u8; MAX_MEN],
    /// Per man: its cheapest end's walk, the squares it may end on, whether it may end loose.
    least: [u32; MAX_MEN],
    dest_mask: [u64; MAX_MEN],
    may_be_loose: [bool; MAX_MEN],
    /// Per man and square: its cheapest walk to hold that square at the end, beyond its
    /// cheapest end (`INF`: it cannot).
    extra: [[u8; 64]; MAX_MEN],
    /// Per man: its cheapest loose end's walk beyond its cheapest end (`INF`: none).
    loose_extra: [u8; MAX_MEN],
    n: usize,
    m_left: u32,
    a_left: u32,
    pinners: Pinners,
    their_men: u32,
    steps: u32,
}

/// When to draw the picture: it costs far more than the rest of the bound, and pays only
/// where it cuts most of the positions it is asked about. One per search (and thread): it
/// counts, per number of moves left, how often the picture cut, and stops asking where it
/// rarely does (asking again now and then, in case the play has moved on).
#[derive(Default)]
pub(in crate::solve) struct PictureGate {
    rate: CutRate,
    /// Search steps not yet counted as work (`take_work`).
    steps: u64,
}

impl Drop for PictureGate {
    fn drop(&mut self) {
        self.rate.log("picture");
    }
}

/// Search steps of the picture as costly as one node of the play (measured: a step takes
/// about a quarter of a node's time).
const STEPS_PER_NODE: u64 = 4;
/// The picture is asked where it cuts at least one position in two.
const PICTURE_MIN_CUTS: u64 = 2;

impl PictureGate {
    /// See `Bound::learn_from`.
    pub(in crate::solve) fn learn_from(&mut self, other: &PictureGate) {
        self.rate.learn_from(&other.rate);
    }

    /// Whether `mated` (to move or not) can end stalemated with `m_left` moves of its own and
    /// `a_left` of the other side: false only if the picture proves it cannot.
    pub(in crate::solve) fn stalemate_possible(
        &mut self,
        pos: &Position,
        mated: Color,
        m_left: u32,
        a_left: u32,
    ) -> bool {
        if m_left <= FREEZE_MAX_MOVES || a_left > 1 {
            return true;
        }
        if !self.rate.worth_asking(m_left, PICTURE_MIN_CUTS) {
            return true;
        }
        let t = tables();
        let king = Man::king_of(pos, mated);
        let king_dist = king.dist_all(t);
        let men = Army::of(pos, mated, false);
        let attackers = Army::of(pos, !mated, true);
        let (possible, steps) =
            picture_possible(&king_dist, men.men(), attackers.men(), m_left, a_left);
        self.steps += steps as u64;
        self.rate.answered(m_left, !possible);
        possible
    }

    /// The work done since last asked, in nodes.
    pub(in crate::solve) fn take_work(&mut self) -> u64 {
        let nodes = self.steps / STEPS_PER_NODE;
        self.steps %= STEPS_PER_NODE;
        nodes
    }
}

/// Whether the men of `king`'s side (the king first, then `men`) can all end immobile, the
/// king unable to move too, with `m_left` moves of their own and `a_left` of `attackers`;
/// and the search steps it took.
fn picture_possible(
    king_dist: &[u8; 64],
    men: &[Man],
    attackers: &[Man],
    m_left: u32,
    a_left: u32,
) -> (bool, u32) {
    if men.len() + 1 > MAX_MEN {
        return (true, 0);
    }
    let t = tables();
    let theirs_now = attackers.iter().fold(0u64, |b, m| b | 1 << m.sq);
    let theirs_within = attackers
        .iter()
        .fold(0u64, |b, a| b | a.with_dist(t, |d| within(d, a_left)));
    // Squares next to the king the other side may guard in time instead of a man holding them.
    let guardable = attackers.iter().fold(0u64, |b, a| {
        if a.form == Form::King {
            bits(a.with_dist(t, |d| within(d, a_left))).fold(b, |b, s| b | t.ring[s])
        } else {
            b | a.attacks_within(t, a_left)
        }
    });
    let pinners = Pinners::of(t, attackers, a_left);
    let may_pin = [pinners.diagonal > 0, pinners.orthogonal > 0];
    // The lists are large (tens of kilobytes): one per thread, overwritten.
    thread_local! {
        static ENDS: std::cell::RefCell<Ends> = const {
            std::cell::RefCell::new([[End::NONE; MAX_ENDS]; MAX_MEN])
        };
    }
    ENDS.with_borrow_mut(|ends| {
        let mut p = Picture {
            ends,
            n_ends: [0; MAX_MEN],
            order: std::array::from_fn(|i| i as u8),
            least: [0; MAX_MEN],
            dest_mask: [0; MAX_MEN],
            may_be_loose: [false; MAX_MEN],
            extra: [[INF; 64]; MAX_MEN],
            loose_extra: [INF; MAX_MEN],
            n: men.len() + 1,
            m_left,
            a_left,
            pinners,
            their_men: attackers.len() as u32,
            steps: 0,
        };
        // Squares on a line with some square the king may end on: where a man may be pinned.
        let king_squares = within(king_dist, m_left);
        let mut lines = [0u64; 2];
        for k in bits(king_squares) {
            lines[0] |= t.near[Form::Bishop as usize][k][1];
            lines[1] |= t.near[Form::Rook as usize][k][1];
        }
        // The king: any square it reaches, its flights held or guarded.
        let mut king_ends = Vec::new();
        for k in bits(king_squares) {
            king_ends.push(End {
                walk: king_dist[k],
                dest: 1 << k,
                need: t.ring[k] & !guardable,
                ..End::default()
            });
        }
        p.set(0, king_ends.into_iter());
        let others = men.len() as u32;
        for (i, man) in men.iter().enumerate() {
            let mut list = Vec::with_capacity(64);
            if a_left > 0 {
                // A pawn just double-stepped is captured e.p. off its square.
                let walk = if theirs_within >> man.sq & 1 == 1 || man.passant {
                    0
                } else {
                    1
                };
                list.push(End {
                    walk,
                    fate: Fate::Captured,
                    ..End::default()
                });
            }
            for (line, &on) in lines.iter().enumerate() {
                if pinnable(man.form, line) && may_pin[line] && on != 0 {
                    list.push(End {
                        walk: (on >> man.sq & 1 == 0) as u8,
                        fate: Fate::Pinned(line),
                        ..End::default()
                    });
                }
            }
            let officer = |form: Form, row: &[u8; 64], list: &mut Vec<End>| {
                for s in bits(within(row, m_left)) {
                    let need = t.freeze[form as usize][s];
                    let walk = row[s];
                    if need.count_ones() <= others {
                        list.push(End {
                            walk,
                            dest: 1 << s,
                            need,
                            ..End::default()
                        });
                    }
                }
            };
            match man.form {
                Form::Pawn => {
                    let cone = &t.pawn[man.color][man.sq];
                    let ahead: i32 = if man.color == 0 { 8 } else { -8 };
                    for s in bits(within(&cone[Form::Pawn as usize], m_left)) {
                        let walk = cone[Form::Pawn as usize][s];
                        let a = 1u64 << (s as i32 + ahead);
                        if theirs_now & a != 0 {
                            list.push(End {
                                walk,
                                dest: 1 << s,
                                ..End::default()
                            });
                            continue;
                        }
                        list.push(End {
                            walk,
                            dest: 1 << s,
                            need: a,
                            ..End::default()
                        });
                        if theirs_within & a != 0 {
                            list.push(End {
                                walk,
                                dest: 1 << s,
                                theirs: a,
                                ..End::default()
                            });
                        }
                    }
                    for form in OFFICERS {
                        officer(form, &cone[form as usize], &mut list);
                    }
                }
                form => {
                    officer(form, &t.dist[form as usize][man.sq], &mut list);
                    if form == Form::Rook && man.castle != 0 {
                        let c = man.castle.trailing_zeros() as usize;
                        officer(form, &t.dist[form as usize][c], &mut list);
                    }
                }
            }
            p.set(i + 1, list.into_iter());
        }
        let start = p.prepare();
        (p.go(start), p.steps)
    })
}

impl Picture<'_> {
    /// Lists man `i`'s ends, cheapest first; of an overlong list the cheapest, then one
    /// loose end for the rest (as cheap as the cheapest of them).
    fn set(&mut self, i: usize, ends: impl Iterator<Item = End>) {
        let mut v: Vec<End> = ends.collect();
        v.sort_unstable_by_key(|e| e.walk);
        if v.len() > MAX_ENDS {
            v[MAX_ENDS - 1] = End {
                walk: v[MAX_ENDS - 1].walk,
                fate: Fate::Anywhere,
                ..End::default()
            };
            v.truncate(MAX_ENDS);
        }
        self.ends[i][..v.len()].copy_from_slice(&v);
        self.n_ends[i] = v.len();
    }

    /// Orders the men (the king first, then fewest ends first) and notes what each needs
    /// at least and where it may end.
    fn prepare(&mut self) -> State {
        let n_ends = self.n_ends;
        self.order[1..self.n].sort_by_key(|&i| n_ends[i as usize]);
        let mut rest = 0u32;
        for i in 0..self.n {
            let ends = &self.ends[i][..self.n_ends[i]];
            self.least[i] = ends
                .iter()
                .map(|e| e.walk as u32)
                .min()
                .unwrap_or(INF as u32);
            rest = rest.saturating_add(self.least[i]);
            self.dest_mask[i] = ends.iter().fold(0, |m, e| m | e.dest);
            self.may_be_loose[i] = ends
                .iter()
                .any(|e| matches!(e.fate, Fate::Pinned(_) | Fate::Anywhere));
            let least = self.least[i] as u8;
            let mut extra = [INF; 64];
            let mut loose = INF;
            for e in ends {
                let x = e.walk - least;
                match e.fate {
                    Fate::Frozen => {
                        let q = e.dest.trailing_zeros() as usize;
                        extra[q] = extra[q].min(x);
                    }
                    Fate::Captured => {}
                    _ => loose = loose.min(x),
                }
            }
            self.extra[i] = extra;
            self.loose_extra[i] = loose;
        }
        State {
            rest,
            ..State::default()
        }
    }

    /// Whether the undecided men can end so that every square needed is held: squares
    /// needed and not yet held are taken first (by the man that may end there, or a loose
    /// man), the fewest choices first; then the next undecided man picks its end.
    fn go(&mut self, s: State) -> bool {
        self.steps += 1;
        if self.steps > STEP_CAP {
            return true;
        }
        let open = s.need & !s.dests;
        let undecided = self.n as u32 - s.decided.count_ones();
        if s.walked + s.rest > self.m_left || open.count_ones() > s.loose + undecided {
            return false;
        }
        if open == 0 {
            let Some(&i) = self.order[..self.n]
                .iter()
                .find(|&&i| s.decided >> i & 1 == 0)
            else {
                return true;
            };
            let i = i as usize;
            for e in 0..self.n_ends[i] {
                let end = self.ends[i][e];
                if s.walked + s.rest - self.least[i] + end.walk as u32 > self.m_left {
                    break; // cheapest first
                }
                if let Some(next) = self.decide(&s, i, end) {
                    if self.go(next) {
                        return true;
                    }
                }
            }
            return false;
        }
        // The open square with the fewest men that may take it; and what taking each costs
        // at least beyond the cheapest ends (a man takes one square: these add up).
        let n_open = open.count_ones() as usize;
        let (mut count, mut least) = ([0u32; 64], [INF; 64]);
        let (mut loose_count, mut loose_least) = (s.loose, if s.loose > 0 { 0 } else { INF });
        let undecided_men = !s.decided & ((1u32 << self.n) - 1);
        for i in bits(undecided_men as u64) {
            for q in bits(open & self.dest_mask[i]) {
                let at = (open & ((1u64 << q) - 1)).count_ones() as usize;
                count[at] += 1;
                least[at] = least[at].min(self.extra[i][q]);
            }
            if self.may_be_loose[i] {
                loose_count += 1;
                loose_least = loose_least.min(self.loose_extra[i]);
            }
        }
        let mut best = (u32::MAX, 0usize);
        let mut extra = 0u32;
        for (at, q) in bits(open).enumerate().take(n_open) {
            extra += least[at].min(loose_least) as u32;
            let c = count[at] + loose_count;
            if c < best.0 {
                best = (c, q);
            }
        }
        if s.walked + s.rest + extra > self.m_left {
            return false;
        }
        let (count, q) = best;
        if count == 0 {
            return false;
        }
        let square = 1u64 << q;
        if s.loose > 0 {
            let next = State {
                loose: s.loose - 1,
                dests: s.dests | square,
                ..s
            };
            if self.go(next) {
                return true;
            }
        }
        for i in 0..self.n {
            if s.decided >> i & 1 == 1 {
                continue;
            }
            if self.extra[i][q] == INF && !self.may_be_loose[i] {
                continue;
            }
            for e in 0..self.n_ends[i] {
                let end = self.ends[i][e];
                if s.walked + s.rest - self.least[i] + end.walk as u32 > self.m_left {
                    break;
                }
                let loose = matches!(end.fate, Fate::Pinned(_) | Fate::Anywhere);
                if end.dest != square && !loose {
                    continue;
                }
                if let Some(mut next) = self.decide(&s, i, end) {
                    if loose {
                        // The loose man stands on the square.
                        next.loose -= 1;
                        next.dests |= square;
                    }
                    if self.go(next) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// `s` with man `i` ending as `end`, if that fits.
    fn decide(&self, s: &State, i: usize, end: End) -> Option<State> {
        let mut next = State {
            walked: s.walked + end.walk as u32,
            rest: s.rest - self.least[i],
            decided: s.decided | 1 << i,
            ..*s
        };
        match end.fate {
            Fate::Frozen => {
                if end.dest & (s.dests | s.theirs) != 0 || end.theirs & s.dests != 0 {
                    return None;
                }
                next.dests |= end.dest;
                next.need |= end.need;
                next.theirs |= end.theirs;
                let theirs = next.theirs.count_ones();
                if theirs > self.their_men || theirs.max(s.captured) > self.a_left {
                    return None;
                }
            }
            Fate::Captured => {
                next.captured += 1;
                if s.theirs.count_ones().max(next.captured) > self.a_left {
                    return None;
                }
            }
            Fate::Pinned(line) => {
                next.pinned[line] += 1;
                next.loose += 1;
                if !self.pinners.suffice(next.pinned) {
                    return None;
                }
            }
            Fate::Anywhere => next.loose += 1,
        }
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether Black, to move, can make `m` moves in a row (White passing) after which some
    /// White move stalemates it, by brute force.
    fn series_stalemate_in(pos: &Position, m: u32) -> bool {
        if m == 0 {
            return pos
                .pass()
                .is_some_and(|w| w.any_successor(|_, p| p.is_stalemate()));
        }
        pos.any_successor(|_, after| {
            after
                .pass()
                .is_some_and(|next| series_stalemate_in(&next, m - 1))
        })
    }

    fn possible(fen: &str, m: u32) -> bool {
        let pos = Position::from_fen(fen).unwrap();
        PictureGate::default().stalemate_possible(&pos, Color::Black, m, 1)
    }

    /// Along the solutions of hpint#49 (`ser-h=14`) and hpint#110 (`ser-h=13`) the picture
    /// never says no; and in #49's first position it does say no for 8 moves (the king alone
    /// needs 7 to reach a corner, every man must end immobile).
    #[test]
    fn solutions_are_never_cut() {
        for (fen, line) in [
            (
                "2k5/2bb4/8/6p1/6p1/5qp1/8/4K3 b - - 0 1",
                "f3a8 c8b7 b7c6 c6d5 d5e4 e4f3 f3g2 g2g1 a8h1 g3g2 c7h2 g4g3 d7h3 g5g4",
            ),
            (
                "2k5/3p4/3p4/3p4/3p3B/3p4/3p1K2/R7 b - - 0 1",
                "d2d1b d3d2 d4d3 d5d4 d6d5 d7d6 c8d7 d7e6 e6f5 f5g4 g4h3 h3h2 h2h1",
            ),
        ] {
            let mut pos = Position::from_fen(fen).unwrap();
            let moves: Vec<&str> = line.split(' ').collect();
            for (played, uci) in moves.iter().enumerate() {
                let left = (moves.len() - played) as u32;
                assert!(
                    PictureGate::default().stalemate_possible(&pos, Color::Black, left, 1),
                    "{} cut with {left} moves left",
                    pos.to_fen()
                );
                let mv = pos.find_uci(uci).unwrap();
                pos = pos.play(&mv).pass().unwrap();
            }
        }
        assert!(!possible("2k5/2bb4/8/6p1/6p1/5qp1/8/4K3 b - - 0 1", 8));
    }

    /// The picture never denies a series stalemate that exists (random walks from sparse
    /// positions where stalemates are near; the brute-force search is the oracle).
    #[test]
    fn picture_never_cuts_a_series_stalemate() {
        let fens = crate::solve::reach::tests::NEAR_STALEMATES
            .iter()
            .chain(&["2k5/3p4/3p4/8/8/7B/5K2/R7 b - - 0 1"]);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let (mut solvable, mut tested) = (0, 0);
        for fen in fens {
            for _walk in 0..6 {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ply in 0..8 {
                    if pos.side_to_move() == Color::Black {
                        tested += 1;
                        let says =
                            PictureGate::default().stalemate_possible(&pos, Color::Black, 3, 1);
                        if series_stalemate_in(&pos, 3) {
                            solvable += 1;
                            assert!(says, "{} cut", pos.to_fen());
                        }
                    }
                    match pos.random_successor(&mut seed) {
                        Some(next) => pos = next,
                        None => break,
                    }
                }
            }
        }
        assert!(
            solvable > 15,
            "only {solvable} of {tested} positions solvable"
        );
    }
}
