//! Every special move in all three notations: Popeye's long form (with the check sign the
//! solver appends), SAN and UCI.

use stipula::chess::{notation, MoveKind, MoveList, Position};

/// `(fen, uci, long form + check suffix, san)`
const CASES: &[(&str, &str, &str, &str)] = &[
    // Castling, both sides, both colours.
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "0-0", "O-O"),
    (
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "e1c1",
        "0-0-0",
        "O-O-O",
    ),
    ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8", "0-0", "O-O"),
    (
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "e8c8",
        "0-0-0",
        "O-O-O",
    ),
    // Castling with check (the rook checks from f1 / d8).
    ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", "0-0+", "O-O+"),
    ("r3k3/8/8/8/8/8/8/3K4 b q - 0 1", "e8c8", "0-0-0+", "O-O-O+"),
    // Castling with mate.
    (
        "4rkr1/4p1p1/8/8/8/8/8/4K2R w K - 0 1",
        "e1g1",
        "0-0#",
        "O-O#",
    ),
    // En passant, both colours.
    (
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "e5d6",
        "e5*d6 ep.",
        "exd6",
    ),
    (
        "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1",
        "e4d3",
        "e4*d3 ep.",
        "exd3",
    ),
    // En passant uncovering the rook on a5.
    (
        "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1",
        "e5d6",
        "e5*d6 ep.+",
        "exd6+",
    ),
    // Promotion, under-promotion, capture-promotion, promotion with check.
    (
        "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1",
        "e7e8q",
        "e7-e8=Q+",
        "e8=Q+",
    ),
    (
        "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1",
        "e7e8r",
        "e7-e8=R+",
        "e8=R+",
    ),
    (
        "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1",
        "e7e8n",
        "e7-e8=S",
        "e8=N",
    ),
    (
        "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1",
        "e7e8b",
        "e7-e8=B",
        "e8=B",
    ),
    (
        "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1",
        "e7d8q",
        "e7*d8=Q+",
        "exd8=Q+",
    ),
    (
        "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1",
        "e7d8n",
        "e7*d8=S",
        "exd8=N",
    ),
    (
        "4k3/8/8/8/8/8/3p4/K7 b - - 0 1",
        "d2d1q",
        "d2-d1=Q+",
        "d1=Q+",
    ),
    (
        "4k3/8/8/8/8/8/3p4/K1N5 b - - 0 1",
        "d2c1n",
        "d2*c1=S",
        "dxc1=N",
    ),
    // Disambiguation by file, by rank, by both.
    (
        "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1",
        "b1d2",
        "Sb1-d2",
        "Nbd2",
    ),
    (
        "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1",
        "f3d2",
        "Sf3-d2",
        "Nfd2",
    ),
    ("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3", "Ra1-a3", "R1a3"),
    ("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a5a3", "Ra5-a3", "R5a3"),
    ("7K/8/8/8/4Q2Q/8/k7/7Q w - - 0 1", "h4e1", "Qh4-e1", "Qh4e1"),
    ("7K/8/8/8/4Q2Q/8/k7/7Q w - - 0 1", "e4e1", "Qe4-e1", "Qee1"),
    ("7K/8/8/8/4Q2Q/8/k7/7Q w - - 0 1", "h1e1", "Qh1-e1", "Q1e1"),
    // Disambiguation with a capture.
    (
        "4k3/8/8/8/3p4/8/2N1N3/4K3 w - - 0 1",
        "c2d4",
        "Sc2*d4",
        "Ncxd4",
    ),
    // A pinned rival needs no disambiguation.
    (
        "4k3/8/8/7K/8/5N2/8/1N1b4 w - - 0 1",
        "b1d2",
        "Sb1-d2",
        "Nd2",
    ),
    // Plain moves, captures, check and mate.
    ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "a1a8", "Ra1-a8+", "Ra8+"),
    (
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        "a1a8",
        "Ra1-a8#",
        "Ra8#",
    ),
    ("1n2k3/8/8/8/8/8/8/4K3 b - - 0 1", "b8c6", "Sb8-c6", "Nc6"),
    ("3rk3/8/8/8/3Q4/8/8/4K3 b - - 0 1", "d8d4", "Rd8*d4", "Rxd4"),
    ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e4", "e2-e4", "e4"),
    ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", "e4*d5", "exd5"),
    // Smothered mate by a knight.
    (
        "6rk/6pp/8/6N1/8/8/8/4K3 w - - 0 1",
        "g5f7",
        "Sg5-f7#",
        "Nf7#",
    ),
];

fn find(pos: &Position, uci: &str) -> stipula::chess::Move {
    pos.find_uci(uci)
        .unwrap_or_else(|| panic!("{uci} is not legal in {}", pos.to_fen()))
}

#[test]
fn special_moves_in_all_notations() {
    let mut failures = Vec::new();
    for &(fen, uci, long, san) in CASES {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mv = find(&pos, uci);
        assert_eq!(mv.uci(), uci);
        let got_long = notation::long(&pos, &mv) + &notation::check_suffix(&pos, &mv);
        let got_san = notation::san(&pos, &mv);
        if got_long != long || got_san != san {
            failures.push(format!(
                "{fen} {uci}: long {got_long:?} (want {long:?}), san {got_san:?} (want {san:?})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn move_kinds_are_classified() {
    let pos = Position::from_fen("r3k2r/8/8/3pP3/8/8/4P3/R3K2R w KQkq d6 0 1").unwrap();
    let kind = |uci: &str| find(&pos, uci).kind();
    assert_eq!(kind("e1g1"), MoveKind::CastleShort);
    assert_eq!(kind("e1c1"), MoveKind::CastleLong);
    assert_eq!(kind("e5d6"), MoveKind::EnPassant);
    assert_eq!(kind("e2e4"), MoveKind::DoubleStep);
    assert_eq!(kind("e2e3"), MoveKind::Normal);
    let ep = find(&pos, "e5d6");
    assert!(ep.is_capture());
    // Castling: the king's squares, not the rook's.
    let castle = find(&pos, "e1c1");
    assert_eq!(castle.from().to_string(), "e1");
    assert_eq!(castle.to().to_string(), "c1");
}

#[test]
fn check_suffix_is_empty_for_quiet_moves() {
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
    let mv = find(&pos, "a1a2");
    assert_eq!(notation::check_suffix(&pos, &mv), "");
}

/// SAN is unambiguous: no two legal moves of a position share it, over whole move trees.
#[test]
fn san_is_unique_among_legal_moves() {
    fn walk(pos: &Position, depth: u32, checked: &mut usize) {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut seen = std::collections::HashSet::new();
        for mv in list.iter() {
            let s = notation::san(pos, mv);
            assert!(
                seen.insert(s.clone()),
                "{} reads twice in {}",
                s,
                pos.to_fen()
            );
            let long = notation::long(pos, mv);
            assert!(
                !long.contains('N'),
                "{long}: Popeye writes S for the knight"
            );
            *checked += 1;
            if depth > 1 {
                walk(&pos.play(mv), depth - 1, checked);
            }
        }
    }
    let mut checked = 0;
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "7K/8/8/8/4Q2Q/8/k7/7Q w - - 0 1",
    ] {
        walk(&Position::from_fen(fen).unwrap(), 2, &mut checked);
    }
    assert!(checked > 1000);
}
