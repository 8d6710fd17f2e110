//! A legal position, over cozy-chess's bitboard board. Nothing outside `chess` sees cozy types.

use std::fmt;

use cozy_chess::{Board, BoardBuilder, CastleRights, File, Piece};

use super::fen::{FenError, Setup};
use super::validate::{validate, ValidationReport};
use super::{Bitboard, Color, Move, MoveKey, MoveKind, MoveList, Role, Square};

mod mating_net;
pub use mating_net::MatingNet;

/// Zobrist keys for the e.p. file, mixed in only when an e.p. capture is really available, so
/// that positions which differ only by a useless e.p. right hash equal.
const EP_KEYS: [u64; 8] = [
    0x9d39247e33776d41,
    0x2af7398005aaa5c7,
    0x44db015024623547,
    0x9c15f73e62a76ae2,
    0x75834465489c0c89,
    0x3290ac3a203001bf,
    0x0fbbad1f61042279,
    0xe83a908ff2fb60ca,
];

/// See `Position::check_squares`.
#[derive(Clone, Copy)]
struct CheckSquares {
    /// By cozy piece index: destinations from which that man checks.
    by_piece: [cozy_chess::BitBoard; 6],
    discoverers: cozy_chess::BitBoard,
}

impl CheckSquares {
    /// The destinations of `pm` that may give check.
    #[inline(always)]
    fn candidates(&self, pm: &cozy_chess::PieceMoves) -> cozy_chess::BitBoard {
        if self.discoverers.has(pm.from) {
            pm.to
        } else {
            pm.to & self.by_piece[pm.piece as usize]
        }
    }
}

/// At most this many of their king's flights are used to filter mating moves (a king has 8).
const MATE_FLIGHTS: usize = 8;

/// See `Position::flight_squares`: for each flight their king has now, what one move of ours
/// must do to take it away.
struct FlightSquares {
    n: usize,
    flights: [cozy_chess::Square; MATE_FLIGHTS],
    /// Per flight: the squares whose vacating may uncover a line of ours onto it.
    uncover: [cozy_chess::BitBoard; MATE_FLIGHTS],
    /// Occupied squares, their king left out (a king fleeing along a line stays on it).
    occupied: cozy_chess::BitBoard,
    /// We may castle: a castling move moves two men, so it is never filtered.
    castling: bool,
    /// The e.p. capture's destination: it removes a second man, so it is never filtered.
    passant: cozy_chess::BitBoard,
    us: cozy_chess::Color,
}

impl FlightSquares {
    /// The destinations of `pm` that take away every flight: for each flight, the moving man
    /// attacks it from there, or its departure may uncover a line onto it. Any other move
    /// leaves their king a square to go to, so it cannot mate.
    #[inline]
    fn taking_flights(
        &self,
        pm: &cozy_chess::PieceMoves,
        to: cozy_chess::BitBoard,
    ) -> cozy_chess::BitBoard {
        use cozy_chess::{
            get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves,
            Rank,
        };
        if self.n == 0 || (pm.piece == Piece::King && self.castling) {
            return to;
        }
        let special = if pm.piece == Piece::Pawn {
            to & self.passant
        } else {
            cozy_chess::BitBoard::EMPTY
        };
        // The lines the moving man could attack along, its own square left empty.
        let occupied = self.occupied & !pm.from.bitboard();
        let mut allowed = to;
        for (&f, &uncover) in self.flights[..self.n].iter().zip(&self.uncover[..self.n]) {
            if uncover.has(pm.from) {
                continue;
            }
            let diagonal = || get_bishop_moves(f, occupied);
            let orthogonal = || get_rook_moves(f, occupied);
            allowed &= match pm.piece {
                Piece::Pawn => {
                    // A pawn reaching the last rank attacks as the officer it becomes.
                    get_pawn_attacks(f, !self.us)
                        | (Rank::Eighth.relative_to(self.us).bitboard()
                            & (get_knight_moves(f) | diagonal() | orthogonal()))
                }
                Piece::Knight => get_knight_moves(f),
                Piece::Bishop => diagonal(),
                Piece::Rook => orthogonal(),
                Piece::Queen => diagonal() | orthogonal(),
                Piece::King => get_king_moves(f),
            };
            if allowed.is_empty() {
                break;
            }
        }
        allowed | special
    }
}

/// How many quiet replies `quiet_reply_spoilers` collects.
const SPOILERS: usize = 6;

/// The squares of the line from `a` through `s` beyond `s` (`a` and `s` on a line): a
/// slider's moves from `s` stopped by `a`, on that line, less those up to `a`. (One lookup;
/// walking the line square by square showed in the profile of the bench's h=3s.)
fn beyond(a: cozy_chess::Square, s: cozy_chess::Square) -> cozy_chess::BitBoard {
    use cozy_chess::{
        get_between_rays, get_bishop_moves, get_bishop_rays, get_line_rays, get_rook_moves,
    };
    let from_s = if get_bishop_rays(a).has(s) {
        get_bishop_moves(s, a.bitboard())
    } else {
        get_rook_moves(s, a.bitboard())
    };
    from_s & get_line_rays(a, s) & !get_between_rays(a, s) & !a.bitboard()
}

struct Spoilers {
    masks: [cozy_chess::BitBoard; SPOILERS],
    /// The quiet reply each mask protects (kept for the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    replies: [Option<cozy_chess::Move>; SPOILERS],
    len: usize,
}

impl Spoilers {
    /// No reply known.
    fn none() -> Spoilers {
        Spoilers {
            masks: [cozy_chess::BitBoard::EMPTY; SPOILERS],
            replies: [None; SPOILERS],
            len: 0,
        }
    }
}

/// Help stalemate in two plies (the side to be stalemated moves, then the other stalemates it):
/// which first moves surely leave no stalemate in one.
///
/// The proof: the replies of `any_successor_forcing_checks` (found with the stalemated side to
/// move), each with the squares a move must touch to spoil it. Its own move (not the king's)
/// spoils those whose squares it touches; the stalemating move then has to touch every one
/// left, and it touches two squares (from, to). It cannot when three of them have disjoint
/// squares, nor when two or more hold no man of his (so not his from-square) and no square in
/// common. Positions where e.p. or his castling (a third square) may come in are left alone,
/// and so are double steps (e.p. after them).
struct StalematePairs {
    masks: [cozy_chess::BitBoard; SPOILERS],
    len: usize,
    /// The stalemating side's men.
    theirs: cozy_chess::BitBoard,
    /// Where the stalemated side's pawns stand before a double step.
    double_step: cozy_chess::BitBoard,
}

/// The replies of the side to be stalemated after a move of his, as far as they were known
/// before it (see `Position::any_successor_stalemate_pair_candidate`).
pub struct Replies(Option<Spoilers>);

impl StalematePairs {
    /// The replies left after his move `raw` (of a man other than the king, no e.p.
    /// capture), when at least two are: those whose squares it does not touch. It changes
    /// the men of its two squares only, so each such reply stays legal, and with the same
    /// squares to spoil it.
    #[inline]
    fn left_by(&self, raw: cozy_chess::Move) -> Option<Spoilers> {
        let touched = raw.from.bitboard() | raw.to.bitboard();
        let mut left = Spoilers::none();
        for m in &self.masks[..self.len] {
            if (*m & touched).is_empty() {
                left.masks[left.len] = *m;
                left.len += 1;
            }
        }
        (left.len >= 2).then_some(left)
    }

    /// Whether moves of this man are judged at all.
    #[inline]
    fn filters(&self, piece: Piece, from: cozy_chess::Square) -> bool {
        self.len >= 2
            && piece != Piece::King
            && !(piece == Piece::Pawn && self.double_step.has(from))
    }

    /// Of the destinations `to` of the man on `from` (one `filters` judges), those whose move
    /// may leave a stalemate in one (`hopeless` move by move). A move leaves the replies whose
    /// squares it does not touch, and what it proves depends on those alone: the man's moves
    /// landing off every one of them leave the same and are judged at once.
    #[inline]
    fn may_leave_stalemate(
        &self,
        from: cozy_chess::Square,
        to: cozy_chess::BitBoard,
    ) -> cozy_chess::BitBoard {
        use cozy_chess::BitBoard;
        let mut left = 0u8;
        let mut squares = BitBoard::EMPTY;
        for (i, m) in self.masks[..self.len].iter().enumerate() {
            if !m.has(from) {
                left |= 1 << i;
                squares |= *m;
            }
        }
        let mut out = if self.hopeless_left(left) {
            BitBoard::EMPTY
        } else {
            to & !squares
        };
        for t in to & squares {
            let mut kept = left;
            for (i, m) in self.masks[..self.len].iter().enumerate() {
                if m.has(t) {
                    kept &= !(1 << i);
                }
            }
            if !self.hopeless_left(kept) {
                out |= t.bitboard();
            }
        }
        out
    }

