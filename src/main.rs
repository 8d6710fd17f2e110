//! The `stipula` command line: a thin shell over the library (the gRPC service uses the same API).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};

use stipula::chess::{perft, validate, MoveList, Position, Setup};
use stipula::problem::SolveOptions;
use stipula::render::popeye::{self, Notation};
use stipula::solve::{Problem, SearchControl, Solver};

#[derive(Parser)]
#[command(
    name = "stipula",
    version,
    about = "Chess problem solver: verifies stipulations by exhaustive proof"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Popeye's long notation (S = knight, * = capture)
    Popeye,
    /// Standard algebraic notation
    San,
}

#[derive(Subcommand)]
enum Command {
    /// Run the gRPC service (stipula.v1.ProblemSolver, health, reflection)
    Serve {
        /// Address to listen on
        #[arg(long, env = "STIPULA_ADDR", default_value = stipula::service::DEFAULT_ADDR)]
        addr: std::net::SocketAddr,
        /// Transposition table bound, in entries, shared by all solves
        #[arg(long, env = "STIPULA_TT_ENTRIES", default_value_t = stipula::solve::tt::DEFAULT_ENTRIES)]
        tt_entries: usize,
        /// Solves allowed at once; more get RESOURCE_EXHAUSTED (default: one per core)
        #[arg(long, env = "STIPULA_MAX_CONCURRENT_SOLVES")]
        max_concurrent_solves: Option<usize>,
    },
    /// Solve a problem: `stipula solve 'FEN' '#2'`
    Solve {
        /// Position in FEN (quote it)
        fen: String,
        /// Stipulation: #n =n s#n s=n r#n h#n h#n.5 h=n ser-#n ser-h#n ser-s#n ser-r#n ser-=n ser-h=n
        stipulation: String,
        /// Show tries: first moves defeated by at most K refutations (default 1)
        #[arg(long, value_name = "K", num_args = 0..=1, default_missing_value = "1", require_equals = true)]
        tries: Option<u32>,
        /// Show set play
        #[arg(long)]
        set_play: bool,
        /// Show threats
        #[arg(long)]
        threats: bool,
        /// Show variations (defences and continuations)
        #[arg(long)]
        variations: bool,
        /// Print the result as proto3 JSON of SolveResponse (as a gRPC client sees it)
        #[arg(long)]
        json: bool,
        /// Move notation of the text output
        #[arg(long, value_enum, default_value = "popeye")]
        format: Format,
        /// Worker threads (0 = all cores)
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Stop after this many nodes
        #[arg(long)]
        node_budget: Option<u64>,
        /// Stop after this many seconds
        #[arg(long)]
        time_limit: Option<f64>,
        /// Stop after this many solutions
        #[arg(long)]
        max_solutions: Option<u32>,
        /// Transposition table size in entries
        #[arg(long, default_value_t = stipula::solve::tt::DEFAULT_ENTRIES)]
        tt_entries: usize,
    },
    /// Check a position's legality under the composition conventions (exit 0 legal, 1 illegal)
    Validate {
        fen: String,
        #[arg(long)]
        json: bool,
    },
    /// Count the leaf nodes of the legal move tree
    Perft {
        fen: String,
        depth: u32,
        /// Count per first move
        #[arg(long)]
        divide: bool,
    },
    /// Solve every problem of a corpus file and report time, nodes and nodes/s
    Bench {
        /// Corpus-format JSON lines (../shared/bench/random.jsonl, ../shared/corpus/…)
        file: String,
        /// Worker threads (0 = all cores)
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Transposition table size in entries
        #[arg(long, default_value_t = stipula::solve::tt::DEFAULT_ENTRIES)]
        tt_entries: usize,
        /// Only problems whose popeye_seconds is at least this (e.g. 0.5 for the corpus's slow ones)
        #[arg(long)]
        min_popeye: Option<f64>,
        /// Give up on a problem after this many seconds (it is reported as a timeout, a failure)
        #[arg(long)]
        time_limit: Option<f64>,
    },
}

/// A closed pipe ends the program quietly, as it does other command-line tools: Rust's
/// runtime ignores SIGPIPE, and the next print to `stipula bench | head` would panic. Not for
/// the server, whose writes to a client gone away must fail, not end it.
#[cfg(unix)]
fn quiet_on_closed_pipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restores the default action of one signal; no handler of ours is involved.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

