//! The `stipula` command line: a thin shell over the library (the gRPC service uses the same API).

use std::io::BufRead;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};

use stipula::chess::{perft, validate, MoveList, Position, Setup};
use stipula::problem::SolveOptions;
use stipula::render::popeye::{self, Notation};
use stipula::solve::{Problem, SearchControl, Solver};

#[derive(Parser)]
#[command(name = "stipula", version, about = "Chess problem solver: verifies stipulations by exhaustive proof")]
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
        file: String,
        #[arg(long, default_value_t = 0)]
        threads: usize,
        #[arg(long, default_value_t = stipula::solve::tt::DEFAULT_ENTRIES)]
        tt_entries: usize,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("STIPULA_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { addr, tt_entries, max_concurrent_solves } => {
            let defaults = stipula::service::ServeConfig::default();
            let config = stipula::service::ServeConfig {
                addr,
                tt_entries,
                max_concurrent_solves: max_concurrent_solves.unwrap_or(defaults.max_concurrent_solves),
            };
            let runtime = match tokio::runtime::Runtime::new() {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("stipula: cannot start the async runtime: {e}");
                    return ExitCode::from(2);
                }
            };
            eprintln!("stipula: serving stipula.v1.ProblemSolver on {addr}");
            match runtime.block_on(stipula::service::serve(config, stipula::service::shutdown_signal())) {
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
            eprintln!("{:.3} s, {:.1} M nodes/s", secs, total as f64 / secs.max(1e-9) / 1e6);
            ExitCode::SUCCESS
        }
        Command::Bench { file, threads, tt_entries } => bench(&file, threads, tt_entries),
    }
}

fn bench(file: &str, threads: usize, tt_entries: usize) -> ExitCode {
    let f = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("stipula: cannot read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let _ = (threads, tt_entries);
    for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
        let _ = line;
    }
    eprintln!("stipula: bench is not implemented yet");
    ExitCode::from(2)
}


/// Prints to stdout; a closed pipe (`stipula solve … | head`) ends quietly instead of panicking.
fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|_| stdout.flush());
}
