//! The move generator's position hash in parts: the key each man adds on each square, and the
//! side to move's, read off the generator once, so that the key of a position after a pass or a
//! plain move can be told without making it (a series search finds most of the positions it
//! reaches already known).

use std::sync::OnceLock;

use cozy_chess::{Board, BoardBuilder, Color as CozyColor, Piece};

pub(super) struct HashParts {
    /// `[color][piece][square]`: what a man standing there adds (0 for a pawn on the first or
    /// last rank, where none stands).
    men: [[[u64; 64]; 6]; 2],
    /// What Black to move adds.
    pub(super) side_to_move: u64,
}

impl HashParts {
    pub(super) fn get() -> &'static HashParts {
        static PARTS: OnceLock<HashParts> = OnceLock::new();
        PARTS.get_or_init(HashParts::read_off)
    }

    #[inline]
    pub(super) fn man(&self, color: CozyColor, piece: Piece, square: cozy_chess::Square) -> u64 {
        self.men[color as usize][piece as usize][square as usize]
    }

    /// The hash is the exclusive or of its parts (a Zobrist key): a man's part is the hash of a
    /// board with him less the hash of the same board without him. The kings stand far apart,
    /// on a1 and h8, or on h1 and a8 when the man's square is one of those; the man's opponents
    /// move, so that a man giving check still leaves a legal board. A king cannot be taken off:
    /// its part is read against the same king on a1, which a king's move cancels out. The side
    /// to move's part is what a pass changes.
    fn read_off() -> HashParts {
        use cozy_chess::Square::{A1, A8, E5, H1, H8};
        let mut keys = [[[0u64; 64]; 6]; 2];
        for (c, color) in [CozyColor::White, CozyColor::Black].into_iter().enumerate() {
            for (p, piece) in Piece::ALL.into_iter().enumerate() {
                for s in cozy_chess::Square::ALL {
                    keys[c][p][s as usize] = if piece == Piece::King {
                        // The other king away from both a1 and s.
                        let other = if s.file() as u8 >= 6 && s.rank() as u8 >= 6 {
                            E5
                        } else {
                            H8
                        };
                        let on = |k| {
                            board(
                                color,
                                [(k, Piece::King, color), (other, Piece::King, !color)],
                            )
                        };
                        on(s).hash_without_ep() ^ on(A1).hash_without_ep()
                    } else if piece == Piece::Pawn
                        && matches!(s.rank(), cozy_chess::Rank::First | cozy_chess::Rank::Eighth)
                    {
                        0
                    } else {
                        let (wk, bk) = if s == A1 || s == H8 {
                            (H1, A8)
                        } else {
                            (A1, H8)
                        };
                        let kings = [
                            (wk, Piece::King, CozyColor::White),
                            (bk, Piece::King, CozyColor::Black),
                        ];
                        let [white, black] = kings;
                        let with = board(!color, [white, black, (s, piece, color)]);
                        with.hash_without_ep() ^ board(!color, kings).hash_without_ep()
                    };
                }
            }
        }
        let start = Board::default();
        let passed = start
            .null_move()
            .expect("the start position is not in check");
        HashParts {
            men: keys,
            side_to_move: passed.hash_without_ep() ^ start.hash_without_ep(),
        }
    }
}

/// The board with these men and `to_move` to move, nothing else.
fn board<const N: usize>(
    to_move: CozyColor,
    men: [(cozy_chess::Square, Piece, CozyColor); N],
) -> Board {
    let mut b = BoardBuilder::empty();
    for (s, piece, color) in men {
        *b.square_mut(s) = Some((piece, color));
    }
    b.side_to_move = to_move;
    b.build().expect("kings far apart make a legal board")
}
