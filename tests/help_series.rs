//! Help and series play agree with the reference solver (Popeye) on every core corpus problem:
//! the same set of solution lines, compared the way ../shared/tools/agree.py compares them, and
//! the same set play where the corpus lists it. Run in release: `cargo test --release --test
//! help_series`. `STIPULA_ONLY=<ids>` restricts the corpus tests to the problems whose ids end so
//! (comma-separated; `…*` matches as a substring);
//! `STIPULA_VERBOSE=1` reports each problem as it is solved; `STIPULA_BUDGET=<nodes>` and
//! `STIPULA_SECONDS=<s>` give up (and fail) on problems that need more.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{tier, Tier};

use stipula::problem::SolveOptions;
use stipula::solve::{Problem, SearchControl, SolutionNode, Solver, StopReason, Verdict};

fn corpus() -> Option<Vec<Value>> {
    common::corpus("corpus/popeye-examples.jsonl")
}

/// The first move in `text`, as agree.py's pattern finds it:
/// `0-0-0 | 0-0 | [KQRBS]?[a-h][1-8][-*][a-h][1-8](=[QRBS])?`, after N → S.
fn find_move(text: &str) -> Option<String> {
    let t: Vec<char> = text.replace('N', "S").chars().collect();
    let file = |c: char| ('a'..='h').contains(&c);
    let rank = |c: char| ('1'..='8').contains(&c);
    let at = |i: usize| t.get(i).copied().unwrap_or('\0');
    for i in 0..t.len() {
        if t[i..].starts_with(&['0', '-', '0', '-', '0']) {
            return Some("0-0-0".into());
        }
        if t[i..].starts_with(&['0', '-', '0']) {
            return Some("0-0".into());
        }
        let start = if "KQRBS".contains(at(i)) && file(at(i + 1)) {
            i + 1
        } else {
            i
        };
        let s = start;
        if file(at(s))
            && rank(at(s + 1))
            && "-*".contains(at(s + 2))
            && file(at(s + 3))
            && rank(at(s + 4))
        {
            let mut end = s + 5;
            if at(end) == '=' && "QRBS".contains(at(end + 1)) {
                end += 2;
            }
            return Some(t[i..end].iter().collect());
        }
    }
    None
}

fn norm(text: &str) -> String {
    find_move(text).unwrap_or_else(|| text.trim().to_string())
}

/// A corpus line (`1.Kc3-d2 Qc1-c2 2.Kd2-e1 Qc2-e2 #`) as its reduced moves.
fn line_moves(line: &str) -> Vec<String> {
    line.split_whitespace()
        .map(|tok| {
            let digits = tok.trim_start_matches(|c: char| c.is_ascii_digit());
            if digits.len() < tok.len() && digits.starts_with('.') {
                let rest = &digits[1..];
                rest.strip_prefix("..").unwrap_or(rest)
            } else {
                tok
            }
        })
        .filter_map(find_move)
        .collect()
}

/// Every root-to-leaf path of a solution forest, reduced.
fn paths(nodes: &[SolutionNode], prefix: &mut Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    for n in nodes {
        prefix.push(norm(&n.mv.long));
        if n.replies.is_empty() {
            out.insert(prefix.clone());
        } else {
            paths(&n.replies, prefix, out);
        }
        prefix.pop();
    }
}

fn tree_lines(nodes: &[SolutionNode]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    paths(nodes, &mut Vec::new(), &mut out);
    out
}

fn corpus_lines(v: &Value) -> BTreeSet<Vec<String>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l.as_str())
                .map(line_moves)
                .collect()
        })
        .unwrap_or_default()
}

fn show(lines: &BTreeSet<Vec<String>>) -> String {
    let v: Vec<String> = lines.iter().take(4).map(|l| l.join(" ")).collect();
    format!(
        "[{}{}]",
        v.join(" | "),
        if lines.len() > 4 { " …" } else { "" }
    )
}

