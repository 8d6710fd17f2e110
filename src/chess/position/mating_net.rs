//! Help mate in two plies (the side to be mated moves, then the other mates): which first
//! moves surely leave no mate in one, proved without playing them.
//!
//! The proof works on the flights of the king to be mated. A move of one of his other men
//! changes them little: its destination may block one flight, and its departure may open a
//! line of the mating side onto some; every other flight stays. The mating move must then
//! give check and take every flight left, with one man: from its new square, or by uncovering
//! a line of another man as it leaves. Where it may land and what it attacks from there are
//! taken over a board holding the mating side's men only (the other side's men may have moved
//! away or be captured), so these are supersets of the truth. When no man of the mating side
//! can take the flights left from any square it might reach, the first move is hopeless.
//! What each man may do is worked out once per position (`Mater`); each set of flights left
//! is then judged with a few intersections.
//! The king's moves, castling, e.p. captures and double steps the other side may take e.p.
//! are always played. Before a stalemate the last move need not give check: then
//! only the flights are asked.

use cozy_chess::{
    get_between_rays, get_bishop_moves, get_bishop_rays, get_king_moves, get_knight_moves,
    get_pawn_attacks, get_pawn_quiets, get_rook_moves, get_rook_rays, BitBoard, Board, Color, File,
    Move, Piece, Rank, Square,
};

/// A king has at most eight flights.
const FLIGHTS: usize = 8;
/// At most this many ways to mate are kept (a man, or a pawn promoting to one kind); with
/// more, the net is not drawn.
const MATERS: usize = 8;

/// One way of the mating side to give check: a man (or a promoted pawn, or a castling) and
/// what it takes from where.
#[derive(Clone, Copy)]
struct Mater {
    /// Where it may land and give check (or anywhere, when its departure may uncover one).
    lands: BitBoard,
    /// Per flight: the squares of `lands` from which it takes it (all of them when its
    /// departure may uncover a line onto it).
    takes: [BitBoard; FLIGHTS],
}

/// Which moves of the side to move may leave the other side a mate in one (see the module).
/// The net is drawn at the first move it judges: often no move is judged at all (the search
/// keeps only king moves, or none).
pub struct MatingNet<'a> {
    board: &'a Board,
    /// Where a pawn of the side to move lands after a double step next to a pawn of the
    /// other side (which may then take it e.p.).
    double_step: BitBoard,
    /// The side to move's e.p. capture's destination.
    passant: BitBoard,
    /// Whether the last move must give check (a mate; not a stalemate, for which only the
    /// flights are asked).
    check: bool,
    /// `None` until drawn; then `None` when it proves nothing.
    net: Option<Option<Net>>,
    /// The squares the other side attacks with the king off the board, once asked (the
    /// flights of the king wherever he steps without capturing).
    attacked: Option<BitBoard>,
    /// The other side's ways to move, once the king's steps are asked.
    maters: Option<Maters>,
}

