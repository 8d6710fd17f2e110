//! Direct, self and reflex play agree with the reference solver on every core corpus problem:
//! the same set of keys, and the same tries where the corpus lists them.

mod common;

use std::collections::BTreeSet;

use stipula::problem::SolveOptions;
use stipula::solve::{Problem, SearchControl, Solver};

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
        let want: BTreeSet<String> = common::strings(&r["keys"])
            .iter()
            .map(|k| common::norm(k))
            .collect();
        let have: BTreeSet<String> = tree
            .solutions
            .iter()
            .map(|n| common::norm(&n.mv.long))
            .collect();
        if want != have {
            failures.push(format!(
                "{id} {fen} {stip}: keys want {want:?} have {have:?}"
            ));
        }
        // Reflex play: the attacker's forced aims, which Popeye prints as `1.Bg7-f8 # ?!?`.
        let want: BTreeSet<String> = r["expected"]
            .as_str()
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.trim().strip_suffix("?!?"))
            .map(|l| common::norm(l.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')))
            .collect();
        let have: BTreeSet<String> = tree
            .reflex_forced
            .iter()
            .map(|n| common::norm(&n.mv.long))
            .collect();
        if want != have {
            failures.push(format!(
                "{id} {fen} {stip}: forced aims (?!?) want {want:?} have {have:?}"
            ));
        }
        if let Some(t) = want_tries {
            let want: BTreeSet<String> = t.iter().map(|k| common::norm(k)).collect();
            let have: BTreeSet<String> = tree
                .tries
                .iter()
                .map(|n| common::norm(&n.mv.long))
                .collect();
            if want != have {
                failures.push(format!(
                    "{id} {fen} {stip}: tries want {want:?} have {have:?}"
                ));
            }
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
