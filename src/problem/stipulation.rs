//! Stipulations in the notation composers write: `#3`, `=2`, `s#2`, `r#2`, `h#2`, `h#2.5`,
//! `h=3`, `ser-#5`, `ser-h#7`, `ser-s#4`, `ser-r#3`, `ser-=6`, `ser-h=8`.

use std::fmt;
use std::str::FromStr;

use crate::chess::Color;

/// Longest stipulation accepted: beyond this an exhaustive proof is hopeless and the request is
/// almost certainly a typo.
pub const MAX_MOVES: u32 = 30;

/// Series movers are legitimately much longer (the corpus has a ser-=65).
pub const MAX_SERIES_MOVES: u32 = 100;

/// What the last move must achieve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aim {
    /// `#`: checkmate.
    Mate,
    /// `=`: stalemate.
    Stalemate,
}

impl Aim {
    pub fn symbol(self) -> &'static str {
        match self {
            Aim::Mate => "#",
            Aim::Stalemate => "=",
        }
    }
}

/// How the goal of a series is reached after the series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeriesEnd {
    /// `ser-#n`: the series side's own last move reaches the aim.
    Direct,
    /// `ser-h#n`: the other side then reaches the aim in one move.
    Help,
    /// `ser-s#n`: the other side is then forced to reach the aim against the series side.
    SelfPlay,
    /// `ser-r#n`: as ser-s#, with the reflex condition on the final move.
    Reflex,
}

/// Families of stipulation, by who cooperates with whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Direct play `#n`, `=n`: the attacker forces the aim against every defence.
    Direct,
    /// Self play `s#n`, `s=n`: the attacker forces the defender to reach the aim against him.
    SelfPlay,
    /// Reflex play `r#n`: as self play, but either side that can reach the aim in one must.
    Reflex,
    /// Help play `h#n`, `h#n.5`: both sides cooperate.
    Help,
    /// Series play: one side makes n moves in a row.
    Series(SeriesEnd),
}

/// A parsed stipulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stipulation {
    pub family: Family,
    pub aim: Aim,
    /// The number of moves n.
    pub moves: u32,
    /// Help play only: `h#n.5`, an extra half move with White starting.
    pub half: bool,
}

/// Why a stipulation was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StipulationError {
    /// Not a stipulation this solver knows how to read.
    Unknown(String),
    /// Known notation, but a length that is zero or beyond `MAX_MOVES`.
    BadLength(String),
    /// The side to move in the position cannot start this stipulation.
    WrongSideToMove(String),
    /// A stipulation composers use (Popeye knows it) that this solver does not solve yet.
    Unsupported(String),
}

/// Stipulations of Popeye's beyond the orthodox families solved here, by how they start:
/// (prefix, what composers call it).
const UNSUPPORTED_FAMILIES: [(&str, &str); 9] = [
    ("ser-hs", "series help-selfplay"),
    ("ser-hr", "series help-reflex play"),
    ("pser-", "parry series"),
    ("phser-", "parry series help play"),
    ("hs", "help-selfplay"),
    ("hr", "help-reflex play"),
    ("semi-r", "semi-reflex play"),
    ("dia", "proof games"),
    ("a=>b", "proof games from a given position"),
];

/// Aims other than mate and stalemate (after the family prefix), by their symbol.
const UNSUPPORTED_AIMS: [(&str, &str); 9] = [
    ("==", "double stalemate"),
    ("##", "double mate"),
    ("00", "castling"),
    ("ep", "en passant capture"),
    ("%", "counter-mate"),
    ("+", "check"),
    ("x", "capture"),
    ("~", "any move"),
    ("z", "promotion"),
];

/// `Some(error)` when `text` is a stipulation Popeye knows but this solver does not solve.
fn unsupported(text: &str) -> Option<StipulationError> {
    let t = text.trim();
    let not_yet = |what: &str| {
        Some(StipulationError::Unsupported(format!(
            "'{text}': {what} is not supported yet; supported are #n, =n, s#n, s=n, r#n, h#n, h=n, h#n.5, ser-#n, ser-=n, ser-h#n, ser-h=n, ser-s#n, ser-r#n"
        )))
    };
    if let Some(&(_, what)) = UNSUPPORTED_FAMILIES.iter().find(|(p, _)| t.starts_with(p)) {
        return not_yet(what);
    }
    let rest = t.strip_prefix("ser-").unwrap_or(t);
    let rest = rest.strip_prefix(['h', 's', 'r']).unwrap_or(rest);
    let starts_with_number = |s: &str| s.bytes().next().is_some_and(|b| b.is_ascii_digit());
    UNSUPPORTED_AIMS
        .iter()
        .find(|(aim, _)| rest.strip_prefix(aim).is_some_and(starts_with_number))
        .and_then(|&(_, what)| not_yet(&format!("the aim {what}")))
}