/// Solves every core help / series corpus problem whose reference time passes `pick`, checking
/// solutions and set play.
fn check(wanted_tier: Tier) {
    let Some(rows) = corpus() else { return };
    let only = std::env::var("STIPULA_ONLY").ok();
    let verbose = std::env::var_os("STIPULA_VERBOSE").is_some();
    let budget = std::env::var("STIPULA_BUDGET")
        .ok()
        .and_then(|b| b.parse().ok());
    let seconds = std::env::var("STIPULA_SECONDS")
        .ok()
        .and_then(|b| b.parse().ok())
        .map(Duration::from_secs_f64);
    // The slow problems get the CLI's default table size: their searches fill a small one.
    let solver = Solver::new(if wanted_tier == Tier::Slow {
        1 << 25
    } else {
        1 << 22
    });
    let started = Instant::now();
    let (mut help, mut series, mut failures) = ((0, 0), (0, 0), Vec::new());
    let mut slowest: Vec<(Duration, String)> = Vec::new();
    for r in &rows {
        let play = r["play"].as_str().unwrap_or("");
        if !(play == "help" || play == "series") || r["core"] == false {
            continue;
        }
        let popeye = r["popeye_seconds"].as_f64().unwrap_or(0.0);
        let id = r["id"].as_str().unwrap_or("?");
        let wanted = |o: &String| {
            o.split(',').any(|w| match w.strip_suffix('*') {
                Some(prefix) => id.contains(prefix),
                None => id.ends_with(w),
            })
        };
        if tier(id) != wanted_tier || only.as_ref().is_some_and(|o| !wanted(o)) {
            continue;
        }
        let (fen, stip) = (
            r["fen"].as_str().unwrap(),
            r["stipulation"].as_str().unwrap(),
        );
        let tally = if play == "help" {
            &mut help
        } else {
            &mut series
        };
        tally.1 += 1;
        if r["illegal"] == true {
            match Problem::parse(fen, stip) {
                Ok(_) => failures.push(format!("{id} {fen} {stip}: illegal position accepted")),
                Err(_) => tally.0 += 1,
            }
            continue;
        }
        let problem = match Problem::parse(fen, stip) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{id} {fen} {stip}: refused: {e}"));
                continue;
            }
        };
        let wants_set = r.get("set_play").is_some()
            || r["popeye_options"]
                .as_array()
                .is_some_and(|o| o.iter().any(|x| x == "SetPlay"));
        let options = SolveOptions {
            set_play: wants_set,
            ..SolveOptions::default()
        };
        if verbose {
            eprintln!("solving {id} {fen} {stip} (popeye {popeye} s)");
        }
        let t0 = Instant::now();
        let control = SearchControl::new(budget, seconds);
        let tree = solver.solve(&problem, &options, &control).expect("solve");
        let took = t0.elapsed();
        if verbose || took.as_secs_f64() > 5.0 {
            eprintln!(
                "  {:.3} s, {} nodes: {id} {stip} (popeye {popeye} s)",
                took.as_secs_f64(),
                tree.stats.nodes
            );
        }
        slowest.push((
            took,
            format!(
                "{id} {stip} (popeye {popeye:.2} s, {} nodes)",
                tree.stats.nodes
            ),
        ));
        let mut problems = Vec::new();
        let (want, have) = (corpus_lines(&r["solutions"]), tree_lines(&tree.solutions));
        if want != have {
            let missing: BTreeSet<_> = want.difference(&have).cloned().collect();
            let extra: BTreeSet<_> = have.difference(&want).cloned().collect();
            problems.push(format!(
                "lines: missing {} extra {}",
                show(&missing),
                show(&extra)
            ));
        }
        let want_verdict = if want.is_empty() {
            Verdict::NoSolution
        } else {
            tree.verdict
        };
        if tree.verdict != want_verdict || tree.verdict == Verdict::Cancelled {
            problems.push(format!("verdict {:?}", tree.verdict));
        }
        if wants_set {
            let (want, have) = (corpus_lines(&r["set_play"]), tree_lines(&tree.set_play));
            if want != have {
                problems.push(format!(
                    "set play: want {} have {}",
                    show(&want),
                    show(&have)
                ));
            }
        }
        if problems.is_empty() {
            tally.0 += 1;
        } else {
            failures.push(format!("{id} {fen} {stip}: {}", problems.join("; ")));
        }
    }
    slowest.sort_by_key(|b| std::cmp::Reverse(b.0));
    for (t, what) in slowest.iter().take(8) {
        eprintln!("  {:>8.3} s  {what}", t.as_secs_f64());
    }
    eprintln!(
        "help {}/{} agree, series {}/{} agree ({:.1} s)",
        help.0,
        help.1,
        series.0,
        series.1,
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        help.1 + series.1 > 0 || only.is_some(),
        "no problems checked"
    );
}

