//! Move-generation correctness: every count in ../shared/perft.jsonl must match `perft`.
//! Counts above `DEEP` nodes run only in release mode (`cargo test --release --test perft`).

use std::time::Instant;

use stipula::chess::{perft, MoveList, Position};

/// Counts with more leaf nodes than this are left to the release-mode test.
const DEEP: u64 = 10_000_000;

struct Case {
    name: String,
    fen: String,
    /// `(depth, nodes)`
    counts: Vec<(u32, u64)>,
}

/// The perft cases, or `None` (after saying so loudly) when the shared file is missing.
fn cases() -> Option<Vec<Case>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/perft.jsonl");
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("SKIPPED: ../shared/perft.jsonl not found ({path}: {e})");
            return None;
        }
    };
    let mut cases = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("perft line is JSON");
        let mut counts: Vec<(u32, u64)> = v["perft"]
            .as_object()
            .expect("perft object")
            .iter()
            .map(|(d, n)| (d.parse().expect("depth"), n.as_u64().expect("node count")))
            .collect();
        counts.sort();
        cases.push(Case {
            name: v["name"].as_str().expect("name").to_string(),
            fen: v["fen"].as_str().expect("fen").to_string(),
            counts,
        });
    }
    assert!(!cases.is_empty(), "{path} holds no cases");
    Some(cases)
}

/// Perft with the root moves shared among the machine's cores.
fn perft_parallel(pos: &Position, depth: u32) -> u64 {
    if depth < 3 {
        return perft(pos, depth);
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let moves: Vec<_> = list.to_vec();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut sum = 0;
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(mv) = moves.get(i) else { break sum };
                        sum += perft(&pos.play(mv), depth - 1);
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    })
}

/// Runs the counts `select` picks; returns the failures and the nodes counted.
fn run(select: impl Fn(u64) -> bool, parallel: bool) -> (Vec<String>, u64) {
    let Some(cases) = cases() else {
        return (Vec::new(), 0);
    };
    let mut failures = Vec::new();
    let mut nodes = 0;
    for case in &cases {
        let pos = Position::from_fen(&case.fen)
            .unwrap_or_else(|e| panic!("{}: {} is rejected: {e}", case.name, case.fen));
        for &(depth, expected) in case.counts.iter().filter(|(_, n)| select(*n)) {
            let got = if parallel {
                perft_parallel(&pos, depth)
            } else {
                perft(&pos, depth)
            };
            nodes += got;
            if got != expected {
                failures.push(format!(
                    "{} ({}) depth {depth}: {got} nodes, expected {expected}",
                    case.name, case.fen
                ));
            }
        }
    }
    (failures, nodes)
}

