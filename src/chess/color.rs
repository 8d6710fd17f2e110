//! The two sides.

use std::fmt;
use std::ops::Not;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The FEN letter of the side to move.
    pub fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }

    pub(crate) fn to_cozy(self) -> cozy_chess::Color {
        match self {
            Color::White => cozy_chess::Color::White,
            Color::Black => cozy_chess::Color::Black,
        }
    }

    pub(crate) fn from_cozy(c: cozy_chess::Color) -> Color {
        match c {
            cozy_chess::Color::White => Color::White,
            cozy_chess::Color::Black => Color::Black,
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
