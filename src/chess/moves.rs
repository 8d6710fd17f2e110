//! A legal move of a particular position, with what it does spelled out for notation and ordering.

use super::{Role, Square};

/// What kind of move, beyond from/to: the cases notation and hashing treat specially.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    Normal,
    /// A pawn's two-square first step (creates an e.p. right).
    DoubleStep,
    EnPassant,
    CastleShort,
    CastleLong,
}

/// A move as generated from a position: only meaningful together with that position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub(crate) raw: cozy_chess::Move,
    role: Role,
    capture: Option<Role>,
    kind: MoveKind,
}

impl Move {
    pub(crate) fn new(
        raw: cozy_chess::Move,
        role: Role,
        capture: Option<Role>,
        kind: MoveKind,
    ) -> Move {
        Move {
            raw,
            role,
            capture,
            kind,
        }
    }

    /// Square the moving man leaves (the king's square for castling).
    pub fn from(&self) -> Square {
        Square::from_cozy(self.raw.from)
    }

    /// Square the moving man arrives on (the king's destination for castling, not the rook's square).
    pub fn to(&self) -> Square {
        match self.kind {
            MoveKind::CastleShort => Square::new(6, self.from().rank()),
            MoveKind::CastleLong => Square::new(2, self.from().rank()),
            _ => Square::from_cozy(self.raw.to),
        }
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// The captured man's kind (a pawn for e.p.).
    pub fn capture(&self) -> Option<Role> {
        self.capture
    }

    pub fn is_capture(&self) -> bool {
        self.capture.is_some()
    }

    pub fn promotion(&self) -> Option<Role> {
        self.raw.promotion.map(Role::from_cozy)
    }

    pub fn kind(&self) -> MoveKind {
        self.kind
    }

    pub fn is_castle(&self) -> bool {
        matches!(self.kind, MoveKind::CastleShort | MoveKind::CastleLong)
    }

    /// UCI form, castling as the king's two-square step (`e1g1`).
    pub fn uci(&self) -> String {
        let mut s = format!("{}{}", self.from(), self.to());
        if let Some(p) = self.promotion() {
            s.push(p.san_char().to_ascii_lowercase());
        }
        s
    }
}
