//! Problems: a position plus a stipulation, and the options a composer asks the solver for.

mod options;
mod stipulation;

pub use options::SolveOptions;
pub use stipulation::{Aim, Family, SeriesEnd, Stipulation, StipulationError, MAX_MOVES};
