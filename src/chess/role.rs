//! Kinds of men, independent of colour.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    /// Promotion choices in the order Popeye lists them.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Knight, Role::Rook, Role::Bishop];

    /// Letter in the problemists' (German-derived) convention Popeye uses: S for the knight.
    pub fn problemist_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'S',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// Letter in international algebraic notation (SAN, FEN): N for the knight.
    pub fn san_char(self) -> char {
        match self {
            Role::Knight => 'N',
            other => other.problemist_char(),
        }
    }

    /// Parses a FEN letter (case gives colour elsewhere; here only the kind).
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'p' => Role::Pawn,
            'n' | 's' => Role::Knight,
            'b' => Role::Bishop,
            'r' => Role::Rook,
            'q' => Role::Queen,
            'k' => Role::King,
            _ => return None,
        })
    }

    pub(crate) fn to_cozy(self) -> cozy_chess::Piece {
        use cozy_chess::Piece;
        match self {
            Role::Pawn => Piece::Pawn,
            Role::Knight => Piece::Knight,
            Role::Bishop => Piece::Bishop,
            Role::Rook => Piece::Rook,
            Role::Queen => Piece::Queen,
            Role::King => Piece::King,
        }
    }

    pub(crate) fn from_cozy(p: cozy_chess::Piece) -> Role {
        use cozy_chess::Piece;
        match p {
            Piece::Pawn => Role::Pawn,
            Piece::Knight => Role::Knight,
            Piece::Bishop => Role::Bishop,
            Piece::Rook => Role::Rook,
            Piece::Queen => Role::Queen,
            Piece::King => Role::King,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.problemist_char())
    }
}