    /// Whether a move that touches none of the replies of `left` (a bit per mask) but all the
    /// others surely leaves no stalemate in one: the stalemating move touches two squares, and
    /// a reply holding none of his men cannot be touched by his from-square.
    fn hopeless_left(&self, left: u8) -> bool {
        use cozy_chess::BitBoard;
        let mut kept = [BitBoard::EMPTY; SPOILERS];
        let mut n = 0;
        let mut hard = 0;
        let mut common = !BitBoard::EMPTY;
        for (i, &m) in self.masks[..self.len].iter().enumerate() {
            if left >> i & 1 == 1 {
                kept[n] = m;
                n += 1;
                if (m & self.theirs).is_empty() {
                    hard += 1;
                    common &= m;
                }
            }
        }
        (hard >= 2 && common.is_empty()) || three_apart(&kept[..n])
    }

    /// Whether the move (of a man `filters` judges) surely leaves no stalemate in one, judged
    /// alone (the tests compare `may_leave_stalemate` with it).
    #[cfg(test)]
    fn hopeless(&self, raw: cozy_chess::Move) -> bool {
        use cozy_chess::BitBoard;
        let touched = raw.from.bitboard() | raw.to.bitboard();
        let mut left = [BitBoard::EMPTY; SPOILERS];
        let mut n = 0;
        let mut hard = 0;
        let mut common = !BitBoard::EMPTY;
        for &m in &self.masks[..self.len] {
            if (m & touched).is_empty() {
                left[n] = m;
                n += 1;
                if (m & self.theirs & !touched).is_empty() {
                    hard += 1;
                    common &= m;
                }
            }
        }
        (hard >= 2 && common.is_empty()) || three_apart(&left[..n])
    }
}

/// Whether three of `masks` have no square in common, two by two: a move touches two squares,
/// so it cannot touch all three.
fn three_apart(masks: &[cozy_chess::BitBoard]) -> bool {
    let n = masks.len();
    (0..n).any(|i| {
        (i + 1..n).any(|j| {
            (masks[i] & masks[j]).is_empty()
                && (j + 1..n)
                    .any(|k| (masks[i] & masks[k]).is_empty() && (masks[j] & masks[k]).is_empty())
        })
    })
}

/// Tells which moves of one position may give check (a superset of the checking moves).
#[derive(Clone, Copy)]
pub struct CheckHint(CheckSquares);

impl CheckHint {
    #[inline]
    pub fn may_check(&self, m: &Move) -> bool {
        let piece = m.role().to_cozy();
        let pm = cozy_chess::PieceMoves {
            piece,
            from: m.raw.from,
            to: m.raw.to.bitboard(),
        };
        !self.0.candidates(&pm).is_empty()
    }
}

/// The destination of the side to move's e.p. capture, if it has one (a move that removes a
/// man from a square it does not land on).
#[inline]
fn passant(b: &Board) -> cozy_chess::BitBoard {
    b.en_passant().map_or(cozy_chess::BitBoard::EMPTY, |file| {
        cozy_chess::Square::new(file, cozy_chess::Rank::Sixth.relative_to(b.side_to_move()))
            .bitboard()
    })
}

/// Every square the men of `side` attack over `occupied`: one lookup per man (the flight
/// tests ask it of every square next to a king).
fn attacked_by(
    b: &Board,
    side: cozy_chess::Color,
    occupied: cozy_chess::BitBoard,
) -> cozy_chess::BitBoard {
    use cozy_chess::{
        get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves,
    };
    let ours = b.colors(side);
    let mut attacked = get_king_moves(b.king(side));
    for s in ours & b.pieces(Piece::Pawn) {
        attacked |= get_pawn_attacks(s, side);
    }
    for s in ours & b.pieces(Piece::Knight) {
        attacked |= get_knight_moves(s);
    }
    for s in ours & (b.pieces(Piece::Bishop) | b.pieces(Piece::Queen)) {
        attacked |= get_bishop_moves(s, occupied);
    }
    for s in ours & (b.pieces(Piece::Rook) | b.pieces(Piece::Queen)) {
        attacked |= get_rook_moves(s, occupied);
    }
    attacked
}

/// A position that passed validation: exactly the men, rights and side to move of a legal
/// problem position. Cheap to copy; moves are made by copy (`play`).
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    board: Board,
}

/// Why a FEN cannot become a `Position`.
#[derive(Clone, Debug)]
pub enum PositionError {
    Fen(FenError),
    Illegal(ValidationReport),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Fen(e) => e.fmt(f),
            PositionError::Illegal(r) => {
                write!(f, "illegal position: ")?;
                let reasons: Vec<String> = r.problems.iter().map(|p| p.to_string()).collect();
                f.write_str(&reasons.join("; "))
            }
        }
    }
}

impl std::error::Error for PositionError {}

impl Position {
    /// Parses and validates a FEN.
    pub fn from_fen(fen: &str) -> Result<Position, PositionError> {
        let setup = Setup::from_fen(fen).map_err(PositionError::Fen)?;
        Position::from_setup(&setup).map_err(PositionError::Illegal)
    }

    /// Validates a setup; on success the position carries exactly the rights the report grants.
    pub fn from_setup(setup: &Setup) -> Result<Position, ValidationReport> {
        Position::validated(setup).map(|(position, _)| position)
    }

    /// As `from_setup`, also returning the legality report (its assumptions) of a legal setup.
    pub fn validated(setup: &Setup) -> Result<(Position, ValidationReport), ValidationReport> {
        let report = validate(setup);
        if !report.is_legal() {
            return Err(report);
        }
        let mut b = BoardBuilder::empty();
        for sq in Square::all() {
            if let Some((color, role)) = setup.piece_at(sq) {
                *b.square_mut(sq.to_cozy()) = Some((role.to_cozy(), color.to_cozy()));
            }
        }
        b.side_to_move = setup.side_to_move.to_cozy();
        for color in Color::ALL {
            let rights: &mut CastleRights = b.castle_rights_mut(color.to_cozy());
            rights.short = report.castling.get(color, false).then_some(File::H);
            rights.long = report.castling.get(color, true).then_some(File::A);
        }
        b.en_passant = report.en_passant.map(|sq| sq.to_cozy());
        match b.build() {
            Ok(board) => Ok((Position { board }, report)),
            Err(e) => {
                // Validation should have caught everything the board builder rejects.
                let mut report = report;
                report
                    .problems
                    .push(super::validate::Illegality::Inconsistent(format!("{e:?}")));
                Err(report)
            }
        }
    }

    pub fn side_to_move(&self) -> Color {
        Color::from_cozy(self.board.side_to_move())
    }

    pub fn piece_at(&self, sq: Square) -> Option<(Color, Role)> {
        let c = sq.to_cozy();
        let role = self.board.piece_on(c)?;
        let color = self.board.color_on(c)?;
        Some((Color::from_cozy(color), Role::from_cozy(role)))
    }

    pub fn king(&self, color: Color) -> Square {
        Square::from_cozy(self.board.king(color.to_cozy()))
    }

    pub fn occupied(&self) -> Bitboard {
        Bitboard::from_cozy(self.board.occupied())
    }

    pub fn pieces(&self, color: Color) -> Bitboard {
        Bitboard::from_cozy(self.board.colors(color.to_cozy()))
    }

    pub fn pieces_of(&self, color: Color, role: Role) -> Bitboard {
        Bitboard::from_cozy(self.board.colored_pieces(color.to_cozy(), role.to_cozy()))
    }

