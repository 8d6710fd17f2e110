//! Battle play — direct (`#n`, `=n`), self (`s#n`, `s=n`) and reflex (`r#n`) — by exhaustive
//! AND/OR proof over the shared transposition table, and the solution tree built from the proofs.
//!
//! One proof engine serves all three families: they differ only in the tests at the ends of
//! play (who must reach the aim, and whether a side that *can* reach it must).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::chess::{Move, MoveKey, MoveList, Position, MAX_MOVES};
use crate::problem::{Aim, Family, SolveOptions};

use super::parallel::{Board, Tally};
use super::tree::{NodeRole, SolutionNode};
use super::{Apart, SearchControl, TranspositionTable};

/// Which battle family: where the aim is tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Battle {
    /// The attacker's own move reaches the aim.
    Direct,
    /// The defender must be forced to reach the aim against the attacker.
    SelfPlay,
    /// As self play, and a side able to reach the aim in one move must do so.
    Reflex,
}

impl Battle {
    pub(crate) fn of(family: Family) -> Option<Battle> {
        match family {
            Family::Direct => Some(Battle::Direct),
            Family::SelfPlay => Some(Battle::SelfPlay),
            Family::Reflex => Some(Battle::Reflex),
            _ => None,
        }
    }
}

/// Does the side that just moved into `after` reach the aim with that move?
/// (`after` has the victim to move.)
#[inline]
pub(crate) fn aim_reached(aim: Aim, after: &Position) -> bool {
    match aim {
        Aim::Mate => after.is_check() && !after.has_legal_move(),
        Aim::Stalemate => !after.is_check() && !after.has_legal_move(),
    }
}

/// Can the side to move reach the aim with one move? Only checks can mate, so for `#` the
/// non-checking moves are dismissed after one cheap look at the position.
pub(crate) fn reaches_aim_in_one(aim: Aim, pos: &Position, moves: &[Move]) -> bool {
    moves.iter().any(|m| aim_reached(aim, &pos.play(m)))
}

/// The proof engine for one solve: attacker = side to move in the diagram. Aligned as `Apart`:
/// the threads' provers stand side by side.
#[repr(align(128))]
pub(crate) struct Prover<'a> {
    pub tt: &'a TranspositionTable,
    pub control: &'a SearchControl,
    pub battle: Battle,
    pub aim: Aim,
    salt: u64,
    /// What this thread learnt of good moves (in one allocation apart from other threads').
    memory: Box<Apart<Memory>>,
    /// This thread's node and table-hit counts.
    tally: Tally<'a>,
    /// Where a search on several threads offers its attacker's moves to idle threads.
    board: Option<&'a Board>,
}

/// The attacker's moves at a node are offered to idle threads from this many moves left: below,
/// a move's search is short, and handing it over costs about what it brings. (From 2 or from 4,
/// the battle problems of `../shared/bench/random.jsonl` with ep#11 and selfref#5 took 0.4% less
/// and 0.8% more time on two threads, eight alternating rounds: within the rounds' spread.)
const SHARE_ATTACKS_FROM: u32 = 3;

/// Killer moves by remaining length: the last attack that won and the last defence that
/// refuted are tried first, so proofs and refutations come early. How often each defence (by
/// from/to) refuted: the order of defences at interior nodes.
struct Memory {
    attack_killers: [AtomicU32; 64],
    defence_killers: [AtomicU32; 64],
    history: [AtomicU32; 64 * 64],
}

impl<'a> Prover<'a> {
    pub(crate) fn new(
        tt: &'a TranspositionTable,
        control: &'a SearchControl,
        battle: Battle,
        aim: Aim,
    ) -> Self {
        // Distinct salts keep the proofs of different stipulation kinds apart in the shared table.
        let salt = match (battle, aim) {
            (Battle::Direct, Aim::Mate) => 0x5d1b_3a4f_9c27_e801,
            (Battle::Direct, Aim::Stalemate) => 0x7a2e_c913_44b6_0f52,
            (Battle::SelfPlay, Aim::Mate) => 0x1c8f_e06d_b3a5_2794,
            (Battle::SelfPlay, Aim::Stalemate) => 0xe4b7_1f30_8d6c_a5b3,
            (Battle::Reflex, Aim::Mate) => 0x93d0_5a7b_c2e1_466f,
            (Battle::Reflex, Aim::Stalemate) => 0x2f65_b8c4_0e9a_d31c,
        };
        Prover {
            tt,
            control,
            battle,
            aim,
            salt,
            memory: Box::new(Apart(Memory {
                attack_killers: [const { AtomicU32::new(0) }; 64],
                defence_killers: [const { AtomicU32::new(0) }; 64],
                history: [const { AtomicU32::new(0) }; 64 * 64],
            })),
            tally: Tally::new(control, None),
            board: None,
        }
    }

