//! Legality of a problem position under the composition conventions: every reason a setup is
//! illegal, and the castling / e.p. rights it is taken to have.
//!
//! The checks work on the raw setup (a 64-square array), not on cozy's board: an illegal setup
//! cannot be built into one, and the retraction test needs positions that never become boards.
//!
//! Double checks on the side to move are tested by retraction: the opponent made the last move, and
//! before it the side now to move was not to move, so it cannot have been in check. If no
//! conceivable last move (any man's step back, with or without an uncaptured man left behind, a
//! promotion, an e.p. capture or a castling taken back) leaves the king unattacked, the check
//! cannot have arisen. (Single checks are not tested: Popeye accepts retro-impossible single
//! checks, and problems in its own test files rely on that.) The set of retractions is deliberately generous: a position is only
//! rejected when no last move at all could explain it.

use std::fmt;

use super::fen::{CastlingFlags, Setup};
use super::steps::{DIAGONAL, KING, KNIGHT, ORTHOGONAL};
use super::{Color, Role, Square};

/// One reason a position is illegal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegality {
    /// Not exactly one king of this colour.
    KingCount { color: Color, count: u32 },
    /// A pawn on its side's first or last rank.
    PawnOnBackRank { color: Color, square: Square },
    /// More than 16 men of one colour.
    TooManyMen { color: Color, count: u32 },
    /// More than 8 pawns of one colour.
    TooManyPawns { color: Color, count: u32 },
    /// More pieces beyond the initial set (promoted pieces) than missing pawns could supply.
    TooManyPromoted {
        color: Color,
        excess: u32,
        pawns: u32,
    },
    /// The two kings stand on adjacent squares.
    KingsAdjacent { white: Square, black: Square },
    /// The side not to move is in check (`color` is the side in check).
    NotToMoveInCheck { color: Color, checkers: Vec<Square> },
    /// The side to move is checked by three or more men.
    TooManyCheckers { color: Color, checkers: Vec<Square> },
    /// A double check on the side to move that no single move could have given.
    ImpossibleDoubleCheck { color: Color, checkers: [Square; 2] },
    /// A castling flag whose king or rook is not on its home square.
    CastlingFlag {
        color: Color,
        long: bool,
        king_missing: bool,
        rook_missing: bool,
    },
    /// The e.p. square is not on the rank a double step of the side not to move passes over.
    EpWrongRank { square: Square, side_to_move: Color },
    /// No pawn of the side not to move stands in front of the e.p. square.
    EpNoPawn {
        square: Square,
        pawn_square: Square,
        pawn_color: Color,
    },
    /// The e.p. square itself is occupied.
    EpSquareOccupied { square: Square },
    /// The double-stepping pawn's origin square is occupied.
    EpOriginOccupied { square: Square, origin: Square },
    /// Taking the double step back leaves the side to move in check with the other side to move.
    EpRetractionCheck {
        square: Square,
        from: Square,
        to: Square,
        checked: Color,
    },
    /// Anything the board could not represent consistently (should not happen after the checks).
    Inconsistent(String),
}

fn man(color: Color, role: Role) -> String {
    let role = match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    };
    format!("{} {role}", color_word(color))
}

