//! Shared test helpers: reading the reference corpus in ../shared.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// `../shared/<rel>` next to the crate, or None (after saying so loudly) when it is missing.
pub fn shared_file(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "SKIPPED: {} not found (the ../shared data is needed for this test)",
            p.display()
        );
        None
    }
}

/// Corpus lines as JSON values.
pub fn corpus(rel: &str) -> Option<Vec<Value>> {
    let p = shared_file(rel)?;
    let text = std::fs::read_to_string(p).expect("read corpus");
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect(),
    )
}

/// A move reduced the way ../shared/tools/agree.py compares moves: piece letter, squares,
/// capture sign and promotion; check/mate signs and `ep.` dropped.
pub fn norm(text: &str) -> String {
    let t = text.replace('N', "S");
    let t = t.replace(" ep.", "").replace("ep.", "");
    t.trim()
        .trim_end_matches(['+', '#', ' ', '='])
        .trim()
        .to_string()
}

pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Which test checks a corpus problem: the default suite, the slow test (CI runs it too, in
/// release mode: seconds to a minute each) or the ignored test of problems still beyond reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Default,
    Slow,
    Unsolved,
}

fn listed(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.is_empty())
}

/// The tier of a corpus id: tests/slow_problems.txt and tests/unsolved_problems.txt list them.
pub fn tier(id: &str) -> Tier {
    if listed(include_str!("../unsolved_problems.txt")).any(|l| l == id) {
        Tier::Unsolved
    } else if listed(include_str!("../slow_problems.txt")).any(|l| l == id) {
        Tier::Slow
    } else {
        Tier::Default
    }
}
