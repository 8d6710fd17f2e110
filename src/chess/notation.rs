//! Move notation: the problemists' long form Popeye prints, SAN, and UCI.

use super::{Move, MoveKind, Position};

/// Popeye's long algebraic form without check sign: `Sb6-d5`, `Rd8*d4`, `0-0`, `e5*d6 ep.`, `e7-e8=Q`.
pub fn long(_pos: &Position, mv: &Move) -> String {
    match mv.kind() {
        MoveKind::CastleShort => return "0-0".into(),
        MoveKind::CastleLong => return "0-0-0".into(),
        _ => {}
    }
    let mut s = String::new();
    if mv.role() != super::Role::Pawn {
        s.push(mv.role().problemist_char());
    }
    s.push_str(&mv.from().to_string());
    s.push(if mv.is_capture() { '*' } else { '-' });
    s.push_str(&mv.to().to_string());
    if let Some(p) = mv.promotion() {
        s.push('=');
        s.push(p.problemist_char());
    }
    if mv.kind() == MoveKind::EnPassant {
        s.push_str(" ep.");
    }
    s
}

/// Standard algebraic notation with `+` / `#`.
pub fn san(pos: &Position, mv: &Move) -> String {
    mv.uci() + &check_suffix(pos, mv)
}

/// `#` when the move mates, `+` when it checks, else empty.
pub fn check_suffix(pos: &Position, mv: &Move) -> String {
    let after = pos.play(mv);
    if after.is_check() {
        if after.has_legal_move() {
            "+".into()
        } else {
            "#".into()
        }
    } else {
        String::new()
    }
}