    /// The prover of one of the threads of a search, sharing its attacker's moves on `board`.
    pub(crate) fn on_board(mut self, board: &'a Board) -> Self {
        self.board = Some(board);
        self
    }

    pub(crate) fn board(&self) -> Option<&'a Board> {
        self.board
    }

    fn stopped(&self) -> bool {
        self.control.is_stopped()
    }

    /// Counts a node; true when the search must stop.
    #[inline]
    fn count_node(&self) -> bool {
        self.tally.count(1)
    }

    #[inline]
    fn count_tt_hit(&self) {
        self.tally.hit();
    }

    /// Adds the locally counted nodes and hits to the shared counters.
    pub(crate) fn flush(&self) {
        self.tally.flush();
    }

    /// Attacker to move: can he force the aim within `n` of his moves?
    pub(crate) fn attack(&self, pos: &Position, n: u32) -> bool {
        if n == 0 || self.count_node() {
            return false;
        }
        if n == 1 && self.battle == Battle::Direct {
            // Cheaper to look than to remember.
            return self.attack_exact(pos, 1);
        }
        let key = pos.key() ^ self.salt;
        if let Some(e) = self.tt.probe(key) {
            if e.wins_within != 0 && e.wins_within as u32 <= n {
                self.count_tt_hit();
                return true;
            }
            if e.fails_within as u32 >= n {
                self.count_tt_hit();
                return false;
            }
        }
        // Shortest first: a quick win is found without the full-width deeper search, and the
        // shallower disproofs land in the table for the deeper one.
        if n > 1 && self.attack(pos, n - 1) {
            return true;
        }
        let result = self.attack_exact(pos, n);
        if !self.stopped() {
            if result {
                self.tt.store_win(key, n);
            } else {
                self.tt.store_fail(key, n);
            }
        }
        result
    }

    fn attack_exact(&self, pos: &Position, n: u32) -> bool {
        if self.battle == Battle::Reflex && self.reaches_aim_in_one(pos) {
            // He must reach the aim himself, which defeats the reflex stipulation.
            return false;
        }
        if n == 1 && self.battle == Battle::Direct {
            return self.reaches_aim_in_one(pos);
        }
        // The last winner at this length first, before any list is made.
        let killer = self.killer(&self.memory.attack_killers, n);
        let mut tried = false;
        if let Some(after) = pos.play_key(killer) {
            if self.defend(&after, n) {
                return true;
            }
            if self.stopped() {
                return false;
            }
            tried = true;
        }
        if n >= 2 {
            // Interior nodes are few and their subtrees large: order them (checks, captures and
            // moves near the enemy king first).
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let their_king = pos.king(!pos.side_to_move());
            let hint = pos.check_hint();
            let mut order = Order::new();
            for (i, m) in moves.iter().enumerate() {
                if m.key() == killer {
                    continue;
                }
                let to = m.to();
                let near = (to.file() as i8 - their_king.file() as i8)
                    .abs()
                    .max((to.rank() as i8 - their_king.rank() as i8).abs())
                    as u32;
                let score =
                    (hint.may_check(m) as u32) << 5 | (m.is_capture() as u32) << 4 | (15 - near);
                order.push(score, i);
            }
            order.sort();
            for (j, i) in order.iter().enumerate() {
                // Once a move has failed (the likeliest to win), the others are probably all
                // to be searched: a thread waiting for work gets a share of them.
                if n >= SHARE_ATTACKS_FROM && (tried || j > 0) {
                    if let Some(board) = self.board.filter(|b| b.wanted()) {
                        let rest = order.iter().skip(j).map(|i| moves[i]).collect();
                        let winner = super::parallel::share_attacks(self, board, pos, n, rest);
                        if let Some(k) = winner {
                            self.set_killer(&self.memory.attack_killers, n, k);
                        }
                        return winner.is_some() && !self.stopped();
                    }
                }
                let m = &moves[i];
                if self.defend(&pos.play(m), n) {
                    self.set_killer(&self.memory.attack_killers, n, m.key());
                    return true;
                }
                if self.stopped() {
                    return false;
                }
            }
            return false;
        }
        // Last move: no list, no ordering.
        let visit = |k: MoveKey, after: &Position| {
            if k == killer || self.stopped() {
                return self.stopped();
            }
            let wins = self.defend(after, n);
            if wins {
                self.set_killer(&self.memory.attack_killers, n, k);
            }
            wins
        };
        let found = if self.battle == Battle::SelfPlay && self.aim == Aim::Mate {
            // Only moves after which every reply may be a check can force him to mate.
            pos.any_successor_forcing_checks(visit)
        } else {
            pos.any_successor(visit)
        };
        found && !self.stopped()
    }

    /// Can the side to move reach the aim with one move?
    #[inline]
    pub(crate) fn reaches_aim_in_one(&self, pos: &Position) -> bool {
        match self.aim {
            // Only checks can mate: the others are not even played.
            Aim::Mate => pos.has_mate_in_one(),
            Aim::Stalemate => pos.any_successor(|_, after| aim_reached(self.aim, after)),
        }
    }

    fn killer(&self, slots: &[AtomicU32], n: u32) -> MoveKey {
        MoveKey::from_raw_bits(slots[(n as usize).min(slots.len() - 1)].load(Relaxed) as u16)
    }

    fn set_killer(&self, slots: &[AtomicU32], n: u32, k: MoveKey) {
        slots[(n as usize).min(slots.len() - 1)].store(k.raw() as u32, Relaxed);
    }

    /// Defender to move, after the attacker's move that used the `n`-th of his moves: does the
    /// attacker still get there (within `n - 1` further moves) against every defence?
    pub(crate) fn defend(&self, pos: &Position, n: u32) -> bool {
        if self.count_node() {
            return false;
        }
        match self.battle {
            Battle::Direct => {
                if n <= 1 {
                    // Only the end of play can be judged: mate or stalemate.
                    return !pos.has_legal_move()
                        && match self.aim {
                            Aim::Mate => pos.is_check(),
                            Aim::Stalemate => !pos.is_check(),
                        };
                }
                // No move at all: mate or stalemate, the aim reached or play ended without it.
                let ended = match self.aim {
                    Aim::Mate => pos.is_check(),
                    Aim::Stalemate => !pos.is_check(),
                };
                self.every_defence_fails(pos, n, ended, |after| !self.attack(after, n - 1))
            }
            Battle::SelfPlay => {
                if n <= 1 && self.aim == Aim::Mate && pos.has_quiet_move() {
                    // A move that gives no check cannot mate: he is not forced to.
                    return false;
                }
                // A defence that reaches the aim concedes it: it is no defence.
                self.every_defence_fails(pos, n, false, |after| {
                    !aim_reached(self.aim, after) && (n <= 1 || !self.attack(after, n - 1))
                })
            }
            Battle::Reflex => {
                if self.reaches_aim_in_one(pos) {
                    return true; // he must
                }
                n > 1 && self.every_defence_fails(pos, n, false, |after| !self.attack(after, n - 1))
            }
        }
    }

    /// True when no defence in `pos` satisfies `refutes` (`no_moves` when there is no move at
    /// all). Order: the last refutation at this length (just before the attacker's last move),
    /// then the defences leaving the attacker fewest moves, then by how often each refuted.
    #[inline]
    fn every_defence_fails(
        &self,
        pos: &Position,
        n: u32,
        no_moves: bool,
        refutes: impl Fn(&Position) -> bool,
    ) -> bool {
        // The last refutation at this length first, but only just before his last move: higher
        // up, a refutation that leaves him few moves is worth far more than a quick one (it
        // measured 60 times fewer nodes on a self-mate in 6).
        let killer = if n >= 3 {
            MoveKey::NONE
        } else {
            self.killer(&self.memory.defence_killers, n)
        };
        if let Some(after) = pos.play_key(killer) {
            if refutes(&after) || self.stopped() {
                return false;
            }
        }
        if n >= 2 {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                return no_moves;
            }
            let mut order = Order::new();
            for (i, d) in moves.iter().enumerate() {
                let k = d.key();
                if k != killer {
                    let h = self.memory.history[history_index(k)]
                        .load(Relaxed)
                        .min(0x7fff);
                    let score = if n >= 2 {
                        // The defences that leave him fewest moves first (Popeye's order): his
                        // failure there is cheapest to prove, and likeliest.
                        let mobility = pos.play(d).count_legal_moves().min(255) as u32;
                        (255 - mobility) << 15 | h
                    } else {
                        h
                    };
                    order.push(score, i);
                }
            }
            // Usually one of the first refutes: pick the best one at a time instead of sorting.
            while let Some(i) = order.pick() {
                let d = &moves[i];
                if refutes(&pos.play(d)) || self.stopped() {
                    self.note_refutation(n, d.key());
                    return false;
                }
            }
            return true;
        }
        let mut any = false;
        let refuted = pos.any_successor(|k, after| {
            any = true;
            if k == killer {
                return false;
            }
            let r = refutes(after) || self.stopped();
            if r {
                self.note_refutation(n, k);
            }
            r
        });
        if !any {
            return no_moves;
        }
        !refuted && !self.stopped()
    }

    /// The defences `moves` of `pos` in the order a defence node with two or more attacks to
    /// come tries them (fewest attacker moves after them first).
    pub(crate) fn defence_order(&self, pos: &Position, moves: &[Move]) -> Vec<Move> {
        let mut order = Order::new();
        for (i, d) in moves.iter().enumerate() {
            let h = self.memory.history[history_index(d.key())]
                .load(Relaxed)
                .min(0x7fff);
            let mobility = pos.play(d).count_legal_moves().min(255) as u32;
            order.push((255 - mobility) << 15 | h, i);
        }
        order.sort();
        order.iter().map(|i| moves[i]).collect()
    }

    fn note_refutation(&self, n: u32, k: MoveKey) {
        if !self.stopped() {
            self.set_killer(&self.memory.defence_killers, n, k);
            self.memory.history[history_index(k)].fetch_add(1, Relaxed);
        }
    }

    /// Is `d`, a defence in `pos` (defender to move, attacker's move counted in `n`), a refutation?
    pub(crate) fn refutes(&self, pos: &Position, d: &Move, n: u32) -> bool {
        let after = pos.play(d);
        match self.battle {
            Battle::Direct | Battle::Reflex => n <= 1 || !self.attack(&after, n - 1),
            Battle::SelfPlay => {
                !aim_reached(self.aim, &after) && (n <= 1 || !self.attack(&after, n - 1))
            }
        }
    }

    /// Shortest number of attacker moves (≤ `max`) that wins from `pos` (attacker to move).
    pub(crate) fn shortest_attack(&self, pos: &Position, max: u32) -> Option<u32> {
        (1..=max).find(|&k| self.attack(pos, k))
    }
}