impl<'a> MatingNet<'a> {
    pub(super) fn new(board: &'a Board, check: bool) -> MatingNet<'a> {
        let mated = board.side_to_move();
        let rank = Rank::Fourth.relative_to(mated).bitboard();
        let takers = (board.colored_pieces(!mated, Piece::Pawn) & rank).0;
        let beside = (takers << 1 & !File::A.bitboard().0) | (takers >> 1 & !File::H.bitboard().0);
        MatingNet {
            board,
            double_step: BitBoard(beside),
            passant: super::passant(board),
            check,
            net: None,
            attacked: None,
            maters: None,
        }
    }

    /// Whether the side to move's legal move `mv` may leave a mate in one.
    #[inline]
    pub fn may_allow_mate(&mut self, mv: &crate::chess::Move) -> bool {
        let Move { from, to, .. } = mv.raw;
        self.may_allow_mate_to(mv.role().to_cozy(), from, to.bitboard())
            .has(to)
    }

    /// Of the destinations `to` of a man of kind `piece` leaving `from`, those whose move may
    /// leave a mate in one: a man's moves differ only in whether they land on a flight, so they
    /// are judged at once. Moves that change more than one man's square (the king's too: his
    /// flights change), e.p. captures and double steps the other side may take e.p. are not
    /// judged (kept).
    #[inline]
    pub(super) fn may_allow_mate_to(
        &mut self,
        piece: Piece,
        from: Square,
        to: BitBoard,
    ) -> BitBoard {
        let unjudged = match piece {
            Piece::King => return self.king_may_allow_mate_to(to),
            Piece::Pawn => {
                let mover = self.board.side_to_move();
                let double = if from.rank() == Rank::Second.relative_to(mover) {
                    self.double_step
                } else {
                    BitBoard::EMPTY
                };
                to & (self.passant | double)
            }
            _ => BitBoard::EMPTY,
        };
        let judged = to & !unjudged;
        if judged.is_empty() {
            return to;
        }
        let (board, check) = (self.board, self.check);
        let attacked = self.attacked();
        match self
            .net
            .get_or_insert_with(|| Net::new(board, check, attacked))
        {
            Some(net) => net.may_allow_mate_to(from, judged) | unjudged,
            None => to,
        }
    }

    /// `may_allow_mate_to` for the king's moves: each step to an empty square is judged by
    /// whether one mating move may take every flight he would have there (`Maters`; the other
    /// side's attacks are the same, the king being left off the board for them). Captures and
    /// castling change another man too: kept.
    fn king_may_allow_mate_to(&mut self, to: BitBoard) -> BitBoard {
        let board = self.board;
        let unjudged = to & board.occupied();
        let judged = to & !unjudged;
        if judged.is_empty() {
            return to;
        }
        let attacked = self.attacked();
        let check = self.check;
        let maters = self.maters.get_or_insert_with(|| Maters::new(board));
        let mut out = unjudged;
        for king in judged {
            if maters.may_take_all(board, king, attacked, check) {
                out |= king.bitboard();
            }
        }
        out
    }

    /// The king's legal steps (castling left out): the squares next to him that neither his
    /// own men hold nor the other side attacks with him off the board.
    pub(super) fn king_steps(&mut self) -> BitBoard {
        let board = self.board;
        let mated = board.side_to_move();
        get_king_moves(board.king(mated)) & !board.colors(mated) & !self.attacked()
    }

    /// The squares the other side attacks with the side to move's king off the board.
    fn attacked(&mut self) -> BitBoard {
        let board = self.board;
        *self.attacked.get_or_insert_with(|| {
            let mated = board.side_to_move();
            let occupied = board.occupied() & !board.king(mated).bitboard();
            super::attacked_by(board, !mated, occupied)
        })
    }
}

/// At most this many ways to move are kept for the king's steps (a man, or a pawn promoting
/// to one kind); with more, the steps are not judged.
const MOVERS: usize = 40;

/// The mating side's men and where each may land, over the board as it stands with the king
/// to be mated off it (he alone moves first), worked out once per position: his steps are
/// then judged one by one by whether some mating move may take every flight he would have.
struct Maters {
    n: usize,
    men: [(Piece, Square, BitBoard); MOVERS],
    /// More than `MOVERS`: nothing is judged.
    overflow: bool,
    castlings: [Castling; 2],
    n_castlings: usize,
    /// Every man but the king to be mated.
    standing: BitBoard,
    lines: Lines,
}

impl Maters {
    fn new(board: &Board) -> Maters {
        let mater = !board.side_to_move();
        let ours = board.colors(mater);
        // Only the king moves: the other men block as they stand (he is off the board).
        let men = board.occupied() & !board.king(!mater).bitboard();
        let last = Rank::Eighth.relative_to(mater).bitboard();
        let mut out = Maters {
            n: 0,
            men: [(Piece::King, Square::A1, BitBoard::EMPTY); MOVERS],
            overflow: false,
            castlings: [Castling::NONE; 2],
            n_castlings: 0,
            standing: men,
            lines: Lines::of(board, mater),
        };
        out.n_castlings = Castling::of(board, &mut out.castlings);
        let mut keep = |piece, x, to: BitBoard| {
            if to.is_empty() {
                return;
            }
            if out.n == MOVERS {
                out.overflow = true;
                return;
            }
            out.men[out.n] = (piece, x, to);
            out.n += 1;
        };
        for x in ours {
            let others = men & !x.bitboard();
            match board.piece_on(x).expect("a man of the mating side") {
                Piece::Pawn => {
                    let to =
                        get_pawn_quiets(x, mater, BitBoard::EMPTY) | get_pawn_attacks(x, mater);
                    keep(Piece::Pawn, x, to & !last);
                    if !(to & last).is_empty() {
                        for p in [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen] {
                            keep(p, x, to & last);
                        }
                    }
                }
                // A king gives no check but by uncovering a line.
                p => keep(p, x, attacks(p, x, others, mater)),
            }
        }
        out
    }

