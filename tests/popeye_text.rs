//! The solution tree agrees with the reference solver's whole output — threats, variations,
//! duals, tries with refutations, set play, short solutions — for the corpus's direct-play
//! problems. Sibling order is not compared (it follows each solver's move generation order):
//! both texts are parsed into trees by indentation and compared with children sorted.

mod common;

use stipula::problem::SolveOptions;
use stipula::render::popeye::{render, Notation};
use stipula::solve::{Problem, SearchControl, Solver};

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Tree {
    text: String,
    children: Vec<Tree>,
}

/// Parses Popeye's layout into a canonical tree: a line's parent is the nearest line above it
/// with less indentation; `but` lines attach to the try they follow; children are sorted.
fn canonical(text: &str) -> Vec<Tree> {
    let mut lines: Vec<(usize, String)> = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        // Popeye's MoveNumbers option adds lines like ` 14  (Sd8-c6 )`: progress, not solution.
        let move_number_line = t.ends_with(')')
            && t.split_whitespace()
                .next()
                .is_some_and(|w| w.parse::<u32>().is_ok());
        if t.is_empty()
            || t.starts_with("solution finished")
            || t.starts_with("the side to play")
            || move_number_line
        {
            continue;
        }
        let indent = l.len() - l.trim_start().len();
        lines.push((indent, t.split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    fn build(lines: &[(usize, String)], i: &mut usize, parent_indent: Option<usize>) -> Vec<Tree> {
        let mut out = Vec::new();
        while *i < lines.len() {
            let (ind, ref t) = lines[*i];
            if parent_indent.is_some_and(|p| ind <= p) {
                break;
            }
            *i += 1;
            let children = build(lines, i, Some(ind));
            out.push(Tree {
                text: t.clone(),
                children,
            });
        }
        out.sort();
        out
    }
    let mut i = 0;
    build(&lines, &mut i, None)
}

fn render_like_popeye(r: &serde_json::Value, solver: &Solver) -> Option<String> {
    let opts: Vec<String> = common::strings(&r["popeye_options"]);
    let has = |o: &str| opts.iter().any(|x| x == o);
    let problem = Problem::parse(r["fen"].as_str()?, r["stipulation"].as_str()?).ok()?;
    let options = SolveOptions {
        tries: has("Try").then_some(1),
        set_play: has("SetPlay"),
        threats: has("Variations") && !has("NoThreat"),
        variations: has("Variations"),
        ..SolveOptions::default()
    };
    let tree = solver
        .solve(&problem, &options, &SearchControl::default())
        .ok()?;
    Some(render(&tree, Notation::Long))
}

#[test]
fn direct_play_output_matches_the_reference() {
    let Some(lines) = common::corpus("corpus/popeye-examples.jsonl") else {
        return;
    };
    let solver = Solver::new(1 << 20);
    let mut checked = 0;
    let mut failures = Vec::new();
    for r in &lines {
        let stip = r["stipulation"].as_str().unwrap();
        let opts = common::strings(&r["popeye_options"]);
        if r["play"] != "direct"
            || r["core"] == false
            || r["illegal"] == true
            || !opts.iter().any(|o| o == "Variations")
            || r["popeye_seconds"].as_f64().unwrap_or(0.0) > 1.0
        {
            continue;
        }
        checked += 1;
        let Some(have) = render_like_popeye(r, &solver) else {
            failures.push(format!("{}: not solved", r["id"]));
            continue;
        };
        let want = r["expected"].as_str().unwrap();
        if canonical(&have) != canonical(want) {
            failures.push(format!(
                "{} {} {stip}\n--- reference\n{want}\n--- stipula\n{have}",
                r["id"], r["fen"]
            ));
        }
    }
    eprintln!("{checked} outputs compared, {} differ", failures.len());
    assert!(checked >= 20, "only {checked} problems compared");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