/// Move indices by score, best first; equal scores in generation order. No allocation.
struct Order {
    keys: [u32; MAX_MOVES],
    len: usize,
    next: usize,
}

impl Order {
    fn new() -> Order {
        Order {
            keys: [0; MAX_MOVES],
            len: 0,
            next: 0,
        }
    }

    /// Scores above 2^23 are treated alike.
    #[inline]
    fn push(&mut self, score: u32, index: usize) {
        self.keys[self.len] = score.min(0xff_ffff) << 8 | (255 - index as u32);
        self.len += 1;
    }

    fn sort(&mut self) {
        self.keys[..self.len].sort_unstable_by(|a, b| b.cmp(a));
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.keys[..self.len]
            .iter()
            .map(|k| 255 - (k & 0xff) as usize)
    }

    /// The best of the rest (selection, for lists rarely walked to the end).
    #[inline]
    fn pick(&mut self) -> Option<usize> {
        if self.next >= self.len {
            return None;
        }
        let rest = &mut self.keys[self.next..self.len];
        let mut best = 0;
        for (i, &k) in rest.iter().enumerate().skip(1) {
            if k > rest[best] {
                best = i;
            }
        }
        rest.swap(0, best);
        let k = rest[0];
        self.next += 1;
        Some(255 - (k & 0xff) as usize)
    }
}

