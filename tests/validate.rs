//! Composition-aware legality: every rule has illegal positions that must be reported with the
//! specific reason, legal problem positions must be accepted, and malformed FENs name the field.

use stipula::chess::{validate, Color, Illegality, Position, Setup, Square};

fn sq(s: &str) -> Square {
    Square::parse(s).expect("square")
}

fn report(fen: &str) -> stipula::chess::ValidationReport {
    validate(&Setup::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}")))
}

/// `(fen, expected problem)`: the problem must be among the reported ones.
fn illegal_cases() -> Vec<(&'static str, Illegality)> {
    use Color::{Black, White};
    use Illegality::*;
    vec![
        // Kings.
        (
            "8/8/8/8/8/8/8/4K3 w - - 0 1",
            KingCount {
                color: Black,
                count: 0,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/K3K3 b - - 0 1",
            KingCount {
                color: White,
                count: 2,
            },
        ),
        // Pawns on the first or last rank.
        (
            "4k2P/8/8/8/8/8/8/4K3 b - - 0 1",
            PawnOnBackRank {
                color: White,
                square: sq("h8"),
            },
        ),
        (
            "4k3/8/8/8/8/8/8/p3K3 w - - 0 1",
            PawnOnBackRank {
                color: Black,
                square: sq("a1"),
            },
        ),
        (
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            PawnOnBackRank {
                color: White,
                square: sq("a1"),
            },
        ),
        // Material.
        (
            "4k3/8/8/8/PPPPPPPP/NNNNNNNN/8/4K3 b - - 0 1",
            TooManyMen {
                color: White,
                count: 17,
            },
        ),
        (
            "4k3/8/8/P7/PPPPPPPP/8/8/4K3 w - - 0 1",
            TooManyPawns {
                color: White,
                count: 9,
            },
        ),
        (
            "4k3/8/8/8/8/8/PPPPPPP1/QQQ1K3 w - - 0 1",
            TooManyPromoted {
                color: White,
                excess: 2,
                pawns: 7,
            },
        ),
        // Two bishops on dark squares with all pawns on the board.
        (
            "4k3/pppppppp/8/8/8/8/8/b1b1K3 w - - 0 1",
            TooManyPromoted {
                color: Black,
                excess: 1,
                pawns: 8,
            },
        ),
        (
            "4k3/pppppppp/8/8/8/8/8/nnn1K3 w - - 0 1",
            TooManyPromoted {
                color: Black,
                excess: 1,
                pawns: 8,
            },
        ),
        (
            "rr2k3/pppppppp/8/8/8/8/r7/4K3 w - - 0 1",
            TooManyPromoted {
                color: Black,
                excess: 1,
                pawns: 8,
            },
        ),
        // The side not to move in check.
        (
            "8/8/8/4k3/4K3/8/8/8 w - - 0 1",
            KingsAdjacent {
                white: sq("e4"),
                black: sq("e5"),
            },
        ),
        (
            "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
            NotToMoveInCheck {
                color: Black,
                checkers: vec![sq("e1")],
            },
        ),
        (
            "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1",
            NotToMoveInCheck {
                color: White,
                checkers: vec![sq("d2")],
            },
        ),
        // Impossible checks on the side to move.
        (
            "b3r2k/8/5n2/8/4K3/8/8/8 w - - 0 1",
            TooManyCheckers {
                color: White,
                checkers: vec![sq("f6"), sq("a8"), sq("e8")],
            },
        ),
        (
            "4k3/8/3n1n2/8/4K3/8/8/8 w - - 0 1",
            ImpossibleDoubleCheck {
                color: White,
                checkers: [sq("d6"), sq("f6")],
            },
        ),
        (
            "4k3/8/8/3p1p2/4K3/8/8/8 w - - 0 1",
            ImpossibleDoubleCheck {
                color: White,
                checkers: [sq("d5"), sq("f5")],
            },
        ),
        (
            "4k3/8/5n2/3p4/4K3/8/8/8 w - - 0 1",
            ImpossibleDoubleCheck {
                color: White,
                checkers: [sq("d5"), sq("f6")],
            },
        ),
        // Two rooks on the same line through the king.
        (
            "4r2k/8/8/8/4K3/8/8/4r3 w - - 0 1",
            ImpossibleDoubleCheck {
                color: White,
                checkers: [sq("e1"), sq("e8")],
            },
        ),
        // Rook and bishop where neither can have uncovered the other.
        (
            "b3r2k/8/8/8/4K3/8/8/8 w - - 0 1",
            ImpossibleDoubleCheck {
                color: White,
                checkers: [sq("a8"), sq("e8")],
            },
        ),
        // Rook and knight: the knight could not have come from the rook's line.
        (
            "4r2k/8/8/8/4K3/8/5n2/8 w - - 0 1",
            ImpossibleDoubleCheck {
                color: White,
                checkers: [sq("f2"), sq("e8")],
            },
        ),
        // Castling flags.
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            CastlingFlag {
                color: White,
                long: false,
                king_missing: false,
                rook_missing: true,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/R2K3R w Q - 0 1",
            CastlingFlag {
                color: White,
                long: true,
                king_missing: true,
                rook_missing: false,
            },
        ),
        (
            "r6k/8/8/8/8/8/8/4K3 w q - 0 1",
            CastlingFlag {
                color: Black,
                long: true,
                king_missing: true,
                rook_missing: false,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w k - 0 1",
            CastlingFlag {
                color: Black,
                long: false,
                king_missing: false,
                rook_missing: true,
            },
        ),
        // En passant.
        (
            "4k3/8/8/8/3pP3/8/8/4K3 w - d3 0 1",
            EpWrongRank {
                square: sq("d3"),
                side_to_move: White,
            },
        ),
        (
            "4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1",
            EpNoPawn {
                square: sq("d6"),
                pawn_square: sq("d5"),
                pawn_color: Black,
            },
        ),
        (
            "4k3/8/8/8/4p3/8/8/4K3 b - d3 0 1",
            EpNoPawn {
                square: sq("d3"),
                pawn_square: sq("d4"),
                pawn_color: White,
            },
        ),
        (
            "4k3/8/3n4/3pP3/8/8/8/4K3 w - d6 0 1",
            EpSquareOccupied { square: sq("d6") },
        ),
        (
            "4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 1",
            EpOriginOccupied {
                square: sq("d6"),
                origin: sq("d7"),
            },
        ),
        // Before d7-d5 the pawn on d7 attacked the white king on e6.
        (
            "4k3/8/4K3/3pP3/8/8/8/8 w - d6 0 1",
            EpRetractionCheck {
                square: sq("d6"),
                from: sq("d7"),
                to: sq("d5"),
                checked: White,
            },
        ),
        // The rook's check did not come from d7-d5.
        (
            "4k3/8/8/3pP3/8/8/8/r3K3 w - d6 0 1",
            EpRetractionCheck {
                square: sq("d6"),
                from: sq("d7"),
                to: sq("d5"),
                checked: White,
            },
        ),
        (
            "R3k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1",
            EpRetractionCheck {
                square: sq("d3"),
                from: sq("d2"),
                to: sq("d4"),
                checked: Black,
            },
        ),
    ]
}

#[test]
fn each_rule_reports_its_illegality() {
    let mut failures = Vec::new();
    for (fen, expected) in illegal_cases() {
        let r = report(fen);
        if !r.problems.contains(&expected) {
            failures.push(format!(
                "{fen}: expected {expected:?}, got {:?}",
                r.problems
            ));
        }
        // An illegal setup never becomes a Position.
        assert!(Position::from_fen(fen).is_err(), "{fen} built a position");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_texts_name_the_problem_plainly() {
    let cases = [
        (
            "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
            "Black is in check but White is to move",
        ),
        (
            "4k2P/8/8/8/8/8/8/4K3 b - - 0 1",
            "white pawn on h8 (pawns cannot stand on the first or last rank)",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            "castling flag 'K': the white rook is not on h1",
        ),
        (
            "4k3/8/8/8/8/8/8/R2K3R w Q - 0 1",
            "castling flag 'Q': the white king is not on e1",
        ),
        (
            "8/8/8/4k3/4K3/8/8/8 w - - 0 1",
            "the kings stand next to each other",
        ),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", "Black has no king"),
        (
            "4k3/8/3n1n2/8/4K3/8/8/8 w - - 0 1",
            "White is in double check from d6 and f6, which no single Black move could have given",
        ),
        (
            "4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1",
            "e.p. square d6: there is no black pawn on d5",
        ),
        (
            "4k3/8/4K3/3pP3/8/8/8/8 w - d6 0 1",
            "before d7-d5 White would have been in check with Black to move",
        ),
    ];
    for (fen, text) in cases {
        let r = report(fen);
        let texts: Vec<String> = r.problems.iter().map(|p| p.to_string()).collect();
        assert!(
            texts.iter().any(|t| t.contains(text)),
            "{fen}: no problem text contains {text:?}: {texts:?}"
        );
        // The position error lists the same reasons.
        let err = Position::from_fen(fen).unwrap_err().to_string();
        assert!(err.contains(text), "{fen}: {err}");
    }
}

#[test]
fn several_problems_are_all_reported() {
    use Color::White;
    // No white king, a pawn on h8, a castling flag without king or rook, an e.p. square on the
    // wrong rank.
    let r = report("4k2P/8/8/8/8/8/8/8 w K d3 0 1");
    let expected = [
        Illegality::KingCount {
            color: White,
            count: 0,
        },
        Illegality::PawnOnBackRank {
            color: White,
            square: sq("h8"),
        },
        Illegality::CastlingFlag {
            color: White,
            long: false,
            king_missing: true,
            rook_missing: true,
        },
        Illegality::EpWrongRank {
            square: sq("d3"),
            side_to_move: White,
        },
    ];
    for e in &expected {
        assert!(r.problems.contains(e), "missing {e:?} in {:?}", r.problems);
    }
    assert_eq!(r.problems.len(), expected.len(), "{:?}", r.problems);
    assert!(!r.castling.any());
    assert_eq!(r.en_passant, None);

    // The side not to move in check, kings side by side and an e.p. square that is occupied
    // and lacks its pawn.
    let r = report("8/8/3n4/8/8/8/R3k3/4K3 w - d6 0 1");
    assert!(r
        .problems
        .iter()
        .any(|p| matches!(p, Illegality::KingsAdjacent { .. })));
    assert!(r
        .problems
        .iter()
        .any(|p| matches!(p, Illegality::NotToMoveInCheck { .. })));
    assert!(r
        .problems
        .iter()
        .any(|p| matches!(p, Illegality::EpNoPawn { .. })));
    assert!(r
        .problems
        .iter()
        .any(|p| matches!(p, Illegality::EpSquareOccupied { .. })));
}

const LEGAL: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // Lone kings, either side to move.
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "8/8/8/8/8/8/k7/7K b - - 0 1",
    // Promoted pieces the missing pawns allow: three queens with six pawns, three rooks, two
    // light-squared bishops, no pawns at all with a full set of pieces.
    "4k3/8/8/8/8/8/PPPPPP2/QQQ1K3 w - - 0 1",
    "4k3/8/8/8/8/8/PPPPPPP1/RRR1K3 w - - 0 1",
    "4k3/8/8/8/8/8/1PPPPPPP/1B1BK3 w - - 0 1",
    "rnbqkbnr/8/8/8/8/8/8/RNBQKBNR w KQkq - 0 1",
    "6bk/6pp/8/8/8/8/QQQQQQQQ/QK6 b - - 0 1",
    // Castling and e.p. together.
    "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
    "r3k2r/8/8/8/3Pp3/8/8/R3K2R b KQkq d3 0 1",
    // e.p. square without a pawn that could capture: still a legal last move.
    "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1",
    // d7-d5 uncovered the queen's check on e8.
    "4K3/8/8/3pP3/q7/8/8/7k w - d6 0 1",
    // The double-stepping pawn gives check.
    "8/8/8/3p4/4K3/8/8/7k w - d6 0 1",
    // Legal double checks: a knight uncovering a rook, a rook uncovering a bishop.
    "4r2k/8/8/2n5/4K3/8/8/8 w - - 0 1",
    "7k/8/8/8/3rK3/8/8/1b6 w - - 0 1",
    // A capture-promotion to a knight uncovering the rook on a7 (only e7xf8=S explains it).
    "5N2/R6k/8/8/8/8/8/K7 b - - 0 1",
    // An e.p. capture uncovering two line pieces (only d5xe6 ep. explains it).
    "7K/8/3kP3/8/8/8/7B/3R4 b - - 0 1",
    // Castling with check from the rook.
    "5k2/8/8/8/8/8/8/5RK1 b - - 0 1",
    // A check by a pawn that just stepped.
    "8/8/8/8/2k5/1P6/8/7K b - - 0 1",
    // A single check that cannot have arisen (the pawn never moved): Popeye accepts it, and so
    // do we; only double and triple checks are tested by retraction.
    "8/8/8/8/8/2k5/1P6/7K b - - 0 1",
];

#[test]
fn legal_composition_positions_are_accepted() {
    for fen in LEGAL {
        let r = report(fen);
        assert!(r.is_legal(), "{fen}: {:?}", r.problems);
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(
            pos.side_to_move(),
            Setup::from_fen(fen).unwrap().side_to_move
        );
    }
}

#[test]
fn granted_rights_and_assumptions() {
    let fen = "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1";
    let r = report(fen);
    assert!(r.is_legal());
    for color in Color::ALL {
        for long in [false, true] {
            assert!(r.castling.get(color, long));
        }
    }
    assert_eq!(r.en_passant, Some(sq("d6")));
    for text in [
        "White may castle king-side (0-0)",
        "White may castle queen-side (0-0-0)",
        "Black may castle king-side (0-0)",
        "Black may castle queen-side (0-0-0)",
        "e.p. capture on d6 is available (last move d7-d5)",
    ] {
        assert!(
            r.assumptions.iter().any(|a| a == text),
            "missing {text:?} in {:?}",
            r.assumptions
        );
    }
    let pos = Position::from_fen(fen).unwrap();
    assert_eq!(pos.ep_target(), Some(sq("d6")));
    assert!(pos.find_uci("e5d6").is_some());
    assert!(pos.find_uci("e1g1").is_some());
    assert!(pos.find_uci("e1c1").is_some());

    let r = report("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert!(r.assumptions.iter().any(|a| a == "no castling rights"));
    assert!(!r.castling.any());
    assert_eq!(r.en_passant, None);

    // Accepted but unusable e.p. right.
    let r = report("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1");
    assert_eq!(r.en_passant, Some(sq("d6")));
    assert!(
        r.assumptions
            .iter()
            .any(|a| a.contains("no e.p. capture on d6 is possible")),
        "{:?}",
        r.assumptions
    );

    // A pinned capturer cannot take e.p.
    let r = report("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1");
    assert!(r.is_legal(), "{:?}", r.problems);
    assert!(r
        .assumptions
        .iter()
        .any(|a| a.contains("no e.p. capture on d6 is possible")));
    assert_eq!(
        Position::from_fen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
            .unwrap()
            .ep_target(),
        None
    );
}

#[test]
fn malformed_fens_name_the_field() {
    let cases = [
        ("", "board"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "board"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
            "board",
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "board",
        ),
        (
            "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "board",
        ),
        (
            "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "board",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "side to move",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KX - 0 1",
            "castling",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1",
            "castling",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
            "en passant",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
            "halfmove clock",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 y",
            "fullmove number",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
            "record",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
            "record",
        ),
    ];
    for (fen, field) in cases {
        let e = Setup::from_fen(fen).expect_err(fen);
        assert_eq!(e.field, field, "{fen}: {e}");
        assert!(e.to_string().contains(field), "{fen}: {e}");
        let pe = Position::from_fen(fen).expect_err(fen);
        assert!(pe.to_string().contains(field), "{fen}: {pe}");
    }
}

/// Corpus facts: problems Popeye solved are legal; the ones it refused are not.
#[test]
fn corpus_positions() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/popeye-examples.jsonl"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("SKIPPED: ../shared/corpus/popeye-examples.jsonl not found");
        return;
    };
    let (mut legal, mut illegal) = (0, 0);
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("corpus line is JSON");
        let id = v["id"].as_str().unwrap_or("?");
        let fen = v["fen"].as_str().expect("fen");
        let expect_illegal = v["illegal"].as_bool().unwrap_or(false);
        let r = report(fen);
        if expect_illegal {
            illegal += 1;
            if r.is_legal() {
                failures.push(format!(
                    "{id} {fen}: accepted, but the side not to move is in check"
                ));
            }
        } else {
            legal += 1;
            if !r.is_legal() {
                failures.push(format!("{id} {fen}: rejected: {:?}", r.problems));
            } else if let Err(e) = Position::from_fen(fen) {
                failures.push(format!("{id} {fen}: validated but not built: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(legal > 0 && illegal > 0, "{legal} legal, {illegal} illegal");
    eprintln!("corpus: {legal} legal and {illegal} illegal positions checked");
}

/// Soundness: every position reached by legal play from real positions validates as legal, with
/// the e.p. field set after every double step (usable or not), and builds again.
#[test]
fn positions_reached_in_play_are_legal() {
    use stipula::chess::{MoveKind, MoveList};
    fn walk(pos: &Position, depth: u32, seen: &mut u64, failures: &mut Vec<String>) {
        if depth == 0 {
            return;
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for mv in list.iter() {
            let after = pos.play(mv);
            let mut setup = after.to_setup();
            if mv.kind() == MoveKind::DoubleStep {
                let passed = Square::new(mv.from().file(), (mv.from().rank() + mv.to().rank()) / 2);
                setup.en_passant = Some(passed);
            }
            *seen += 1;
            let r = validate(&setup);
            if !r.is_legal() {
                failures.push(format!(
                    "{} after {}: {:?}",
                    setup.to_fen(),
                    mv.uci(),
                    r.problems
                ));
            } else if setup.en_passant.is_some() && r.en_passant != setup.en_passant {
                failures.push(format!("{}: e.p. field dropped", setup.to_fen()));
            } else if Position::from_setup(&setup).is_err() {
                failures.push(format!("{}: validated but not built", setup.to_fen()));
            }
            if failures.len() > 20 {
                return;
            }
            walk(&after, depth - 1, seen, failures);
        }
    }
    let starts = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            3,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            2,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            3,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            2,
        ),
        ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 4),
        ("8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 3),
        ("2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 4),
    ];
    let mut seen = 0;
    let mut failures = Vec::new();
    for (fen, depth) in starts {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        walk(&pos, depth, &mut seen, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(seen > 10_000, "{seen}");
}

/// Whatever validates must build: random setups (with plausible e.p. fields and castling flags)
/// accepted by `validate` are accepted by the board builder too.
#[test]
fn validated_random_setups_build() {
    use stipula::chess::{CastlingFlags, Role};
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rand = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let roles = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ];
    let (mut legal, mut with_ep, mut with_castling) = (0, 0, 0);
    for _ in 0..200_000 {
        let mut board = [None; 64];
        for color in Color::ALL {
            let back = if color == Color::White { 0 } else { 7 };
            // Often king and rooks at home, so that castling flags can be granted.
            if rand(3) == 0 {
                board[Square::new(4, back).index()] = Some((color, Role::King));
                for f in [0, 7] {
                    if rand(2) == 0 {
                        board[Square::new(f, back).index()] = Some((color, Role::Rook));
                    }
                }
                continue;
            }
            loop {
                let s = rand(64) as usize;
                if board[s].is_none() {
                    board[s] = Some((color, Role::King));
                    break;
                }
            }
        }
        for _ in 0..rand(10) {
            let s = rand(64) as usize;
            if board[s].is_none() {
                let color = if rand(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                board[s] = Some((color, roles[rand(5) as usize]));
            }
        }
        let side_to_move = if rand(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut castling = CastlingFlags::default();
        for color in Color::ALL {
            for long in [false, true] {
                castling.set(color, long, rand(3) == 0);
            }
        }
        // An e.p. square on the right rank half the time, with the pawn in front of it.
        let en_passant = if rand(2) == 0 {
            let rank = if side_to_move == Color::White { 5 } else { 2 };
            let ep = Square::new(rand(8) as u8, rank);
            let pawn_rank = if side_to_move == Color::White { 4 } else { 3 };
            let pawn = Square::new(ep.file(), pawn_rank);
            if board[pawn.index()].map(|(_, r)| r) != Some(Role::King) {
                board[pawn.index()] = Some((!side_to_move, Role::Pawn));
            }
            if rand(2) == 0 {
                let f = ep.file() as i8 + if rand(2) == 0 { 1 } else { -1 };
                if (0..8).contains(&f) {
                    let s = Square::new(f as u8, pawn_rank);
                    if board[s.index()].map(|(_, r)| r) != Some(Role::King) {
                        board[s.index()] = Some((side_to_move, Role::Pawn));
                    }
                }
            }
            Some(ep)
        } else {
            None
        };
        let setup = Setup {
            board,
            side_to_move,
            castling,
            en_passant,
            halfmove_clock: 0,
            fullmove_number: 1,
        };
        let r = validate(&setup);
        if r.is_legal() {
            legal += 1;
            with_ep += r.en_passant.is_some() as u32;
            with_castling += r.castling.any() as u32;
            if let Err(e) = Position::from_setup(&setup) {
                panic!(
                    "{} validated but not built: {:?}",
                    setup.to_fen(),
                    e.problems
                );
            }
        }
    }
    eprintln!("random setups: {legal} legal, {with_ep} with e.p., {with_castling} with castling");
    assert!(
        legal > 10_000 && with_ep > 1_000 && with_castling > 1_000,
        "{legal} legal, {with_ep} with e.p., {with_castling} with castling"
    );
}
