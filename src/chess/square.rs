//! Board squares, a1 = 0 … h8 = 63.

use std::fmt;

use super::Color;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub fn new(file: u8, rank: u8) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square(rank * 8 + file)
    }

    pub fn from_index(i: usize) -> Square {
        debug_assert!(i < 64);
        Square(i as u8)
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64u8).map(Square)
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// 0 = a-file … 7 = h-file.
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    /// 0 = first rank … 7 = eighth rank.
    pub fn rank(self) -> u8 {
        self.0 / 8
    }

    /// The rank as seen from `color`'s side (0 = its own back rank).
    pub fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::White => self.rank(),
            Color::Black => 7 - self.rank(),
        }
    }

    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| Square::new(f as u8, r as u8))
    }

    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
            return None;
        }
        Some(Square::new(b[0] - b'a', b[1] - b'1'))
    }

    pub fn file_char(self) -> char {
        (b'a' + self.file()) as char
    }

    pub fn rank_char(self) -> char {
        (b'1' + self.rank()) as char
    }

    pub(crate) fn to_cozy(self) -> cozy_chess::Square {
        cozy_chess::Square::index(self.index())
    }

    pub(crate) fn from_cozy(s: cozy_chess::Square) -> Square {
        Square(s as u8)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}