fn history_index(k: MoveKey) -> usize {
    (k.raw() & 0xfff) as usize
}

/// Builds the solution tree of a proved battle problem.
pub(crate) struct TreeBuilder<'p, 'a> {
    pub prover: &'p Prover<'a>,
    pub options: &'p SolveOptions,
}

impl TreeBuilder<'_, '_> {
    fn wants_play(&self) -> bool {
        self.options.threats || self.options.variations
    }

    /// The node for the attacker's move `m` in `pos` that wins in `k` moves, with its threat and
    /// variations when asked for. `number` is the move's number in the solution.
    pub(crate) fn attacker_node(
        &self,
        pos: &Position,
        m: &Move,
        k: u32,
        role: NodeRole,
        number: u32,
    ) -> SolutionNode {
        let mut node = SolutionNode::new(pos, m, role, number, false);
        if self.wants_play() && !self.prover.control.is_stopped() {
            let after = pos.play(m);
            self.add_play(&after, k, number, &mut node, &[]);
        }
        node
    }

    /// Threat and variations after an attacker's move (position `after`, defender to move; the
    /// move counted as the `k`-th from here, so `k - 1` remain). `refutations` are left out of the
    /// variations (they are shown as refutations of a try).
    pub(crate) fn add_play(
        &self,
        after: &Position,
        k: u32,
        number: u32,
        node: &mut SolutionNode,
        refutations: &[Move],
    ) {
        if node.flags.mate || node.flags.stalemate || !after.has_legal_move() {
            return;
        }
        // Without threats (Popeye's NoThreat) there is no zugzwang mark and no variation is
        // suppressed for the threat's sake.
        let threat = if self.options.threats {
            self.add_threat(after, k, number, node)
        } else {
            None
        };
        if self.options.variations {
            self.add_variations(
                after,
                k,
                number,
                &mut node.replies,
                refutations,
                threat.as_ref(),
            );
        }
    }