    /// Men giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        Bitboard::from_cozy(self.board.checkers())
    }

    pub fn is_check(&self) -> bool {
        !self.board.checkers().is_empty()
    }

    /// True when the side to move has at least one legal move (stops at the first).
    pub fn has_legal_move(&self) -> bool {
        self.board.generate_moves(|_| true)
    }

    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_move()
    }

    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_move()
    }

    /// Castling rights still held: `(color, long)`.
    pub fn can_castle(&self, color: Color, long: bool) -> bool {
        let r = self.board.castle_rights(color.to_cozy());
        if long {
            r.long.is_some()
        } else {
            r.short.is_some()
        }
    }

    /// The square an e.p. capture would land on, when such a capture is legal now.
    pub fn ep_target(&self) -> Option<Square> {
        let file = self.board.en_passant()?;
        let stm = self.board.side_to_move();
        let target = cozy_chess::Square::new(file, cozy_chess::Rank::Sixth.relative_to(stm));
        let pawns = self.board.colored_pieces(stm, Piece::Pawn);
        let mut found = false;
        self.board.generate_moves_for(pawns, |pm| {
            found = pm.to.has(target);
            found
        });
        found.then(|| Square::from_cozy(target))
    }

    /// Position key: pieces, side to move, castling rights, and the e.p. file only when an e.p.
    /// capture is actually possible.
    pub fn key(&self) -> u64 {
        let h = self.board.hash_without_ep();
        match self.board.en_passant() {
            Some(f) if self.ep_target().is_some() => h ^ EP_KEYS[f as usize],
            _ => h,
        }
    }

    /// `ours`: the side to move's men (asked once per move list, not per move).
    #[inline]
    fn classify(&self, raw: cozy_chess::Move, piece: Piece, ours: cozy_chess::BitBoard) -> Move {
        let role = Role::from_cozy(piece);
        if piece == Piece::King && ours.has(raw.to) {
            let kind = if raw.to.file() > raw.from.file() {
                MoveKind::CastleShort
            } else {
                MoveKind::CastleLong
            };
            return Move::new(raw, role, None, kind);
        }
        // Only a capture's destination is occupied: the piece is looked up only then.
        let capture = if self.board.occupied().has(raw.to) {
            self.board.piece_on(raw.to).map(Role::from_cozy)
        } else {
            None
        };
        if piece == Piece::Pawn {
            let df = raw.from.file() as i8 - raw.to.file() as i8;
            let dr = (raw.from.rank() as i8 - raw.to.rank() as i8).abs();
            if df != 0 && capture.is_none() {
                return Move::new(raw, role, Some(Role::Pawn), MoveKind::EnPassant);
            }
            if dr == 2 {
                return Move::new(raw, role, None, MoveKind::DoubleStep);
            }
        }
        Move::new(raw, role, capture, MoveKind::Normal)
    }

    /// All legal moves, appended to `out` (cleared first).
    pub fn legal_moves(&self, out: &mut MoveList) {
        out.clear();
        let ours = self.board.colors(self.board.side_to_move());
        self.board.generate_moves(|pm| {
            for raw in pm {
                out.push(self.classify(raw, pm.piece, ours));
            }
            false
        });
    }

    /// The legal moves of the men on the squares `men`, and when `captures` the captures of
    /// the others (e.p. included), appended to `out` (cleared first) in `legal_moves`' order:
    /// when the search knows the other moves are of no use, they are not even generated.
    pub fn legal_moves_of(&self, men: u64, captures: bool, out: &mut MoveList) {
        out.clear();
        let ours = self.board.colors(self.board.side_to_move());
        let mask = if captures {
            ours
        } else {
            ours & cozy_chess::BitBoard(men)
        };
        self.board.generate_moves_for(mask, |mut pm| {
            if men >> pm.from as usize & 1 == 0 {
                pm.to &= self.takes(&pm);
            }
            for raw in pm {
                out.push(self.classify(raw, pm.piece, ours));
            }
            false
        });
    }

    /// The squares a man of the side to move (`pm`'s) captures on: the other side's men, and
    /// for a pawn the e.p. square.
    fn takes(&self, pm: &cozy_chess::PieceMoves) -> cozy_chess::BitBoard {
        let us = self.board.side_to_move();
        let theirs = self.board.colors(!us);
        match self.board.en_passant() {
            Some(f) if pm.piece == Piece::Pawn => {
                let rank = cozy_chess::Rank::Sixth.relative_to(us);
                theirs | cozy_chess::Square::new(f, rank).bitboard()
            }
            _ => theirs,
        }
    }

    /// Number of legal moves, without building them.
    pub fn count_legal_moves(&self) -> usize {
        let mut n = 0;
        self.board.generate_moves(|pm| {
            n += pm.len();
            false
        });
        n
    }

    /// Calls `f` with each legal move (as a key) and the position after it, until `f` returns
    /// true; returns whether it did. The search's hot path: no classification, no list.
    #[inline]
    pub fn any_successor(&self, mut f: impl FnMut(MoveKey, &Position) -> bool) -> bool {
        self.board.generate_moves(|pm| {
            for raw in pm {
                if f(MoveKey::from_raw(raw), &self.after_raw(raw)) {
                    return true;
                }
            }
            false
        })
    }

    /// Squares on which each kind of man of the side to move would give check, and the men whose
    /// departure may uncover one: a cheap superset test for "this move checks".
    fn check_squares(&self) -> CheckSquares {
        use cozy_chess::{
            get_between_rays, get_bishop_moves, get_bishop_rays, get_knight_moves,
            get_pawn_attacks, get_rook_moves, get_rook_rays, BitBoard, Rank,
        };
        let b = &self.board;
        let us = b.side_to_move();
        let their_king = b.king(!us);
        let occupied = b.occupied();
        let ours = b.colors(us);
        let diagonal = get_bishop_moves(their_king, occupied);
        let orthogonal = get_rook_moves(their_king, occupied);
        let sliders = ours
            & ((get_bishop_rays(their_king) & (b.pieces(Piece::Bishop) | b.pieces(Piece::Queen)))
                | (get_rook_rays(their_king) & (b.pieces(Piece::Rook) | b.pieces(Piece::Queen))));
        let mut discoverers = BitBoard::EMPTY;
        for s in sliders {
            let between = get_between_rays(s, their_king) & occupied;
            if between.len() == 1 && !(between & ours).is_empty() {
                discoverers |= between;
            }
        }
        // Any promotion may check, and an e.p. capture may open a line through the captured pawn.
        let special = Rank::Eighth.relative_to(us).bitboard() | passant(b);
        CheckSquares {
            by_piece: [
                get_pawn_attacks(their_king, !us) | special,
                get_knight_moves(their_king),
                diagonal,
                orthogonal,
                diagonal | orthogonal,
                // The king checks only by uncovering, or by castling (encoded as taking his rook).
                ours,
            ],
            discoverers,
        }
    }

    /// Calls `f` with each legal move that gives check and the position after it, until `f`
    /// returns true; returns whether it did. Moves that cannot check are not even played.
    #[inline]
    pub fn any_checking_successor(&self, f: impl FnMut(MoveKey, &Position) -> bool) -> bool {
        let cs = self.check_squares();
        self.any_checking_successor_to(cozy_chess::BitBoard::FULL, |pm| cs.candidates(pm), f)
    }

    /// Calls `f` with each legal move that may mate and the position after it, until `f`
    /// returns true; returns whether it did. Moves that give no check, and moves that leave
    /// their king a flight it has now (`FlightSquares`), are not even played.
    #[inline]
    pub fn any_mating_candidate(&self, f: impl FnMut(MoveKey, &Position) -> bool) -> bool {
        let cs = self.check_squares();
        // Set up at the first man with a checking move: often none has.
        let flights = std::cell::OnceCell::new();
        self.any_checking_successor_to(
            self.may_check(&cs),
            |pm| {
                let to = cs.candidates(pm);
                if to.is_empty() {
                    return to;
                }
                flights
                    .get_or_init(|| self.flight_squares())
                    .taking_flights(pm, to)
            },
            f,
        )
    }

    /// The men of the side to move that may give check (`cs`): those with a line to uncover,
    /// pawns (promotions, e.p.), the king if it may castle, and the officers that reach a
    /// checking square, found before the move generator works out their legal moves.
    fn may_check(&self, cs: &CheckSquares) -> cozy_chess::BitBoard {
        use cozy_chess::{get_bishop_moves, get_knight_moves, get_rook_moves, BitBoard};
        let b = &self.board;
        let us = b.side_to_move();
        let ours = b.colors(us);
        let occupied = b.occupied();
        let castles = b.castle_rights(us);
        let mut men = cs.discoverers | (ours & b.pieces(Piece::Pawn));
        if castles.short.is_some() || castles.long.is_some() {
            men |= ours & b.pieces(Piece::King);
        }
        let reach = |piece: Piece, moves: &dyn Fn(cozy_chess::Square) -> BitBoard| {
            let target = cs.by_piece[piece as usize];
            (ours & b.pieces(piece))
                .into_iter()
                .filter(|&s| !(moves(s) & target).is_empty())
                .fold(BitBoard::EMPTY, |m, s| m | s.bitboard())
        };
        men | reach(Piece::Knight, &get_knight_moves)
            | reach(Piece::Bishop, &|s| get_bishop_moves(s, occupied))
            | reach(Piece::Rook, &|s| get_rook_moves(s, occupied))
            | reach(Piece::Queen, &|s| {
                get_bishop_moves(s, occupied) | get_rook_moves(s, occupied)
            })
    }

    /// `any_checking_successor` over the destinations `to` keeps of each man's moves.
    #[inline(always)]
    fn any_checking_successor_to(
        &self,
        men: cozy_chess::BitBoard,
        to: impl Fn(&cozy_chess::PieceMoves) -> cozy_chess::BitBoard,
        mut f: impl FnMut(MoveKey, &Position) -> bool,
    ) -> bool {
        self.board.generate_moves_for(men, |pm| {
            let to = to(&pm);
            if to.is_empty() {
                return false;
            }
            for raw in (cozy_chess::PieceMoves { to, ..pm }) {
                let mut board = self.board.clone();
                board.play_unchecked(raw);
                if !board.checkers().is_empty() && f(MoveKey::from_raw(raw), &Position { board }) {
                    return true;
                }
            }
            false
        })
    }

    /// Can the side to move mate at once? Only the moves that may mate are tried
    /// (`any_mating_candidate`).
    #[inline]
    pub fn has_mate_in_one(&self) -> bool {
        self.any_mating_candidate(|_, after| !after.has_legal_move())
    }

    /// Help mate in two plies, the side to be mated to move: calls `f` with each legal move
    /// and the position after it, until `f` returns true; returns whether it did. The moves
    /// `MatingNet` proves to leave no mate in one are skipped without being played.
    pub fn any_successor_allowing_mate(
        &self,
        mut f: impl FnMut(MoveKey, &Position) -> bool,
    ) -> bool {
        let mut net = self.mating_net();
        self.generate_moves_past(&mut net, |net, mut pm| {
            pm.to = net.may_allow_mate_to(pm.piece, pm.from, pm.to);
            for raw in pm {
                if f(MoveKey::from_raw(raw), &self.after_raw(raw)) {
                    return true;
                }
            }
            false
        })
    }

    /// The move generator's listing of the side to move's legal moves, in its order, the
    /// king's steps found from `net`'s squares attacked with him off the board (which it
    /// works out anyway) rather than by a test of safety for each: they are the squares next
    /// to him neither his own man holds nor the other side attacks. When he may castle, the
    /// move generator lists his moves.
    #[inline]
    fn generate_moves_past(
        &self,
        net: &mut MatingNet<'_>,
        mut listener: impl FnMut(&mut MatingNet<'_>, cozy_chess::PieceMoves) -> bool,
    ) -> bool {
        let b = &self.board;
        let us = b.side_to_move();
        let castles = b.castle_rights(us);
        if castles.short.is_some() || castles.long.is_some() {
            return b.generate_moves(|pm| listener(net, pm));
        }
        let king = b.king(us);
        if b.generate_moves_for(!king.bitboard(), |pm| listener(net, pm)) {
            return true;
        }
        let to = net.king_steps();
        !to.is_empty()
            && listener(
                net,
                cozy_chess::PieceMoves {
                    piece: Piece::King,
                    from: king,
                    to,
                },
            )
    }

    /// The net around the side to move's king, to tell which of his moves may leave the
    /// other side a mate in one (see `MatingNet`).
    pub fn mating_net(&self) -> MatingNet<'_> {
        MatingNet::new(&self.board, true)
    }

    /// `mating_net` before a stalemate: whether the side to move's moves may leave his king's
    /// flights all taken by one move of the other side.
    pub fn stalemating_net(&self) -> MatingNet<'_> {
        MatingNet::new(&self.board, false)
    }

    /// `has_mate_in_one` by the men on the squares `men`, and when `captures` by the others'
    /// captures (as `legal_moves_of`): when the search knows no other move can mate.
    #[inline]
    pub fn has_mate_in_one_of(&self, men: u64, captures: bool) -> bool {
        let ours = self.board.colors(self.board.side_to_move());
        let mask = if captures {
            ours
        } else {
            ours & cozy_chess::BitBoard(men)
        };
        // Both set up at the first man with a move that may mate: often none has.
        let cs = std::cell::OnceCell::new();
        let flights = std::cell::OnceCell::new();
        self.any_checking_successor_to(
            mask,
            |pm| {
                let to = if men >> pm.from as usize & 1 == 0 {
                    pm.to & self.takes(pm)
                } else {
                    pm.to
                };
                if to.is_empty() {
                    return to;
                }
                let to = to & cs.get_or_init(|| self.check_squares()).candidates(pm);
                if to.is_empty() {
                    return to;
                }
                flights
                    .get_or_init(|| self.flight_squares())
                    .taking_flights(pm, to)
            },
            |_, after| !after.has_legal_move(),
        )
    }

    /// The flights their king has now, each with what a move of ours must do to take it away
    /// (see `FlightSquares::taking_flights`).
    fn flight_squares(&self) -> FlightSquares {
        use cozy_chess::{
            get_between_rays, get_bishop_rays, get_king_moves, get_rook_rays, BitBoard,
        };
        let b = &self.board;
        let us = b.side_to_move();
        let their_king = b.king(!us);
        let occupied = b.occupied() & !their_king.bitboard();
        let ours = b.colors(us);
        let diagonal = ours & (b.pieces(Piece::Bishop) | b.pieces(Piece::Queen));
        let orthogonal = ours & (b.pieces(Piece::Rook) | b.pieces(Piece::Queen));
        let castle = b.castle_rights(us);
        let mut flights = FlightSquares {
            n: 0,
            flights: [their_king; MATE_FLIGHTS],
            uncover: [BitBoard::EMPTY; MATE_FLIGHTS],
            occupied,
            castling: castle.short.is_some() || castle.long.is_some(),
            passant: passant(b),
            us,
        };
        // Their king left off the board: a king fleeing along a line stays on it.
        let attacked = attacked_by(b, us, occupied);
        for f in get_king_moves(their_king) & !b.colors(!us) & !attacked {
            let mut uncover = BitBoard::EMPTY;
            for s in (get_bishop_rays(f) & diagonal) | (get_rook_rays(f) & orthogonal) {
                uncover |= get_between_rays(f, s);
            }
            flights.flights[flights.n] = f;
            flights.uncover[flights.n] = uncover;
            flights.n += 1;
        }
        flights
    }

    /// True when the side to move has a legal move that surely gives no check (found without
    /// playing anything). False may still mean such a move exists (discoveries are guessed
    /// generously).
    pub fn has_quiet_move(&self) -> bool {
        let cs = self.check_squares();
        self.board.generate_moves(|pm| pm.to != cs.candidates(&pm))
    }

    /// Self-mate in one: calls `f` with each legal move and the position after it, until `f`
    /// returns true; returns whether it did. Moves after which the opponent surely keeps a legal
    /// move that gives no check (so cannot be forced to mate) are skipped without being played.
    ///
    /// The proof: a few quiet replies are found in the passed position, each with the squares a
    /// move of ours must touch to spoil it (capture or pin its man, block its way, open a line to
    /// our king). A move that gives no check, moves no king and touches none of one reply's
    /// squares leaves that reply legal and quiet.
    pub fn any_successor_forcing_checks(&self, f: impl FnMut(MoveKey, &Position) -> bool) -> bool {
        let spoilers = self.reply_spoilers(true);
        self.any_successor_spoiling(&spoilers, false, None, f)
    }

    /// Stalemate in one: calls `f` with each legal move and the position after it, until `f`
    /// returns true; returns whether it did. Moves after which the opponent surely keeps a legal
    /// move (so is not stalemated) are skipped without being played: the proof of
    /// `any_successor_forcing_checks`, for any reply of a man other than the king, checking or
    /// not. Our king's moves are skipped too: they cannot make such a reply illegal. So are
    /// the moves that leave their king a flight it has now (`FlightSquares`), and the moves
    /// that may check but spoil no reply: a check is no stalemate.
    pub fn any_successor_stalemate_candidate(
        &self,
        f: impl FnMut(MoveKey, &Position) -> bool,
    ) -> bool {
        self.any_successor_stalemate_candidate_after(&Replies(None), f)
    }

    /// `any_successor_stalemate_candidate` in a position after the stalemated side's move
    /// with its `Replies` (from `any_successor_stalemate_pair_candidate`): those known before
    /// that move and left intact by it are not looked for again.
    pub fn any_successor_stalemate_candidate_after(
        &self,
        replies: &Replies,
        f: impl FnMut(MoveKey, &Position) -> bool,
    ) -> bool {
        let fresh;
        let spoilers = match &replies.0 {
            Some(known) => known,
            None => {
                fresh = self.reply_spoilers(false);
                &fresh
            }
        };
        self.any_successor_spoiling(spoilers, true, Some(&self.flight_squares()), f)
    }

    /// Help stalemate in two plies, the side to be stalemated to move: calls `f` with each legal
    /// move and the position after it, until `f` returns true; returns whether it did. The
    /// moves `StalematePairs` proves hopeless are skipped without being played, and so are
    /// those after which his king keeps a flight no move can take (`MatingNet`, no check
    /// asked).
    pub fn any_successor_stalemate_pair_candidate(
        &self,
        mut f: impl FnMut(MoveKey, &Position, &Replies) -> bool,
    ) -> bool {
        let pairs = self.stalemate_pairs();
        let mut net = self.stalemating_net();
        let passant = passant(&self.board);
        self.generate_moves_past(&mut net, |net, mut pm| {
            if pairs.filters(pm.piece, pm.from) {
                pm.to = pairs.may_leave_stalemate(pm.from, pm.to);
            }
            pm.to = net.may_allow_mate_to(pm.piece, pm.from, pm.to);
            // His king's moves and e.p. captures change more than two squares' men.
            let known = pm.piece != Piece::King;
            for raw in pm {
                let replies = Replies(
                    (known && !(pm.piece == Piece::Pawn && passant.has(raw.to)))
                        .then(|| pairs.left_by(raw))
                        .flatten(),
                );
                if f(MoveKey::from_raw(raw), &self.after_raw(raw), &replies) {
                    return true;
                }
            }
            false
        })
    }

    /// The proof of `StalematePairs` for this position (the side to be stalemated to move).
    fn stalemate_pairs(&self) -> StalematePairs {
        let b = &self.board;
        let them = !b.side_to_move();
        let spoilers = match self.pass() {
            Some(passed)
                if b.en_passant().is_none()
                    && b.castle_rights(them).short.is_none()
                    && b.castle_rights(them).long.is_none() =>
            {
                passed.reply_spoilers(false)
            }
            _ => Spoilers::none(),
        };
        StalematePairs {
            masks: spoilers.masks,
            len: spoilers.len,
            theirs: b.colors(them),
            double_step: cozy_chess::Rank::Second
                .relative_to(b.side_to_move())
                .bitboard(),
        }
    }

    /// Calls `f` for the moves not proved to leave one of the `spoilers`' replies intact (moves
    /// that may give check are always played). `stalemate`: the aim is stalemate, so our king's
    /// moves may be skipped too, and a move that checks need not be played (it stalemates
    /// nobody): only those that move or remove a second man, or promote, are played anyway.
    /// `flights`: when given, the moves that leave their king a flight are skipped too.
    #[inline]
    fn any_successor_spoiling(
        &self,
        spoilers: &Spoilers,
        stalemate: bool,
        flights: Option<&FlightSquares>,
        mut f: impl FnMut(MoveKey, &Position) -> bool,
    ) -> bool {
        let cs = (!stalemate).then(|| self.check_squares());
        let b = &self.board;
        let us = b.side_to_move();
        // Castling (the king taking his own rook), e.p. and promotions.
        let ours = b.colors(us);
        let pawn_special = cozy_chess::Rank::Eighth.relative_to(us).bitboard() | passant(b);
        let always = |pm: &cozy_chess::PieceMoves| match &cs {
            Some(cs) => cs.candidates(pm),
            None => match pm.piece {
                Piece::King => pm.to & ours,
                Piece::Pawn => pm.to & pawn_special,
                _ => cozy_chess::BitBoard::EMPTY,
            },
        };
        // Our king is left out of the generation when none of its steps may spoil every reply
        // (most often): its legal steps are costly to find, one test of safety each.
        let mut men = cozy_chess::BitBoard::FULL;
        let castles = b.castle_rights(us);
        if stalemate && castles.short.is_none() && castles.long.is_none() {
            let king = b.king(us);
            let spoiling = spoilers.masks[..spoilers.len]
                .iter()
                .filter(|m| !m.has(king))
                .fold(cozy_chess::BitBoard::FULL, |all, m| all & *m);
            if (cozy_chess::get_king_moves(king) & spoiling & !ours).is_empty() {
                men ^= king.bitboard();
            }
        }
        self.board.generate_moves_for(men, |pm| {
            let keep = flights.map_or(pm.to, |fl| fl.taking_flights(&pm, pm.to));
            if keep.is_empty() {
                return false;
            }
            let from = pm.from.bitboard();
            // Its moves that spoil every reply its departure leaves intact: those landing on
            // a square of each (or giving check).
            let mut spoiling = cozy_chess::BitBoard::FULL;
            if stalemate || pm.piece != Piece::King {
                for m in &spoilers.masks[..spoilers.len] {
                    if (*m & from).is_empty() {
                        spoiling &= *m;
                    }
                }
            }
            let keep = keep & (spoiling | always(&pm));
            for raw in (cozy_chess::PieceMoves { to: keep, ..pm }) {
                if f(MoveKey::from_raw(raw), &self.after_raw(raw)) {
                    return true;
                }
            }
            false
        })
    }

    /// Replies of the opponent in the passed position (see `any_successor_forcing_checks`): for
    /// each, the squares whose change may spoil it. `quiet`: only replies that give no check
    /// (and stay so); else any reply of a man other than the king.
    fn reply_spoilers(&self, quiet: bool) -> Spoilers {
        use cozy_chess::{
            get_between_rays, get_bishop_rays, get_king_moves, get_line_rays, BitBoard, Rank,
            Square,
        };
        let mut out = Spoilers::none();
        let Some(passed) = self.board.null_move() else {
            return out;
        };
        let them = passed.side_to_move();
        let their_king = passed.king(them);
        let our_king = passed.king(!them);
        let pinned = passed.pinned();
        let promotion = Rank::Eighth.relative_to(them).bitboard();
        // Only quiet replies are judged by whether they check (stalemates take any).
        let cs = quiet.then(|| {
            Position {
                board: passed.clone(),
            }
            .check_squares()
        });
        let diagonal = passed.pieces(Piece::Bishop) | passed.pieces(Piece::Queen);
        let orthogonal = passed.pieces(Piece::Rook) | passed.pieces(Piece::Queen);
        // Sliders of `color` that move along the line from `a` through `b`.
        let sliders_along = |a: Square, b: Square, color| {
            let kind = if get_bishop_rays(a).has(b) {
                diagonal
            } else {
                orthogonal
            };
            kind & passed.colors(color)
        };
        // Kings (castling too) and pinned men are left out: their moves are harder to judge.
        // Left out of the generation, the king's flights are not even tested.
        let judged = passed.colors(them) & !their_king.bitboard() & !pinned;
        passed.generate_moves_for(judged, |pm| {
            let replies = match &cs {
                Some(cs) => pm.to & !cs.candidates(&pm) & !promotion,
                None => pm.to,
            };
            if replies.is_empty() {
                return false;
            }
            let s = pm.from;
            let mut base = s.bitboard();
            // A pin: one of our sliders arriving beyond s, or, when one is on the line already,
            // any change on it.
            let pin_line = get_line_rays(their_king, s);
            if !pin_line.is_empty() {
                let far = beyond(their_king, s);
                base |= if (far & sliders_along(their_king, s, !them)).is_empty() {
                    far
                } else {
                    pin_line
                };
            }
            // A discovered check: only where one of his sliders stands beyond s from our king.
            let check_line = get_line_rays(our_king, s);
            if quiet
                && !check_line.is_empty()
                && !(beyond(our_king, s) & sliders_along(our_king, s, them)).is_empty()
            {
                base |= check_line;
            }
            // Any reply's mask holds its way: without the line to our king (not quiet), a step
            // to a neighbouring square has none, so only those need be weighed when there is one.
            let near = replies & get_king_moves(s);
            let weighed = if quiet || near.is_empty() {
                replies
            } else {
                near
            };
            let mut best: Option<(BitBoard, Square)> = None;
            for t in weighed {
                // Its way and its square; for a slider the line from there to our king, which
                // a move of ours could open.
                let mut m = base | t.bitboard() | get_between_rays(s, t);
                let line = get_line_rays(t, our_king);
                let along = quiet
                    && !line.is_empty()
                    && match pm.piece {
                        Piece::Bishop => get_bishop_rays(t).has(our_king),
                        Piece::Rook => !get_bishop_rays(t).has(our_king),
                        Piece::Queen => true,
                        _ => false,
                    };
                if along {
                    m |= get_between_rays(t, our_king);
                }
                if best.is_none_or(|(b, _)| m.len() < b.len()) {
                    best = Some((m, t));
                }
            }
            if let Some((m, t)) = best {
                out.masks[out.len] = m;
                out.replies[out.len] = Some(cozy_chess::Move {
                    from: s,
                    to: t,
                    promotion: (pm.piece == Piece::Pawn && promotion.has(t))
                        .then_some(Piece::Queen),
                });
                out.len += 1;
            }
            out.len == SPOILERS
        });
        out
    }

    /// A cheap "may give check" test for the moves of this position, for move ordering.
    pub fn check_hint(&self) -> CheckHint {
        CheckHint(self.check_squares())
    }

    /// The position after the move `key`, if it is legal here.
    #[inline]
    pub fn play_key(&self, key: MoveKey) -> Option<Position> {
        if key == MoveKey::NONE {
            return None;
        }
        let raw = key.to_raw();
        if !self.board.is_legal(raw) {
            return None;
        }
        let mut board = self.board.clone();
        board.play_unchecked(raw);
        Some(Position { board })
    }

    /// The position after a legal move of this position.
    pub fn play(&self, mv: &Move) -> Position {
        self.after_raw(mv.raw)
    }

    /// Plays the legal move `mv` on this position. Where the position after a move is kept,
    /// making it in place spares copying it once more (a move's position is copied out of a
    /// board the move has just written piecemeal: a stall on every child of a search).
    #[inline]
    pub fn make(&mut self, mv: &Move) {
        self.board.play_unchecked(mv.raw);
    }

    /// The position after a legal move, as the generator gives it.
    #[inline(always)]
    fn after_raw(&self, raw: cozy_chess::Move) -> Position {
        let mut board = self.board.clone();
        board.play_unchecked(raw);
        Position { board }
    }

    /// The same position with the other side to move (a "pass"), as used for threats, set play
    /// and series play. `None` when the side to move is in check (it may not pass then).
    pub fn pass(&self) -> Option<Position> {
        self.board.null_move().map(|board| Position { board })
    }

    /// `pass()`'s key, without making the position (`None` when the side to move is in check):
    /// a series search looks most of its positions up only to find them known.
    #[inline]
    pub fn passed_key(&self) -> Option<u64> {
        // Passing toggles the side to move and clears the e.p. file, which `key` leaves out
        // anyway once it is cleared: the key changes by the side-to-move key alone.
        let side = super::keys::HashParts::get().side_to_move;
        self.board
            .checkers()
            .is_empty()
            .then(|| self.board.hash_without_ep() ^ side)
    }

    /// `passed_key` of the position after `mv` (one of this position's moves that gives no
    /// check), worked out without making the move; `None` for the moves it leaves to `play`:
    /// castling, e.p., promotions, and any move while a castling right stands (it may end it).
    #[inline]
    pub fn passed_key_after(&self, mv: &Move) -> Option<u64> {
        let b = &self.board;
        let rights = |c| {
            let r = b.castle_rights(c);
            r.short.is_some() || r.long.is_some()
        };
        if mv.kind() != MoveKind::Normal && mv.kind() != MoveKind::DoubleStep
            || mv.promotion().is_some()
            || rights(cozy_chess::Color::White)
            || rights(cozy_chess::Color::Black)
        {
            return None;
        }
        let keys = super::keys::HashParts::get();
        let us = b.side_to_move();
        let piece = mv.role().to_cozy();
        let (from, to) = (mv.raw.from, mv.raw.to);
        // Moving and passing hand the move back: the side to move's key cancels, and the
        // pass clears any e.p. right the move made.
        let mut key = b.hash_without_ep() ^ keys.man(us, piece, from) ^ keys.man(us, piece, to);
        if let Some(taken) = mv.capture() {
            key ^= keys.man(!us, taken.to_cozy(), to);
        }
        Some(key)
    }

    /// Finds the legal move with this UCI text (castling as `e1g1`).
    pub fn find_uci(&self, uci: &str) -> Option<Move> {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.iter().copied().find(|m| m.uci() == uci)
    }

    /// The setup (FEN contents) of this position.
    pub fn to_setup(&self) -> Setup {
        let mut board = [None; 64];
        for sq in Square::all() {
            board[sq.index()] = self.piece_at(sq);
        }
        let mut castling = super::fen::CastlingFlags::default();
        for color in Color::ALL {
            for long in [false, true] {
                castling.set(color, long, self.can_castle(color, long));
            }
        }
        Setup {
            board,
            side_to_move: self.side_to_move(),
            castling,
            en_passant: self.ep_target(),
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    pub fn to_fen(&self) -> String {
        self.to_setup().to_fen()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

/// Counts leaf nodes of the legal move tree (the move generator's correctness oracle).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal_moves() as u64;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|m| perft(&pos.play(m), depth - 1)).sum()
}

/// Random walks for tests: a pseudo-random legal successor (xorshift on `seed`), None when the
/// side to move has no move.
#[cfg(test)]
impl Position {
    pub(crate) fn random_successor(&self, seed: &mut u64) -> Option<Position> {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        if moves.is_empty() {
            return None;
        }
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        Some(self.play(&moves[(*seed % moves.len() as u64) as usize]))
    }
}

#[cfg(test)]
mod check_filter_tests {
    use super::*;

    /// `beyond` is the part of the line from `a` through `s` past `s`, for every pair of
    /// squares on a line.
    #[test]
    fn beyond_is_the_line_past_s() {
        use cozy_chess::{get_between_rays, get_line_rays, Square};
        let mut pairs = 0;
        for a in Square::ALL {
            for s in Square::ALL {
                let line = get_line_rays(a, s);
                if a == s || line.is_empty() {
                    continue;
                }
                let walked = line
                    .into_iter()
                    .filter(|&x| get_between_rays(a, x).has(s))
                    .fold(cozy_chess::BitBoard::EMPTY, |b, x| b | x.bitboard());
                assert_eq!(beyond(a, s), walked, "{a} {s}");
                pairs += 1;
            }
        }
        // A queen's moves from every square of the empty board.
        assert_eq!(pairs, 1456);
    }

    /// Every position within `depth` plies: the filtered checking moves are exactly the moves
    /// that check, and a "quiet" move really exists when claimed.
    fn walk(pos: &Position, depth: u32) {
        let mut brute = Vec::new();
        let mut any_quiet = false;
        pos.any_successor(|k, after| {
            if after.is_check() {
                brute.push(k);
            } else {
                any_quiet = true;
            }
            false
        });
        let mut filtered = Vec::new();
        pos.any_checking_successor(|k, _| {
            filtered.push(k);
            false
        });
        brute.sort_by_key(|k| k.raw());
        filtered.sort_by_key(|k| k.raw());
        assert_eq!(brute, filtered, "{pos:?}");
        if pos.has_quiet_move() {
            assert!(any_quiet, "{pos:?}");
        }
        let mut forced = Vec::new();
        pos.any_successor_forcing_checks(|k, _| {
            forced.push(k);
            false
        });
        pos.any_successor(|k, after| {
            if !forced.contains(&k) {
                // Skipped: the opponent must have a legal move that gives no check.
                assert!(after.any_successor(|_, a| !a.is_check()), "{pos:?} {k:?}");
            }
            false
        });
        let mut mates = Vec::new();
        pos.any_successor(|k, after| {
            if after.is_checkmate() {
                mates.push(k);
            }
            false
        });
        let mut candidates = Vec::new();
        pos.any_mating_candidate(|k, after| {
            if !after.has_legal_move() {
                candidates.push(k);
            }
            false
        });
        mates.sort_by_key(|k| k.raw());
        candidates.sort_by_key(|k| k.raw());
        assert_eq!(mates, candidates, "{pos:?}");
        assert_eq!(!mates.is_empty(), pos.has_mate_in_one(), "{pos:?}");
        let hint = pos.check_hint();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for m in list.iter() {
            if pos.play(m).is_check() {
                assert!(hint.may_check(m), "{pos:?} {}", m.uci());
            }
        }
        if depth > 0 {
            for m in list.iter() {
                walk(&pos.play(m), depth - 1);
            }
        }
    }

    /// The skipped moves of `any_successor_forcing_checks` really leave a quiet reply.
    fn forcing_checks_sound(pos: &Position) -> usize {
        let mut forced = Vec::new();
        pos.any_successor_forcing_checks(|k, _| {
            forced.push(k);
            false
        });
        let mut skipped = 0;
        pos.any_successor(|k, after| {
            if !forced.contains(&k) {
                skipped += 1;
                assert!(after.any_successor(|_, a| !a.is_check()), "{pos:?} {k:?}");
            }
            false
        });
        // Stalemate: a skipped move leaves a legal reply, or checks.
        let mut candidates = Vec::new();
        pos.any_successor_stalemate_candidate(|k, _| {
            candidates.push(k);
            false
        });
        pos.any_successor(|k, after| {
            if !candidates.contains(&k) {
                skipped += 1;
                assert!(!after.is_stalemate(), "{pos:?} {k:?} stalemates");
            }
            false
        });
        // Each reply (any, checking or not) stays legal after every move its mask lets through,
        // a king move too.
        let any = pos.reply_spoilers(false);
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for i in 0..any.len {
            let reply = any.replies[i].unwrap();
            for w in list.iter() {
                let touched = w.raw.from.bitboard() | w.raw.to.bitboard();
                if pos.check_hint().may_check(w) || !(any.masks[i] & touched).is_empty() {
                    continue;
                }
                assert!(
                    pos.play(w).board.is_legal(reply),
                    "{pos:?} {} spoils {reply}",
                    w.uci()
                );
            }
        }
        // Each reply on its own stays legal and quiet after every move its mask lets through.
        let sp = pos.reply_spoilers(true);
        let hint = pos.check_hint();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for i in 0..sp.len {
            let reply = sp.replies[i].unwrap();
            for w in list.iter() {
                let touched = w.raw.from.bitboard() | w.raw.to.bitboard();
                if w.role() == Role::King
                    || hint.may_check(w)
                    || !(sp.masks[i] & touched).is_empty()
                {
                    continue;
                }
                let after = pos.play(w);
                assert!(
                    after.board.is_legal(reply),
                    "{pos:?} {} spoils {reply}",
                    w.uci()
                );
                let mut b = after.board.clone();
                b.play_unchecked(reply);
                assert!(
                    b.checkers().is_empty(),
                    "{pos:?} {} makes {reply} a check",
                    w.uci()
                );
                skipped += 1;
            }
        }
        skipped
    }

    /// Plays `games` random games of at most `plies` plies from each of `fens`, calling
    /// `visit` with every position met (and the seed, for its own draws).
    fn random_games(
        fens: &[&str],
        (games, plies): (usize, usize),
        seed: &mut u64,
        mut visit: impl FnMut(&Position, &mut u64),
    ) {
        for fen in fens {
            for _ in 0..games {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ in 0..plies {
                    visit(&pos, seed);
                    match pos.random_successor(seed) {
                        Some(next) => pos = next,
                        None => break,
                    }
                }
            }
        }
    }

    #[test]
    fn random_walks_never_skip_a_forcing_move() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut skipped = 0;
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1",
            "8/4B3/3Rp2p/2Nbk1pP/1Qp2pKn/1N3P1P/3R4/8 w - - 0 1",
            "1RNk3n/6nK/pP5B/2Q5/8/N5p1/Rr6/b4B2 w - - 0 1",
            "q3k2r/8/8/3b4/8/2R5/1B6/4K2Q w k - 0 1",
            "8/8/6KP/8/8/8/1pp1Rppp/k7 w - - 0 1",
            "5Kb1/p6k/5p2/8/8/1p6/1Pp1P3/2B5 w - - 0 1",
        ];
        random_games(&fens, (60, 30), &mut seed, |pos, _| {
            skipped += forcing_checks_sound(pos);
        });
        assert!(skipped > 10_000, "only {skipped} moves skipped");
    }

    /// The mates of `pos` by brute force, and those `any_mating_candidate` finds (it must find
    /// them all), with how many checking moves it did not play.
    fn mates_both_ways(pos: &Position) -> (Vec<MoveKey>, Vec<MoveKey>, usize) {
        let (mut brute, mut checks) = (Vec::new(), 0);
        pos.any_successor(|k, after| {
            checks += after.is_check() as usize;
            if after.is_checkmate() {
                brute.push(k);
            }
            false
        });
        let (mut found, mut played) = (Vec::new(), 0);
        pos.any_mating_candidate(|k, after| {
            played += 1;
            if !after.has_legal_move() {
                found.push(k);
            }
            false
        });
        brute.sort_by_key(|k| k.raw());
        found.sort_by_key(|k| k.raw());
        (brute, found, checks - played)
    }

    /// `legal_moves_of` and `has_mate_in_one_of` against the legal moves sifted one by one,
    /// for the men of `pos` taken at random (and each mating man alone), with and without the
    /// others' captures.
    fn assert_moves_of(pos: &Position, seed: &mut u64) {
        let mut all = MoveList::new();
        pos.legal_moves(&mut all);
        let ours = pos.pieces(pos.side_to_move()).0;
        let mating: Vec<u64> = all
            .iter()
            .filter(|mv| pos.play(mv).is_checkmate())
            .map(|mv| 1u64 << mv.from().index())
            .collect();
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        for men in mating
            .iter()
            .copied()
            .chain([ours & *seed, ours & !*seed, 0])
        {
            for captures in [false, true] {
                let of =
                    |mv: &Move| men >> mv.from().index() & 1 == 1 || (captures && mv.is_capture());
                let mut listed = MoveList::new();
                pos.legal_moves_of(men, captures, &mut listed);
                let want: Vec<Move> = all.iter().filter(|mv| of(mv)).copied().collect();
                assert_eq!(listed.to_vec(), want, "{pos:?} {men:x} {captures}");
                let mates = want.iter().any(|mv| pos.play(mv).is_checkmate());
                assert_eq!(
                    pos.has_mate_in_one_of(men, captures),
                    mates,
                    "{pos:?} {men:x}"
                );
            }
        }
    }

    /// Random games around kings to be mated (the mating side able to castle, pawns about to
    /// promote, e.p. included): no move after which a mate in one follows is judged hopeless
    /// by `MatingNet`, and many others are.
    #[test]
    fn mating_net_never_drops_a_mate() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let (mut allowing, mut dropped, mut king_steps) = (0, 0, 0);
        let fens = [
            "5B2/2p1p3/1p2pp1b/5P1b/2p1k2q/6rp/p3B1P1/R3K3 b Q - 0 1",
            "2rR2BK/p1n1q1pp/1nPrb3/3kb3/8/1p1p4/3PP3/8 b - - 0 1",
            "8/2K3pB/1p2p1P1/pP2P3/P2r1p2/n1pk1P2/2pbpP2/1N6 b - - 0 1",
            "6r1/3B2p1/1p4r1/p2p2p1/2k1Nbpq/np3pnR/4P2K/1b6 b - - 0 1",
            "8/8/4n3/5B1k/1P2b3/PKP5/4R3/8 b - - 0 1",
            "r3k3/1P6/8/2pP4/8/8/8/R3K2R b KQq - 0 1",
            "7n/8/8/8/2ppp3/2pkp3/8/R3K1N1 b Q - 0 1",
            // 1.d7-d5 e5*d6 ep. #: the double step allows the mate.
            "8/3p3B/6Pp/R3P2k/8/5P2/6N1/1K6 b - - 0 1",
            // 1.Ra1*g1 Qh1*g1 #: the mate takes back where a man of its side stood.
            "8/2p1p3/1p2pp1B/5P1b/2p3B1/3k2r1/p4K2/R5nq w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R b KQ - 0 1",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 1",
        ];
        random_games(&fens, (30, 12), &mut seed, |pos, _| {
            let mut net = pos.mating_net();
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            // The moves played are legal ones, each once (the king's steps found apart).
            let mut played = Vec::new();
            pos.any_successor_allowing_mate(|k, _| {
                played.push(k);
                false
            });
            let n = played.len();
            played.sort_by_key(|k| k.raw());
            played.dedup();
            assert_eq!(played.len(), n, "{pos:?}");
            assert!(
                played.iter().all(|k| moves.iter().any(|mv| mv.key() == *k)),
                "{pos:?}"
            );
            for mv in moves.iter() {
                let after = pos.play(mv);
                let mut mates = false;
                after.any_successor(|_, last| {
                    mates = last.is_checkmate();
                    mates
                });
                if mates {
                    assert!(played.contains(&mv.key()), "{pos:?} {mv:?} not played");
                }
                if !net.may_allow_mate(mv) {
                    assert!(!mates, "{pos:?} {mv:?}");
                    dropped += 1;
                    king_steps += (mv.role() == Role::King) as usize;
                }
                allowing += mates as usize;
            }
            // A man's moves judged at once keep exactly the moves judged one by one.
            let mut at_once = pos.mating_net();
            pos.board.generate_moves(|pm| {
                let kept = at_once.may_allow_mate_to(pm.piece, pm.from, pm.to);
                for raw in pm {
                    let one = net.may_allow_mate_to(pm.piece, pm.from, raw.to.bitboard());
                    assert_eq!(kept.has(raw.to), !one.is_empty(), "{pos:?} {raw}");
                }
                false
            });
        });
        assert!(allowing > 100, "only {allowing} moves allowing a mate met");
        assert!(dropped > 5_000, "only {dropped} moves judged hopeless");
        assert!(
            king_steps > 5_000,
            "only {king_steps} king steps judged hopeless"
        );
    }

    /// Random games around kings short of flights, castling and e.p. included: the flight
    /// filter never drops a mate, and it does drop checks.
    #[test]
    fn random_walks_never_drop_a_mate() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let (mut mates, mut dropped) = (0, 0);
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "6r1/3B2p1/1p4r1/p2p2p1/2k1Nbpq/np3pnR/4P2K/1b6 w - - 0 1",
            "5B2/2p1p3/1p2pp1b/5P1b/2p1k2q/6rp/p3B1P1/R3K3 w Q - 0 1",
            "2rR2BK/p1n1q1pp/1nPrb3/3kb3/8/1p1p4/3PP3/8 w - - 0 1",
            "1B6/6q1/1b6/8/1p2p3/1R1bk1r1/2p2p2/rnK2n2 w - - 0 1",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "rnbqkbnr/ppp2ppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        ];
        random_games(&fens, (40, 24), &mut seed, |pos, seed| {
            let (brute, found, skipped) = mates_both_ways(pos);
            assert_eq!(brute, found, "{pos:?}");
            assert_moves_of(pos, seed);
            mates += brute.len();
            dropped += skipped;
        });
        assert!(mates > 50, "only {mates} mates met");
        assert!(dropped > 1_000, "only {dropped} checks dropped");
    }

    /// Every move after which a stalemate in one follows is played by
    /// `any_successor_stalemate_pair_candidate`, in `pos` and within `depth` plies of it;
    /// returns how many such moves and how many moves were skipped.
    fn stalemate_pairs_sound(pos: &Position, depth: u32) -> (usize, usize) {
        // A man's moves judged at once keep exactly the moves judged one by one.
        let pairs = pos.stalemate_pairs();
        pos.board.generate_moves(|pm| {
            if pairs.filters(pm.piece, pm.from) {
                let kept = pairs.may_leave_stalemate(pm.from, pm.to);
                for raw in pm {
                    assert_eq!(kept.has(raw.to), !pairs.hopeless(raw), "{pos:?} {raw}");
                }
            }
            false
        });
        let mut played = Vec::new();
        pos.any_successor_stalemate_pair_candidate(|k, after, replies| {
            played.push(k);
            // The replies known before the move skip no stalemate after it.
            let mut kept = Vec::new();
            after.any_successor_stalemate_candidate_after(replies, |last, _| {
                kept.push(last);
                false
            });
            after.any_successor(|last, end| {
                if end.is_stalemate() {
                    assert!(kept.contains(&last), "{pos:?} {k:?} {last:?}");
                }
                false
            });
            false
        });
        let (mut enabling, mut skipped) = (0, 0);
        pos.any_successor(|k, after| {
            if after.any_successor(|_, last| last.is_stalemate()) {
                assert!(played.contains(&k), "{pos:?} {k:?}");
                enabling += 1;
            }
            skipped += !played.contains(&k) as usize;
            if depth > 0 {
                let (e, s) = stalemate_pairs_sound(after, depth - 1);
                enabling += e;
                skipped += s;
            }
            false
        });
        (enabling, skipped)
    }

    /// Around the last plies of help stalemates (hpint#32, #12, #73, #67 and #91 four plies
    /// before the end) and in boxed-king positions, every position within three plies;
    /// castling and e.p. included.
    #[test]
    fn no_move_before_a_stalemate_is_skipped() {
        let (mut enabling, mut skipped) = (0, 0);
        for (fen, line) in [
            (
                "8/2P5/8/8/1P2P1K1/P2P2p1/1ppp2pp/bNk1N1R1 b - - 0 1",
                "c2b1r e1c2",
            ),
            (
                "1b1n4/PPPk1P2/5P2/8/8/p5K1/1p6/1Nr5 b - - 0 1",
                "a3a2 a7b8q",
            ),
            (
                "7k/1p3n2/5N2/8/8/8/p1p1P3/BbN4K b - - 0 1",
                "b7b5 e2e4 b5b4 e4e5 b4b3 e5e6",
            ),
            (
                "8/p5pk/7N/6P1/8/1p6/1Pp2P2/2K5 b - - 0 1",
                "a7a5 f2f4 a5a4 f4f5 a4a3 f5f6",
            ),
            (
                "8/8/6K1/8/1P3p2/8/1p1p2p1/7k b - - 0 1",
                "g2g1b b4b5 g1a7 b5b6 b2b1r b6a7 b1b8 a7b8q",
            ),
            ("8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 1", ""),
            ("4k3/8/8/8/8/8/p6p/R3K2R b KQ - 0 1", ""),
            // Boxed kings with a few men left to move: stalemates abound.
            ("k7/8/2K5/8/8/1p6/1P6/3Q4 b - - 0 1", ""),
            ("k7/8/2K5/8/8/1p6/1P4p1/3Q4 b - - 0 1", ""),
            ("k7/8/1K6/8/8/7p/p6P/2Q5 b - - 0 1", ""),
            ("k7/p7/P1K5/8/8/8/3p4/4R2n b - - 0 1", ""),
            ("k7/p7/P1K5/8/8/8/3p4/4R3 b - - 0 1", ""),
            // 1.e4-e3 Qe1-c3 =: the stalemating move blocks the other pawn.
            ("k7/8/1K1B4/8/2p1p3/8/4P3/4Q3 b - - 0 1", ""),
            // hpint#61: 1.Bh8*f6+ Ke5*f6 =, the king taking back where his rook stood.
            ("7b/8/5RBk/4K3/8/4p3/4N3/8 b - - 0 1", ""),
        ] {
            let mut pos = Position::from_fen(fen).unwrap();
            for uci in line.split_whitespace() {
                pos = pos.play(&pos.find_uci(uci).unwrap());
            }
            let (e, s) = stalemate_pairs_sound(&pos, 2);
            enabling += e;
            skipped += s;
        }
        assert!(
            enabling > 50,
            "only {enabling} moves before a stalemate met"
        );
        assert!(skipped > 1_000, "only {skipped} moves skipped");
    }

    #[test]
    fn checking_moves_are_found_exactly() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "1RNk3n/6nK/pP5B/2Q5/8/N5p1/Rr6/b4B2 w - - 0 1",
            "6Q1/1nR5/5RNN/1r1n2P1/8/8/2PK4/kB6 w - - 0 1",
            "k7/5p2/K1p5/B3PBpP/8/4R3/Qn3N2/6R1 w - - 0 1",
            "8/4B3/3Rp2p/2Nbk1pP/1Qp2pKn/1N3P1P/3R4/8 w - - 0 1",
            "3q4/8/8/3k4/8/3P4/1b1R1n2/2BK4 w - - 0 1",
        ] {
            walk(&Position::from_fen(fen).unwrap(), 2);
        }
    }
}