impl fmt::Display for StipulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StipulationError::Unknown(s)
            | StipulationError::BadLength(s)
            | StipulationError::WrongSideToMove(s)
            | StipulationError::Unsupported(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for StipulationError {}

impl FromStr for Stipulation {
    type Err = StipulationError;

    fn from_str(text: &str) -> Result<Stipulation, StipulationError> {
        if let Some(e) = unsupported(text) {
            return Err(e);
        }
        let t = text.trim();
        let unknown = || {
            StipulationError::Unknown(format!(
                "unknown stipulation '{text}': expected e.g. #3, =2, s#2, r#2, h#2, h#2.5, h=3, ser-#5, ser-h#7, ser-s#4, ser-r#3, ser-=6, ser-h=8"
            ))
        };
        let (series, rest) = match t.strip_prefix("ser-") {
            Some(r) => (true, r),
            None => (false, t),
        };
        let (prefix, rest) = match rest.as_bytes().first() {
            Some(b'h' | b's' | b'r') => (Some(rest.as_bytes()[0]), &rest[1..]),
            _ => (None, rest),
        };
        let (aim, number) = if let Some(n) = rest.strip_prefix('#') {
            (Aim::Mate, n)
        } else if let Some(n) = rest.strip_prefix('=') {
            (Aim::Stalemate, n)
        } else {
            return Err(unknown());
        };
        let (digits, half) = match number.strip_suffix(".5") {
            Some(d) => (d, true),
            None => (number, false),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unknown());
        }
        let family = match (series, prefix) {
            (false, None) => Family::Direct,
            (false, Some(b's')) => Family::SelfPlay,
            (false, Some(b'r')) => Family::Reflex,
            (false, Some(b'h')) => Family::Help,
            (true, None) => Family::Series(SeriesEnd::Direct),
            (true, Some(b'h')) => Family::Series(SeriesEnd::Help),
            (true, Some(b's')) => Family::Series(SeriesEnd::SelfPlay),
            (true, Some(b'r')) => Family::Series(SeriesEnd::Reflex),
            _ => return Err(unknown()),
        };
        if half && family != Family::Help {
            return Err(StipulationError::Unknown(format!(
                "'{text}': only help play (h#n.5, h=n.5) has half moves"
            )));
        }
        // Series movers are legitimately much longer (the corpus has a ser-=65).
        let limit = if series { MAX_SERIES_MOVES } else { MAX_MOVES };
        let moves: u32 = digits.parse().map_err(|_| {
            StipulationError::BadLength(format!(
                "'{text}': {digits} moves is beyond the limit of {limit}"
            ))
        })?;
        if moves > limit {
            return Err(StipulationError::BadLength(format!(
                "'{text}': {moves} moves is beyond the limit of {limit}"
            )));
        }
        if moves == 0 && !(half && family == Family::Help) {
            return Err(StipulationError::BadLength(format!(
                "'{text}': the number of moves must be at least 1"
            )));
        }
        Ok(Stipulation {
            family,
            aim,
            moves,
            half,
        })
    }
}

impl fmt::Display for Stipulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.family {
            Family::Direct => "",
            Family::SelfPlay => "s",
            Family::Reflex => "r",
            Family::Help => "h",
            Family::Series(SeriesEnd::Direct) => "ser-",
            Family::Series(SeriesEnd::Help) => "ser-h",
            Family::Series(SeriesEnd::SelfPlay) => "ser-s",
            Family::Series(SeriesEnd::Reflex) => "ser-r",
        };
        write!(
            f,
            "{prefix}{}{}{}",
            self.aim.symbol(),
            self.moves,
            if self.half { ".5" } else { "" }
        )
    }
}

impl Stipulation {
    /// Help play with White to start (`h#n.5`) versus Black; every other family starts with the
    /// side to move, normally White.
    pub fn check_side_to_move(&self, side: Color) -> Result<(), StipulationError> {
        if self.family != Family::Help {
            return Ok(());
        }
        match (self.half, side) {
            (false, Color::White) => Err(StipulationError::WrongSideToMove(format!(
                "{self} starts with Black, but the position has White to move; for White to start use {}{}{}.5",
                "h",
                self.aim.symbol(),
                self.moves.saturating_sub(1)
            ))),
            (true, Color::Black) => Err(StipulationError::WrongSideToMove(format!(
                "{self} starts with White, but the position has Black to move; for Black to start use h{}{}",
                self.aim.symbol(),
                self.moves + 1
            ))),
            _ => Ok(()),
        }
    }