    /// The threat after an attacker's move: what he would do if the defender could pass. Sets the
    /// zugzwang flag when nothing is threatened; returns the threat moves and their length.
    fn add_threat(
        &self,
        after: &Position,
        k: u32,
        number: u32,
        node: &mut SolutionNode,
    ) -> Option<(Vec<Move>, u32)> {
        let p = self.prover;
        if after.is_check() || k <= 1 {
            return None;
        }
        let passed = after.pass()?;
        let Some(t) = p.shortest_attack(&passed, k - 1) else {
            node.flags.zugzwang = true;
            return None;
        };
        let moves = winning_moves(p, &passed, t);
        let dual = moves.len() > 1;
        for tm in &moves {
            let mut tn = self.attacker_node(&passed, tm, t, NodeRole::Threat, number + 1);
            tn.flags.dual = dual;
            tn.flags.short = t < k - 1;
            node.replies.push(tn);
        }
        Some((moves, t))
    }

    /// Every defence in `after` (attacker's move counted as the `k`-th) with the attacker's
    /// shortest answers, as Defence nodes appended to `out`. Defences the threat still beats are
    /// left out (Popeye's convention), as are `refutations` and defences with no answer.
    pub(crate) fn add_variations(
        &self,
        after: &Position,
        k: u32,
        number: u32,
        out: &mut Vec<SolutionNode>,
        refutations: &[Move],
        threat: Option<&(Vec<Move>, u32)>,
    ) {
        let p = self.prover;
        let mut defences = MoveList::new();
        after.legal_moves(&mut defences);
        let forced_aim = p.battle == Battle::Reflex && reaches_aim_in_one(p.aim, after, &defences);
        // Self play: a defence that concedes the aim early is shown only when every defence does
        // (the defender is then forced to it); otherwise it is no real defence.
        let all_concede = p.battle == Battle::SelfPlay
            && defences.iter().all(|d| aim_reached(p.aim, &after.play(d)));
        for d in defences.iter() {
            if p.control.is_stopped() {
                return;
            }
            if refutations.contains(d) {
                continue;
            }
            let after_d = after.play(d);
            let concedes = p.battle != Battle::Direct && aim_reached(p.aim, &after_d);
            if forced_aim && !concedes {
                continue;
            }
            let mut dn = SolutionNode::new(after, d, NodeRole::Defence, number, true);
            if concedes {
                if forced_aim || all_concede {
                    out.push(dn);
                }
                continue;
            }
            if k <= 1 {
                continue;
            }
            let Some(j) = p.shortest_attack(&after_d, k - 1) else {
                continue;
            };
            // Popeye's convention: a defence is no variation when it lets the attacker win faster
            // than the threat, or when every threat move still works after it.
            if let Some((threat_moves, t)) = threat {
                if j < *t
                    || threat_moves
                        .iter()
                        .all(|tm| threat_still_works(p, &after_d, tm, *t))
                {
                    continue;
                }
            }
            let conts = winning_moves(p, &after_d, j);
            let dual = conts.len() > 1;
            for c in &conts {
                let mut cn = self.attacker_node(&after_d, c, j, NodeRole::Continuation, number + 1);
                cn.flags.dual = dual;
                cn.flags.short = j < k - 1;
                dn.replies.push(cn);
            }
            out.push(dn);
        }
    }
}

