//! The solution tree: what a solve proves, in the shape composers read it.

/// One move in the three notations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveText {
    /// Popeye's long form with a compact check/mate sign: `Sb6-d5`, `Rd8*d4+`, `0-0#`, `e5*d6 ep.`.
    pub long: String,
    /// Standard algebraic notation: `Nd5`, `Rxd4+`, `O-O#`, `exd6`, `e8=Q`.
    pub san: String,
    /// UCI, castling as the king's step: `e1g1`.
    pub uci: String,
}

/// What a move is in the solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeRole {
    /// A first move that solves.
    Key,
    /// A first move that fails to few enough refutations to be worth showing.
    Try,
    /// What the attacker threatens after a quiet key or try (his move if the defender could pass).
    Threat,
    /// A defender's move.
    Defence,
    /// The attacker's answer to a defence.
    Continuation,
    /// A defence that defeats a try.
    Refutation,
    /// A move of help or series play (either side).
    HelpMove,
    /// Reflex play: a first move that reaches the aim at once, which the attacker must play
    /// (so the stipulation cannot be met); Popeye marks it `?!?`.
    Forced,
}

/// Marks composers care about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeFlags {
    /// One of several continuations that all work (a dual).
    pub dual: bool,
    /// Reaches the aim in fewer moves than the stipulation allows.
    pub short: bool,
    pub check: bool,
    pub mate: bool,
    pub stalemate: bool,
    /// After this move the opponent is in zugzwang: nothing is threatened.
    pub zugzwang: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolutionNode {
    pub mv: MoveText,
    pub role: NodeRole,
    /// Moves after this one (threats, defences, continuations, refutations, the next help move).
    pub replies: Vec<SolutionNode>,
    pub flags: NodeFlags,
    /// 1-based move number of this move in the solution (for rendering `2...`).
    pub move_number: u32,
    /// True when this is a move by the side that did not start (printed `1...`).
    pub black_dots: bool,
}

/// The overall verdict on the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exactly the intended number of solutions (one key in direct play).
    Solved,
    /// More solutions than intended: the problem is unsound.
    Cooked,
    /// No solution: the stipulation cannot be fulfilled.
    NoSolution,
    /// Stopped before the proof was complete (cancel, deadline or node budget); what is listed
    /// was proved, but more may exist.
    Cancelled,
}

/// Why a search stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Cancelled,
    Deadline,
    NodeBudget,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    pub nodes: u64,
    pub tt_hits: u64,
    pub tt_entries: u64,
    pub elapsed_ms: u64,
    pub threads: u32,
}

/// The full result of a solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolutionTree {
    pub verdict: Verdict,
    pub stop_reason: Option<StopReason>,
    /// The stipulation as solved (`#2`, `h#2.5` …).
    pub stipulation: String,
    /// The FEN as solved (normalised).
    pub fen: String,
    pub solutions: Vec<SolutionNode>,
    pub tries: Vec<SolutionNode>,
    pub set_play: Vec<SolutionNode>,
    /// Reflex play: the attacker's first moves that reach the aim at once (role `Forced`), when
    /// there are any; he must play one of them, so there is no key.
    pub reflex_forced: Vec<SolutionNode>,
    pub stats: SearchStats,
    /// Statements of what was assumed about the position (castling, e.p.).
    pub assumptions: Vec<String>,
}

use crate::chess::{notation, Move, Position};

impl MoveText {
    /// The notations of `mv`, played in `pos`, with the check / mate sign on `long` and `san`.
    pub fn new(pos: &Position, mv: &Move) -> MoveText {
        let suffix = notation::check_suffix(pos, mv);
        MoveText {
            long: notation::long(pos, mv) + &suffix,
            san: notation::san(pos, mv),
            uci: mv.uci(),
        }
    }
}

impl SolutionNode {
    /// A node for `mv` played in `pos`, with check / mate / stalemate flags filled in from the
    /// position after the move. `replies` empty.
    pub fn new(
        pos: &Position,
        mv: &Move,
        role: NodeRole,
        move_number: u32,
        black_dots: bool,
    ) -> SolutionNode {
        let after = pos.play(mv);
        let check = after.is_check();
        let no_moves = !after.has_legal_move();
        SolutionNode {
            mv: MoveText::new(pos, mv),
            role,
            replies: Vec::new(),
            flags: NodeFlags {
                check,
                mate: check && no_moves,
                stalemate: !check && no_moves,
                ..NodeFlags::default()
            },
            move_number,
            black_dots,
        }
    }
}