#[test]
fn perft_small_depths() {
    let start = Instant::now();
    let (failures, nodes) = run(|n| n <= DEEP, true);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft (counts up to {DEEP}): {nodes} nodes in {secs:.2} s, {:.1} M nodes/s",
        nodes as f64 / secs / 1e6
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release-mode test: cargo test --release")]
fn perft_deep() {
    let start = Instant::now();
    let (failures, nodes) = run(|n| n > DEEP, true);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft (counts above {DEEP}): {nodes} nodes in {secs:.2} s, {:.1} M nodes/s",
        nodes as f64 / secs / 1e6
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Position keys: an e.p. right counts only when an e.p. capture is really possible; castling
/// rights always count.
#[test]
fn key_and_en_passant_and_castling() {
    let key = |fen: &str| {
        Position::from_fen(fen)
            .unwrap_or_else(|e| panic!("{fen}: {e}"))
            .key()
    };
    // No white pawn can take on d6: the right is useless, the positions are the same.
    assert_eq!(
        key("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1"),
        key("4k3/8/8/3p4/8/8/8/4K3 w - - 0 1")
    );
    // The capturing pawn is pinned along the rank: useless again.
    assert_eq!(
        key("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1"),
        key("8/8/8/K2pP2r/8/8/8/7k w - - 0 1")
    );
    // exd6 is possible: different positions.
    assert_ne!(
        key("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"),
        key("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1")
    );
    assert_ne!(
        key("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1"),
        key("4k3/8/8/8/3Pp3/8/8/4K3 b - - 0 1")
    );
    // Reached by play: after e2-e4 with no black pawn on d4/f4 the key equals the FEN without
    // e.p.; with one it differs.
    let pos = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap();
    let after = pos.play(&pos.find_uci("e2e4").unwrap());
    assert_eq!(after.key(), key("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"));
    let pos = Position::from_fen("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1").unwrap();
    let after = pos.play(&pos.find_uci("e2e4").unwrap());
    assert_ne!(after.key(), key("4k3/8/8/8/4Pp2/8/8/4K3 b - - 0 1"));
    assert_eq!(after.key(), key("4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1"));

    // Castling rights change the key, each flag separately.
    let fens = [
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1",
    ];
    let keys: std::collections::HashSet<u64> = fens.iter().map(|f| key(f)).collect();
    assert_eq!(keys.len(), fens.len());
    // Side to move counts too.
    assert_ne!(
        key("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"),
        key("r3k2r/8/8/8/8/8/8/R3K2R b - - 0 1")
    );
    // Losing a right by moving the rook there and back gives a different position.
    let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let mut p = pos.play(&pos.find_uci("h1h2").unwrap());
    p = p.play(&p.find_uci("a8a7").unwrap());
    p = p.play(&p.find_uci("h2h1").unwrap());
    p = p.play(&p.find_uci("a7a8").unwrap());
    assert_ne!(p.key(), pos.key());
    assert_eq!(p.key(), key("r3k2r/8/8/8/8/8/8/R3K2R w Qk - 0 1"));
}

/// `passed_key` is the key of the passed position, made without making it: with castling
/// rights, after a double step that leaves an e.p. capture (which passing forfeits), for
/// either side; and there is none in check.
#[test]
fn passed_key_is_the_key_of_the_pass() {
    let fens = [
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "nbk5/qrPp4/1ppK4/1b6/P7/8/8/7B b - - 0 1",
    ];
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        let passed = pos.pass().expect("not in check");
        assert_eq!(pos.passed_key(), Some(passed.key()), "{fen}");
        assert_ne!(pos.passed_key(), Some(pos.key()), "{fen}");
    }
    // After e2-e4 a black pawn on f4 could take e.p.; the pass forfeits that.
    let pos = Position::from_fen("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1").unwrap();
    let after = pos.play(&pos.find_uci("e2e4").unwrap());
    assert_eq!(after.passed_key(), Some(after.pass().unwrap().key()));
    // In check no pass, no key.
    let check = Position::from_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").unwrap();
    assert!(check.pass().is_none());
    assert_eq!(check.passed_key(), None);
}

/// `passed_key_after` (the key of the position after a move and a pass, told without making
/// the move) agrees with making both, for every move it answers three plies deep from every
/// perft position, with its castling rights and without them; and it answers for every kind of
/// man moving, capturing and being captured, double steps included.
#[test]
fn passed_key_after_is_the_key_after_the_move_and_a_pass() {
    let Some(cases) = cases() else {
        return;
    };
    let mut answered = 0u64;
    let mut kinds = std::collections::BTreeSet::new();
    fn walk(
        pos: &Position,
        depth: u32,
        answered: &mut u64,
        kinds: &mut std::collections::BTreeSet<String>,
    ) {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        for mv in list.iter() {
            let after = pos.play(mv);
            if let (Some(key), Some(passed)) = (pos.passed_key_after(mv), after.pass()) {
                assert_eq!(key, passed.key(), "{} {}", pos.to_fen(), mv.uci());
                *answered += 1;
                kinds.insert(format!("{:?} takes {:?}", mv.role(), mv.capture()));
                kinds.insert(format!("{:?}", mv.kind()));
            }
            if depth > 1 {
                walk(&after, depth - 1, answered, kinds);
            }
        }
    }
    for case in &cases {
        let fields: Vec<&str> = case.fen.split(' ').collect();
        let without_rights = [fields[0], fields[1], "-", fields[3], "0", "1"].join(" ");
        for fen in [case.fen.clone(), without_rights] {
            let Ok(pos) = Position::from_fen(&fen) else {
                continue; // an e.p. square may need the castling right's position: skip
            };
            walk(&pos, 3, &mut answered, &mut kinds);
        }
    }
    assert!(answered > 100_000, "only {answered} moves answered");
    for role in ["Pawn", "Knight", "Bishop", "Rook", "Queen", "King"] {
        assert!(kinds.contains(&format!("{role} takes None")), "{kinds:?}");
    }
    for taken in ["Pawn", "Knight", "Bishop", "Rook", "Queen"] {
        let any = kinds
            .iter()
            .any(|k| k.ends_with(&format!("takes Some({taken})")));
        assert!(any, "no capture of a {taken}: {kinds:?}");
    }
    assert!(kinds.contains("DoubleStep"), "{kinds:?}");
}
