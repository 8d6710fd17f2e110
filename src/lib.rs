//! stipula — a chess problem solver: exhaustive verification of orthodox stipulations.
//!
//! Layers, each using only those before it:
//! `chess` (position, legality, notation) → `problem` (stipulations, options) →
//! `solve` (search, transposition table, solution tree) → `render` (Popeye text, proto/JSON) →
//! `service` (gRPC) and the CLI.

pub mod chess;
pub mod problem;
pub mod proto;
pub mod render;
pub mod service;
pub mod solve;
