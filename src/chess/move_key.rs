//! A move reduced to from, to and promotion in 16 bits: what the search remembers about a move
//! (killer moves) without classifying it.

use super::{Move, Role, Square};

/// A packed move: 6 bits from, 6 bits to, 3 bits promotion (0 = none). Castling is the king's
/// move onto the rook's square, as the generator encodes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MoveKey(pub(crate) u16);

impl MoveKey {
    /// No move: never equal to a legal move's key (a1-a1).
    pub const NONE: MoveKey = MoveKey(0);

    pub(crate) fn from_raw(m: cozy_chess::Move) -> MoveKey {
        let promo = m.promotion.map_or(0, |p| Role::from_cozy(p) as u16);
        MoveKey((m.from as u16) | (m.to as u16) << 6 | promo << 12)
    }

    pub(crate) fn to_raw(self) -> cozy_chess::Move {
        let promotion = match self.0 >> 12 {
            0 => None,
            r => Some(Role::ALL[r as usize].to_cozy()),
        };
        cozy_chess::Move {
            from: Square::from_index((self.0 & 63) as usize).to_cozy(),
            to: Square::from_index((self.0 >> 6 & 63) as usize).to_cozy(),
            promotion,
        }
    }

    pub fn raw(self) -> u16 {
        self.0
    }

    pub fn from_raw_bits(bits: u16) -> MoveKey {
        MoveKey(bits)
    }
}

impl Move {
    pub fn key(&self) -> MoveKey {
        MoveKey::from_raw(self.raw)
    }
}