    /// Whether, the king of the side to move having stepped to the empty square `king`, one
    /// move of the mating side may give check there and take every flight he has (those not
    /// in `attacked`, the mating side's attacks with him off the board): as `Net`, every
    /// flight taken from the man's new square or by a line its departure uncovers, but over
    /// all the men as they stand (his other men do not move).
    fn may_take_all(&self, board: &Board, king: Square, attacked: BitBoard, check: bool) -> bool {
        if self.overflow {
            return true;
        }
        let mated = board.side_to_move();
        let mater = !mated;
        let (men, lines) = (self.standing, self.lines);
        let ours = lines.ours;
        let his = (board.colors(mated) & !board.king(mated).bitboard()) | king.bitboard();
        let shadow = |target: Square| shadow(lines, target, men);
        let mut flights = [king; FLIGHTS];
        let mut n = 0;
        for f in get_king_moves(king) & !his & !attacked {
            flights[n] = f;
            n += 1;
        }
        let mut shadows: [Option<BitBoard>; FLIGHTS] = [None; FLIGHTS];
        let discoverers = if check { shadow(king) & ours } else { ours };
        // The squares checking the king, per kind, over all the men: the same as over the
        // others but a man's own, unless it stands on a line from the king.
        let CheckLines {
            diagonal: diagonal_checks,
            orthogonal: orthogonal_checks,
            on_lines,
        } = CheckLines::at(king, men, ours);
        for &(piece, x, to) in &self.men[..self.n] {
            let others = men & !x.bitboard();
            let mut lands = if discoverers.has(x) {
                to
            } else {
                to & match piece {
                    Piece::King => continue,
                    Piece::Pawn => get_pawn_attacks(king, mated),
                    Piece::Knight => get_knight_moves(king),
                    _ if on_lines.has(x) => attackers(piece, king, others, mater),
                    Piece::Bishop => diagonal_checks,
                    Piece::Rook => orthogonal_checks,
                    Piece::Queen => diagonal_checks | orthogonal_checks,
                }
            };
            if lands.is_empty() {
                continue;
            }
            for (f, shadow_f) in flights[..n].iter().zip(shadows.iter_mut()) {
                if lands.is_empty() {
                    break;
                }
                if !shadow_f.get_or_insert_with(|| shadow(*f)).has(x) {
                    lands &= attackers(piece, *f, others, mater);
                }
            }
            if !lands.is_empty() {
                return true;
            }
        }
        // Castling: as `Net::add_castlings`.
        for castling in &self.castlings[..self.n_castlings] {
            let Some(covered) = castling.checks(men, king, discoverers) else {
                continue;
            };
            if flights[..n]
                .iter()
                .all(|&f| covered.has(f) || !(shadow(f) & castling.vacated).is_empty())
            {
                return true;
            }
        }
        false
    }
}

/// The flights of the king to be mated and the ways to take them.
struct Net {
    n: usize,
    flights: [Square; FLIGHTS],
    /// Per flight: the squares whose vacating may open a line of the mating side onto it (no
    /// man of that side between but the one leaving).
    shadows: [BitBoard; FLIGHTS],
    maters: [Mater; MATERS],
    n_maters: usize,
    /// Per set of flights (a bit per index of `flights`): whether it was judged, and whether
    /// one mating move may take them all.
    judged: [u64; 4],
    takeable: [u64; 4],
    /// The squares of every flight's `shadows`: a man elsewhere opens no line by leaving.
    shadowed: BitBoard,
    /// The flights whose blocking leaves the others takeable, once asked: where a man that
    /// opens no line may land and still allow a mate.
    blockable: Option<BitBoard>,
}

impl Net {
    /// The net around the king of the side to move in `board`, with `attacked` the squares
    /// the other side attacks with him off the board; `None` when even his flights now may all
    /// be taken by one mating move: then no move of his men is proved hopeless.
    fn new(board: &Board, check: bool, attacked: BitBoard) -> Option<Net> {
        let mated = board.side_to_move();
        let mater = !mated;
        let king = board.king(mated);
        let ours = board.colors(mater);
        let his = board.colors(mated);
        // Over the mating side's men only: the other side's may move away first.
        let lines = Lines::of(board, mater);
        let shadow = |target: Square| shadow(lines, target, ours);
        let mut net = Net {
            n: 0,
            flights: [king; FLIGHTS],
            shadows: [BitBoard::EMPTY; FLIGHTS],
            maters: [Mater {
                lands: BitBoard::EMPTY,
                takes: [BitBoard::EMPTY; FLIGHTS],
            }; MATERS],
            n_maters: 0,
            judged: [0; 4],
            takeable: [0; 4],
            shadowed: BitBoard::EMPTY,
            blockable: None,
        };
        for f in get_king_moves(king) & !his & !attacked {
            net.flights[net.n] = f;
            net.shadows[net.n] = shadow(f);
            net.shadowed |= net.shadows[net.n];
            net.n += 1;
        }
        // Without a check to give, every man is taken as if its departure gave one.
        let discoverers = if check { shadow(king) & ours } else { ours };
        let last = Rank::Eighth.relative_to(mater).bitboard();
        // The line pieces' checking squares over all the mating side's men: the same over
        // the others unless the man stands on a line from the king.
        let CheckLines {
            diagonal: diagonal_checks,
            orthogonal: orthogonal_checks,
            on_lines,
        } = CheckLines::at(king, ours, ours);
        for x in ours {
            let others = ours & !x.bitboard();
            let discovers = discoverers.has(x);
            let vacated = x.bitboard();
            let piece = board.piece_on(x).expect("a man of the mating side");
            // A line piece off the king's lines that no line of its own leads to a checking
            // square from gives no check (most of them): its moves are not even worked out.
            let reach = match piece {
                Piece::Bishop => get_bishop_rays(x) & diagonal_checks,
                Piece::Rook => get_rook_rays(x) & orthogonal_checks,
                Piece::Queen => {
                    (get_bishop_rays(x) | get_rook_rays(x)) & (diagonal_checks | orthogonal_checks)
                }
                _ => BitBoard::FULL,
            };
            if !discovers && !on_lines.has(x) && reach.is_empty() {
                continue;
            }
            let kept = match piece {
                Piece::Pawn => {
                    let to =
                        get_pawn_quiets(x, mater, BitBoard::EMPTY) | get_pawn_attacks(x, mater);
                    [
                        Piece::Pawn,
                        Piece::Knight,
                        Piece::Bishop,
                        Piece::Rook,
                        Piece::Queen,
                    ]
                    .into_iter()
                    .all(|p| {
                        let to = if p == Piece::Pawn {
                            to & !last
                        } else {
                            to & last
                        };
                        net.add(p, to, discovers, vacated, king, others, mater)
                    })
                }
                p => {
                    // A square of its own side's man too: the first move may capture that
                    // man there, and this one take back.
                    let to = attacks(p, x, others, mater);
                    net.add(p, to, discovers, vacated, king, others, mater)
                }
            };
            if !kept {
                return None;
            }
        }
        if !net.add_castlings(board, king, discoverers) {
            return None;
        }
        // No way to mate takes every flight (else `keep` gave up).
        let all = ((1u16 << net.n) - 1) as u8;
        net.judged[(all >> 6) as usize] |= 1 << (all & 63);
        Some(net)
    }

