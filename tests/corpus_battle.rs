//! Direct, self and reflex play agree with the reference solver on every core corpus problem:
//! the same set of keys, and the same tries where the corpus lists them.

mod common;

use std::collections::BTreeSet;

use stipula::problem::SolveOptions;
use stipula::solve::{Problem, SearchControl, SolutionNode, Solver};

fn check(filter: impl Fn(&str) -> bool) {
    let Some(lines) = common::corpus("corpus/popeye-examples.jsonl") else {
        return;
    };
    let solver = Solver::new(1 << 20);
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in &lines {
        let stip = r["stipulation"].as_str().unwrap();
        if r["play"] != "direct" || r["core"] == false || !filter(stip) {
            continue;
        }
        let fen = r["fen"].as_str().unwrap();
        let id = r["id"].as_str().unwrap_or("?");
        checked += 1;
        if r["illegal"] == true {
            if Problem::parse(fen, stip).is_ok() {
                failures.push(format!("{id}: illegal position accepted"));
            }
            continue;
        }
        let problem = match Problem::parse(fen, stip) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{id}: refused: {e}"));
                continue;
            }
        };
        let want_tries = r.get("tries").map(common::strings);
        let options = SolveOptions {
            tries: want_tries.as_ref().map(|_| 1),
            ..SolveOptions::default()
        };
        let tree = solver
            .solve(&problem, &options, &SearchControl::default())
            .expect("solve");
        let mut compare = |what: &str, want: &[String], have: &[SolutionNode]| {
            let want: BTreeSet<String> = want.iter().map(|k| common::norm(k)).collect();
            let have: BTreeSet<String> = have.iter().map(|n| common::norm(&n.mv.long)).collect();
            if want != have {
                failures.push(format!(
                    "{id} {fen} {stip}: {what} want {want:?} have {have:?}"
                ));
            }
        };
        compare("keys", &common::strings(&r["keys"]), &tree.solutions);
        // Reflex play: the attacker's forced aims, which Popeye prints as `1.Bg7-f8 # ?!?`.
        let forced: Vec<String> = r["expected"]
            .as_str()
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.trim().strip_suffix("?!?"))
            .map(|l| {
                l.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                    .to_string()
            })
            .collect();
        compare("forced aims (?!?)", &forced, &tree.reflex_forced);
        if let Some(t) = want_tries {
            compare("tries", &t, &tree.tries);
        }
    }
    eprintln!("{checked} problems checked, {} disagree", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {checked} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 0, "no problems matched the filter");
}

#[test]
fn direct_mates_and_stalemates_agree() {
    check(|s| s.starts_with('#') || s.starts_with('='));
}

#[test]
fn selfmates_and_reflexmates_agree() {
    check(|s| s.starts_with("s#") || s.starts_with("s=") || s.starts_with("r#"));
}
