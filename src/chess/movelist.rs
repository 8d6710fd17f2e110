//! A fixed-capacity list of moves, so move generation never allocates.

use std::ops::{Deref, DerefMut};

use super::Move;

/// Enough for any legal position (the known maximum is 218).
pub const MAX_MOVES: usize = 256;

pub struct MoveList {
    moves: [std::mem::MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            // Written as a `const` block: the array repeat of a runtime `uninit()` value was
            // compiled into a 1.5 KB memset at every node that lists moves.
            moves: [const { std::mem::MaybeUninit::uninit() }; MAX_MOVES],
            len: 0,
        }
    }

    pub fn push(&mut self, mv: Move) {
        // Legal positions have at most 218 moves; a full list would be a generator bug.
        assert!(self.len < MAX_MOVES, "move list overflow");
        self.moves[self.len].write(mv);
        self.len += 1;
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        // SAFETY: the first `len` slots were written by `push`; Move is Copy (no drop).
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr() as *const Move, self.len) }
    }
}

impl DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        // SAFETY: as in `deref`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr() as *mut Move, self.len) }
    }
}