    /// Keeps a man of kind `piece` of the mating side that may land on `to`: where it gives
    /// check there (or anywhere when it `discovers` a check by leaving `vacated`), and what it
    /// takes from where, over `others` (the mating side's other men). False as `keep`.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        piece: Piece,
        to: BitBoard,
        discovers: bool,
        vacated: BitBoard,
        king: Square,
        others: BitBoard,
        mater: Color,
    ) -> bool {
        // A pawn far from promotion cannot promote (most calls of the promoted kinds).
        if to.is_empty() {
            return true;
        }
        let lands = match piece {
            _ if discovers => to,
            // A king gives no check by himself.
            Piece::King => BitBoard::EMPTY,
            p => to & attackers(p, king, others, mater),
        };
        if lands.is_empty() {
            return true;
        }
        let mut takes = [BitBoard::EMPTY; FLIGHTS];
        for (i, t) in takes[..self.n].iter_mut().enumerate() {
            *t = if (self.shadows[i] & vacated).is_empty() {
                lands & attackers(piece, self.flights[i], others, mater)
            } else {
                lands
            };
        }
        self.keep(Mater { lands, takes })
    }

    /// Keeps the castlings of the mating side that may give check: the rook from its new
    /// square, or a line uncovered as king or rook leaves. False as `keep`.
    fn add_castlings(&mut self, board: &Board, king: Square, discoverers: BitBoard) -> bool {
        let ours = board.colors(!board.side_to_move());
        let mut castlings = [Castling::NONE; 2];
        let n = Castling::of(board, &mut castlings);
        for castling in &castlings[..n] {
            let Some(covered) = castling.checks(ours, king, discoverers) else {
                continue;
            };
            let lands = castling.rook_to.bitboard();
            let mut takes = [BitBoard::EMPTY; FLIGHTS];
            for (i, t) in takes[..self.n].iter_mut().enumerate() {
                if covered.has(self.flights[i]) || !(self.shadows[i] & castling.vacated).is_empty()
                {
                    *t = lands;
                }
            }
            if !self.keep(Mater { lands, takes }) {
                return false;
            }
        }
        true
    }