#[test]
fn help_and_series_play_agree_with_popeye() {
    check(Tier::Default);
}

/// The problems of tests/slow_problems.txt through the library (about 20 s each). CI
/// checks the same problems through agree.py and the CLI (tests/cli.rs), so this one is run by
/// hand, e.g. with STIPULA_ONLY=… to look at one problem: cargo test --release -- --ignored
#[test]
#[ignore = "minutes; CI checks these through agree.py: cargo test --release -- --ignored"]
fn slow_help_and_series_problems_agree_with_popeye() {
    check(Tier::Slow);
}

#[test]
fn agree_style_move_reduction() {
    assert_eq!(
        line_moves("1.a4*b3 ep. Ka3-a4 2.Kc4-d3 Ka4-b5 3...Rg8-d8 + c7*d8=S = 0-0-0 #"),
        ["a4*b3", "Ka3-a4", "Kc4-d3", "Ka4-b5", "Rg8-d8", "c7*d8=S", "0-0-0"]
    );
    assert_eq!(norm("Nb1-c3+"), "Sb1-c3");
    assert_eq!(norm("e7-e8=Q#"), "e7-e8=Q");
}

/// A node budget stops a long search promptly, keeps what it proved and says why it stopped.
#[test]
fn node_budget_cancels_promptly() {
    let solver = Solver::new(1 << 16);
    for (fen, stip) in [
        ("8/8/2K5/8/k7/6p1/p2pP2p/8 b - - 0 1", "h=7"),
        ("2k5/2bb4/8/6p1/6p1/5qp1/8/4K3 b - - 0 1", "ser-h=14"),
    ] {
        let problem = Problem::parse(fen, stip).unwrap();
        let control = SearchControl::new(Some(50_000), None);
        let t0 = Instant::now();
        let tree = solver
            .solve(&problem, &SolveOptions::default(), &control)
            .unwrap();
        assert_eq!(tree.verdict, Verdict::Cancelled, "{stip}");
        assert_eq!(tree.stop_reason, Some(StopReason::NodeBudget), "{stip}");
        assert!(
            control.nodes() < 60_000,
            "{stip}: {} nodes",
            control.nodes()
        );
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "{stip}: {:?}",
            t0.elapsed()
        );
    }
    // A cancel from another thread.
    let problem = Problem::parse("8/8/2K5/8/k7/6p1/p2pP2p/8 b - - 0 1", "h=7").unwrap();
    let control = SearchControl::default();
    let t0 = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            control.cancel();
        });
        let tree = solver
            .solve(&problem, &SolveOptions::default(), &control)
            .unwrap();
        assert_eq!(tree.verdict, Verdict::Cancelled);
        assert_eq!(tree.stop_reason, Some(StopReason::Cancelled));
    });
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}

/// The solution limit stops the search after that many lines, and the intended count decides
/// between sound and cooked.
#[test]
fn solution_limit_and_intended_count() {
    let solver = Solver::new(1 << 16);
    // hpint.inp#38: four solutions (one per promotion).
    let problem = Problem::parse("8/8/8/7K/8/5N2/4Npp1/5k2 b - - 0 1", "ser-h=3").unwrap();
    let tree = solver
        .solve(
            &problem,
            &SolveOptions::default(),
            &SearchControl::default(),
        )
        .unwrap();
    assert_eq!(tree_lines(&tree.solutions).len(), 4);
    assert_eq!(tree.verdict, Verdict::Cooked);
    let options = SolveOptions {
        intended_solutions: Some(4),
        ..SolveOptions::default()
    };
    let tree = solver
        .solve(&problem, &options, &SearchControl::default())
        .unwrap();
    assert_eq!(tree.verdict, Verdict::Solved);
    let options = SolveOptions {
        max_solutions: Some(2),
        ..SolveOptions::default()
    };
    let tree = solver
        .solve(&problem, &options, &SearchControl::default())
        .unwrap();
    assert_eq!(tree_lines(&tree.solutions).len(), 2);
    // Help play without an intended count: any number of solutions is sound.
    let problem = Problem::parse("n5Q1/8/8/8/6N1/K7/8/k7 b - - 0 1", "h#2").unwrap();
    let tree = solver
        .solve(
            &problem,
            &SolveOptions::default(),
            &SearchControl::default(),
        )
        .unwrap();
    assert_eq!(tree.verdict, Verdict::Solved);
    assert!(tree_lines(&tree.solutions).len() > 2);
}