#[cfg(not(unix))]
fn quiet_on_closed_pipe() {}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("STIPULA_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal: a log piped to grep or a file stays plain text.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve { .. }) {
        quiet_on_closed_pipe();
    }
    match cli.command {
        Command::Serve {
            addr,
            tt_entries,
            max_concurrent_solves,
        } => {
            let defaults = stipula::service::ServeConfig::default();
            let config = stipula::service::ServeConfig {
                addr,
                tt_entries,
                max_concurrent_solves: max_concurrent_solves
                    .unwrap_or(defaults.max_concurrent_solves),
            };
            let runtime = match tokio::runtime::Runtime::new() {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("stipula: cannot start the async runtime: {e}");
                    return ExitCode::from(2);
                }
            };
            eprintln!("stipula: serving stipula.v1.ProblemSolver on {addr}");
            match runtime.block_on(stipula::service::serve(
                config,
                stipula::service::shutdown_signal(),
            )) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("stipula: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Solve {
            fen,
            stipulation,
            tries,
            set_play,
            threats,
            variations,
            json,
            format,
            threads,
            node_budget,
            time_limit,
            max_solutions,
            tt_entries,
        } => {
            let problem = match Problem::parse(&fen, &stipulation) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("stipula: {e}");
                    return ExitCode::from(2);
                }
            };
            let options = SolveOptions {
                tries,
                set_play,
                threats,
                variations,
                max_solutions,
                threads,
                node_budget,
                time_limit: time_limit.map(Duration::from_secs_f64),
                ..SolveOptions::default()
            };
            let control = SearchControl::new(options.node_budget, options.time_limit);
            let solver = Solver::new(tt_entries);
            match solver.solve(&problem, &options, &control) {
                Ok(tree) => {
                    if json {
                        out(&stipula::render::json::solve_json(&tree));
                    } else {
                        let notation = match format {
                            Format::Popeye => Notation::Long,
                            Format::San => Notation::San,
                        };
                        out(popeye::render(&tree, notation).trim_end());
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("stipula: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Validate { fen, json } => {
            let setup = match Setup::from_fen(&fen) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("stipula: {e}");
                    return ExitCode::from(2);
                }
            };
            let report = validate(&setup);
            if json {
                println!("{}", stipula::render::json::validate_json(&report));
            } else if report.is_legal() {
                println!("legal");
                for a in &report.assumptions {
                    println!("  {a}");
                }
            } else {
                println!("illegal");
                for p in &report.problems {
                    println!("  {p}");
                }
            }
            if report.is_legal() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Command::Perft { fen, depth, divide } => {
            let pos = match Position::from_fen(&fen) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("stipula: {e}");
                    return ExitCode::from(2);
                }
            };
            let start = Instant::now();
            let total = if divide && depth > 0 {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                let mut total = 0;
                for m in moves.iter() {
                    let n = perft(&pos.play(m), depth - 1);
                    println!("{} {n}", m.uci());
                    total += n;
                }
                total
            } else {
                perft(&pos, depth)
            };
            let secs = start.elapsed().as_secs_f64();
            println!("{total}");
            eprintln!(
                "{:.3} s, {:.1} M nodes/s",
                secs,
                total as f64 / secs.max(1e-9) / 1e6
            );
            ExitCode::SUCCESS
        }
        Command::Bench {
            file,
            threads,
            tt_entries,
            min_popeye,
            time_limit,
        } => bench(&file, threads, tt_entries, min_popeye, time_limit),
    }
}

/// A move reduced as the corpus compares moves: piece letter, squares, capture sign, promotion.
fn normalise_move(text: &str) -> String {
    let t = text
        .replace('N', "S")
        .replace(" ep.", "")
        .replace("ep.", "");
    t.trim()
        .trim_end_matches(['+', '#', ' ', '='])
        .trim()
        .to_string()
}

fn corpus_strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Moves of a corpus solution line (`1.Kc3-d2 Qc1-c2 2.Kd2-e1 Qc2-e2 #`).
fn corpus_line(line: &str) -> Vec<String> {
    line.split_whitespace()
        .map(strip_move_number)
        .filter(|tok| tok.contains('-') || tok.contains('*'))
        .map(normalise_move)
        .collect()
}

/// `4.0-0` → `0-0`, `1...Qc1-c2` → `Qc1-c2`; a token without a move number (`0-0`) is kept.
fn strip_move_number(tok: &str) -> &str {
    let digits = tok.len() - tok.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && tok[digits..].starts_with('.') {
        tok[digits..].trim_start_matches('.')
    } else {
        tok
    }
}

/// Does the solver's answer equal the corpus line's (keys for direct play, lines otherwise)?
fn answer_matches(record: &serde_json::Value, tree: &stipula::solve::SolutionTree) -> bool {
    use std::collections::BTreeSet;
    if let Some(keys) = record.get("keys") {
        let want: BTreeSet<String> = corpus_strings(keys)
            .iter()
            .map(|k| normalise_move(k))
            .collect();
        let have: BTreeSet<String> = tree
            .solutions
            .iter()
            .map(|n| normalise_move(&n.mv.long))
            .collect();
        want == have
    } else {
        let want: BTreeSet<Vec<String>> = corpus_strings(&record["solutions"])
            .iter()
            .map(|l| corpus_line(l))
            .collect();
        let have: BTreeSet<Vec<String>> = popeye::lines(&tree.solutions)
            .iter()
            .map(|line| line.iter().map(|n| normalise_move(&n.mv.long)).collect())
            .collect();
        want == have
    }
}