fn color_word(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn flag_char(color: Color, long: bool) -> char {
    let c = if long { 'q' } else { 'k' };
    match color {
        Color::White => c.to_ascii_uppercase(),
        Color::Black => c,
    }
}

fn squares_text(squares: &[Square]) -> String {
    let names: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
    match names.len() {
        0 => String::new(),
        1 => names[0].clone(),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

impl fmt::Display for Illegality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegality::KingCount { color, count } => match count {
                0 => write!(
                    f,
                    "{color} has no king (a position needs exactly one king a side)"
                ),
                n => write!(
                    f,
                    "{color} has {n} kings (a position needs exactly one king a side)"
                ),
            },
            Illegality::PawnOnBackRank { color, square } => write!(
                f,
                "{} on {square} (pawns cannot stand on the first or last rank)",
                man(*color, Role::Pawn)
            ),
            Illegality::TooManyMen { color, count } => {
                write!(f, "{color} has {count} men (at most 16 are possible)")
            }
            Illegality::TooManyPawns { color, count } => {
                write!(f, "{color} has {count} pawns (at most 8 are possible)")
            }
            Illegality::TooManyPromoted {
                color,
                excess,
                pawns,
            } => write!(
                f,
                "{color} has {excess} promoted piece{} beyond the initial set (queens beyond 1, \
                 rooks beyond 2, knights beyond 2, bishops beyond 1 per square colour), but with \
                 {pawns} pawn{} on the board at most {} can have promoted",
                if *excess == 1 { "" } else { "s" },
                if *pawns == 1 { "" } else { "s" },
                8u32.saturating_sub(*pawns)
            ),
            Illegality::KingsAdjacent { white, black } => write!(
                f,
                "the kings stand next to each other (white king {white}, black king {black})"
            ),
            Illegality::NotToMoveInCheck { color, checkers } => write!(
                f,
                "{color} is in check but {} is to move (check from {})",
                !*color,
                squares_text(checkers)
            ),
            Illegality::TooManyCheckers { color, checkers } => write!(
                f,
                "{color} is in check from {} men ({}); no move can give more than a double check",
                checkers.len(),
                squares_text(checkers)
            ),
            Illegality::ImpossibleDoubleCheck { color, checkers } => write!(
                f,
                "{color} is in double check from {} and {}, which no single {} move could have given",
                checkers[0],
                checkers[1],
                !*color
            ),
            Illegality::CastlingFlag {
                color,
                long,
                king_missing,
                rook_missing,
            } => {
                let rank = if *color == Color::White { '1' } else { '8' };
                let rook_file = if *long { 'a' } else { 'h' };
                let c = color_word(*color);
                write!(f, "castling flag '{}': ", flag_char(*color, *long))?;
                match (king_missing, rook_missing) {
                    (true, true) => write!(
                        f,
                        "the {c} king is not on e{rank} and the {c} rook is not on {rook_file}{rank}"
                    ),
                    (true, false) => write!(f, "the {c} king is not on e{rank}"),
                    _ => write!(f, "the {c} rook is not on {rook_file}{rank}"),
                }
            }
            Illegality::EpWrongRank {
                square,
                side_to_move,
            } => write!(
                f,
                "e.p. square {square}: with {side_to_move} to move it must be on the {} rank",
                if *side_to_move == Color::White {
                    "6th"
                } else {
                    "3rd"
                }
            ),
            Illegality::EpNoPawn {
                square,
                pawn_square,
                pawn_color,
            } => write!(
                f,
                "e.p. square {square}: there is no {} on {pawn_square} that could just have made \
                 the double step",
                man(*pawn_color, Role::Pawn)
            ),
            Illegality::EpSquareOccupied { square } => write!(
                f,
                "e.p. square {square} is occupied, so no pawn can just have passed over it"
            ),
            Illegality::EpOriginOccupied { square, origin } => write!(
                f,
                "e.p. square {square}: the double-stepping pawn's origin square {origin} is \
                 occupied, so the double step cannot have been the last move"
            ),
            Illegality::EpRetractionCheck {
                square,
                from,
                to,
                checked,
            } => write!(
                f,
                "e.p. square {square}: before {from}-{to} {checked} would have been in check with \
                 {} to move, so {from}-{to} cannot have been the last move",
                !*checked
            ),
            Illegality::Inconsistent(s) => write!(f, "inconsistent position: {s}"),
        }
    }
}

/// The verdict on a setup: its illegalities (empty when legal) and the rights assumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationReport {
    pub problems: Vec<Illegality>,
    /// Castling rights granted (only flags consistent with the board).
    pub castling: CastlingFlags,
    /// The e.p. target square, when the FEN's e.p. field is accepted.
    pub en_passant: Option<Square>,
    /// Human-readable statements of what was assumed (castling granted, e.p. available …).
    pub assumptions: Vec<String>,
}

impl ValidationReport {
    pub fn is_legal(&self) -> bool {
        self.problems.is_empty()
    }
}

type Board = [Option<(Color, Role)>; 64];

/// The rank direction a pawn of `color` moves in.
fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

fn at(board: &Board, sq: Square) -> Option<(Color, Role)> {
    board[sq.index()]
}

fn is_empty(board: &Board, sq: Square) -> bool {
    board[sq.index()].is_none()
}

/// Squares of `by`'s men attacking `target`; the king counts only when `with_king`.
fn attackers(board: &Board, target: Square, by: Color, with_king: bool) -> Vec<Square> {
    let mut out = Vec::new();
    let is = |sq: Square, roles: &[Role]| matches!(at(board, sq), Some((c, r)) if c == by && roles.contains(&r));
    // A pawn of `by` attacks `target` from one rank behind it (seen from `by`).
    for df in [-1, 1] {
        if let Some(sq) = target.offset(df, -forward(by)) {
            if is(sq, &[Role::Pawn]) {
                out.push(sq);
            }
        }
    }
    for (df, dr) in KNIGHT {
        if let Some(sq) = target.offset(df, dr) {
            if is(sq, &[Role::Knight]) {
                out.push(sq);
            }
        }
    }
    if with_king {
        for (df, dr) in KING {
            if let Some(sq) = target.offset(df, dr) {
                if is(sq, &[Role::King]) {
                    out.push(sq);
                }
            }
        }
    }
    for (dirs, roles) in [
        (ORTHOGONAL, [Role::Rook, Role::Queen]),
        (DIAGONAL, [Role::Bishop, Role::Queen]),
    ] {
        for (df, dr) in dirs {
            let mut cur = target;
            while let Some(sq) = cur.offset(df, dr) {
                if !is_empty(board, sq) {
                    if is(sq, &roles) {
                        out.push(sq);
                    }
                    break;
                }
                cur = sq;
            }
        }
    }
    out.sort();
    out
}

