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

/// Which test checks a corpus problem: the default suite or the slow test (CI runs it too, in
/// release mode: seconds to minutes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Default,
    Slow,
}

fn listed(text: &'static str) -> impl Iterator<Item = &'static str> {
    // An id may be followed by a comment (`BEISPIEL/hpint.inp#24   # 38 s`): ids contain '#',
    // so the comment starts at the first whitespace.
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| !id.starts_with('#'))
}

/// The tier of a corpus id: tests/slow_problems.txt lists the slow ones.
pub fn tier(id: &str) -> Tier {
    if listed(include_str!("../slow_problems.txt")).any(|l| l == id) {
        Tier::Slow
    } else {
        Tier::Default
    }
}
