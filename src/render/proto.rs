//! Domain types ⇄ `stipula.v1` protobuf messages.
//!
//! Solver output (`SolutionTree`, `ValidationReport`) maps to response messages; the request's
//! `SolveOptions` maps to `problem::SolveOptions`.

use std::time::Duration;

use crate::chess::{Illegality, ValidationReport};
use crate::problem;
use crate::proto::v1 as pb;
use crate::solve::{
    MoveText, NodeRole, Progress, SearchStats, SolutionNode, SolutionTree, StopReason, Verdict,
};

/// The `SolveResponse` for a solution tree.
pub fn solve_response(tree: &SolutionTree) -> pb::SolveResponse {
    pb::SolveResponse {
        verdict: verdict(tree.verdict) as i32,
        solutions: nodes(&tree.solutions),
        tries: nodes(&tree.tries),
        set_play: nodes(&tree.set_play),
        reflex_forced: nodes(&tree.reflex_forced),
        stats: Some(stats(&tree.stats)),
        stipulation: tree.stipulation.clone(),
        fen: tree.fen.clone(),
        assumptions: tree.assumptions.clone(),
        stop_reason: tree
            .stop_reason
            .map_or(pb::StopReason::Unspecified, stop_reason) as i32,
    }
}

/// The `ValidateResponse` for a validation report.
pub fn validate_response(report: &ValidationReport) -> pb::ValidateResponse {
    pb::ValidateResponse {
        legal: report.is_legal(),
        problems: report.problems.iter().map(illegality).collect(),
        castling: report.castling.to_string(),
        en_passant: report
            .en_passant
            .map_or_else(|| "-".to_owned(), |sq| sq.to_string()),
        assumptions: report.assumptions.clone(),
    }
}

/// A progress snapshot as a `SolveProgress` message.
pub fn solve_progress(p: &Progress) -> pb::SolveProgress {
    pb::SolveProgress {
        depth: p.depth,
        nodes: p.nodes,
        first_moves_done: p.first_moves_done,
        first_moves_total: p.first_moves_total,
        solutions_found: p.solutions_found,
        elapsed_ms: p.elapsed_ms,
    }
}

/// The solver options a request asks for (absent options: the defaults). Zero values mean
/// "default" / "no limit", as documented in `solve.proto`.
pub fn solve_options(options: Option<&pb::SolveOptions>) -> problem::SolveOptions {
    let Some(o) = options else {
        return problem::SolveOptions::default();
    };
    let nonzero = |n: u32| (n != 0).then_some(n);
    problem::SolveOptions {
        tries: o.tries.then_some(o.max_refutations.max(1)),
        set_play: o.set_play,
        threats: o.threats,
        variations: o.variations,
        max_solutions: nonzero(o.max_solutions),
        intended_solutions: nonzero(o.intended_solutions),
        threads: o.threads as usize,
        node_budget: (o.node_budget != 0).then_some(o.node_budget),
        time_limit: (o.time_limit_ms != 0).then(|| Duration::from_millis(o.time_limit_ms)),
    }
}

fn nodes(list: &[SolutionNode]) -> Vec<pb::SolutionNode> {
    list.iter().map(node).collect()
}

fn node(n: &SolutionNode) -> pb::SolutionNode {
    pb::SolutionNode {
        r#move: Some(move_text(&n.mv)),
        role: role(n.role) as i32,
        replies: nodes(&n.replies),
        dual: n.flags.dual,
        short: n.flags.short,
        check: n.flags.check,
        mate: n.flags.mate,
        stalemate: n.flags.stalemate,
        zugzwang: n.flags.zugzwang,
        move_number: n.move_number,
        dots: n.black_dots,
    }
}

fn move_text(m: &MoveText) -> pb::Move {
    pb::Move {
        long: m.long.clone(),
        san: m.san.clone(),
        uci: m.uci.clone(),
    }
}

fn role(r: NodeRole) -> pb::NodeRole {
    match r {
        NodeRole::Key => pb::NodeRole::Key,
        NodeRole::Try => pb::NodeRole::Try,
        NodeRole::Threat => pb::NodeRole::Threat,
        NodeRole::Defence => pb::NodeRole::Defence,
        NodeRole::Continuation => pb::NodeRole::Continuation,
        NodeRole::Refutation => pb::NodeRole::Refutation,
        NodeRole::HelpMove => pb::NodeRole::HelpMove,
        NodeRole::Forced => pb::NodeRole::Forced,
    }
}

fn verdict(v: Verdict) -> pb::Verdict {
    match v {
        Verdict::Solved => pb::Verdict::Solved,
        Verdict::Cooked => pb::Verdict::Cooked,
        Verdict::NoSolution => pb::Verdict::NoSolution,
        Verdict::Cancelled => pb::Verdict::Cancelled,
    }
}

fn stop_reason(r: StopReason) -> pb::StopReason {
    match r {
        StopReason::Cancelled => pb::StopReason::Cancelled,
        StopReason::Deadline => pb::StopReason::Deadline,
        StopReason::NodeBudget => pb::StopReason::NodeBudget,
    }
}

fn stats(s: &SearchStats) -> pb::SolveStats {
    pb::SolveStats {
        nodes: s.nodes,
        tt_hits: s.tt_hits,
        tt_entries: s.tt_entries,
        elapsed_ms: s.elapsed_ms,
        threads: s.threads,
    }
}