fn find_king(board: &Board, color: Color) -> Option<Square> {
    Square::all().find(|&s| at(board, s) == Some((color, Role::King)))
}

/// True when the king of `color` (on `king`) is attacked by the other side in `board`.
fn king_attacked(board: &Board, king: Square, color: Color) -> bool {
    !attackers(board, king, !color, true).is_empty()
}

/// Whether some last move of `mover` explains the present position with the other side's king
/// (on `king`) unattacked before it. Generous: any geometric retraction counts.
fn some_retraction_unchecks(board: &Board, mover: Color, king: Square) -> bool {
    let victim = !mover;
    // Any man of the victim would do as an uncaptured blocker: it cannot attack its own king.
    let blocker = Some((victim, Role::Knight));
    let fwd = forward(mover);
    // Tries the retracted position with `from` (now empty) getting `piece` back and `to`
    // emptied or, when the move may have been a capture, refilled with a victim's man.
    let try_retraction = |to: Square, from: Square, piece: (Color, Role), capture: Capture| {
        let mut b = *board;
        b[from.index()] = Some(piece);
        let options: &[Option<(Color, Role)>] = match capture {
            Capture::No => &[None],
            Capture::Must => &[blocker],
            Capture::May => &[None, blocker],
        };
        options.iter().any(|&left| {
            b[to.index()] = left;
            !king_attacked(&b, king, victim)
        })
    };
    for to in Square::all() {
        let Some((color, role)) = at(board, to) else {
            continue;
        };
        if color != mover {
            continue;
        }
        let rel = to.relative_rank(mover);
        let found = match role {
            Role::Pawn => {
                let mut ok = false;
                // A single step forward (from the second rank onwards).
                if let Some(from) = to.offset(0, -fwd) {
                    if rel >= 2 && is_empty(board, from) {
                        ok |= try_retraction(to, from, (mover, Role::Pawn), Capture::No);
                    }
                    // A double step from the second rank.
                    if rel == 3 && is_empty(board, from) {
                        if let Some(origin) = to.offset(0, -2 * fwd) {
                            if is_empty(board, origin) {
                                ok |= try_retraction(to, origin, (mover, Role::Pawn), Capture::No);
                            }
                        }
                    }
                }
                for df in [-1, 1] {
                    let Some(from) = to.offset(df, -fwd) else {
                        continue;
                    };
                    if rel < 2 || !is_empty(board, from) {
                        continue;
                    }
                    ok |= try_retraction(to, from, (mover, Role::Pawn), Capture::Must);
                    // An e.p. capture: the victim's pawn stood beside `from`, having passed over
                    // `to` from its own second rank.
                    if rel == 5 {
                        let captured = to.offset(0, -fwd).expect("rank 5 has a rank behind");
                        let origin = to.offset(0, fwd).expect("rank 5 has a rank ahead");
                        if is_empty(board, captured) && is_empty(board, origin) {
                            let mut b = *board;
                            b[to.index()] = None;
                            b[from.index()] = Some((mover, Role::Pawn));
                            b[captured.index()] = Some((victim, Role::Pawn));
                            ok |= !king_attacked(&b, king, victim);
                        }
                    }
                }
                ok
            }
            Role::King => {
                let mut ok = KING.iter().any(|&(df, dr)| {
                    to.offset(df, dr).is_some_and(|from| {
                        is_empty(board, from)
                            && try_retraction(to, from, (mover, Role::King), Capture::May)
                    })
                });
                // Castling taken back.
                let back = if mover == Color::White { 0 } else { 7 };
                let sq = |file: u8| Square::new(file, back);
                let rook = Some((mover, Role::Rook));
                // (king to, rook to, king from, rook from, squares that must be empty now)
                let castlings: [(u8, u8, u8, u8, &[u8]); 2] =
                    [(6, 5, 4, 7, &[4, 7]), (2, 3, 4, 0, &[0, 1, 4])];
                for (kt, rt, kf, rf, empty) in castlings {
                    if to == sq(kt)
                        && at(board, sq(rt)) == rook
                        && empty.iter().all(|&f| is_empty(board, sq(f)))
                    {
                        let mut b = *board;
                        b[sq(kt).index()] = None;
                        b[sq(rt).index()] = None;
                        b[sq(kf).index()] = Some((mover, Role::King));
                        b[sq(rf).index()] = rook;
                        ok |= !king_attacked(&b, king, victim);
                    }
                }
                ok
            }
            Role::Knight => KNIGHT.iter().any(|&(df, dr)| {
                to.offset(df, dr).is_some_and(|from| {
                    is_empty(board, from)
                        && try_retraction(to, from, (mover, Role::Knight), Capture::May)
                })
            }),
            Role::Bishop | Role::Rook | Role::Queen => {
                let dirs: &[(i8, i8)] = match role {
                    Role::Bishop => &DIAGONAL,
                    Role::Rook => &ORTHOGONAL,
                    _ => &KING,
                };
                dirs.iter().any(|&(df, dr)| {
                    let mut cur = to;
                    while let Some(from) = cur.offset(df, dr) {
                        if !is_empty(board, from) {
                            break;
                        }
                        if try_retraction(to, from, (mover, role), Capture::May) {
                            return true;
                        }
                        cur = from;
                    }
                    false
                })
            }
        };
        if found {
            return true;
        }
        // A promotion on the last rank: the man was a pawn one rank below.
        if rel == 7 && role != Role::King && role != Role::Pawn {
            for df in [-1, 0, 1] {
                let Some(from) = to.offset(df, -fwd) else {
                    continue;
                };
                if !is_empty(board, from) {
                    continue;
                }
                let capture = if df == 0 { Capture::No } else { Capture::Must };
                if try_retraction(to, from, (mover, Role::Pawn), capture) {
                    return true;
                }
            }
        }
    }
    false
}