    /// Keeps a way to mate; false when there are too many, or when it may take every flight
    /// the king has now: then no move of his men is proved hopeless (the sets judged are
    /// never more than those), and the net is given up at once.
    fn keep(&mut self, mater: Mater) -> bool {
        let all = mater.takes[..self.n]
            .iter()
            .fold(mater.lands, |l, t| l & *t);
        if self.n_maters == MATERS || !all.is_empty() {
            return false;
        }
        self.maters[self.n_maters] = mater;
        self.n_maters += 1;
        true
    }

    /// Of the destinations `to` of a judged man leaving `from`, those whose move may leave a
    /// mate in one. Fewer flights are never harder to take: when the flights left after it
    /// leaves may all be taken, every move may allow a mate, and otherwise only those landing
    /// on a flight (which then needs no taking) may.
    #[inline]
    fn may_allow_mate_to(&mut self, from: Square, to: BitBoard) -> BitBoard {
        if !self.shadowed.has(from) {
            // Every flight is left to take (which no mating move can), but for the one it
            // may land on: the same for most men, worked out once.
            let blockable = match self.blockable {
                Some(b) => b,
                None => {
                    let all = ((1u16 << self.n) - 1) as u8;
                    let mut b = BitBoard::EMPTY;
                    for i in 0..self.n {
                        if self.takeable(all & !(1 << i)) {
                            b |= self.flights[i].bitboard();
                        }
                    }
                    self.blockable = Some(b);
                    b
                }
            };
            return to & blockable;
        }
        let mut left = 0u8;
        for i in 0..self.n {
            if !self.shadows[i].has(from) {
                left |= 1 << i;
            }
        }
        if self.takeable(left) {
            return to;
        }
        let mut out = BitBoard::EMPTY;
        for i in 0..self.n {
            let f = self.flights[i];
            if to.has(f) && left >> i & 1 == 1 && self.takeable(left & !(1 << i)) {
                out |= f.bitboard();
            }
        }
        out
    }

    /// Whether one mating move may take every flight of the set `left`, judged once per set.
    fn takeable(&mut self, left: u8) -> bool {
        let (word, bit) = ((left >> 6) as usize, 1u64 << (left & 63));
        if self.judged[word] & bit == 0 {
            self.judged[word] |= bit;
            if self.judge(left) {
                self.takeable[word] |= bit;
            }
        }
        self.takeable[word] & bit != 0
    }

    fn judge(&self, left: u8) -> bool {
        self.maters[..self.n_maters].iter().any(|m| {
            let mut lands = m.lands;
            for (i, takes) in m.takes[..self.n].iter().enumerate() {
                if left >> i & 1 == 1 {
                    lands &= *takes;
                }
            }
            !lands.is_empty()
        })
    }
}

/// The squares between a line piece of `mater` and `target` whose vacating may open the line,
/// with `men` the men standing in the way: any square when none does, that man when one of
/// `mater` does (only his men move next).
#[inline]
fn shadow(lines: Lines, target: Square, men: BitBoard) -> BitBoard {
    let mut out = BitBoard::EMPTY;
    for s in (get_bishop_rays(target) & lines.diagonal) | (get_rook_rays(target) & lines.orthogonal)
    {
        let between = get_between_rays(s, target);
        let blockers = between & men;
        out |= match blockers.len() {
            0 => between,
            1 => blockers & lines.ours,
            _ => BitBoard::EMPTY,
        };
    }
    out
}

