//! Popeye's text layout, the one composers know:
//!
//! ```text
//!    1.Qf8-e7 ! threat:
//!           2.Ra1-a3 zugzwang.
//!               2...Ke5*e4
//!                   3.Qe7*e6 #
//!       1...Ke5*e4
//!           2.Qe7*e6 +
//! ```
//! and for help and series play one line a solution: `  1.Bc2-e4 Qb3*d1   2.Ke6*d5 Qd1-b3 #`.

use std::fmt::Write;

use crate::solve::{NodeRole, SolutionNode, SolutionTree, Verdict};

/// Which move notation to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    /// Popeye's long form (`Sb6-d5`, `Rd8*d4`): the compatibility format.
    #[default]
    Long,
    /// Standard algebraic notation.
    San,
}

/// Renders a solution tree in Popeye's layout.
pub fn render(tree: &SolutionTree, notation: Notation) -> String {
    let mut out = String::new();
    let help_like = tree
        .solutions
        .iter()
        .chain(&tree.set_play)
        .any(|n| n.role == NodeRole::HelpMove);
    if help_like {
        for line in lines(&tree.set_play) {
            out.push_str(&format_line(&line, notation));
        }
        if !tree.set_play.is_empty() {
            out.push('\n');
        }
        for line in lines(&tree.solutions) {
            out.push_str(&format_line(&line, notation));
        }
    } else {
        for d in &tree.set_play {
            write_node(&mut out, d, notation);
        }
        if !tree.set_play.is_empty() {
            out.push('\n');
        }
        for node in tree.tries.iter().chain(&tree.solutions) {
            write_first_move(&mut out, node, notation);
            out.push('\n');
        }
        for node in &tree.reflex_forced {
            write_first_move(&mut out, node, notation);
        }
    }
    out.push('\n');
    out.push_str(match tree.verdict {
        Verdict::Cancelled => "Partial solution (search stopped)\n",
        _ => "solution finished.\n",
    });
    out
}

fn move_text(node: &SolutionNode, notation: Notation) -> String {
    let text = match notation {
        Notation::Long => &node.mv.long,
        Notation::San => &node.mv.san,
    };
    let bare = text.trim_end_matches(['+', '#']);
    let sign = if node.flags.mate {
        " #"
    } else if node.flags.stalemate {
        " ="
    } else if node.flags.check {
        " +"
    } else {
        ""
    };
    format!("{bare}{sign}")
}

fn annotation(node: &SolutionNode) -> &'static str {
    if node.replies.iter().any(|r| r.role == NodeRole::Threat) {
        " threat:"
    } else if node.flags.zugzwang {
        " zugzwang."
    } else {
        ""
    }
}

fn write_first_move(out: &mut String, node: &SolutionNode, notation: Notation) {
    let mark = match node.role {
        NodeRole::Try => "?",
        NodeRole::Forced => "?!?",
        _ => "!",
    };
    let _ = writeln!(
        out,
        "   1.{} {mark}{}",
        move_text(node, notation),
        annotation(node)
    );
    write_replies(out, node, notation);
}

fn write_replies(out: &mut String, node: &SolutionNode, notation: Notation) {
    let mut but_written = false;
    for r in &node.replies {
        if r.role == NodeRole::Refutation {
            if !but_written {
                out.push_str("    but\n");
                but_written = true;
            }
            let _ = writeln!(
                out,
                "{}{}...{} !",
                indent_defence(r.move_number),
                r.move_number,
                move_text(r, notation)
            );
        } else {
            write_node(out, r, notation);
        }
    }
}

fn indent_defence(number: u32) -> String {
    " ".repeat(6 + 8 * (number.max(1) as usize - 1))
}

fn indent_attack(number: u32) -> String {
    " ".repeat(2 + 8 * (number.max(1) as usize - 1))
}

fn write_node(out: &mut String, node: &SolutionNode, notation: Notation) {
    match node.role {
        NodeRole::Defence | NodeRole::Refutation => {
            let _ = writeln!(
                out,
                "{}{}...{}",
                indent_defence(node.move_number),
                node.move_number,
                move_text(node, notation)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "{}{}.{}{}",
                indent_attack(node.move_number),
                node.move_number,
                move_text(node, notation),
                annotation(node)
            );
        }
    }
    write_replies(out, node, notation);
}

/// Every root-to-leaf path of a help / series tree.
pub fn lines(nodes: &[SolutionNode]) -> Vec<Vec<&SolutionNode>> {
    let mut out = Vec::new();
    for n in nodes {
        if n.replies.is_empty() {
            out.push(vec![n]);
        } else {
            for mut tail in lines(&n.replies) {
                tail.insert(0, n);
                out.push(tail);
            }
        }
    }
    out
}

/// One help / series line: a move pair shares its number; the second move of a pair (the same
/// number as the move before it) follows after a space, a new number after three.
fn format_line(line: &[&SolutionNode], notation: Notation) -> String {
    let mut s = String::from(" ");
    let mut previous: Option<u32> = None;
    for node in line {
        let text = move_text(node, notation);
        match previous {
            None => {
                let dots = if node.black_dots { "..." } else { "." };
                let _ = write!(s, " {}{dots}{text}", node.move_number);
            }
            Some(n) if n == node.move_number => {
                let _ = write!(s, " {text}");
            }
            Some(_) => {
                let _ = write!(s, "   {}.{text}", node.move_number);
            }
        }
        previous = Some(node.move_number);
    }
    s.push('\n');
    s
}