#[derive(Clone, Copy)]
enum Capture {
    No,
    Must,
    May,
}

/// Promoted pieces a side must have: pieces beyond the initial set.
fn promoted_excess(board: &Board, color: Color) -> u32 {
    let mut count = [0u32; 6];
    let mut bishops = [0u32; 2];
    for sq in Square::all() {
        if let Some((c, r)) = at(board, sq) {
            if c == color {
                count[r as usize] += 1;
                if r == Role::Bishop {
                    bishops[((sq.file() + sq.rank()) % 2) as usize] += 1;
                }
            }
        }
    }
    count[Role::Queen as usize].saturating_sub(1)
        + count[Role::Rook as usize].saturating_sub(2)
        + count[Role::Knight as usize].saturating_sub(2)
        + bishops[0].saturating_sub(1)
        + bishops[1].saturating_sub(1)
}

/// Checks a setup against every rule; reports all problems, not only the first.
pub fn validate(setup: &Setup) -> ValidationReport {
    let board: &Board = &setup.board;
    let stm = setup.side_to_move;
    let mut problems = Vec::new();

    // Material.
    let mut kings: [Option<Square>; 2] = [None; 2];
    for color in Color::ALL {
        let men: Vec<(Square, Role)> = Square::all()
            .filter_map(|s| match at(board, s) {
                Some((c, r)) if c == color => Some((s, r)),
                _ => None,
            })
            .collect();
        let count_of = |role: Role| men.iter().filter(|(_, r)| *r == role).count() as u32;
        let king_count = count_of(Role::King);
        if king_count == 1 {
            kings[color.index()] = find_king(board, color);
        } else {
            problems.push(Illegality::KingCount {
                color,
                count: king_count,
            });
        }
        for &(square, role) in &men {
            if role == Role::Pawn && (square.rank() == 0 || square.rank() == 7) {
                problems.push(Illegality::PawnOnBackRank { color, square });
            }
        }
        if men.len() > 16 {
            problems.push(Illegality::TooManyMen {
                color,
                count: men.len() as u32,
            });
        }
        let pawns = count_of(Role::Pawn);
        if pawns > 8 {
            problems.push(Illegality::TooManyPawns {
                color,
                count: pawns,
            });
        }
        let excess = promoted_excess(board, color);
        if excess > 0 && excess as i64 > 8 - pawns as i64 {
            problems.push(Illegality::TooManyPromoted {
                color,
                excess,
                pawns,
            });
        }
    }

    // Checks.
    if let [Some(white), Some(black)] = kings {
        let king = |c: Color| if c == Color::White { white } else { black };
        let df = white.file().abs_diff(black.file());
        let dr = white.rank().abs_diff(black.rank());
        if df <= 1 && dr <= 1 {
            problems.push(Illegality::KingsAdjacent { white, black });
        }
        let idle = !stm;
        let checkers = attackers(board, king(idle), stm, false);
        if !checkers.is_empty() {
            problems.push(Illegality::NotToMoveInCheck {
                color: idle,
                checkers,
            });
        }
        let checkers = attackers(board, king(stm), idle, false);
        match checkers.len() {
            0 => {}
            // A single check is not tested by retraction: Popeye accepts (and composers use)
            // positions where a single check cannot have arisen, e.g. a pawn checking from its
            // initial rank.
            1 => {}
            2 if some_retraction_unchecks(board, idle, king(stm)) => {}
            2 => problems.push(Illegality::ImpossibleDoubleCheck {
                color: stm,
                checkers: [checkers[0], checkers[1]],
            }),
            _ => problems.push(Illegality::TooManyCheckers {
                color: stm,
                checkers,
            }),
        }
    }

    // Castling flags.
    let mut castling = CastlingFlags::default();
    for color in Color::ALL {
        let back = if color == Color::White { 0 } else { 7 };
        for long in [false, true] {
            if !setup.castling.get(color, long) {
                continue;
            }
            let king_missing = at(board, Square::new(4, back)) != Some((color, Role::King));
            let rook_file = if long { 0 } else { 7 };
            let rook_missing = at(board, Square::new(rook_file, back)) != Some((color, Role::Rook));
            if king_missing || rook_missing {
                problems.push(Illegality::CastlingFlag {
                    color,
                    long,
                    king_missing,
                    rook_missing,
                });
            } else {
                castling.set(color, long, true);
            }
        }
    }

    // En passant: legal only if the last move was provably that double step.
    let mut en_passant = None;
    let mut ep_text = "no e.p. capture".to_string();
    if let Some(square) = setup.en_passant {
        let fwd = forward(stm);
        if square.relative_rank(stm) != 5 {
            problems.push(Illegality::EpWrongRank {
                square,
                side_to_move: stm,
            });
        } else {
            let pawn_square = square.offset(0, -fwd).expect("6th rank has a rank behind");
            let origin = square.offset(0, fwd).expect("6th rank has a rank ahead");
            let mut ok = true;
            if at(board, pawn_square) != Some((!stm, Role::Pawn)) {
                ok = false;
                problems.push(Illegality::EpNoPawn {
                    square,
                    pawn_square,
                    pawn_color: !stm,
                });
            }
            if !is_empty(board, square) {
                ok = false;
                problems.push(Illegality::EpSquareOccupied { square });
            }
            if !is_empty(board, origin) {
                ok = false;
                problems.push(Illegality::EpOriginOccupied { square, origin });
            }
            if ok {
                if let Some(king) = kings[stm.index()] {
                    let mut before = *board;
                    before[pawn_square.index()] = None;
                    before[origin.index()] = Some((!stm, Role::Pawn));
                    if king_attacked(&before, king, stm) {
                        ok = false;
                        problems.push(Illegality::EpRetractionCheck {
                            square,
                            from: origin,
                            to: pawn_square,
                            checked: stm,
                        });
                    }
                }
            }
            if ok {
                en_passant = Some(square);
                let usable = kings[stm.index()].is_some_and(|king| {
                    [-1, 1].iter().any(|&df| {
                        pawn_square.offset(df, 0).is_some_and(|from| {
                            if at(board, from) != Some((stm, Role::Pawn)) {
                                return false;
                            }
                            let mut after = *board;
                            after[from.index()] = None;
                            after[pawn_square.index()] = None;
                            after[square.index()] = Some((stm, Role::Pawn));
                            !king_attacked(&after, king, stm)
                        })
                    })
                });
                ep_text = if usable {
                    format!(
                        "e.p. capture on {square} is available (last move {origin}-{pawn_square})"
                    )
                } else {
                    format!(
                        "last move {origin}-{pawn_square} assumed, but no e.p. capture on {square} \
                         is possible"
                    )
                };
            }
        }
    }

    let mut assumptions = Vec::new();
    for color in Color::ALL {
        for (long, text) in [(false, "king-side (0-0)"), (true, "queen-side (0-0-0)")] {
            if castling.get(color, long) {
                assumptions.push(format!("{color} may castle {text}"));
            }
        }
    }
    if !castling.any() {
        assumptions.push("no castling rights".to_string());
    }
    assumptions.push(ep_text);

    ValidationReport {
        problems,
        castling,
        en_passant,
        assumptions,
    }
}
