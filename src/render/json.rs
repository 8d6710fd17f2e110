//! Proto3 JSON of the API messages: the same shape a gRPC JSON client (e.g. grpcurl) sees —
//! lowerCamelCase field names, enums by name, 64-bit integers as strings, default values
//! omitted.

use crate::chess::ValidationReport;
use crate::solve::SolutionTree;

/// The solve result as pretty-printed proto3 JSON (`SolveResponse`).
pub fn solve_json(tree: &SolutionTree) -> String {
    to_json(&super::proto::solve_response(tree))
}

/// The validation report as pretty-printed proto3 JSON (`ValidateResponse`).
pub fn validate_json(report: &ValidationReport) -> String {
    to_json(&super::proto::validate_response(report))
}

fn to_json<T: serde::Serialize>(message: &T) -> String {
    // The pbjson impls only fail on values that cannot occur in our messages (e.g. an unknown
    // enum number), and serde_json never fails writing to a String.
    serde_json::to_string_pretty(message).expect("proto3 JSON serialisation cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{validate, Setup};
    use crate::proto::v1 as pb;
    use crate::solve::{
        MoveText, NodeFlags, NodeRole, SearchStats, SolutionNode, SolutionTree, Verdict,
    };

    fn tree() -> SolutionTree {
        let mv = MoveText {
            long: "Se8-c7#".into(),
            san: "Nc7#".into(),
            uci: "e8c7".into(),
        };
        SolutionTree {
            verdict: Verdict::Solved,
            stop_reason: None,
            stipulation: "#1".into(),
            fen: "k3N3/P7/K7/8/8/8/8/8 w - - 0 1".into(),
            solutions: vec![SolutionNode {
                mv,
                role: NodeRole::Key,
                replies: Vec::new(),
                flags: NodeFlags {
                    check: true,
                    mate: true,
                    ..NodeFlags::default()
                },
                move_number: 1,
                black_dots: false,
            }],
            tries: Vec::new(),
            set_play: Vec::new(),
            reflex_forced: Vec::new(),
            stats: SearchStats {
                nodes: 7,
                ..SearchStats::default()
            },
            assumptions: Vec::new(),
        }
    }

    #[test]
    fn solve_json_has_the_shape_tools_read() {
        let text = solve_json(&tree());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["verdict"], "VERDICT_SOLVED");
        assert_eq!(v["solutions"][0]["move"]["long"], "Se8-c7#");
        assert_eq!(v["solutions"][0]["move"]["uci"], "e8c7");
        assert_eq!(v["solutions"][0]["role"], "NODE_ROLE_KEY");
        assert_eq!(v["solutions"][0]["moveNumber"], 1);
        assert_eq!(v["stats"]["nodes"], "7");
        assert!(v.get("tries").is_none(), "defaults are omitted: {text}");
        // Round trip through the pbjson deserialiser.
        let back: pb::SolveResponse = serde_json::from_str(&text).unwrap();
        assert_eq!(back, crate::render::proto::solve_response(&tree()));
    }

    #[test]
    fn validate_json_lists_problems() {
        let setup = Setup::from_fen("8/8/8/8/8/8/8/K7 w - - 0 1").unwrap();
        let v: serde_json::Value = serde_json::from_str(&validate_json(&validate(&setup))).unwrap();
        assert!(v.get("legal").is_none(), "false is omitted");
        assert_eq!(v["problems"][0]["code"], "KING_COUNT");
    }
}
