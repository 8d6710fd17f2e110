//! What a composer asks the solver for, beyond the bare keys.

use std::time::Duration;

/// Solving options; the defaults give keys only, on all cores, with no limits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolveOptions {
    /// Report tries: first moves defeated by at most this many defences (with their refutations).
    pub tries: Option<u32>,
    /// Report set play: the defender's moves in the diagram and the attacker's answers.
    pub set_play: bool,
    /// Report the threat after each key (and try).
    pub threats: bool,
    /// Report the variations (defences and continuations) after each key (and try).
    pub variations: bool,
    /// Stop after this many solutions (keys, or help/series lines); `None` finds all.
    pub max_solutions: Option<u32>,
    /// Help play: how many solutions the composer intends; more is a cook. `None`: one.
    pub intended_solutions: Option<u32>,
    /// Worker threads; 0 means all cores.
    pub threads: usize,
    /// Stop after this many search nodes.
    pub node_budget: Option<u64>,
    /// Stop after this much wall time.
    pub time_limit: Option<Duration>,
}
