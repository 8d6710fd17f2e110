//! How the men step, as (file, rank) offsets: for code that walks the board square by square
//! (legality checks, distance tables) rather than over bitboards.

/// A knight's eight jumps.
pub const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// A king's eight steps: the orthogonal and diagonal ones.
pub const KING: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The four directions of a rook's lines.
pub const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// The four directions of a bishop's lines.
pub const DIAGONAL: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