/// Does the threat move `tm` (from the passed position) still win in `t` after the defence?
fn threat_still_works(p: &Prover, after_d: &Position, tm: &Move, t: u32) -> bool {
    let mut moves = MoveList::new();
    after_d.legal_moves(&mut moves);
    moves
        .iter()
        .filter(|m| m.from() == tm.from() && m.to() == tm.to() && m.promotion() == tm.promotion())
        .any(|m| p.defend(&after_d.play(m), t))
}

/// All attacker moves in `pos` that win in exactly `k` (the shortest) moves, in generation order.
pub(crate) fn winning_moves(p: &Prover, pos: &Position, k: u32) -> Vec<Move> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if p.battle == Battle::Reflex && reaches_aim_in_one(p.aim, pos, &moves) {
        return Vec::new();
    }
    moves
        .iter()
        .copied()
        .filter(|m| p.defend(&pos.play(m), k))
        .collect()
}

/// Solves a battle problem: keys (shortest first), tries and set play as asked.
pub(crate) fn solve(
    tt: &TranspositionTable,
    problem: &super::Problem,
    options: &SolveOptions,
    control: &SearchControl,
) -> super::SolutionTree {
    let stip = problem.stipulation;
    let battle = Battle::of(stip.family).expect("battle family");
    let workers = super::parallel::worker_count(options.threads);
    // One prover per thread; the first also builds the tree.
    let board = Board::default();
    let mut provers: Vec<Prover> = (0..workers)
        .map(|_| {
            let prover = Prover::new(tt, control, battle, stip.aim);
            if workers > 1 {
                prover.on_board(&board)
            } else {
                prover
            }
        })
        .collect();
    let pos = &problem.position;
    let n = stip.moves;

    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let total = moves.len() as u32;
    // In reflex play an attacker who can reach the aim at once must: no key then.
    let forced: Vec<Move> = if battle == Battle::Reflex {
        moves
            .iter()
            .filter(|m| aim_reached(stip.aim, &pos.play(m)))
            .copied()
            .collect()
    } else {
        Vec::new()
    };
    let reflex_blocked = !forced.is_empty();

    // Iterative deepening over the first moves: shortest solutions first.
    let mut key_len: Vec<Option<u32>> = vec![None; moves.len()];
    // A length whose shorter one was quick is searched on this thread alone.
    let mut passes = super::parallel::Passes::default();
    if !reflex_blocked {
        for depth in 1..=n {
            control.set_depth(depth);
            control.set_first_moves(0, total);
            let pass_started = std::time::Instant::now();
            let shared = workers > 1 && passes.next_worth_sharing();
            if shared {
                let todo: Vec<bool> = key_len.iter().map(|k| k.is_none()).collect();
                let wins =
                    super::parallel::prove_first_moves(pos, &moves, &todo, depth, &mut provers);
                for (i, w) in wins.into_iter().enumerate() {
                    if w && !control.is_stopped() {
                        key_len[i] = Some(depth);
                        control.solution_found();
                    }
                }
            } else {
                let prover = &provers[0];
                for (i, m) in moves.iter().enumerate() {
                    if key_len[i].is_none() && prover.defend(&pos.play(m), depth) {
                        key_len[i] = Some(depth);
                        control.solution_found();
                    }
                    control.first_move_done();
                    if control.is_stopped() {
                        break;
                    }
                }
            }
            let pass = pass_started.elapsed();
            passes.record(pass);
            tracing::debug!(
                length = depth,
                shared,
                seconds = pass.as_secs_f64(),
                nodes_so_far = control.nodes(),
                "length searched"
            );
            if control.is_stopped() {
                break;
            }
            if let Some(max) = options.max_solutions {
                if key_len.iter().flatten().count() as u32 >= max {
                    break;
                }
            }
        }
    }

    if workers > 1 {
        tracing::debug!(
            moves = board.helped(),
            "attacker's moves searched for another thread"
        );
    }

    // The refutations of the tries (at most one more than asked for, in generation order), each
    // first move on whichever thread is free.
    let mut refutations: Vec<Option<Vec<Move>>> = vec![None; moves.len()];
    if let Some(max_refutations) = options
        .tries
        .filter(|_| !reflex_blocked && !control.is_stopped())
    {
        let found = super::parallel::map(moves.len(), &mut provers, |i, prover| {
            if key_len[i].is_some() {
                return Vec::new();
            }
            let after = pos.play(&moves[i]);
            let mut defences = MoveList::new();
            after.legal_moves(&mut defences);
            let mut refutations = Vec::new();
            for d in defences.iter() {
                if prover.refutes(&after, d, n) {
                    refutations.push(*d);
                    if refutations.len() as u32 > max_refutations {
                        break;
                    }
                }
            }
            refutations
        });
        for (i, r) in found.into_iter().enumerate() {
            refutations[i] = r.filter(|r| !r.is_empty() && r.len() as u32 <= max_refutations);
        }
    }

    provers.truncate(1);
    let prover = &provers[0];
    let builder = TreeBuilder { prover, options };
    let mut solutions = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        if let Some(k) = key_len[i] {
            let mut node = builder.attacker_node(pos, m, k, NodeRole::Key, 1);
            node.flags.short = k < n;
            solutions.push(node);
        }
    }

    let mut tries = Vec::new();
    for (m, refutations) in moves.iter().zip(&refutations) {
        let Some(refutations) = refutations else {
            continue;
        };
        if control.is_stopped() {
            break;
        }
        let after = pos.play(m);
        let mut node = SolutionNode::new(pos, m, NodeRole::Try, 1, false);
        builder.add_play(&after, n, 1, &mut node, refutations);
        for r in refutations {
            node.replies
                .push(SolutionNode::new(&after, r, NodeRole::Refutation, 1, true));
        }
        tries.push(node);
    }

    let mut set_play = Vec::new();
    if options.set_play && !control.is_stopped() {
        if let Some(passed) = pos.pass() {
            let set_options = SolveOptions {
                variations: true,
                ..options.clone()
            };
            let set_builder = TreeBuilder {
                prover,
                options: &set_options,
            };
            set_builder.add_variations(&passed, n, 1, &mut set_play, &[], None);
        }
    }

    prover.flush();
    let count = solutions.len() as u64;
    let mut tree = super::finish_tree(
        problem,
        (solutions, count),
        tries,
        set_play,
        control,
        Some(1),
    );
    tree.reflex_forced = forced
        .iter()
        .map(|m| SolutionNode::new(pos, m, NodeRole::Forced, 1, false))
        .collect();
    tree.stats.threads = workers as u32;
    tree
}