/// The squares from which a line piece checks the king on `king` over `blockers`, per line,
/// and the mating side's men (`ours`) standing on a line from him (for whom their own
/// square blocks nothing: their checking squares are asked exactly).
struct CheckLines {
    diagonal: BitBoard,
    orthogonal: BitBoard,
    on_lines: BitBoard,
}

impl CheckLines {
    #[inline]
    fn at(king: Square, blockers: BitBoard, ours: BitBoard) -> CheckLines {
        CheckLines {
            diagonal: get_bishop_moves(king, blockers),
            orthogonal: get_rook_moves(king, blockers),
            on_lines: (get_bishop_rays(king) | get_rook_rays(king)) & ours,
        }
    }
}

/// The mating side's men, and its line pieces by the lines they move along.
#[derive(Clone, Copy)]
struct Lines {
    ours: BitBoard,
    diagonal: BitBoard,
    orthogonal: BitBoard,
}

impl Lines {
    #[inline]
    fn of(board: &Board, mater: Color) -> Lines {
        let ours = board.colors(mater);
        Lines {
            ours,
            diagonal: ours & (board.pieces(Piece::Bishop) | board.pieces(Piece::Queen)),
            orthogonal: ours & (board.pieces(Piece::Rook) | board.pieces(Piece::Queen)),
        }
    }
}

/// A castling of the mating side: the squares its king and rook leave, and where they land.
#[derive(Clone, Copy)]
struct Castling {
    vacated: BitBoard,
    king_to: Square,
    rook_to: Square,
}

impl Castling {
    /// The mating side's castlings: two at most, into `out`; how many.
    fn of(board: &Board, out: &mut [Castling; 2]) -> usize {
        let mater = !board.side_to_move();
        let rights = board.castle_rights(mater);
        let back = Rank::First.relative_to(mater);
        let king_from = board.king(mater);
        let mut n = 0;
        for (rook, king_to, rook_to) in [
            (rights.short, File::G, File::F),
            (rights.long, File::C, File::D),
        ] {
            if let Some(rook) = rook {
                out[n] = Castling {
                    vacated: king_from.bitboard() | Square::new(rook, back).bitboard(),
                    king_to: Square::new(king_to, back),
                    rook_to: Square::new(rook_to, back),
                };
                n += 1;
            }
        }
        n
    }

    const NONE: Castling = Castling {
        vacated: BitBoard::EMPTY,
        king_to: Square::A1,
        rook_to: Square::A1,
    };

    /// What king and rook attack after it, over `blockers` (the men in the way), when it may
    /// give check to the king on `king`: the rook from its new square, or a line of
    /// `discoverers` uncovered as king or rook leaves.
    #[inline]
    fn checks(self, blockers: BitBoard, king: Square, discoverers: BitBoard) -> Option<BitBoard> {
        let rook_attacks = get_rook_moves(
            self.rook_to,
            (blockers & !self.vacated) | self.king_to.bitboard(),
        );
        (rook_attacks.has(king) || !(discoverers & self.vacated).is_empty())
            .then(|| rook_attacks | get_king_moves(self.king_to))
    }
}

/// The squares a man of kind `piece` of `color` attacks from `sq`, over `blockers`.
#[inline]
fn attacks(piece: Piece, sq: Square, blockers: BitBoard, color: Color) -> BitBoard {
    match piece {
        Piece::Pawn => get_pawn_attacks(sq, color),
        Piece::Knight => get_knight_moves(sq),
        Piece::Bishop => get_bishop_moves(sq, blockers),
        Piece::Rook => get_rook_moves(sq, blockers),
        Piece::Queen => get_bishop_moves(sq, blockers) | get_rook_moves(sq, blockers),
        Piece::King => get_king_moves(sq),
    }
}

/// The squares from which a man of kind `piece` of `color` attacks `sq`, over `blockers`.
#[inline]
fn attackers(piece: Piece, sq: Square, blockers: BitBoard, color: Color) -> BitBoard {
    match piece {
        Piece::Pawn => get_pawn_attacks(sq, !color),
        p => attacks(p, sq, blockers, color),
    }
}
