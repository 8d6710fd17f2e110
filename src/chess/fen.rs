//! FEN text ⇄ `Setup`: the raw, not yet validated contents of a FEN record.
//!
//! Parsing checks only the syntax; whether the position could arise (and which castling and
//! e.p. rights hold) is `validate`'s business, so the legality report can name every problem.

use std::fmt;

use super::{Color, Role, Square};

/// Castling flags as written in the FEN, in `KQkq` order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingFlags {
    /// `[color][0 = king side, 1 = queen side]`
    pub flags: [[bool; 2]; 2],
}

impl CastlingFlags {
    pub fn get(&self, color: Color, long: bool) -> bool {
        self.flags[color.index()][long as usize]
    }

    pub fn set(&mut self, color: Color, long: bool, on: bool) {
        self.flags[color.index()][long as usize] = on;
    }

    pub fn any(&self) -> bool {
        self.flags.iter().flatten().any(|&f| f)
    }
}

impl fmt::Display for CastlingFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.any() {
            return f.write_str("-");
        }
        for (c, color) in [
            ('K', Color::White),
            ('Q', Color::White),
            ('k', Color::Black),
            ('q', Color::Black),
        ] {
            if self.get(color, c.eq_ignore_ascii_case(&'q')) {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// The contents of a FEN record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub board: [Option<(Color, Role)>; 64],
    pub side_to_move: Color,
    pub castling: CastlingFlags,
    pub en_passant: Option<Square>,
    pub halfmove_clock: u32,
    pub fullmove_number: u32,
}

/// A FEN that cannot be read; names the field and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError {
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed FEN ({} field): {}", self.field, self.message)
    }
}

impl std::error::Error for FenError {}

fn err(field: &'static str, message: impl Into<String>) -> FenError {
    FenError {
        field,
        message: message.into(),
    }
}

impl Setup {
    pub fn piece_at(&self, sq: Square) -> Option<(Color, Role)> {
        self.board[sq.index()]
    }

    /// Parses a FEN with 6 fields, or 4 (clocks omitted).
    pub fn from_fen(fen: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(err("board", "the FEN is empty"));
        }
        if !(fields.len() == 4 || fields.len() == 6) {
            return Err(err(
                "record",
                format!(
                    "expected 6 fields (or 4 without the clocks), found {}",
                    fields.len()
                ),
            ));
        }
        let board = parse_board(fields[0])?;
        let side_to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(err(
                    "side to move",
                    format!("expected 'w' or 'b', found '{other}'"),
                ))
            }
        };
        let castling = parse_castling(fields[2])?;
        let en_passant = match fields[3] {
            "-" => None,
            s => match Square::parse(s) {
                Some(sq) => Some(sq),
                None => {
                    return Err(err(
                        "en passant",
                        format!("expected a square or '-', found '{s}'"),
                    ))
                }
            },
        };
        let (halfmove_clock, fullmove_number) = if fields.len() == 6 {
            let h = fields[4].parse::<u32>().map_err(|_| {
                err(
                    "halfmove clock",
                    format!("expected a number, found '{}'", fields[4]),
                )
            })?;
            let f = fields[5].parse::<u32>().map_err(|_| {
                err(
                    "fullmove number",
                    format!("expected a number, found '{}'", fields[5]),
                )
            })?;
            (h, f.max(1))
        } else {
            (0, 1)
        };
        Ok(Setup {
            board,
            side_to_move,
            castling,
            en_passant,
            halfmove_clock,
            fullmove_number,
        })
    }

    /// FEN text of this setup.
    pub fn to_fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.board[Square::new(file, rank).index()] {
                    None => empty += 1,
                    Some((color, role)) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        let c = role.san_char();
                        s.push(if color == Color::White {
                            c
                        } else {
                            c.to_ascii_lowercase()
                        });
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        let ep = self.en_passant.map_or("-".to_string(), |sq| sq.to_string());
        format!(
            "{s} {} {} {ep} {} {}",
            self.side_to_move.fen_char(),
            self.castling,
            self.halfmove_clock,
            self.fullmove_number
        )
    }
}

fn parse_board(text: &str) -> Result<[Option<(Color, Role)>; 64], FenError> {
    let mut board = [None; 64];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(err(
            "board",
            format!("expected 8 ranks separated by '/', found {}", ranks.len()),
        ));
    }
    for (i, row) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file: u8 = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(err(
                        "board",
                        format!("rank {}: '{c}' is not a count of empty squares", rank + 1),
                    ));
                }
                file += d as u8;
            } else {
                // FEN uses N for the knight; S is not FEN.
                let role = match c.to_ascii_lowercase() {
                    'n' => Role::Knight,
                    'p' | 'b' | 'r' | 'q' | 'k' => Role::from_char(c).expect("listed letters"),
                    _ => {
                        return Err(err(
                            "board",
                            format!("rank {}: '{c}' is not a piece letter", rank + 1),
                        ))
                    }
                };
                if file >= 8 {
                    return Err(err(
                        "board",
                        format!("rank {} has more than 8 squares", rank + 1),
                    ));
                }
                let color = if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                board[Square::new(file, rank).index()] = Some((color, role));
                file += 1;
            }
            if file > 8 {
                return Err(err(
                    "board",
                    format!("rank {} has more than 8 squares", rank + 1),
                ));
            }
        }
        if file != 8 {
            return Err(err(
                "board",
                format!("rank {} has {file} squares, not 8", rank + 1),
            ));
        }
    }
    Ok(board)
}

fn parse_castling(text: &str) -> Result<CastlingFlags, FenError> {
    let mut flags = CastlingFlags::default();
    if text == "-" {
        return Ok(flags);
    }
    for c in text.chars() {
        let (color, long) = match c {
            'K' => (Color::White, false),
            'Q' => (Color::White, true),
            'k' => (Color::Black, false),
            'q' => (Color::Black, true),
            _ => {
                return Err(err(
                    "castling",
                    format!("'{c}' is not a castling flag (use K, Q, k, q or '-')"),
                ))
            }
        };
        if flags.get(color, long) {
            return Err(err("castling", format!("flag '{c}' is given twice")));
        }
        flags.set(color, long, true);
    }
    Ok(flags)
}