fn bench(
    file: &str,
    threads: usize,
    tt_entries: usize,
    min_popeye: Option<f64>,
    time_limit: Option<f64>,
) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("stipula: cannot read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let solver = Solver::new(tt_entries);
    // Each problem is timed from its start: the helpers are started before the first.
    solver.start_helpers(threads);
    let options = SolveOptions {
        threads,
        ..SolveOptions::default()
    };
    println!(
        "{:<34} {:>8} {:>10} {:>12} {:>10} {:>9} {:>8}  answer",
        "problem", "stip", "seconds", "nodes", "Mnodes/s", "popeye s", "ratio"
    );
    let (mut log_time, mut log_ratio, mut n_time, mut n_ratio, mut wrong, mut timeouts) =
        (0.0f64, 0.0f64, 0, 0, 0, 0);
    let (mut total_nodes, mut total_secs) = (0u64, 0.0f64);
    // The problems solved slower than the reference solver: the "none slower" target.
    let mut slower: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let record: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("stipula: {file}: bad JSON line: {e}");
                return ExitCode::from(2);
            }
        };
        // Only problems whose reference answer is complete and plain ("core") can be checked.
        let popeye = record["popeye_seconds"].as_f64();
        if record["core"] == false
            || record["illegal"] == true
            || min_popeye.is_some_and(|m| popeye.is_none_or(|p| p < m))
        {
            continue;
        }
        let id = record["id"].as_str().unwrap_or("?");
        let stip = record["stipulation"].as_str().unwrap_or("");
        let problem = match Problem::parse(record["fen"].as_str().unwrap_or(""), stip) {
            Ok(p) => p,
            Err(e) => {
                println!("{id:<34} {stip:>8}  refused: {e}");
                continue;
            }
        };
        // Each problem starts from an empty table: times must not depend on the order.
        solver.table().clear();
        let control = SearchControl::new(None, time_limit.map(Duration::from_secs_f64));
        let start = Instant::now();
        let tree = match solver.solve(&problem, &options, &control) {
            Ok(t) => t,
            Err(e) => {
                println!("{id:<34} {stip:>8}  refused: {e}");
                continue;
            }
        };
        let secs = start.elapsed().as_secs_f64();
        let timed_out = tree.stop_reason.is_some();
        let ok = !timed_out && answer_matches(&record, &tree);
        if timed_out {
            timeouts += 1;
        } else if !ok {
            wrong += 1;
        }
        let nodes = tree.stats.nodes;
        total_nodes += nodes;
        total_secs += secs;
        log_time += secs.max(1e-4).ln();
        n_time += 1;
        let ratio = popeye.map(|p| p / secs.max(1e-4));
        if let Some(r) = ratio {
            log_ratio += r.ln();
            n_ratio += 1;
            if r < 1.0 {
                slower.push(format!("{id} ({r:.1}x)"));
            }
        }
        println!(
            "{:<34} {:>8} {:>10.4} {:>12} {:>10.2} {:>9} {:>8}  {}",
            id,
            stip,
            secs,
            nodes,
            nodes as f64 / secs.max(1e-9) / 1e6,
            popeye.map_or("-".into(), |p| format!("{p:.3}")),
            ratio.map_or("-".into(), |r| format!("{r:.1}x")),
            if timed_out {
                "TIMEOUT"
            } else if ok {
                "ok"
            } else {
                "WRONG"
            }
        );
    }
    println!(
        "{n_time} problems: geometric mean {:.3} s; {:.2} Mnodes/s overall; geometric mean speed-up over popeye_seconds {}; {wrong} wrong; {timeouts} timed out (counted at the time limit)",
        (log_time / n_time.max(1) as f64).exp(),
        total_nodes as f64 / total_secs.max(1e-9) / 1e6,
        if n_ratio > 0 { format!("{:.1}x", (log_ratio / n_ratio as f64).exp()) } else { "-".into() },
    );
    if n_ratio > 0 {
        println!(
            "slower than popeye_seconds: {} of {n_ratio}{}{}",
            slower.len(),
            if slower.is_empty() { "" } else { ": " },
            slower.join(", ")
        );
    }
    if let Some(peak) = peak_memory_bytes() {
        println!(
            "peak memory {:.1} MiB (table limit {:.1} MiB for {} entries)",
            peak as f64 / (1 << 20) as f64,
            solver.table().max_bytes() as f64 / (1 << 20) as f64,
            solver.table().capacity()
        );
    }
    if wrong + timeouts > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The process's peak resident memory (Linux: VmHWM of /proc/self/status).
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Prints to stdout; a closed pipe (`stipula solve … | head`) ends quietly instead of panicking.
fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|_| stdout.flush());
}
