//! Move notation: the problemists' long form Popeye prints, SAN, and UCI.

use super::{Move, MoveKind, MoveList, Position, Role};

/// Popeye's long algebraic form without check sign: `Sb6-d5`, `Rd8*d4`, `0-0`, `e5*d6 ep.`, `e7-e8=Q`.
pub fn long(_pos: &Position, mv: &Move) -> String {
    match mv.kind() {
        MoveKind::CastleShort => return "0-0".into(),
        MoveKind::CastleLong => return "0-0-0".into(),
        _ => {}
    }
    let mut s = String::new();
    if mv.role() != Role::Pawn {
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

/// Standard algebraic notation with `+` / `#`: `Nbd7`, `R1e2`, `Qh4xe1`, `exd6` (also for
/// e.p.), `e8=Q`, `O-O`, `O-O-O`. Disambiguation (file, else rank, else both) is computed from
/// the legal moves of `pos`.
pub fn san(pos: &Position, mv: &Move) -> String {
    let mut s = match mv.kind() {
        MoveKind::CastleShort => "O-O".to_string(),
        MoveKind::CastleLong => "O-O-O".to_string(),
        _ if mv.role() == Role::Pawn => {
            let mut s = String::new();
            if mv.is_capture() {
                s.push(mv.from().file_char());
                s.push('x');
            }
            s.push_str(&mv.to().to_string());
            if let Some(p) = mv.promotion() {
                s.push('=');
                s.push(p.san_char());
            }
            s
        }
        _ => {
            let mut s = String::new();
            s.push(mv.role().san_char());
            s.push_str(&disambiguation(pos, mv));
            if mv.is_capture() {
                s.push('x');
            }
            s.push_str(&mv.to().to_string());
            s
        }
    };
    s.push_str(&check_suffix(pos, mv));
    s
}

/// What SAN adds after the piece letter so that no other legal move of the same kind of piece
/// to the same square reads the same: nothing, the file, the rank, or both.
fn disambiguation(pos: &Position, mv: &Move) -> String {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let from = mv.from();
    let rivals = list
        .iter()
        .filter(|m| m.role() == mv.role() && m.to() == mv.to() && !m.is_castle())
        .filter(|m| m.from() != from);
    let (mut any, mut same_file, mut same_rank) = (false, false, false);
    for m in rivals {
        any = true;
        same_file |= m.from().file() == from.file();
        same_rank |= m.from().rank() == from.rank();
    }
    match (any, same_file, same_rank) {
        (false, _, _) => String::new(),
        (true, false, _) => from.file_char().to_string(),
        (true, true, false) => from.rank_char().to_string(),
        (true, true, true) => from.to_string(),
    }
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