    /// Total number of single moves (plies) the stipulation plays at most.
    pub fn plies(&self) -> u32 {
        match self.family {
            Family::Help => 2 * self.moves + self.half as u32,
            Family::Direct => 2 * self.moves - 1,
            Family::SelfPlay | Family::Reflex => 2 * self.moves,
            Family::Series(SeriesEnd::Direct) => self.moves,
            Family::Series(_) => self.moves + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_but_unsupported_stipulations_say_so() {
        for (text, what) in [
            ("hs#2", "help-selfplay"),
            ("hr#3", "help-reflex"),
            ("ser-hs#4", "series help-selfplay"),
            ("pser-h#3", "parry series"),
            ("dia5.5", "proof games"),
            ("semi-r#2", "semi-reflex"),
            ("h==2", "double stalemate"),
            ("h##3", "double mate"),
            ("h002", "castling"),
            ("hep1", "en passant"),
            ("h~1", "any move"),
            ("ser-z5", "promotion"),
            ("%2", "counter-mate"),
        ] {
            match text.parse::<Stipulation>() {
                Err(StipulationError::Unsupported(m)) => {
                    assert!(m.contains(what) && m.contains(text), "{text}: {m}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        for text in ["hq#2", "#", "ser-", "h=x", "xyz"] {
            assert!(
                matches!(
                    text.parse::<Stipulation>(),
                    Err(StipulationError::Unknown(_))
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn parses_every_family() {
        for (text, family, aim, moves, half) in [
            ("#3", Family::Direct, Aim::Mate, 3, false),
            ("=2", Family::Direct, Aim::Stalemate, 2, false),
            ("s#2", Family::SelfPlay, Aim::Mate, 2, false),
            ("s=4", Family::SelfPlay, Aim::Stalemate, 4, false),
            ("r#2", Family::Reflex, Aim::Mate, 2, false),
            ("h#2", Family::Help, Aim::Mate, 2, false),
            ("h#2.5", Family::Help, Aim::Mate, 2, true),
            ("h=0.5", Family::Help, Aim::Stalemate, 0, true),
            (
                "ser-#5",
                Family::Series(SeriesEnd::Direct),
                Aim::Mate,
                5,
                false,
            ),
            (
                "ser-h#7",
                Family::Series(SeriesEnd::Help),
                Aim::Mate,
                7,
                false,
            ),
            (
                "ser-s#4",
                Family::Series(SeriesEnd::SelfPlay),
                Aim::Mate,
                4,
                false,
            ),
            (
                "ser-r#3",
                Family::Series(SeriesEnd::Reflex),
                Aim::Mate,
                3,
                false,
            ),
            (
                "ser-=6",
                Family::Series(SeriesEnd::Direct),
                Aim::Stalemate,
                6,
                false,
            ),
            (
                "ser-h=8",
                Family::Series(SeriesEnd::Help),
                Aim::Stalemate,
                8,
                false,
            ),
        ] {
            let s: Stipulation = text.parse().unwrap();
            assert_eq!(
                (s.family, s.aim, s.moves, s.half),
                (family, aim, moves, half),
                "{text}"
            );
            assert_eq!(s.to_string(), text);
        }
    }

    #[test]
    fn rejects_nonsense_with_named_reason() {
        for bad in ["", "#", "x#2", "#2.5", "h#", "#-1", "ser-x#2", "hh#2", "#0"] {
            assert!(bad.parse::<Stipulation>().is_err(), "{bad}");
        }
        assert!(matches!(
            "#99".parse::<Stipulation>(),
            Err(StipulationError::BadLength(_))
        ));
        assert!(matches!(
            "#99999999999999".parse::<Stipulation>(),
            Err(StipulationError::BadLength(_))
        ));
    }

    #[test]
    fn help_play_side_to_move_is_checked() {
        let h2: Stipulation = "h#2".parse().unwrap();
        let e = h2.check_side_to_move(Color::White).unwrap_err().to_string();
        assert!(e.contains("h#1.5"), "{e}");
        assert!(h2.check_side_to_move(Color::Black).is_ok());
        let h25: Stipulation = "h#2.5".parse().unwrap();
        assert!(h25
            .check_side_to_move(Color::Black)
            .unwrap_err()
            .to_string()
            .contains("h#3"));
    }
}
