//! The chess layer: positions, FEN, composition-aware legality, move generation and notation.
//! Built over cozy-chess's move generator; no cozy type is visible outside this module.

mod bitboard;
mod color;
pub mod fen;
mod keys;
mod move_key;
mod movelist;
mod moves;
pub mod notation;
mod position;
mod role;
mod square;
pub mod steps;
pub mod validate;

pub use bitboard::Bitboard;
pub use color::Color;
pub use fen::{CastlingFlags, FenError, Setup};
pub use move_key::MoveKey;
pub use movelist::{MoveList, MAX_MOVES};
pub use moves::{Move, MoveKind};
pub use position::{perft, MatingNet, Position, PositionError, Replies};
pub use role::Role;
pub use square::Square;
pub use validate::{validate, Illegality, ValidationReport};