fn illegality(i: &Illegality) -> pb::Illegality {
    pb::Illegality {
        code: illegality_code(i),
        message: i.to_string(),
    }
}

/// The stable code of an illegality: its variant name in SCREAMING_SNAKE_CASE
/// (`KingCount { .. }` → `KING_COUNT`). Derived from the variant name so that new kinds of
/// illegality get a code without changes here.
fn illegality_code(i: &Illegality) -> String {
    let debug = format!("{i:?}");
    let name = debug
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or_default();
    let mut code = String::with_capacity(name.len() + 4);
    for (k, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && k > 0 {
            code.push('_');
        }
        code.push(c.to_ascii_uppercase());
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{validate, Color, Setup};
    use crate::solve::NodeFlags;

    fn leaf(long: &str, uci: &str, role: NodeRole) -> SolutionNode {
        SolutionNode {
            mv: MoveText {
                long: long.into(),
                san: String::new(),
                uci: uci.into(),
            },
            role,
            replies: Vec::new(),
            flags: NodeFlags::default(),
            move_number: 1,
            black_dots: false,
        }
    }

    fn sample_tree() -> SolutionTree {
        let mut key = leaf("Ka6-b6", "a6b6", NodeRole::Key);
        let mut defence = leaf("h6-h5", "h6h5", NodeRole::Defence);
        defence.black_dots = true;
        let mut mate = leaf("Se8-c7#", "e8c7", NodeRole::Continuation);
        mate.move_number = 2;
        mate.flags.check = true;
        mate.flags.mate = true;
        defence.replies.push(mate);
        key.replies.push(defence);
        SolutionTree {
            verdict: Verdict::Cooked,
            stop_reason: None,
            stipulation: "#2".into(),
            fen: "k3N3/P7/K6p/8/8/8/8/8 w - - 0 1".into(),
            solutions: vec![key, leaf("Se8-c7#", "e8c7", NodeRole::Key)],
            tries: Vec::new(),
            set_play: Vec::new(),
            reflex_forced: Vec::new(),
            stats: SearchStats {
                nodes: 1234,
                tt_hits: 5,
                tt_entries: 40,
                elapsed_ms: 3,
                threads: 2,
            },
            assumptions: Vec::new(),
        }
    }

    #[test]
    fn tree_maps_field_for_field() {
        let r = solve_response(&sample_tree());
        assert_eq!(r.verdict(), pb::Verdict::Cooked);
        assert_eq!(r.stop_reason(), pb::StopReason::Unspecified);
        assert_eq!(r.solutions.len(), 2);
        let key = &r.solutions[0];
        assert_eq!(key.role(), pb::NodeRole::Key);
        assert_eq!(key.r#move.as_ref().unwrap().long, "Ka6-b6");
        let defence = &key.replies[0];
        assert!(defence.dots);
        let mate = &defence.replies[0];
        assert_eq!(mate.move_number, 2);
        assert!(mate.mate && mate.check && !mate.stalemate);
        assert_eq!(r.stats.unwrap().nodes, 1234);
    }

    #[test]
    fn options_zero_means_default() {
        assert_eq!(solve_options(None), problem::SolveOptions::default());
        assert_eq!(
            solve_options(Some(&pb::SolveOptions::default())),
            problem::SolveOptions::default()
        );
        let o = solve_options(Some(&pb::SolveOptions {
            tries: true,
            max_refutations: 0,
            set_play: true,
            threats: true,
            variations: true,
            max_solutions: 3,
            intended_solutions: 2,
            threads: 1,
            node_budget: 1000,
            time_limit_ms: 250,
        }));
        assert_eq!(o.tries, Some(1));
        assert!(o.set_play && o.threats && o.variations);
        assert_eq!(o.max_solutions, Some(3));
        assert_eq!(o.intended_solutions, Some(2));
        assert_eq!(o.threads, 1);
        assert_eq!(o.node_budget, Some(1000));
        assert_eq!(o.time_limit, Some(Duration::from_millis(250)));
        let o = solve_options(Some(&pb::SolveOptions {
            tries: false,
            max_refutations: 4,
            ..Default::default()
        }));
        assert_eq!(o.tries, None);
    }

    #[test]
    fn illegal_position_has_codes_and_messages() {
        let setup = Setup::from_fen("8/8/8/8/8/8/8/K7 w - - 0 1").unwrap();
        let r = validate_response(&validate(&setup));
        assert!(!r.legal);
        assert!(r.problems.iter().any(|p| p.code == "KING_COUNT"), "{r:?}");
        assert!(r.problems.iter().all(|p| !p.message.is_empty()));
        assert_eq!(
            illegality_code(&Illegality::KingCount {
                color: Color::Black,
                count: 0
            }),
            "KING_COUNT"
        );
        assert_eq!(
            illegality_code(&Illegality::Inconsistent("x".into())),
            "INCONSISTENT"
        );
    }

    #[test]
    fn legal_position_reports_rights() {
        let setup = Setup::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let r = validate_response(&validate(&setup));
        assert!(r.legal, "{r:?}");
        assert!(r.problems.is_empty());
        assert_eq!(r.castling, "KQkq");
        assert_eq!(r.en_passant, "-");
    }
}
